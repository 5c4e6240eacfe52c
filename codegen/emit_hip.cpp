// The hip emitter: kernels launch on the instance's stream, mxc::hip::<kernel><T>(k, stream).
// The same source builds for AMD (clang -x hip) and NVIDIA (nvcc, where runtime-stub/cuda
// shadows <hip/hip_runtime.h> with the HIP->CUDA compatibility header).
#include "codegen/emit.hpp"

namespace mxc {
target_style hip_style() {
    target_style s;
    s.target = "hip";
    s.source_name = "model.hip";
    s.prologue = "#include <hip/hip_runtime.h>\n#define MXC_TARGET_HIP 1\n";
    s.run_extra_param = ", hipStream_t stream";
    s.call_suffix = ", stream";
    return s;
}
} // namespace mxc
