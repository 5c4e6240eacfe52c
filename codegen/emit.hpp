// Emitters: from a lowered module, the sources of one generated library. The model source
// (descriptors and parameters as static constants, a straight-line run function calling the
// kernel templates, then the runtime stub), the C header, the weights blob with the small
// host file that embeds it with .incbin, and the linker's export list.
#pragma once
#include "codegen/lower.hpp"

#include <functional>
#include <string>
#include <vector>

namespace mxc {

struct source_file {
    std::string path;    // relative to the build directory
    std::string content;
};

struct emitted_library {
    std::string name;               // the API prefix
    std::string target;             // "cpu" or "hip"
    std::string model_source;       // path of the translation unit to compile
    std::string weights_source;     // path of the host file embedding weights.bin
    std::string header;             // path of the C header
    std::string exports;            // path of the linker version script
    std::vector<source_file> files; // every generated file (the model source, header, weights, ...)
};

// target: "cpu" or "hip"; name: the C identifier prefixing every exported symbol.
emitted_library emit_library(const lowered_module& l, const std::string& target, const std::string& name);

// How a target spells its part of the model source (emit_cpu.cpp, emit_hip.cpp).
struct target_style {
    std::string target;          // "cpu" / "hip": also the templates/<target>/ folder
    std::string source_name;     // "model.cpp", "model.hip"
    std::string prologue;        // lines before the template includes
    std::string run_extra_param; // appended to run_kernels' parameters, e.g. ", hipStream_t stream"
    std::string call_suffix;     // appended inside the template call's argument list: ", stream"
};
target_style cpu_style();
target_style hip_style();

// The model source for a style (shared by both targets).
std::string emit_model_source(const lowered_module& l, const std::string& name, const target_style& style);

// The headers of templates/<target>/ that define the kernels `l` calls, sorted.
std::vector<std::string> kernel_headers(const lowered_module& l, const std::string& target);

// Fused kernels (emit_fused.cpp): the body functor of kernel `id` and the call that uses it.
bool is_fused_kernel(const kernel_call& k);
std::string fused_body_functor(const kernel_call& k, const std::string& id);
std::string fused_call(const kernel_call& k, const std::string& id, const target_style& st);

// The C header (from runtime-stub/model.h) with the name and sizes filled in.
std::string emit_header(const lowered_module& l, const std::string& name, const std::string& target);

// A C string literal for any bytes.
std::string c_string(const std::string& s);

} // namespace mxc
