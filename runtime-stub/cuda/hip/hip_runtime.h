// nvcc builds put runtime-stub/cuda first on the include path, so `#include <hip/hip_runtime.h>`
// in the kernel templates and the generated source lands here: HIP mapped onto CUDA.
#pragma once
#include "runtime-stub/hip_cuda_compat.h"
