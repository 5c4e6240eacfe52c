// col2im: the inverse of im2col, summing overlapping blocks; one output element at a time,
// shared by the cpu and hip kernels. Plain C++17, every function MXC_HD.
#pragma once
#include "templates/common/math.hpp"

// col2im at output element o of y [N, C, image...] from x [N, C * prod(block), prod(blocks)]:
// the sum over block offsets k of x[n, c * K + k, b] for the block b whose offset k lands on
// the element (p = b * stride - pad_begin + k * dilation). ip = [block[s], blocks[s],
// pad_begin[s], stride[s], dilation[s]] with s spatial axes.
template <class T>
MXC_HD inline T mxc_col2im_at(const T* x, const mxc_desc& xd, const mxc_desc& od, const int64_t* ip, int64_t o) {
    using C = mxc_compute_t<T>;
    int64_t idx[MXC_MAX_RANK];
    mxc_unravel(od, o, idx);
    const int s = od.rank - 2;
    const int64_t *block = ip, *blocks = ip + s, *pad = ip + 2 * s, *stride = ip + 3 * s, *dil = ip + 4 * s;
    int64_t kn = 1;
    for (int d = 0; d < s; ++d) kn *= block[d];
    C acc = C(0);
    for (int64_t k = 0; k < kn; ++k) {
        int64_t rest = k, b = 0, bmul = 1;
        bool hit = true;
        for (int d = s - 1; d >= 0 && hit; --d) {
            const int64_t kd = rest % block[d];
            rest /= block[d];
            const int64_t q = idx[2 + d] + pad[d] - kd * dil[d];
            hit = q >= 0 && q % stride[d] == 0 && q / stride[d] < blocks[d];
            b += (q / stride[d]) * bmul;
            bmul *= blocks[d];
        }
        if (hit) acc += C(x[idx[0] * xd.strides[0] + (idx[1] * kn + k) * xd.strides[1] + b * xd.strides[2]]);
    }
    return T(acc);
}
