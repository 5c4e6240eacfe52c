// The cache of whole builds: `mxc MODEL -o lib.so` run again with the same model and options
// finds the library it built before and copies it (compiler/build_driver.hpp's
// install_cached_library), without importing the model or running a pass: the rebuild of an
// unchanged model is its hash and a copy (ViT-B/16's 346 MB: 1.6-2.1 s on the H200's machine
// through the object cache alone, 2026-11-26, most of it import and passes).
//
// The key (compiler/cmd_compile.cpp) holds everything the library depends on: mxc itself (its
// binary's path, size and time), the options, the environment variables the build reads
// (environment() below), the compiler's identity, and the contents of the model and of the
// files the options name. An entry names the linked library by its object-cache key (the
// library itself stays where the link put it, object_cache's .so), keeps the header, the
// report and the summary's counts, and lists the files the import read beside the model
// (external weights) with their content hashes: a hit needs them unchanged. Entries live
// beside the objects (KEY.build) and are pruned with them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mxc::build_cache {

struct entry {
    std::string library_key; // the object cache's linked library (KEY.so)
    std::string header;      // the C header's text
    std::string report;      // --report's body before "objects" and "seconds"
    int64_t kernels = 0, arena_bytes = 0, weights_bytes = 0, objects = 0;
    std::vector<std::pair<std::string, std::string>> files; // (content hash, path) of the external files read
};

// The content hash of a file (object_cache::hasher over its bytes), "" if it cannot be read.
std::string file_hash(const std::string& path);

// The environment variables a build reads: their values are part of the key.
const std::vector<const char*>& environment();

// The entry for key in dir, if there is one and every file it lists is unchanged.
std::optional<entry> find(const std::string& dir, const std::string& key);

// Stores an entry (atomically; errors are ignored: the cache is only an optimisation).
void store(const std::string& dir, const std::string& key, const entry& e);

} // namespace mxc::build_cache
