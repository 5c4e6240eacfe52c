// resize along one axis (ONNX Resize is separable: the importer applies one resize per
// resized axis). The source coordinate of output index x follows the coordinate
// transformation mode; nearest picks one element, linear and cubic weight 2 and 4 neighbours
// (more with antialias when downscaling: the filter is stretched by 1/scale and normalised).
// Neighbours outside the input repeat the edge (or get weight 0 with exclude_outside).
// ip = [axis, mode (0 nearest, 1 linear, 2 cubic), coordinate mode (0 half_pixel,
//       1 asymmetric, 2 align_corners, 3 pytorch_half_pixel, 4 tf_crop_and_resize,
//       5 half_pixel_symmetric), nearest mode (0 round_prefer_floor, 1 round_prefer_ceil,
//       2 floor, 3 ceil), exclude_outside, antialias]
// fp = [scale, roi start, roi end, cubic coefficient a, extrapolation value]
#pragma once
#include "templates/common/math.hpp"

// The source coordinate of output index x (double precision, as the ONNX reference).
MXC_HD inline double mxc_resize_coord(int mode, double x, int64_t in, int64_t out, double scale, double roi0, double roi1) {
    const double out_w = scale * static_cast<double>(in);
    switch (mode) {
    case 1: return x / scale;
    case 2: return out_w == 1.0 ? 0.0 : x * static_cast<double>(in - 1) / (out_w - 1.0);
    case 3: return out_w == 1.0 ? -0.5 : (x + 0.5) / scale - 0.5;
    case 4:
        return (out_w == 1.0 ? (roi1 - roi0) * static_cast<double>(in - 1) / 2.0
                             : x * (roi1 - roi0) * static_cast<double>(in - 1) / (out_w - 1.0)) +
               roi0 * static_cast<double>(in - 1);
    case 5: {
        const double adjust = static_cast<double>(out) / out_w;
        return static_cast<double>(in) / 2.0 * (1.0 - adjust) + (x + 0.5) / scale - 0.5;
    }
    default: return (x + 0.5) / scale - 0.5;
    }
}

// The cubic convolution kernel with coefficient a at distance d.
MXC_HD inline double mxc_cubic_weight(double d, double a) {
    d = d < 0 ? -d : d;
    if (d <= 1.0) return ((a + 2.0) * d - (a + 3.0)) * d * d + 1.0;
    if (d < 2.0) return ((a * d - 5.0 * a) * d + 8.0 * a) * d - 4.0 * a;
    return 0.0;
}

template <class T>
MXC_HD inline T mxc_resize_at(const T* x, const mxc_desc& xd, const mxc_desc& od, const int64_t* ip, const double* fp,
                              int64_t o) {
    int64_t idx[MXC_MAX_RANK];
    mxc_unravel(od, o, idx);
    const int axis = static_cast<int>(ip[0]), mode = static_cast<int>(ip[1]);
    const int64_t in = xd.lens[axis], out = od.lens[axis];
    const double scale = fp[0];
    int64_t base = 0;
    for (int d = 0; d < xd.rank; ++d)
        if (d != axis) base += idx[d] * xd.strides[d];
    const int64_t stride = xd.strides[axis];
    const double xo = mxc_resize_coord(static_cast<int>(ip[2]), static_cast<double>(idx[axis]), in, out, scale, fp[1], fp[2]);
    if (ip[2] == 4 && (xo < 0.0 || xo > static_cast<double>(in - 1))) return T(static_cast<mxc_compute_t<T>>(fp[4]));
    // The neighbours are lo - n/2 + 1 .. lo + n/2 at distances i - ratio; an integral
    // coordinate counts as ratio 1 from the element before it (as the ONNX reference).
    const double fl = floor(xo);
    const int64_t lo = fl == xo ? static_cast<int64_t>(fl) - 1 : static_cast<int64_t>(fl);
    const double ratio = xo - static_cast<double>(lo);
    auto elem = [&](int64_t i) { return x[base + (i < 0 ? 0 : i >= in ? in - 1 : i) * stride]; };
    if (mode == 0) {
        bool up = true; // the later neighbour
        if (ratio != 1.0) {
            switch (ip[3]) {
            case 1: up = ratio >= 0.5; break;
            case 2: up = false; break;
            case 3: up = true; break;
            default: up = ratio > 0.5; break;
            }
        }
        return elem(up ? lo + 1 : lo);
    }
    const double s = ip[5] && scale < 1.0 ? scale : 1.0; // antialias stretches the filter
    const int64_t start = mode == 1 ? static_cast<int64_t>(floor(-1.0 / s)) + 1 : static_cast<int64_t>(floor(-2.0 / s)) + 1;
    const int64_t n = 2 - 2 * start;
    double acc = 0.0, wsum = 0.0;
    for (int64_t j = 0; j < n; ++j) {
        const int64_t i = start + j;
        const double d = (static_cast<double>(i) - ratio) * s;
        double w = mode == 1 ? (1.0 - (d < 0 ? -d : d)) : mxc_cubic_weight(d, fp[3]);
        if (w < 0.0 && mode == 1) w = 0.0;
        const int64_t tap = lo + i;
        if (ip[4] && (tap < 0 || tap >= in)) w = 0.0;
        acc += w * static_cast<double>(static_cast<mxc_compute_t<T>>(elem(tap)));
        wsum += w;
    }
    if ((ip[5] || ip[4]) && wsum != 0.0) acc /= wsum;
    return T(static_cast<mxc_compute_t<T>>(acc));
}
