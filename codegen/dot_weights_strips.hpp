// store_dot_weights_as_strips: the constant b of cpu dot kernels stored at build time as the
// GEMM's packed panels (codegen/dot_weights_strips.cpp).
#pragma once
#include "codegen/lower.hpp"

namespace mxc {

// For every cpu dot / fused_dot of float whose b (in[1]) is a constant K x N
// matrix of packed rows, one for every batch (batch strides 0 or lengths 1), and whose product
// has more than one row (m > 1, or m = 1 in several batches: the kernel folds them into rows;
// a single row keeps the kernel's streaming gemv), stores b as ceil(N / nr) strips of K x nr
// (templates/cpu/gemm.hpp gemm_strip_index, zero past column N; nr = gemm_shape<float>::nr) and
// marks the kernel (kernel_call::b_strips; in_shapes[1] becomes the buffer's shape [strips, K,
// nr]), so that the GEMM reads the panels in place instead of packing b on every run, as ONNX
// Runtime prepacks constant GEMM weights. In place where no other kernel input reads those
// bytes and the size is the same, else a copy appended to the blob (one per weight tensor,
// however many kernels read it). Returns the number of weight tensors stored so.
int store_dot_weights_as_strips(lowered_module& l);

} // namespace mxc
