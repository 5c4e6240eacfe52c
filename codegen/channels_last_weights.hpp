// pack_channels_last_weights: the constant weights of channels-last convolutions stored
// channels-last at build time (codegen/channels_last_weights.cpp).
#pragma once
#include "codegen/lower.hpp"

namespace mxc {

// Stores the constant weights of every hip convolution that runs channels-last
// (conv_runs_channels_last, MXC_CONV_GEMM_NHWC) as [M, kh, kw, C] and gives the convolution
// their channels-last descriptor (lens [M, C, kh, kw], strides kh*kw*C, 1, kw*C, C:
// mxc_conv_w_channels_last), so that its launch does not transpose them into its scratch every
// run. In place where no other kernel input reads those bytes, else a copy appended to the
// blob (one per weight tensor, however many convolutions read it). Packed 1x1 weights are
// channels-last already and stay as they are. Call before reserve_gemm_scratch (the scratch
// then has no room for them). Returns the number of weight tensors stored so.
int pack_channels_last_weights(lowered_module& l);

} // namespace mxc
