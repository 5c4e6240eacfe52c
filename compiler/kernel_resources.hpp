// What the GPU compiler says each kernel of a hip build uses: registers, stack (local memory
// on NVIDIA, scratch on AMD), spills, static shared memory, occupancy. Read from the
// compiler's own report, so no GPU is needed: nvcc with `-Xptxas -v` (ptxas info lines), clang
// for gfx* with `-Rpass-analysis=kernel-resource-usage` (remarks). A kernel with a stack frame
// or spills reads and writes local memory in its inner loops: the first thing to look at when
// a kernel is slow (the layer norm's 528-byte frame: a kernel argument indexed by a variable).
// --report lists every kernel ("kernel_resources"); -v prints a summary.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace mxc {

struct kernel_resource {
    std::string kernel;          // the mangled name
    int64_t registers = -1;      // NVIDIA registers / AMD VGPRs per thread
    int64_t agprs = -1;          // AMD accumulation registers (gfx90a+), -1 elsewhere
    int64_t stack = 0;           // NVIDIA stack frame / AMD scratch, bytes per thread
    int64_t spill_stores = 0;    // NVIDIA bytes of spill stores (AMD: in stack)
    int64_t spill_loads = 0;
    int64_t shared = 0;          // static shared memory (LDS), bytes per block
    int64_t occupancy = -1;      // AMD waves per SIMD, -1 for NVIDIA (ptxas does not say)
};

// The compiler flags that print the report for --offload-arch `arch` (sm_*, gfx*); none for
// others (emu, cpu).
std::vector<std::string> kernel_resource_flags(const std::string& arch);

// The kernels of one compiler run's output, in the order it reports them (nothing when the
// output has no report).
std::vector<kernel_resource> parse_kernel_resources(const std::string& output);

// Appends the kernels of `more` that `all` does not have yet (a kernel instantiated in several
// translation units is one kernel of the library).
void merge_kernel_resources(std::vector<kernel_resource>& all, const std::vector<kernel_resource>& more);

// The demangled name (the mangled one when it cannot be demangled).
std::string demangle_kernel(const std::string& mangled);

// --report's "kernel_resources": a JSON array, one object per kernel.
std::string kernel_resources_json(const std::vector<kernel_resource>& ks);

// -v's lines: the count, the most registers, and the kernels with a stack frame or spills
// (at most `top`, the biggest frames first, names shortened).
std::string kernel_resources_summary(const std::vector<kernel_resource>& ks, std::size_t top = 5);

} // namespace mxc
