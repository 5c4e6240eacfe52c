// attention (templates/common/attention.hpp for the op): one work item per (batch, block of
// query rows). The item copies its batch's kt and v into packed compute-type buffers (rows of
// keys, rows of values), then for each query row computes the scores (the body applied to each
// product), their softmax (maximum, exponentials and sum in the compute type, the exponentials
// kept in the row buffer) and the row's outputs sum_j exp_j v[j, :] / sum: inner loops along
// contiguous buffers. The reference evaluator and constant folding run the same code.
#pragma once
#include "templates/common/attention.hpp"
#include "templates/common/pointwise_program.hpp"
#include "templates/common/team.hpp"
#include "templates/cpu/common.hpp"
#include "templates/cpu/parallel.hpp"

#include <vector>

namespace mxc {
namespace cpu {

template <class T, class F> void attention_expr(const mxc_kargs& k, F f) {
    using C = compute_t<T>;
    const mxc_desc* in = k.in_desc;
    const mxc_attention_dims a = mxc_attention_dims_of(in, *k.out_desc, k.ip);
    const int r = a.rank, extras = k.n_in - 3;
    if (a.batches == 0 || a.lq == 0 || a.dv == 0) return;
    constexpr int64_t rows_per_item = 16;
    const int64_t blocks = (a.lq + rows_per_item - 1) / rows_per_item;
    const T *q = input<T>(k, 0), *kt = input<T>(k, 1), *v = input<T>(k, 2);
    T* y = output<T>(k);
    parallel_for(a.batches * blocks, [&](int64_t item) {
        const int64_t b = item / blocks, i0 = (item % blocks) * rows_per_item;
        const int64_t i1 = i0 + rows_per_item < a.lq ? i0 + rows_per_item : a.lq;
        const int64_t qo = mxc_attention_batch_offset(in[0], a, in[0], b), ko = mxc_attention_batch_offset(in[1], a, in[0], b),
                      vo = mxc_attention_batch_offset(in[2], a, in[0], b), yo = mxc_attention_out_offset(a, in[0], b);
        std::vector<C> keys(static_cast<size_t>(a.d * a.lk)), values(static_cast<size_t>(a.lk * a.dv));
        std::vector<C> s(static_cast<size_t>(a.lk)), acc(static_cast<size_t>(a.dv));
        for (int64_t dd = 0; dd < a.d; ++dd) // keys[dd][j] = kt[dd, j]
            for (int64_t j = 0; j < a.lk; ++j)
                keys[size_t(dd * a.lk + j)] = C(kt[ko + dd * in[1].strides[r - 2] + j * in[1].strides[r - 1]]);
        for (int64_t j = 0; j < a.lk; ++j)
            for (int64_t c = 0; c < a.dv; ++c)
                values[size_t(j * a.dv + c)] = C(v[vo + j * in[2].strides[r - 2] + c * in[2].strides[r - 1]]);
        const T* e[8] = {};
        int64_t es_j[8] = {};
        for (int x = 0; x < extras && x < 8; ++x) {
            e[x] = input<T>(k, 3 + x) + mxc_attention_batch_offset(in[3 + x], a, in[0], b);
            es_j[x] = in[3 + x].strides[r - 1];
        }
        for (int64_t i = i0; i < i1; ++i) {
            for (auto& z : s) z = C(0);
            const T* qrow = q + qo + i * in[0].strides[r - 2];
            for (int64_t dd = 0; dd < a.d; ++dd) {
                const C qv = C(qrow[dd * in[0].strides[r - 1]]);
                const C* krow = keys.data() + dd * a.lk;
                for (int64_t j = 0; j < a.lk; ++j) s[size_t(j)] += qv * krow[j];
            }
            C m = mxc_lowest<C>();
            for (int64_t j = 0; j < a.lk; ++j) {
                C x[9];
                x[0] = s[size_t(j)];
                for (int xi = 0; xi < extras && xi < 8; ++xi)
                    x[1 + xi] = C(e[xi][i * in[3 + xi].strides[r - 2] + j * es_j[xi]]);
                s[size_t(j)] = f(x);
                m = mxc_op_max_nan{}(m, s[size_t(j)]);
            }
            T* yrow = y + yo + i * a.out_strides[r - 2];
            const int64_t yc = a.out_strides[r - 1];
            if (m == mxc_lowest<C>()) { // every score is -inf (a fully masked row): 0, as softmax gives
                for (int64_t c = 0; c < a.dv; ++c) yrow[c * yc] = T(C(0));
                continue;
            }
            C sum = C(0);
            for (int64_t j = 0; j < a.lk; ++j) {
                s[size_t(j)] = mxc_exp(C(s[size_t(j)] - m));
                sum += s[size_t(j)];
            }
            for (auto& z : acc) z = C(0);
            for (int64_t j = 0; j < a.lk; ++j) {
                const C p = s[size_t(j)];
                const C* vrow = values.data() + j * a.dv;
                for (int64_t c = 0; c < a.dv; ++c) acc[size_t(c)] += p * vrow[c];
            }
            for (int64_t c = 0; c < a.dv; ++c) yrow[c * yc] = T(C(acc[size_t(c)] / sum));
        }
    });
}

template <class T> void attention(const mxc_kargs& k) {
    const int64_t skip = 1 + k.ip[0]; // [rank, permutation], then the body's program
    attention_expr<T>(k, mxc_pw_program{k.ip + skip, k.n_ip - skip});
}

} // namespace cpu
} // namespace mxc
