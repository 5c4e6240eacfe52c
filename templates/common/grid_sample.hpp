// grid_sample: x [N, C, D1..Dr] sampled at grid [N, O1..Or, r] (normalised coordinates in
// [-1, 1], innermost dim first: x, y, z) -> y [N, C, O1..Or]. Linear weights 2^r neighbours,
// cubic (a = -0.75) 4^r, nearest rounds half to even. Out-of-range neighbours read 0
// (zeros), the edge (border) or the mirrored element (reflection, which also mirrors the
// coordinate). ip = [mode (0 nearest, 1 linear, 2 cubic), padding (0 zeros, 1 border,
// 2 reflection), align_corners]
#pragma once
#include "templates/common/math.hpp"
#include "templates/common/resize.hpp"

// Mirrors v into [lo, hi].
MXC_HD inline double mxc_reflect(double v, double lo, double hi) {
    const double range = hi - lo;
    if (range <= 0) return lo;
    if (v < lo) {
        const double dx = lo - v;
        const int64_t n = static_cast<int64_t>(dx / range);
        const double r = dx - static_cast<double>(n) * range;
        return n % 2 == 0 ? lo + r : hi - r;
    }
    if (v > hi) {
        const double dx = v - hi;
        const int64_t n = static_cast<int64_t>(dx / range);
        const double r = dx - static_cast<double>(n) * range;
        return n % 2 == 0 ? hi - r : lo + r;
    }
    return v;
}

template <class T>
MXC_HD inline T mxc_grid_sample_at(const T* x, const mxc_desc& xd, const T* grid, const mxc_desc& gd,
                                   const mxc_desc& od, const int64_t* ip, int64_t o) {
    int64_t idx[MXC_MAX_RANK];
    mxc_unravel(od, o, idx);
    const int r = xd.rank - 2, mode = static_cast<int>(ip[0]), pad = static_cast<int>(ip[1]);
    const bool align = ip[2] != 0;
    // Source coordinates, outermost spatial dim first.
    double pos[3];
    int64_t g = idx[0] * gd.strides[0];
    for (int d = 0; d < r; ++d) g += idx[d + 2] * gd.strides[d + 1];
    for (int d = 0; d < r; ++d) {
        const double len = static_cast<double>(xd.lens[d + 2]);
        const double v = static_cast<double>(static_cast<mxc_compute_t<T>>(grid[g + (r - 1 - d) * gd.strides[r + 1]]));
        double p = align ? (v + 1.0) / 2.0 * (len - 1.0) : ((v + 1.0) * len - 1.0) / 2.0;
        if (pad == 1 && mode != 2) p = p < 0 ? 0 : p > len - 1.0 ? len - 1.0 : p;
        if (pad == 2) p = align ? mxc_reflect(p, 0.0, len - 1.0) : mxc_reflect(p, -0.5, len - 0.5);
        pos[d] = p;
    }
    const int64_t base = idx[0] * xd.strides[0] + idx[1] * xd.strides[1];
    // The element at integer position i (per dim), or the padding.
    auto fetch = [&](const int64_t* i) -> double {
        int64_t off = base;
        for (int d = 0; d < r; ++d) {
            int64_t k = i[d];
            const int64_t len = xd.lens[d + 2];
            if (k < 0 || k >= len) {
                if (pad == 0) return 0.0;
                if (pad == 1) k = k < 0 ? 0 : len - 1;
                else {
                    const double lo = align ? 0.0 : -0.5, hi = align ? static_cast<double>(len - 1) : static_cast<double>(len) - 0.5;
                    k = static_cast<int64_t>(mxc_reflect(static_cast<double>(k), lo, hi));
                    k = k < 0 ? 0 : k >= len ? len - 1 : k;
                }
            }
            off += k * xd.strides[d + 2];
        }
        return static_cast<double>(static_cast<mxc_compute_t<T>>(x[off]));
    };
    int64_t at[3];
    if (mode == 0) {
        for (int d = 0; d < r; ++d) {
            double f = floor(pos[d]), diff = pos[d] - f;
            // round half to even
            at[d] = static_cast<int64_t>(diff > 0.5 || (diff == 0.5 && static_cast<int64_t>(f) % 2 != 0) ? f + 1 : f);
        }
        return T(static_cast<mxc_compute_t<T>>(fetch(at)));
    }
    const int taps = mode == 1 ? 2 : 4;
    int64_t lo[3];
    double w[3][4];
    for (int d = 0; d < r; ++d) {
        const double f = floor(pos[d]), t = pos[d] - f;
        lo[d] = static_cast<int64_t>(f) - (mode == 1 ? 0 : 1);
        if (mode == 1) { w[d][0] = 1.0 - t; w[d][1] = t; }
        else for (int k = 0; k < 4; ++k) w[d][k] = mxc_cubic_weight(static_cast<double>(k - 1) - t, -0.75);
    }
    int64_t combos = 1;
    for (int d = 0; d < r; ++d) combos *= taps;
    double acc = 0.0;
    for (int64_t cmb = 0; cmb < combos; ++cmb) {
        int64_t rest = cmb;
        double wt = 1.0;
        for (int d = r - 1; d >= 0; --d) {
            const int k = static_cast<int>(rest % taps);
            rest /= taps;
            at[d] = lo[d] + k;
            wt *= w[d][k];
        }
        if (wt != 0.0) acc += wt * fetch(at);
    }
    return T(static_cast<mxc_compute_t<T>>(acc));
}
