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

// Whether the batch dims of the product fold into its rows: b is one matrix for every batch
// (batch strides 0 or dims of 1) and a's batch dims and rows form one run of equally spaced
// rows. Then it is one [Z*M, K] x [K, N] product, its rows in the packed output's order (a
// transformer's projections when the exporter keeps a [seq, 1, features] layout: M = 1, Z =
// seq, and the weight matrix broadcast). Returns the stride of those rows (elements), 0 when
// it does not fold (or there is no batch dim above 1).
MXC_HD inline int64_t mxc_dot_fold_rows(const mxc_desc& ad, const mxc_desc& bd, const mxc_desc& od) {
    const int r = od.rank;
    if (r < 3 || ad.rank != r || bd.rank != r) return 0;
    int64_t len = od.lens[r - 2], stride = ad.strides[r - 2];
    bool folded = false;
    for (int d = r - 3; d >= 0; --d) {
        if (od.lens[d] == 1) continue;
        if ((bd.lens[d] != 1 && bd.strides[d] != 0) || ad.lens[d] != od.lens[d] || ad.strides[d] <= 0) return 0;
        if (len == 1) stride = ad.strides[d];
        else if (ad.strides[d] != len * stride) return 0;
        len *= od.lens[d];
        folded = true;
    }
    return folded && stride > 0 ? stride : 0;
}
