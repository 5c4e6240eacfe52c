// The files of templates/ and runtime-stub/, embedded into mxc at build time.
#pragma once
#include <string_view>
#include <vector>

namespace mxc {
struct embedded_file {
    std::string_view path;    // relative to the source root, e.g. "templates/cpu/pointwise.hpp"
    std::string_view content;
};
const std::vector<embedded_file>& embedded_files();
} // namespace mxc
