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
    std::vector<std::string> units; // further translation units (kernels), compiled like it
    std::vector<std::size_t> unit_kernel_counts; // kernels defined in the model source, then in each unit
    std::string weights_source;     // path of the host file embedding weights.bin
    std::string header;             // path of the C header
    std::string exports;            // path of the linker version script
    std::vector<source_file> files; // every generated file (the model source, header, weights, ...)
};

// The version of the generated libraries' C API (bumped when it changes incompatibly).
constexpr int abi_version = 2; // 2: mxc_options.no_graph, <name>_run_async

// A kernel's name and line in the IR text (for the kernel table of tool builds).
struct kernel_note {
    std::string name; // "main:@5"
    std::string text; // the instruction as the printer writes it
};

// What a build contains beyond the plain library.
struct emit_flags {
    bool profile = false;       // MXC_PROFILE: <name>_profile times every kernel
    bool debug_trace = false;   // MXC_DEBUG_TRACE: MXC_TRACE_EVAL and <name>_debug_run
    std::string build_info;     // returned by <name>_build_info(): what built the library
    std::vector<kernel_note> notes; // one per kernel, needed when profile or debug_trace
    // Splitting the kernels into several translation units that compile in parallel: about
    // this many distinct template instantiations per unit (0: one unit), at most max_units.
    int groups_per_unit = 0;
    int max_units = 8;
};

// target: "cpu" or "hip"; name: the C identifier prefixing every exported symbol.
emitted_library emit_library(const lowered_module& l, const std::string& target, const std::string& name,
                             const emit_flags& flags = {});
// The same, with l's weights blob moved into weights.bin, not copied (a model's weights can be
// hundreds of MB): l.weights is left empty.
emitted_library emit_library(lowered_module&& l, const std::string& target, const std::string& name,
                             const emit_flags& flags = {});

// The names emit_library gives the files (model source, units, weights, header, exports)
// without generating them.
emitted_library library_layout(const lowered_module& l, const std::string& target, const std::string& name,
                               const emit_flags& flags = {});

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

// The model source for a style (shared by both targets), with every kernel in it; or with
// only the kernels whose unit[i] is 0 (the others are declared: emit_library writes them to
// kernels<unit>.cpp/.hip).
std::string emit_model_source(const lowered_module& l, const std::string& name, const target_style& style,
                              const emit_flags& flags = {});
std::string emit_model_source(const lowered_module& l, const std::string& name, const target_style& style,
                              const emit_flags& flags, const std::vector<int>& unit);

// Tool builds (emit_hooks.cpp): the kernel notes of a lowered module, the kernel table, and
// each kernel's FLOPs and bytes.
std::vector<kernel_note> kernel_notes(const module& m, const lowered_module& l);
std::string emit_kernel_table(const lowered_module& l, const std::vector<kernel_note>& notes);
double kernel_flops(const kernel_call& k);
double kernel_bytes(const kernel_call& k);

// The headers of templates/<target>/ that define the kernels `l` calls, sorted.
std::vector<std::string> kernel_headers(const lowered_module& l, const std::string& target);

// Fused kernels (emit_fused.cpp): the body functor of kernel `id` and the call that uses it.
bool is_fused_kernel(const kernel_call& k);
std::string fused_body_functor(const kernel_call& k, const std::string& id);
// cfg: "" or the chosen kernel's template arguments (hip_launch_choice::args, codegen/gemm_choice.hpp).
std::string fused_call(const kernel_call& k, const std::string& id, const target_style& st, const std::string& cfg = "");

// The C header (from runtime-stub/model.h) with the name and sizes filled in.
std::string emit_header(const lowered_module& l, const std::string& name, const std::string& target);

// A C string literal for any bytes.
std::string c_string(const std::string& s);

} // namespace mxc
