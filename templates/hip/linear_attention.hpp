// linear_attention: one thread per (batch, KV head, value column) (templates/common/linear_attention.hpp).
#pragma once
#include "templates/common/linear_attention.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T> struct linear_attention_row {
    __device__ void operator()(const dev_args& a, int64_t r) const {
        const int di = a.ip[2] ? 4 : 0, bi = a.ip[3] ? (a.ip[2] ? 5 : 4) : 0; // absent: never read
        mxc_linear_attention_row(in_ptr<T>(a, 0), a.in_desc[0], in_ptr<T>(a, 1), a.in_desc[1], in_ptr<T>(a, 2), a.in_desc[2],
                                 in_ptr<T>(a, 3), a.in_desc[3], in_ptr<T>(a, di), a.in_desc[di], in_ptr<T>(a, bi),
                                 a.in_desc[bi], out_ptr<T>(a), a.out_desc, a.ip, a.fp, r);
    }
};
template <class T> void linear_attention(const mxc_kargs& k, hipStream_t s) {
    launch(pack(k), k.out_desc->lens[0] * k.out_desc->lens[1] * k.out_desc->lens[2], s, linear_attention_row<T>{});
}

} // namespace hip
} // namespace mxc
