// max_pool_index: the flat input index of the maximum of each max-pooling window (ONNX
// MaxPool's Indices output), shared by the cpu and hip kernels. Plain C++17, MXC_HD.
#pragma once
#include "templates/common/math.hpp"

// At output element o of [N, C, out...]: window position k of output position p reads input
// position p * stride - pad_begin + k * dilation (padding ignored); the first largest
// element wins (NaN counts largest). The index is (n * C + c) * prod(spatial) + the spatial
// index, row-major (storage_order 0) or column-major (1). ip = [storage_order,
// pad_begin[s], stride[s], lengths[s], dilation[s]].
template <class T>
MXC_HD inline int64_t mxc_pool_index_at(const T* x, const mxc_desc& xd, const mxc_desc& od, const int64_t* ip, int64_t o) {
    using C = mxc_compute_t<T>;
    int64_t idx[MXC_MAX_RANK];
    mxc_unravel(od, o, idx);
    const int s = od.rank - 2;
    const int64_t *pb = ip + 1, *stride = ip + 1 + s, *len = ip + 1 + 2 * s, *dil = ip + 1 + 3 * s;
    int64_t kn = 1, plane = 1;
    for (int d = 0; d < s; ++d) {
        kn *= len[d];
        plane *= xd.lens[2 + d];
    }
    const T* base = x + idx[0] * xd.strides[0] + idx[1] * xd.strides[1];
    int64_t best = -1;
    C bv = C(0);
    for (int64_t kk = 0; kk < kn; ++kk) {
        int64_t off = 0, flat = 0, rest = kk;
        bool in_data = true;
        int64_t pos[MXC_MAX_RANK];
        for (int d = s - 1; d >= 0; --d) {
            const int64_t ki = rest % len[d];
            rest /= len[d];
            pos[d] = idx[2 + d] * stride[d] - pb[d] + ki * dil[d];
            if (pos[d] < 0 || pos[d] >= xd.lens[2 + d]) in_data = false;
            else off += pos[d] * xd.strides[2 + d];
        }
        if (!in_data) continue;
        if (ip[0]) for (int d = s - 1; d >= 0; --d) flat = flat * xd.lens[2 + d] + pos[d];
        else for (int d = 0; d < s; ++d) flat = flat * xd.lens[2 + d] + pos[d];
        const C v = C(base[off]);
        if (best < 0 || (bv == bv && (v > bv || v != v))) {
            best = flat;
            bv = v;
        }
    }
    return (idx[0] * xd.lens[1] + idx[1]) * plane + (best < 0 ? 0 : best);
}
