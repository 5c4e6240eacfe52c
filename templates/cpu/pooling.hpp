// pooling: x [N, C, spatial...] -> packed y [N, C, out...], max or average.
// ip = [mode (0 max, 1 average), count_include_pad, pad_begin[s], pad_end[s], stride[s],
//       lengths[s], dilation[s]], s = rank - 2 (math: templates/common/pooling.hpp, the
// per-element form the hip kernel uses).
// Work items of (image, channel, block of output rows) over the thread pool (pool_items). Each output row,
// in chunks of up to 256 columns, folds in a stack buffer: for every window offset of the
// leading spatial dims whose input row exists and every window column, the max or sum over the
// columns whose input column exists (templates/cpu/window.hpp), in the window's row-major order
// as mxc_pool_at (the same result). The average's divisor is a product of per-axis counts.
#pragma once
#include "templates/common/pooling.hpp"
#include "templates/cpu/common.hpp"
#include "templates/cpu/parallel.hpp"
#include "templates/cpu/window.hpp"

namespace mxc {
namespace cpu {

// How many of the window positions k < len at o * stride - pb + k * dil count for an average
// along one axis of n: inside [-pb, n + pe) with count_include_pad, else inside [0, n).
inline int64_t pool_count(int64_t o, int64_t n, int64_t pb, int64_t pe, int64_t stride, int64_t len, int64_t dil,
                          bool include_pad) {
    const int64_t base = o * stride - pb, from = include_pad ? -pb : 0, to = include_pad ? n + pe : n;
    const int64_t k0 = base >= from ? 0 : dil == 1 ? from - base : (from - base + dil - 1) / dil;
    int64_t k1 = base < to ? (dil == 1 ? to - 1 - base : (to - 1 - base) / dil) + 1 : 0;
    if (k1 > len) k1 = len;
    return k1 > k0 ? k1 - k0 : 0;
}

// Work items [t0, t1) of pooling (image and channel, block of output rows); a max runs in the
// CPU's widest vectors (isa_clones: a max is exact; MaxPool 3x3 stride 2 over 64 x 112 x 112
// alone, one thread: 0.32 ms on the x86-64 baseline's 16-byte vectors, 0.29 so). The average's
// per-column divisors cost as much as its sums (3x3 stride 2 over the same: 0.50 ms, whatever
// the vectors; 0.82 with a division by the dilation in each).
template <class T, bool Average> struct pool_items {
    static constexpr bool average = Average;
    const mxc_kargs& k;
    const mxc_desc &xd, &od;
    bool include_pad;
    const int64_t *pb, *pe, *stride, *len, *dil;
    int64_t plane, out_w, in_w, k_w, rows, krows, channels, st_w, dil_w, xs_w, per, blocks;
    __attribute__((always_inline)) void run(int64_t t0, int64_t t1) const {
        using C = compute_t<T>;
        constexpr int64_t chunk = 256;
        const int s = od.rank - 2;
        const T* x = input<T>(k, 0);
        T* y = output<T>(k);
        for (int64_t t = t0; t < t1; ++t) {
            const int64_t nc = t / blocks;
            const int64_t r0 = t % blocks * per, r1 = r0 + per < rows ? r0 + per : rows;
            const T* xp = x + nc / channels * xd.strides[0] + nc % channels * xd.strides[1];
            C acc[chunk];
            for (int64_t row = r0; row < r1; ++row) {
                int64_t o[MXC_MAX_RANK]; // the output index over the leading spatial dims
                int64_t count = 1;       // the average's count over them
                for (int64_t d = s - 2, rest = row; d >= 0; --d) {
                    o[d] = d > 0 ? rest % od.lens[2 + d] : rest;
                    rest /= od.lens[2 + d];
                    count *= pool_count(o[d], xd.lens[2 + d], pb[d], pe[d], stride[d], len[d], dil[d], include_pad);
                }
                for (int64_t c0 = 0; c0 < out_w; c0 += chunk) {
                    const int64_t c1 = c0 + chunk < out_w ? c0 + chunk : out_w;
                    for (int64_t i = 0; i < c1 - c0; ++i) acc[i] = average ? C(0) : mxc_lowest<C>();
                    const T* xr[3]; // up to 3 window rows inside x, folded in one pass
                    int nr = 0;
                    int64_t kd[MXC_MAX_RANK] = {}; // the window row's index over the leading dims
                    for (int64_t kr = 0; kr < krows; ++kr) {
                        int64_t xoff = 0;
                        bool inside = true; // padding adds nothing to a max or a sum
                        for (int d = 0; d < s - 1 && inside; ++d) {
                            const int64_t pos = o[d] * stride[d] - pb[d] + kd[d] * dil[d];
                            inside = pos >= 0 && pos < xd.lens[2 + d];
                            xoff += pos * xd.strides[2 + d];
                        }
                        for (int d = s - 2; d >= 0 && ++kd[d] == len[d]; --d) kd[d] = 0;
                        if (inside) xr[nr++] = xp + xoff;
                        if (nr == 3 || (kr == krows - 1 && nr > 0)) {
                            if constexpr (average)
                                window_row(acc, c0, c1, xr, nr, in_w, xs_w, st_w, dil_w, pb[s - 1], k_w,
                                           [](int, int64_t) { return [](C a, C v, int, int) { return a + v; }; });
                            else
                                window_row(acc, c0, c1, xr, nr, in_w, xs_w, st_w, dil_w, pb[s - 1], k_w,
                                           [](int, int64_t) { return [](C a, C v, int, int) { return a < v ? v : a; }; });
                            nr = 0;
                        }
                    }
                    T* yr = y + nc * plane + row * out_w;
                    if constexpr (average)
                        for (int64_t i = c0; i < c1; ++i) {
                            const int64_t n = count * pool_count(i, in_w, pb[s - 1], pe[s - 1], st_w, k_w, dil_w, include_pad);
                            yr[i] = T(n > 0 ? C(acc[i - c0] / C(n)) : C(0));
                        }
                    else
                        for (int64_t i = c0; i < c1; ++i) yr[i] = T(acc[i - c0]);
                }
            }
        }
    }
};

// Mode: ip[0] (0 max, 1 average) as the generated call passes it (op_def::cpu_template_ip), so a
// library builds one of the two; -1 (the reference tables): both, chosen at run time.
template <class T, int Mode = -1> void pooling(const mxc_kargs& k) {
    if constexpr (Mode < 0) {
        if (k.ip[0] == 1) pooling<T, 1>(k);
        else pooling<T, 0>(k);
        return;
    }
    const mxc_desc &xd = k.in_desc[0], &od = *k.out_desc;
    const int r = od.rank, s = r - 2, last = r - 1;
    const bool include_pad = k.ip[1] != 0;
    const int64_t* pb = k.ip + 2;
    const int64_t* pe = k.ip + 2 + s;
    const int64_t* stride = k.ip + 2 + 2 * s;
    const int64_t* len = k.ip + 2 + 3 * s;
    const int64_t* dil = k.ip + 2 + 4 * s;
    if (elements(od) == 0) return;
    int64_t plane = 1, kn = 1;
    for (int d = 0; d < s; ++d) {
        plane *= od.lens[2 + d];
        kn *= len[d];
    }
    const int64_t out_w = od.lens[last], in_w = xd.lens[last], k_w = len[s - 1];
    const int64_t rows = plane / out_w, krows = kn / k_w, channels = od.lens[1];
    const int64_t st_w = stride[s - 1], dil_w = dil[s - 1], xs_w = xd.strides[last];
    const int64_t per = rows_per_item(rows, out_w * kn, 1 << 14), blocks = (rows + per - 1) / per;
    const pool_items<T, Mode == 1> items{k, xd, od, include_pad, pb, pe, stride, len, dil, plane, out_w, in_w, k_w, rows, krows,
                              channels, st_w, dil_w, xs_w, per, blocks};
    if constexpr (Mode == 1) // no faster in wider vectors (the per-column divisors): one build, not three
        parallel_for(od.lens[0] * channels * blocks, [&](int64_t t) { items.run(t, t + 1); });
    else
        parallel_for(od.lens[0] * channels * blocks, [&](int64_t t) { isa_clones<pool_items<T, false>>{items}(t, t + 1); });
}

} // namespace cpu
} // namespace mxc
