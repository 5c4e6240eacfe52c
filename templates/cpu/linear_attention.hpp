// linear_attention: one row per (batch, KV head, value column) (templates/common/linear_attention.hpp).
#pragma once
#include "templates/common/linear_attention.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T> void linear_attention(const mxc_kargs& k) {
    const int di = k.ip[2] ? 4 : 0, bi = k.ip[3] ? (k.ip[2] ? 5 : 4) : 0; // absent: never read
    const int64_t rows = k.out_desc->lens[0] * k.out_desc->lens[1] * k.out_desc->lens[2];
    for (int64_t r = 0; r < rows; ++r)
        mxc_linear_attention_row(input<T>(k, 0), k.in_desc[0], input<T>(k, 1), k.in_desc[1], input<T>(k, 2), k.in_desc[2],
                                 input<T>(k, 3), k.in_desc[3], input<T>(k, di), k.in_desc[di], input<T>(k, bi),
                                 k.in_desc[bi], output<T>(k), *k.out_desc, k.ip, k.fp, r);
}

} // namespace cpu
} // namespace mxc
