// dot: a [..., M, K] x b [..., K, N] -> [..., M, N] (same batch lens); no parameters.
#pragma once
#include "templates/common/math.hpp"

// Element offsets of batch `batch` (row-major over the leading rank-2 dims) in a and b.
MXC_HD inline void mxc_dot_batch_offsets(const mxc_desc& ad, const mxc_desc& bd, int64_t batch, int64_t* aoff,
                                         int64_t* boff) {
    *aoff = 0;
    *boff = 0;
    for (int d = ad.rank - 3; d >= 0; --d) {
        int64_t i = batch % ad.lens[d];
        batch /= ad.lens[d];
        *aoff += i * ad.strides[d];
        *boff += i * bd.strides[d];
    }
}

// Output element o (row-major in od) of the product, in the compute type.
template <class T>
MXC_HD inline mxc_compute_t<T> mxc_dot_at(const T* a, const mxc_desc& ad, const T* b, const mxc_desc& bd,
                                          const mxc_desc& od, int64_t o) {
    using C = mxc_compute_t<T>;
    const int r = od.rank;
    const int64_t n_len = od.lens[r - 1], m_len = od.lens[r - 2], k_len = ad.lens[r - 1];
    const int64_t j = o % n_len, i = (o / n_len) % m_len, batch = o / (n_len * m_len);
    int64_t aoff, boff;
    mxc_dot_batch_offsets(ad, bd, batch, &aoff, &boff);
    const T* arow = a + aoff + i * ad.strides[r - 2];
    const T* bcol = b + boff + j * bd.strides[r - 1];
    C acc = C(0);
    for (int64_t kk = 0; kk < k_len; ++kk) acc += C(arow[kk * ad.strides[r - 1]]) * C(bcol[kk * bd.strides[r - 2]]);
    return acc;
}

// Batch dims along which b is one matrix (stride 0, or length 1 in b) fold into the rows of
// the product: a transformer's projections exported in a [seq, 1, features] layout (M = 1,
// seq batches, the weights broadcast), and attention's probabilities x values with the heads'
// transpose folded into the views ([seq, heads, 1, seq] x [seq (broadcast), heads, seq, hd]:
// M = 1 in 1536 batches) become products of seq rows. The folded rows must step evenly through
// a and through the (packed) output, and the batch dims left must collapse into one evenly
// spaced batch dim of a, b and the output. Then, for batch z < batches, row i < rows, column j:
//   a(z, i, k) = a[z * a_zs + i * a_rs + k * a_cs],  b(z, k, j) = b[z * b_zs + k * b_rs + j * b_cs],
//   out(z, i, j) = element z * o_zs + i * o_rs + j of the output.
// ok = false: nothing folds (no such dim, or the strides do not line up); run it batched.
struct mxc_dot_fold {
    bool ok;
    int64_t rows, batches, a_rs, a_zs, b_zs, o_rs, o_zs;
};

// One evenly spaced run over dims (in order, innermost last) of lens / strides, given the
// run's inner part (len, stride): false when a dim does not continue it.
MXC_HD inline bool mxc_dot_run(int64_t& len, int64_t& stride, int64_t dlen, int64_t dstride) {
    if (dlen == 1) return true;
    if (len == 1) stride = dstride;
    else if (dstride != len * stride) return false;
    len *= dlen;
    return true;
}

MXC_HD inline mxc_dot_fold mxc_dot_fold_of(const mxc_desc& ad, const mxc_desc& bd, const mxc_desc& od) {
    mxc_dot_fold f{false, 0, 0, 0, 0, 0, 0, 0};
    const int r = od.rank;
    if (r < 3 || ad.rank != r || bd.rank != r) return f;
    int64_t rows = od.lens[r - 2], a_rs = ad.strides[r - 2], o_rows = od.lens[r - 2], o_rs = od.strides[r - 2];
    int64_t za = 1, a_zs = 0, zb = 1, b_zs = 0, zo = 1, o_zs = 0;
    bool folded = false;
    for (int d = r - 3; d >= 0; --d) {
        const int64_t len = od.lens[d];
        if (len == 1) continue;
        if (ad.lens[d] != len || ad.strides[d] <= 0) return f;
        if (bd.lens[d] == 1 || bd.strides[d] == 0) { // b is the same matrix along d: rows
            if (!mxc_dot_run(rows, a_rs, len, ad.strides[d]) || !mxc_dot_run(o_rows, o_rs, len, od.strides[d])) return f;
            folded = true;
        } else if (!mxc_dot_run(za, a_zs, len, ad.strides[d]) || !mxc_dot_run(zb, b_zs, len, bd.strides[d]) ||
                   !mxc_dot_run(zo, o_zs, len, od.strides[d])) {
            return f;
        }
    }
    if (!folded || a_rs <= 0) return f;
    f = {true, rows, za, a_rs, a_zs, b_zs, rows == 1 ? 0 : o_rs, o_zs};
    return f;
}
