#include "compiler/build_cache.hpp"

#include "compiler/object_cache.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace mxc::build_cache {

std::string file_hash(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return "";
    object_cache::hasher h;
    std::string buf(std::size_t(8) << 20, '\0'); // pieces of 8 MiB: the hash of a file is that of its pieces
    bool ok = true;
    for (;;) {
        ssize_t n = ::read(fd, buf.data(), buf.size());
        if (n < 0) {
            ok = false;
            break;
        }
        if (n == 0) break;
        h.add(std::string_view(buf.data(), static_cast<std::size_t>(n)));
    }
    ::close(fd);
    return ok ? h.hex() : "";
}

const std::vector<const char*>& environment() {
    // Every variable the compiler reads while it builds (getenv in compiler/, codegen/, passes/:
    // test/unit/test_build_cache.cpp checks that the list names them all).
    // (PATH chooses the compiler, whose resolved identity is in the key already.)
    static const std::vector<const char*> names = {"CXX",           "MXC_CPU_CFLAGS", "MXC_CHANNELS_LAST", "MXC_FP32_MMA",
                                                   "MXC_MMA_ATTENTION", "MXC_LARGE_RING", "MXC_FUSE_ATTENTION"};
    return names;
}

namespace {
std::string entry_path(const std::string& dir, const std::string& key) { return (fs::path(dir) / (key + ".build")).string(); }

// "NAME BYTES\n" then the bytes.
void put_blob(std::ostream& o, const char* name, const std::string& text) { o << name << ' ' << text.size() << '\n' << text; }
bool get_blob(std::istream& in, const char* name, std::string& text) {
    std::string word;
    std::size_t n = 0;
    if (!(in >> word >> n) || word != name || in.get() != '\n') return false;
    text.assign(n, '\0');
    return static_cast<bool>(in.read(text.data(), static_cast<std::streamsize>(n)));
}
} // namespace

std::optional<entry> find(const std::string& dir, const std::string& key) {
    if (dir.empty()) return std::nullopt;
    std::ifstream in(entry_path(dir, key), std::ios::binary);
    if (!in) return std::nullopt;
    entry e;
    std::string word;
    int64_t files = 0;
    if (!(in >> word) || word != "mxc-build-1") return std::nullopt;
    if (!(in >> word >> e.library_key) || word != "library") return std::nullopt;
    if (!(in >> word >> e.kernels >> e.arena_bytes >> e.weights_bytes >> e.objects) || word != "counts") return std::nullopt;
    if (!(in >> word >> files) || word != "files" || files < 0) return std::nullopt;
    for (int64_t i = 0; i < files; ++i) {
        std::string hash, path;
        if (!(in >> hash) || in.get() != ' ' || !std::getline(in, path)) return std::nullopt;
        if (file_hash(path) != hash) return std::nullopt; // an external weights file changed
        e.files.push_back({hash, path});
    }
    if (!get_blob(in, "header", e.header) || !get_blob(in, "report", e.report)) return std::nullopt;
    std::error_code ec;
    fs::last_write_time(entry_path(dir, key), fs::file_time_type::clock::now(), ec); // kept from pruning
    return e;
}

void store(const std::string& dir, const std::string& key, const entry& e) {
    if (dir.empty() || e.library_key.empty()) return;
    std::ostringstream o;
    o << "mxc-build-1\nlibrary " << e.library_key << "\ncounts " << e.kernels << ' ' << e.arena_bytes << ' '
      << e.weights_bytes << ' ' << e.objects << "\nfiles " << e.files.size() << '\n';
    for (auto& [hash, path] : e.files) o << hash << ' ' << path << '\n';
    put_blob(o, "header", e.header);
    o << '\n';
    put_blob(o, "report", e.report);
    std::error_code ec;
    fs::create_directories(dir, ec);
    const std::string dest = entry_path(dir, key);
    std::string tmp = dest + ".tmp-XXXXXX";
    int fd = mkstemp(tmp.data());
    if (fd < 0) return;
    const std::string text = o.str();
    bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    if (ok) fs::rename(tmp, dest, ec);
    if (!ok || ec) fs::remove(tmp, ec);
}

} // namespace mxc::build_cache
