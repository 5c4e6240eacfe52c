// deform_conv: ONNX DeformConv over 2 spatial dims. x [N, C, H, W], w [M, C/group, KH, KW],
// offset [N, offset_group*2*KH*KW, OH, OW] (per kernel tap: dy then dx), optional mask
// [N, offset_group*KH*KW, OH, OW] -> y [N, M, OH, OW]:
//   y[n,m,p,q] = sum_{c,i,j} w[m,c,i,j] * mask * x_bilinear[n, g*C/group + c,
//                p*sh - pad_h + i*dh + dy, q*sw - pad_w + j*dw + dx]
// with sampled corners outside the image reading 0. Input channel ch uses offset group
// ch / (C / offset_group). ip = [group, offset_group, pad_h, pad_w, stride_h, stride_w,
// dilation_h, dilation_w, has_mask]
#pragma once
#include "templates/common/math.hpp"

template <class T>
MXC_HD inline double mxc_deform_sample(const T* x, const mxc_desc& xd, int64_t base, double h, double w) {
    const int64_t ih = xd.lens[2], iw = xd.lens[3];
    if (h <= -1.0 || h >= static_cast<double>(ih) || w <= -1.0 || w >= static_cast<double>(iw)) return 0.0;
    const double fh = floor(h), fw = floor(w);
    const int64_t h0 = static_cast<int64_t>(fh), w0 = static_cast<int64_t>(fw);
    const double lh = h - fh, lw = w - fw;
    double v = 0.0;
    for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b) {
            const int64_t hh = h0 + a, ww = w0 + b;
            if (hh < 0 || hh >= ih || ww < 0 || ww >= iw) continue;
            const double wt = (a ? lh : 1.0 - lh) * (b ? lw : 1.0 - lw);
            v += wt * static_cast<double>(static_cast<mxc_compute_t<T>>(x[base + hh * xd.strides[2] + ww * xd.strides[3]]));
        }
    return v;
}

template <class T>
MXC_HD inline T mxc_deform_conv_at(const T* x, const mxc_desc& xd, const T* w, const mxc_desc& wd, const T* off,
                                   const mxc_desc& od_off, const T* mask, const mxc_desc& md, const mxc_desc& od,
                                   const int64_t* ip, int64_t o) {
    int64_t idx[4];
    mxc_unravel(od, o, idx); // n, m, p, q
    const int64_t n = idx[0], m = idx[1], p = idx[2], q = idx[3];
    const int64_t group = ip[0], offset_group = ip[1], cin = xd.lens[1], cg = wd.lens[1], kh = wd.lens[2], kw = wd.lens[3];
    const int64_t mg = od.lens[1] / group, g = m / mg, per_offset_group = cin / offset_group;
    auto val = [](T v) { return static_cast<double>(static_cast<mxc_compute_t<T>>(v)); };
    double acc = 0.0;
    for (int64_t c = 0; c < cg; ++c) {
        const int64_t ch = g * cg + c, og = ch / per_offset_group;
        const int64_t base = n * xd.strides[0] + ch * xd.strides[1];
        for (int64_t i = 0; i < kh; ++i)
            for (int64_t j = 0; j < kw; ++j) {
                const int64_t tap = i * kw + j;
                const int64_t oc = og * 2 * kh * kw + 2 * tap;
                const int64_t at = n * od_off.strides[0] + p * od_off.strides[2] + q * od_off.strides[3];
                const double dy = val(off[at + oc * od_off.strides[1]]), dx = val(off[at + (oc + 1) * od_off.strides[1]]);
                const double h = static_cast<double>(p * ip[4] - ip[2] + i * ip[6]) + dy;
                const double ww = static_cast<double>(q * ip[5] - ip[3] + j * ip[7]) + dx;
                double s = mxc_deform_sample(x, xd, base, h, ww);
                if (ip[8])
                    s *= val(mask[n * md.strides[0] + (og * kh * kw + tap) * md.strides[1] + p * md.strides[2] + q * md.strides[3]]);
                acc += s * val(w[m * wd.strides[0] + c * wd.strides[1] + i * wd.strides[2] + j * wd.strides[3]]);
            }
    }
    return T(static_cast<mxc_compute_t<T>>(acc));
}
