// What the build driver and the conformance runner's cached builds share: writing a generated
// file and running a compiler.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace mxc {

// Writes `content` to `path`, creating its directories. Throws mxc::error.
void write_file(const std::filesystem::path& path, std::string_view content);

// Whether the regular files a and b have the same bytes (false when either cannot be read).
// Reads both through read-only mappings: no copy, no new memory.
bool same_file_content(const std::string& a, const std::string& b);

struct process_result {
    int status = -1;    // exit status; 126: cannot enter cwd; 127: could not be started
    std::string output; // stdout and stderr together
};

// Runs argv[0] (searched in PATH) in `cwd` ("": here) without a shell, capturing its output.
// `cleanup_slot`: the registered directory the process works in (Ctrl-C stops it;
// compiler/cleanup.hpp), -1 for none. Throws mxc::error when it cannot fork.
process_result run_process(const std::vector<std::string>& args, const std::string& cwd, int cleanup_slot = -1);

} // namespace mxc
