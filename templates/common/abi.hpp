// The one calling convention of every kernel template, cpu and hip alike.
// A kernel reads its inputs through descriptors (lens and strides in elements, so strided
// views need no copy) and writes a standard (packed) output. Integer and float parameters
// come packed in `ip` / `fp` in the order the op definition documents.
// Generated code passes descriptors and parameters as static constants (compile-time shapes);
// the reference evaluator builds the same structs at run time.
#pragma once
#include <stdint.h>

#define MXC_MAX_RANK 8

struct mxc_desc {
    int32_t rank;
    int64_t lens[MXC_MAX_RANK];
    int64_t strides[MXC_MAX_RANK];
};

struct mxc_kargs {
    int32_t n_in;
    const void* const* in;   // n_in input pointers (already offset to the first element)
    const mxc_desc* in_desc; // n_in descriptors
    void* out;
    const mxc_desc* out_desc;
    const int64_t* ip;       // integer parameters
    int32_t n_ip;
    const double* fp;        // float parameters
    int32_t n_fp;
    void* scratch = nullptr; // the arena's scratch for the kernel (kernel_call::scratch, codegen/lower.hpp), else null
};
