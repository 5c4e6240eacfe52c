// convolution_transpose: x [N, C, in...] with w [C, M/group, k...] -> y [N, M, out...], the
// gradient of convolution (ONNX ConvTranspose without bias). ip = [group, pad_begin[0..s),
// stride[0..s), dilation[0..s)], s = rank - 2. Input position i, kernel offset k reach output
// position o = i * stride - pad_begin + k * dilation; written here in gather form: for one
// output element, every (c, k) with (o + pad_begin - k * dilation) divisible by stride.
#pragma once
#include "templates/common/math.hpp"

template <class T>
MXC_HD inline mxc_compute_t<T> mxc_conv_transpose_at(const T* x, const mxc_desc& xd, const T* w, const mxc_desc& wd,
                                                     const mxc_desc& od, const int64_t* ip, int64_t o) {
    using C = mxc_compute_t<T>;
    int64_t idx[MXC_MAX_RANK];
    mxc_unravel(od, o, idx);
    const int s = od.rank - 2;
    const int64_t group = ip[0];
    const int64_t* pad = ip + 1;
    const int64_t* stride = ip + 1 + s;
    const int64_t* dil = ip + 1 + 2 * s;
    const int64_t n = idx[0], m = idx[1];
    const int64_t mg = wd.lens[1];               // output channels per group
    const int64_t cg = xd.lens[1] / group;       // input channels per group
    const int64_t g = m / mg;
    int64_t kn = 1;
    for (int d = 0; d < s; ++d) kn *= wd.lens[2 + d];
    const T* xn = x + n * xd.strides[0] + g * cg * xd.strides[1];
    const T* wm = w + g * cg * wd.strides[0] + (m - g * mg) * wd.strides[1];
    C acc = C(0);
    for (int64_t kk = 0; kk < kn; ++kk) {
        int64_t xoff = 0, woff = 0, rest = kk;
        bool inside = true;
        for (int d = s - 1; d >= 0; --d) {
            const int64_t kl = wd.lens[2 + d], ki = rest % kl;
            rest /= kl;
            const int64_t t = idx[2 + d] + pad[d] - ki * dil[d];
            if (t < 0 || t % stride[d] != 0 || t / stride[d] >= xd.lens[2 + d]) {
                inside = false;
                break;
            }
            xoff += t / stride[d] * xd.strides[2 + d];
            woff += ki * wd.strides[2 + d];
        }
        if (!inside) continue;
        for (int64_t c = 0; c < cg; ++c) acc += C(xn[xoff + c * xd.strides[1]]) * C(wm[woff + c * wd.strides[0]]);
    }
    return acc;
}
