// float32 -> IEEE binary16 for whole arrays at compile time (the f16 weights of --fp16): the
// bits of mxc_half(float) (templates/common/types.hpp: round to nearest even, overflow to
// inf, every NaN to the quiet NaN 0x7e00 with its sign), with the x86 F16C instruction where
// the compiling machine has it (BERT-base's 110M weights: 0.9 s of scalar code), so the
// result does not depend on the machine.
#pragma once
#include <cstdint>

namespace mxc {

// out[i] = mxc_half(in[i]).bits; returns whether a finite value overflowed to inf.
bool floats_to_half(const float* in, uint16_t* out, int64_t n);

} // namespace mxc
