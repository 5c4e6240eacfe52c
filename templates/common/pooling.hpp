// pooling: x [N, C, spatial...] -> y [N, C, out...], max or average over windows.
// ip = [mode (0 max, 1 average), count_include_pad, pad_begin[s], pad_end[s], stride[s],
//       lengths[s], dilation[s]] with s = rank - 2. Window position k of output position p
// reads input position p * stride - pad_begin + k * dilation. Positions in the padding count
// for an average only with count_include_pad; positions past the padding (from ceil_mode)
// never count. Max ignores padding.
#pragma once
#include "templates/common/math.hpp"

// A 2-d pooling's geometry (ip unpacked once; rank-4 x of lens h, w and strides xs2, xs3 along
// them): the window of every output position, shared by mxc_pool_at and the hip kernel.
struct mxc_pool2d {
    int64_t h, w, xs2, xs3;
    int64_t pb[2], pe[2], stride[2], len[2], dil[2];
    bool average, include_pad;
};
MXC_HD inline mxc_pool2d mxc_pool2d_of(const mxc_desc& xd, const int64_t* ip) {
    mxc_pool2d p;
    p.h = xd.lens[2], p.w = xd.lens[3], p.xs2 = xd.strides[2], p.xs3 = xd.strides[3];
    p.average = ip[0] == 1, p.include_pad = ip[1] != 0;
    for (int d = 0; d < 2; ++d)
        p.pb[d] = ip[2 + d], p.pe[d] = ip[4 + d], p.stride[d] = ip[6 + d], p.len[d] = ip[8 + d], p.dil[d] = ip[10 + d];
    return p;
}
// The pooled value at output position (oy, ox) of the plane at base: the window in row-major
// order (the order of mxc_pool_at's general loop, so the same sums).
template <class T>
MXC_HD inline mxc_compute_t<T> mxc_pool2d_window(const T* base, const mxc_pool2d& p, int64_t oy, int64_t ox) {
    using C = mxc_compute_t<T>;
    C acc = p.average ? C(0) : mxc_lowest<C>();
    int64_t count = 0;
    for (int64_t ky = 0; ky < p.len[0]; ++ky) {
        const int64_t y = oy * p.stride[0] - p.pb[0] + ky * p.dil[0];
        if (y < -p.pb[0] || y >= p.h + p.pe[0]) continue; // past the padding: never counted
        const bool in_y = y >= 0 && y < p.h;
        for (int64_t kx = 0; kx < p.len[1]; ++kx) {
            const int64_t x = ox * p.stride[1] - p.pb[1] + kx * p.dil[1];
            if (x < -p.pb[1] || x >= p.w + p.pe[1]) continue;
            if (in_y && x >= 0 && x < p.w) {
                const C v = C(base[y * p.xs2 + x * p.xs3]);
                if (p.average) acc += v;
                else if (acc < v) acc = v;
                ++count;
            } else if (p.include_pad) {
                ++count;
            }
        }
    }
    if (p.average) return count > 0 ? C(acc / C(count)) : C(0);
    return acc;
}

template <class T>
MXC_HD inline mxc_compute_t<T> mxc_pool_at(const T* x, const mxc_desc& xd, const mxc_desc& od, const int64_t* ip,
                                           int64_t o) {
    using C = mxc_compute_t<T>;
    int64_t idx[MXC_MAX_RANK];
    mxc_unravel(od, o, idx);
    const int s = od.rank - 2;
    const T* base = x + idx[0] * xd.strides[0] + idx[1] * xd.strides[1];
    if (s == 2) return mxc_pool2d_window(base, mxc_pool2d_of(xd, ip), idx[2], idx[3]);
    const bool average = ip[0] == 1, include_pad = ip[1] != 0;
    const int64_t* pb = ip + 2;
    const int64_t* pe = ip + 2 + s;
    const int64_t* stride = ip + 2 + 2 * s;
    const int64_t* len = ip + 2 + 3 * s;
    const int64_t* dil = ip + 2 + 4 * s;
    int64_t kn = 1;
    for (int d = 0; d < s; ++d) kn *= len[d];
    C acc = average ? C(0) : mxc_lowest<C>();
    int64_t count = 0;
    for (int64_t kk = 0; kk < kn; ++kk) {
        int64_t off = 0, rest = kk;
        bool counted = true, in_data = true;
        for (int d = s - 1; d >= 0; --d) {
            const int64_t ki = rest % len[d];
            rest /= len[d];
            const int64_t pos = idx[2 + d] * stride[d] - pb[d] + ki * dil[d], n = xd.lens[2 + d];
            if (pos < -pb[d] || pos >= n + pe[d]) {
                counted = false;
                break;
            }
            if (pos < 0 || pos >= n) in_data = false;
            else off += pos * xd.strides[2 + d];
        }
        if (!counted) continue;
        if (in_data) {
            const C v = C(base[off]);
            if (average) acc += v;
            else if (acc < v) acc = v;
            ++count;
        } else if (include_pad) {
            ++count;
        }
    }
    if (average) return count > 0 ? C(acc / C(count)) : C(0);
    return acc;
}
