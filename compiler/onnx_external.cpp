#include "compiler/onnx_external.hpp"
#include "compiler/onnx_node.hpp"
#include "ir/error.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace mxc::onnx_detail {

namespace {
int64_t parse_count(const std::string& what, const std::string& key, const std::string& v) {
    int64_t r = -1;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), r);
    if (ec != std::errc{} || p != v.data() + v.size() || r < 0)
        throw error(what + ": external data " + key + " '" + v + "' is not a non-negative integer");
    return r;
}

// True when `p` (canonical) is `dir` (canonical) or inside it.
bool inside(const fs::path& p, const fs::path& dir) {
    auto d = dir.begin(), q = p.begin();
    for (; d != dir.end(); ++d, ++q)
        if (q == p.end() || *q != *d) return d != dir.end() && d->empty() && std::next(d) == dir.end();
    return true;
}

fs::path canonical_or_throw(const fs::path& p, const std::string& what) {
    std::error_code ec;
    auto c = fs::canonical(p, ec);
    if (ec) throw error(what + ": cannot open its external data file '" + p.lexically_normal().string() + "': " + ec.message());
    return c;
}

struct fd_guard {
    int fd;
    ~fd_guard() {
        if (fd >= 0) ::close(fd);
    }
};
} // namespace

bool has_external_data(const onnx::TensorProto& t) {
    return t.data_location() == onnx::TensorProto::EXTERNAL || t.external_data_size() > 0;
}

literal external_tensor_to_literal(const onnx::TensorProto& t, const std::string& what,
                                   const external_data_options& opts) {
    std::string location;
    int64_t offset = 0, length = -1;
    for (auto& kv : t.external_data()) {
        if (kv.key() == "location") location = kv.value();
        else if (kv.key() == "offset") offset = parse_count(what, "offset", kv.value());
        else if (kv.key() == "length") length = parse_count(what, "length", kv.value());
    }
    if (location.empty()) throw error(what + " keeps its data in an external file but names no location");
    if (opts.model_dir.empty())
        throw error(what + " keeps its data in an external file '" + location +
                    "', but the model was not read from a file");
    int64_t bytes = 0;
    shape s = tensor_shape(t, what, bytes);

    fs::path loc(location);
    bool allow_any = !opts.allowed_dirs.empty();
    if (!allow_any) {
        if (loc.is_absolute())
            throw error(what + ": external data location '" + location +
                        "' is an absolute path (refused; pass --allow-external-data DIR to allow files under DIR)");
        for (auto& part : loc)
            if (part == "..")
                throw error(what + ": external data location '" + location +
                            "' contains '..' (refused; pass --allow-external-data DIR to allow files under DIR)");
    }
    fs::path file = canonical_or_throw(fs::path(opts.model_dir) / loc, what);
    bool ok = inside(file, canonical_or_throw(opts.model_dir, what));
    for (auto& d : opts.allowed_dirs) ok = ok || inside(file, canonical_or_throw(d, "--allow-external-data"));
    if (!ok)
        throw error(what + ": external data location '" + location + "' leads to " + file.string() +
                    ", outside the model's folder (refused; pass --allow-external-data DIR to allow files under DIR)");

    if (opts.files_read) opts.files_read->insert(file.string());
    fd_guard f{::open(file.c_str(), O_RDONLY | O_CLOEXEC)};
    if (f.fd < 0) throw error(what + ": cannot open its external data file '" + location + "': " + std::strerror(errno));
    struct stat st {};
    if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode))
        throw error(what + ": external data file '" + location + "' is not a regular file");
    int64_t size = static_cast<int64_t>(st.st_size);
    if (length >= 0 && length != bytes)
        throw error(what + ": external data length " + std::to_string(length) + " disagrees with its shape " +
                    to_string(s.lens) + ", which needs " + std::to_string(bytes) + " bytes");
    if (offset > size || size - offset < bytes)
        throw error(what + ": external data file '" + location + "' has " + std::to_string(size) +
                    " bytes, too short for " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset));

    std::vector<char> data(static_cast<std::size_t>(bytes));
    std::size_t done = 0;
    while (done < data.size()) {
        ssize_t n = ::pread(f.fd, data.data() + done, std::min<std::size_t>(data.size() - done, 1 << 30),
                            static_cast<off_t>(offset + static_cast<int64_t>(done)));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw error(what + ": cannot read its external data file '" + location + "'");
        done += static_cast<std::size_t>(n);
    }
    return literal(s, std::move(data));
}

} // namespace mxc::onnx_detail
