// attention (templates/common/attention.hpp for the op) on the cpu: per batch and block of at
// most 256 query rows, the three kernels the op replaces, on a buffer of the block's scores
// instead of the arena: the fused dot body(q kt, extras) (templates/cpu/fused.hpp: the
// blocked GEMM with the body as its epilogue), the softmax of its rows in place
// (templates/cpu/softmax.hpp), their product with v (templates/cpu/dot.hpp), stored where the
// output permutation puts the rows. So the values are those of the unfused ops, element for
// element (scores and probabilities rounded to T as they are stored), and each step keeps its
// speed; the scores take rows x Lk elements at a time, not batches x Lq x Lk. The reference
// evaluator and constant folding run the same code.
#pragma once
#include "templates/common/attention.hpp"
#include "templates/common/pointwise_program.hpp"
#include "templates/cpu/common.hpp"
#include "templates/cpu/dot.hpp"
#include "templates/cpu/fused.hpp"
#include "templates/cpu/softmax.hpp"

#include <vector>

namespace mxc {
namespace cpu {

inline mxc_desc attention_matrix(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride) {
    mxc_desc d{};
    d.rank = 2;
    d.lens[0] = rows;
    d.lens[1] = cols;
    d.strides[0] = row_stride;
    d.strides[1] = col_stride;
    return d;
}

template <class T, class F> void attention_expr(const mxc_kargs& k, F f) {
    const mxc_desc* in = k.in_desc;
    const mxc_attention_dims a = mxc_attention_dims_of(in, *k.out_desc, k.ip);
    const int r = a.rank, n_in = k.n_in; // at most 8 (the op's limit)
    if (a.batches == 0 || a.lq == 0 || a.dv == 0) return;
    constexpr int64_t block_rows = 256;
    const int64_t rows_max = a.lq < block_rows ? a.lq : block_rows;
    std::vector<T> s(static_cast<size_t>(rows_max * a.lk)), y(static_cast<size_t>(rows_max * a.dv));
    for (int64_t b = 0; b < a.batches; ++b)
        for (int64_t i0 = 0; i0 < a.lq; i0 += block_rows) {
            const int64_t rows = a.lq - i0 < block_rows ? a.lq - i0 : block_rows;
            // scores = body(q kt, extras): q's rows i0.., the extras' rows i0..
            const void* p[8];
            mxc_desc d[8];
            p[0] = input<T>(k, 0) + mxc_attention_offset(in[0].strides, a, in[0], b) + i0 * in[0].strides[r - 2];
            d[0] = attention_matrix(rows, a.d, in[0].strides[r - 2], in[0].strides[r - 1]);
            p[1] = input<T>(k, 1) + mxc_attention_offset(in[1].strides, a, in[0], b);
            d[1] = attention_matrix(a.d, a.lk, in[1].strides[r - 2], in[1].strides[r - 1]);
            for (int e = 3; e < n_in; ++e) {
                p[e - 1] = input<T>(k, e) + mxc_attention_offset(in[e].strides, a, in[0], b) + i0 * in[e].strides[r - 2];
                d[e - 1] = attention_matrix(rows, a.lk, in[e].strides[r - 2], in[e].strides[r - 1]);
            }
            const mxc_desc sd = attention_matrix(rows, a.lk, a.lk, 1);
            const mxc_kargs scores = {n_in - 1, p, d, s.data(), &sd, nullptr, 0, nullptr, 0, nullptr};
            fused_dot_expr<T>(scores, f);
            // probabilities, in place
            const void* ps[1] = {s.data()};
            const int64_t axis[1] = {1};
            const mxc_kargs probs = {1, ps, &sd, s.data(), &sd, axis, 1, nullptr, 0, nullptr};
            softmax<T>(probs);
            // y = probabilities x v, then stored through the output's strides
            const void* pv[2] = {s.data(), input<T>(k, 2) + mxc_attention_offset(in[2].strides, a, in[0], b)};
            const mxc_desc dv[2] = {sd, attention_matrix(a.lk, a.dv, in[2].strides[r - 2], in[2].strides[r - 1])};
            const mxc_desc yd = attention_matrix(rows, a.dv, a.dv, 1);
            const mxc_kargs product = {2, pv, dv, y.data(), &yd, nullptr, 0, nullptr, 0, nullptr};
            dot<T>(product);
            T* out = output<T>(k) + mxc_attention_offset(a.out_strides, a, in[0], b) + i0 * a.out_strides[r - 2];
            for (int64_t i = 0; i < rows; ++i)
                for (int64_t c = 0; c < a.dv; ++c)
                    out[i * a.out_strides[r - 2] + c * a.out_strides[r - 1]] = y[static_cast<size_t>(i * a.dv + c)];
        }
}

template <class T> void attention(const mxc_kargs& k) {
    const int64_t skip = 1 + k.ip[0]; // [rank, permutation], then the body's program
    attention_expr<T>(k, mxc_pw_program{k.ip + skip, k.n_ip - skip});
}

} // namespace cpu
} // namespace mxc
