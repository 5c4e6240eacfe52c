#include "compiler/object_cache.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace mxc::object_cache {

namespace {
constexpr uint64_t prime1 = 0x9e3779b185ebca87ull, prime2 = 0xc2b2ae3d27d4eb4full;

uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
uint64_t mix(uint64_t lane, uint64_t word) { return rotl(lane ^ (word * prime2), 31) * prime1; }
uint64_t finish(uint64_t h) {
    h ^= h >> 33;
    h *= prime2;
    h ^= h >> 29;
    h *= prime1;
    return h ^ (h >> 32);
}
} // namespace

void hasher::add(std::string_view bytes) {
    const char* p = bytes.data();
    std::size_t n = bytes.size();
    // Four independent lanes over 32-byte blocks; the tail and the length close the piece.
    for (; n >= 32; p += 32, n -= 32)
        for (int i = 0; i < 4; ++i) {
            uint64_t w;
            std::memcpy(&w, p + 8 * i, 8);
            lanes_[i] = mix(lanes_[i], w);
        }
    for (int i = 0; n > 0; i = (i + 1) % 4) {
        uint64_t w = 0;
        std::size_t k = n < 8 ? n : 8;
        std::memcpy(&w, p, k);
        lanes_[i] = mix(lanes_[i], w ^ (static_cast<uint64_t>(k) << 56));
        p += k;
        n -= k;
    }
    length_ += bytes.size();
    for (auto& l : lanes_) l = mix(l, bytes.size() + 0x5bd1e995);
}

std::string hasher::hex() const {
    uint64_t a = finish(lanes_[0] ^ rotl(lanes_[2], 17) ^ length_);
    uint64_t b = finish(lanes_[1] ^ rotl(lanes_[3], 23) ^ (length_ * prime1));
    a = finish(a ^ b * prime2);
    char buf[40];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(a), static_cast<unsigned long long>(b));
    return buf;
}

std::string default_dir() {
    const char* env = std::getenv("MXC_CACHE_DIR");
    if (env && *env) return std::string(env) == "off" ? "" : env;
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    std::string base = xdg && *xdg ? xdg : std::string(home && *home ? home : "/tmp") + "/.cache";
    return base + "/mxc/objects";
}

std::string compiler_identity(const std::string& program) {
    std::string path = program;
    if (program.find('/') == std::string::npos) {
        path.clear();
        const char* env = std::getenv("PATH");
        std::string dirs = env ? env : "/usr/bin:/bin";
        for (std::size_t start = 0; start <= dirs.size();) {
            std::size_t end = dirs.find(':', start);
            if (end == std::string::npos) end = dirs.size();
            std::string cand = (end > start ? dirs.substr(start, end - start) : ".") + "/" + program;
            if (access(cand.c_str(), X_OK) == 0) {
                path = cand;
                break;
            }
            start = end + 1;
        }
    }
    struct stat st {};
    if (path.empty() || stat(path.c_str(), &st) != 0) return "";
    std::error_code ec;
    std::string real = fs::canonical(path, ec).string();
    return (ec ? path : real) + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
           std::to_string(st.st_mtim.tv_nsec);
}

std::string find(const std::string& dir, const std::string& key, const std::string& ext) {
    if (dir.empty()) return "";
    fs::path p = fs::path(dir) / (key + ext);
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) return "";
    fs::last_write_time(p, fs::file_time_type::clock::now(), ec);
    return p.string();
}

std::string store(const std::string& dir, const std::string& key, const std::string& object, const std::string& ext) {
    if (dir.empty()) return "";
    std::error_code ec;
    fs::create_directories(dir, ec);
    fs::path dest = fs::path(dir) / (key + ext);
    std::string tmp = dest.string() + ".tmp-XXXXXX";
    int fd = mkstemp(tmp.data());
    if (fd < 0) return "";
    close(fd);
    fs::copy_file(object, tmp, fs::copy_options::overwrite_existing, ec);
    if (!ec) fs::rename(tmp, dest, ec);
    if (ec) {
        fs::remove(tmp, ec);
        return "";
    }
    return dest.string();
}

void prune(const std::string& dir) {
    if (dir.empty()) return;
    std::error_code ec;
    fs::path stamp = fs::path(dir) / "last-prune";
    auto now = fs::file_time_type::clock::now();
    if (fs::exists(stamp, ec) && now - fs::last_write_time(stamp, ec) < std::chrono::hours(24)) return;
    std::ofstream(stamp.string()).put('\n');
    for (auto& e : fs::directory_iterator(dir, ec)) {
        std::string name = e.path().filename().string();
        if (name == "last-prune") continue;
        bool scratch = name.find(".tmp-") != std::string::npos;
        auto age = now - e.last_write_time(ec);
        if (!ec && age > (scratch ? std::chrono::hours(24) : std::chrono::hours(24 * 30))) fs::remove(e.path(), ec);
    }
}

} // namespace mxc::object_cache
