// The cache of compiled objects: a generated translation unit compiled once is kept under a
// hash of everything that decides the object (its source and what it includes, the compiler
// command, the compiler binary), and a linked library under the hash of its objects and the
// link command, so rebuilding an unchanged model compiles nothing and only copies the library. The cache lives
// in $MXC_CACHE_DIR, else $XDG_CACHE_HOME/mxc/objects, else ~/.cache/mxc/objects;
// `mxc --no-cache` (or MXC_CACHE_DIR=off) builds everything afresh.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mxc::object_cache {

// A 128-bit content hash (not cryptographic: a cache key), fast enough for 100 MB of weights.
class hasher {
public:
    void add(std::string_view bytes); // also marks where the piece ends
    std::string hex() const;          // 32 hex digits

private:
    uint64_t lanes_[4] = {0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0xa4093822299f31d0ull, 0x082efa98ec4e6c89ull};
    uint64_t length_ = 0;
};

// The default cache directory ("" when MXC_CACHE_DIR=off).
std::string default_dir();

// What identifies a compiler binary: its resolved path, size and modification time ("" if
// not found; the build then fails with its own message).
std::string compiler_identity(const std::string& program);

// The cached file for `key` in `dir` (an object, ext ".o", or a linked library, ".so"), or ""
// if there is none (a hit refreshes its time).
std::string find(const std::string& dir, const std::string& key, const std::string& ext = ".o");
// Copies a freshly built file into the cache (atomically; errors are ignored: the cache is
// only an optimisation). Returns its path in the cache, or "" if it could not be stored.
std::string store(const std::string& dir, const std::string& key, const std::string& file, const std::string& ext = ".o");
// Removes objects no build has used for 30 days (at most once a day).
void prune(const std::string& dir);

} // namespace mxc::object_cache
