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
