// store_conv_weights_as_panels: the constant weights of cpu convolutions and transposed
// convolutions stored at build time as the GEMM's row panels (codegen/conv_weights_panels.cpp).
#pragma once
#include "codegen/lower.hpp"

namespace mxc {

// For every cpu convolution / fused_convolution of float that runs as a GEMM
// (templates/cpu/convolution.hpp: conv_gemm_depth) and whose weights (in[1]) are a constant
// packed tensor [M, C / group, k...], unless its output plane ends in a strip of at most
// gemm_tail_max columns that is more than a twelfth of the strips (the GEMM's gemm_tail needs
// the weights' rows in place; see the .cpp), stores them as the GEMM's row panels, group by group
// (templates/cpu/gemm.hpp gemm_panel_index: panels of K x 6 rows, then a last one of the rows
// left; the same bytes), and marks the kernel (kernel_call::a_panels; in_shapes[1] stays
// the weights' shape: the kernel reads its dims from it), so that the GEMM reads the weights as
// one sequential stream instead of six rows K apart, as ONNX Runtime prepacks convolution
// weights. Likewise the constant weights [C, M / group, k...] of a cpu convolution_transpose /
// fused_convolution_transpose of float that runs as a GEMM (templates/cpu/
// convolution_transpose.hpp: conv_transpose_gemm_form), whose rows are (output channel, kernel
// offset) and depth the group's input channels. A convolution that runs in the pixel-rows form
// (templates/cpu/convolution.hpp: conv_rows_form, conv_rows_pointwise) has its weights stored
// as strips of 16 output channels instead (gemm_strip_index, K x M; the same bytes; still
// kernel_call::a_panels: the kernel tells the two apart by the same shape rules). In place
// where no other kernel input reads those bytes, else a copy appended to the blob. Returns the
// number of weight tensors stored so; `as_strips`, if given, counts those stored as strips.
int store_conv_weights_as_panels(lowered_module& l, int* as_strips = nullptr);

} // namespace mxc
