// pooling: x [N, C, spatial...] -> y [N, C, out...], max or average over windows.
// ip = [mode (0 max, 1 average), count_include_pad, pad_begin[s], pad_end[s], stride[s],
//       lengths[s], dilation[s]] with s = rank - 2. Window position k of output position p
// reads input position p * stride - pad_begin + k * dilation. Positions in the padding count
// for an average only with count_include_pad; positions past the padding (from ceil_mode)
// never count. Max ignores padding.
#pragma once
#include "templates/common/math.hpp"

template <class T>
MXC_HD inline mxc_compute_t<T> mxc_pool_at(const T* x, const mxc_desc& xd, const mxc_desc& od, const int64_t* ip,
                                           int64_t o) {
    using C = mxc_compute_t<T>;
    int64_t idx[MXC_MAX_RANK];
    mxc_unravel(od, o, idx);
    const int s = od.rank - 2;
    const bool average = ip[0] == 1, include_pad = ip[1] != 0;
    const int64_t* pb = ip + 2;
    const int64_t* pe = ip + 2 + s;
    const int64_t* stride = ip + 2 + 2 * s;
    const int64_t* len = ip + 2 + 3 * s;
    const int64_t* dil = ip + 2 + 4 * s;
    const T* base = x + idx[0] * xd.strides[0] + idx[1] * xd.strides[1];
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
