// roi_align: x [N, C, H, W], rois [R, 4] (x1, y1, x2, y2 in input coordinates times
// spatial_scale), batch_indices [R] -> y [R, C, OH, OW]. Each output bin averages (or takes
// the largest weighted corner of) grid_h * grid_w bilinear samples at the bin's sub-cell
// centres; a sample beyond one pixel outside the image counts as 0.
// ip = [mode (0 avg, 1 max), half_pixel (coordinates shifted by -0.5), sampling_ratio
// (0: ceil(roi size / bins)), batch indices are int64 (1) or int32 (0)]; fp = [spatial_scale]
#pragma once
#include "templates/common/math.hpp"

template <class T>
MXC_HD inline T mxc_roi_align_at(const T* x, const mxc_desc& xd, const T* rois, const mxc_desc& rd, const void* bi,
                                 const mxc_desc& bd, const mxc_desc& od, const int64_t* ip, const double* fp, int64_t o) {
    int64_t idx[4];
    mxc_unravel(od, o, idx); // r, c, ph, pw
    const int64_t r = idx[0], c = idx[1], ph = idx[2], pw = idx[3];
    const int64_t oh = od.lens[2], ow = od.lens[3], h = xd.lens[2], w = xd.lens[3];
    auto roi = [&](int j) {
        return static_cast<double>(static_cast<mxc_compute_t<T>>(rois[r * rd.strides[0] + j * rd.strides[1]]));
    };
    const bool max_mode = ip[0] != 0, half_pixel = ip[1] != 0;
    const double scale = fp[0], shift = half_pixel ? 0.5 : 0.0;
    const double x0 = roi(0) * scale - shift, y0 = roi(1) * scale - shift;
    double rw = roi(2) * scale - shift - x0, rh = roi(3) * scale - shift - y0;
    if (!half_pixel) {
        rw = rw > 1.0 ? rw : 1.0;
        rh = rh > 1.0 ? rh : 1.0;
    }
    const double bin_h = rh / static_cast<double>(oh), bin_w = rw / static_cast<double>(ow);
    const int64_t gh = ip[2] > 0 ? ip[2] : static_cast<int64_t>(ceil(rh / static_cast<double>(oh)));
    const int64_t gw = ip[2] > 0 ? ip[2] : static_cast<int64_t>(ceil(rw / static_cast<double>(ow)));
    int64_t n = ip[3] ? static_cast<const int64_t*>(bi)[r * bd.strides[0]] : static_cast<const int32_t*>(bi)[r * bd.strides[0]];
    if (n < 0 || n >= xd.lens[0]) return T(static_cast<mxc_compute_t<T>>(0.0));
    const int64_t base = n * xd.strides[0] + c * xd.strides[1];
    auto at = [&](int64_t yy, int64_t xx) {
        return static_cast<double>(static_cast<mxc_compute_t<T>>(x[base + yy * xd.strides[2] + xx * xd.strides[3]]));
    };
    double acc = 0.0;
    bool first = true;
    for (int64_t iy = 0; iy < gh; ++iy) {
        double yy = y0 + static_cast<double>(ph) * bin_h + (static_cast<double>(iy) + 0.5) * bin_h / static_cast<double>(gh);
        for (int64_t ix = 0; ix < gw; ++ix) {
            double xx = x0 + static_cast<double>(pw) * bin_w + (static_cast<double>(ix) + 0.5) * bin_w / static_cast<double>(gw);
            double v = 0.0;
            if (!(yy < -1.0 || yy > static_cast<double>(h) || xx < -1.0 || xx > static_cast<double>(w))) {
                double sy = yy < 0 ? 0 : yy, sx = xx < 0 ? 0 : xx;
                int64_t ylo = static_cast<int64_t>(sy), xlo = static_cast<int64_t>(sx), yhi = ylo + 1, xhi = xlo + 1;
                if (ylo >= h - 1) {
                    ylo = yhi = h - 1;
                    sy = static_cast<double>(ylo);
                }
                if (xlo >= w - 1) {
                    xlo = xhi = w - 1;
                    sx = static_cast<double>(xlo);
                }
                const double ly = sy - static_cast<double>(ylo), lx = sx - static_cast<double>(xlo), hy = 1.0 - ly, hx = 1.0 - lx;
                const double a = hy * hx * at(ylo, xlo), b = hy * lx * at(ylo, xhi), cc = ly * hx * at(yhi, xlo),
                             d = ly * lx * at(yhi, xhi);
                if (max_mode) {
                    v = a > b ? a : b;
                    v = v > cc ? v : cc;
                    v = v > d ? v : d;
                } else {
                    v = a + b + cc + d;
                }
            }
            if (max_mode) acc = first || v > acc ? v : acc;
            else acc += v;
            first = false;
        }
    }
    const int64_t count = gh * gw > 0 ? gh * gw : 1;
    return T(static_cast<mxc_compute_t<T>>(max_mode ? acc : acc / static_cast<double>(count)));
}
