// convolution_transpose (ONNX ConvTranspose without bias): x [N, C, in...] with w [C, M/group,
// k...] -> y [N, M, out...]; ip = [group, pad_begin[0..s), stride[0..s), dilation[0..s)].
// float, double, half and bfloat16 with packed weights and x's spatial dims packed run in the
// scatter form, a GEMM then col2im, per image n and group g:
//   col[(m, kpos), i] = sum_c w[g * cg + c, m, kpos] * x[n, g * cg + c, i]   (blocked GEMM of
//   templates/cpu/gemm.hpp: rows = output channels x kernel offsets, depth = the group's input
//   channels, columns = input positions)
//   y[n, g * mg + m, i * stride - pad + kpos * dilation] += col[(m, kpos), i]
// A unit of work (parallel_for) owns a block of output channels of one (n, g) and a band of
// output rows (the first spatial dim): it accumulates them in the compute type in its own
// buffer from the input rows that reach the band, a chunk of input positions at a time (the col
// buffer stays small), and stores them once through the epilogue. Outputs are disjoint between
// units and each is summed in the same order whatever the thread count.
// A tiling 2-d one (kernel = stride, no padding or dilation: UNet's 2x2 stride 2 up-sampling)
// has no col buffer: the GEMM's store puts each value in its place in the band
// (conv_transpose_scatter), which needs no zeros first (one third of such a layer's time went
// to zeroing, col stores and col2im, 2026-11-25).
// Other types and strided views: one output element at a time with mxc_conv_transpose_at
// (templates/common/convolution_transpose.hpp), which the hip kernel uses.
#pragma once
#include "templates/common/convolution_transpose.hpp"
#include "templates/cpu/common.hpp"
#include "templates/cpu/gemm.hpp"
#include "templates/cpu/parallel.hpp"

#include <memory>
#include <numeric>
#include <type_traits>
#include <vector>

namespace mxc {
namespace cpu {

// A(i, c) = w[c * ws + i]: w at the group's first input channel and the block's first output
// channel; rows over (output channel, kernel offset), depth over input channels.
template <class T> struct conv_transpose_pack_a {
    const T* w;
    int64_t ws;
    void operator()(int64_t i0, int rows, int64_t k0, int64_t kc, compute_t<T>* dst) const {
        using C = compute_t<T>;
        constexpr int mr = gemm_mr;
        for (int64_t kk = 0; kk < kc; ++kk) {
            const T* src = w + (k0 + kk) * ws + i0;
            for (int r = 0; r < rows; ++r) dst[kk * mr + r] = C(src[r]);
        }
    }
};

inline int64_t conv_transpose_floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// Where the GEMM of a tiling 2-d transposed convolution (kernel = stride, no padding or
// dilation: every output element is one input element times one weight, summed over the
// channels) stores its values: straight into the unit's band of outputs, no col buffer. Row
// (m, ka, kb) of the product (kernel offset ka, kb) and column p0 + j (input ih, iw) go to
// output (m, ih * k0 + ka, iw * k1 + kb); the k1 rows of one (m, ka) interleave into one run of
// the output row. gemm_block_to hands over whole groups of k1 rows (its row groups are
// multiples of gemm_mr, which k1 divides).
template <class C> struct conv_transpose_scatter {
    using value_type = C;
    C* acc;                      // the band: channel m_local at acc + m_local * band_len
    int64_t band_len, p0, r0;    // its length per channel; the first column's input position; its first output row
    int64_t in_w, out_w, k0, k1; // (k0 x k1: the kernel, = the stride)
    template <class E>
    void store(E&, const C* tile, int64_t tile_ld, int64_t i, int64_t j, int64_t cols, int64_t rows) const {
        const int64_t kn = k0 * k1;
        for (int64_t q = 0; q < rows; q += k1) {
            const int64_t row = i + q, m = row / kn, ka = row % kn / k1;
            const C* src = tile + q * tile_ld;
            for (int64_t c = 0; c < cols;) {
                const int64_t p = p0 + j + c, ih = p / in_w, iw = p - ih * in_w;
                const int64_t len = in_w - iw < cols - c ? in_w - iw : cols - c;
                C* dst = acc + m * band_len + (ih * k0 + ka - r0) * out_w + iw * k1;
                if (k1 == 2) {
                    const C *a = src + c, *b = src + tile_ld + c;
                    for (int64_t t = 0; t < len; ++t) {
                        dst[2 * t] = a[t];
                        dst[2 * t + 1] = b[t];
                    }
                } else {
                    for (int64_t kb = 0; kb < k1; ++kb)
                        for (int64_t t = 0; t < len; ++t) dst[t * k1 + kb] = src[kb * tile_ld + c + t];
                }
                c += len;
            }
        }
    }
};

// Whether the GEMM form runs: x's spatial dims and the weights packed, no empty kernel dim
// (else one output element at a time).
inline bool conv_transpose_gemm_form(const mxc_desc& xd, const mxc_desc& wd) {
    int64_t plane = 1, kn = 1;
    for (int d = xd.rank - 1; d >= 2; --d) {
        if (xd.lens[d] != 1 && xd.strides[d] != plane) return false;
        plane *= xd.lens[d];
        kn *= wd.lens[d];
    }
    return kn > 0 && mxc_is_packed(wd);
}

// The scatter form; false when the per-element loop has to do (conv_transpose_gemm_form).
// Panels: the weights are stored as the GEMM's row panels (gemm_a_panels, float: the compiler
// does so where conv_transpose_gemm_form holds, codegen/conv_weights_panels.cpp), group after
// group, in the bytes of the weights; the descriptor stays the weights' own. The GEMM reads
// them in place, one stream, where it packed six weights from rows 4 KB apart at a time
// (inside UNet, with the weights out of the cache, half of the up-sampling layers' time).
template <class T, class E, bool Panels = false> bool convolution_transpose_gemm(const mxc_kargs& k, const E& epi) {
    using C = compute_t<T>;
    using S = gemm_shape<C>;
    const mxc_desc &xd = k.in_desc[0], &wd = k.in_desc[1], &od = *k.out_desc;
    const int r = od.rank, s = r - 2, last = s - 1;
    const int64_t group = k.ip[0];
    const int64_t* pad = k.ip + 1;
    const int64_t* stride = k.ip + 1 + s;
    const int64_t* dil = k.ip + 1 + 2 * s;
    const int64_t cg = xd.lens[1] / group, mg = wd.lens[1];
    if (!conv_transpose_gemm_form(xd, wd)) return false;
    int64_t kn = 1, in_plane = 1, out_plane = 1, in_rest = 1, out_rest = 1; // rest: the dims after the first
    for (int d = r - 1; d >= 2; --d) {
        in_plane *= xd.lens[d];
        out_plane *= od.lens[d];
        kn *= wd.lens[d];
        if (d > 2) {
            in_rest *= xd.lens[d];
            out_rest *= od.lens[d];
        }
    }
    // tiling: 2-d, kernel = stride, no padding or dilation, out = in * stride: the GEMM stores
    // into the band directly (conv_transpose_scatter), each element once
    bool tiling = s == 2 && wd.lens[3] > 0 && gemm_mr % wd.lens[3] == 0;
    for (int d = 0; d < s && tiling; ++d)
        tiling = wd.lens[2 + d] == stride[d] && dil[d] == 1 && pad[d] == 0 && od.lens[2 + d] == xd.lens[2 + d] * stride[d];
    const T* x = input<T>(k, 0);
    const T* w = input<T>(k, 1);
    T* y = output<T>(k);
    // Sizes. A block of mb output channels gives the GEMM about mc rows (mb * kn); a band of
    // band_rows output rows of them (acc) and a chunk of pc input positions (col) hold about
    // `budget` elements each. So that the pool has work to share, while there are fewer than
    // `min_units` units, bands are cut down to about `min_cols` input positions, then blocks of
    // channels down to about `min_rows` GEMM rows.
    constexpr int64_t budget = 65536, min_units = 16, min_cols = 128, min_rows = 48;
    const int64_t out_rows = od.lens[2], in_rows = xd.lens[2], images = od.lens[0] * group;
    int64_t mb = (mg * kn + S::mc - 1) / S::mc;
    mb = (mg + mb - 1) / mb;
    if (mb * out_rest > 4 * budget) mb = 4 * budget / out_rest > 1 ? 4 * budget / out_rest : 1;
    int64_t band_rows = budget / (mb * out_rest) > 1 ? budget / (mb * out_rest) : 1;
    const auto units = [&] { return images * ((mg + mb - 1) / mb) * ((out_rows + band_rows - 1) / band_rows); };
    const int64_t band_floor = (in_rest > 0 ? (min_cols + in_rest - 1) / in_rest : 1) * stride[0];
    while (units() < min_units && band_rows > band_floor)
        band_rows = band_rows / 2 > band_floor ? band_rows / 2 : band_floor;
    while (units() < min_units && (mb + 1) / 2 * kn >= min_rows && mb > 1) mb = (mb + 1) / 2;
    if constexpr (Panels) { // a block's first row starts a panel: mb * kn a multiple of gemm_mr
        const int64_t step = gemm_mr / std::gcd(kn, int64_t(gemm_mr));
        mb = (mb + step - 1) / step * step;
    }
    if (tiling && band_rows < stride[0]) band_rows = stride[0]; // (a band is whole input rows' outputs)
    if (band_rows >= stride[0]) band_rows -= band_rows % stride[0]; // the non-overlapping case: no halo
    const int64_t m_blocks = (mg + mb - 1) / mb, outer = images * m_blocks;
    const int64_t bands = (out_rows + band_rows - 1) / band_rows;
    const int64_t rows_max = mb * kn;
    int64_t pc = budget / rows_max / S::nc * S::nc;
    if (pc < S::nc) pc = S::nc;
    const int64_t k0_len = wd.lens[2];
    parallel_for(outer * bands, [&](int64_t t) {
        const int64_t band = t % bands, mblk = t / bands % m_blocks, g = t / bands / m_blocks % group,
                      n = t / bands / m_blocks / group;
        const int64_t m0 = mblk * mb, mbb = mg - m0 < mb ? mg - m0 : mb, rows = mbb * kn;
        const int64_t r0 = band * band_rows, r1 = out_rows - r0 < band_rows ? out_rows : r0 + band_rows;
        const int64_t band_len = (r1 - r0) * out_rest;
        // input rows that reach the band: r0 <= i * stride - pad + kpos * dil < r1
        int64_t ilo = conv_transpose_floor_div(r0 + pad[0] - (k0_len - 1) * dil[0] + stride[0] - 1, stride[0]);
        int64_t ihi = conv_transpose_floor_div(r1 - 1 + pad[0], stride[0]) + 1;
        if (ilo < 0) ilo = 0;
        if (ihi > in_rows) ihi = in_rows;
        // (tiling: every element of the band written once, no zeros; else sums from zero)
        std::unique_ptr<C[]> acc(tiling ? new C[static_cast<size_t>(mbb * band_len)] : new C[static_cast<size_t>(mbb * band_len)]());
        std::vector<C> col(tiling ? 0 : static_cast<size_t>(rows * pc));
        const T* xg = x + n * xd.strides[0] + g * cg * xd.strides[1];
        const auto pa = [&] {
            if constexpr (Panels) {
                static_assert(std::is_same<T, C>::value, "convolution_transpose_gemm: panels of the compute type");
                return gemm_a_panels<C>{w + (g * mg * kn + m0 * kn) * cg, cg, (mg - m0) * kn};
            } else {
                return conv_transpose_pack_a<T>{w + g * cg * wd.strides[0] + m0 * kn, wd.strides[0]};
            }
        }();
        const auto keep = [](C v, int64_t) { return v; };
        for (int64_t p0 = ilo * in_rest; p0 < ihi * in_rest; p0 += pc) {
            const int64_t cols = ihi * in_rest - p0 < pc ? ihi * in_rest - p0 : pc;
            const gemm_pack_b_strided<T> pb{xg + p0, xd.strides[1], 1};
            const gemm_split sp = gemm_plan<C>(rows, cols, 1); // on a pool thread: one block after the other
            if (tiling) {
                const conv_transpose_scatter<C> out{acc.get(), band_len, p0, r0, xd.lens[3], od.lens[3], wd.lens[2], wd.lens[3]};
                for (int64_t b = 0; b < sp.blocks(); ++b) gemm_block_to(sp, cg, pa, pb, out, keep, b);
                continue;
            }
            for (int64_t b = 0; b < sp.blocks(); ++b) gemm_block(sp, cg, pa, pb, col.data(), cols, 0, keep, b);
            // col2im of the chunk, a run along the last input dim at a time
            int64_t idx[MXC_MAX_RANK], rest = p0;
            for (int d = last; d >= 0; --d) {
                idx[d] = rest % xd.lens[2 + d];
                rest /= xd.lens[2 + d];
            }
            const int64_t in_w = xd.lens[2 + last], out_w = od.lens[2 + last];
            const int64_t st = stride[last], lo_w = s == 1 ? r0 : 0, hi_w = s == 1 ? r1 : out_w;
            for (int64_t q = 0; q < cols;) {
                const int64_t run = in_w - idx[last] < cols - q ? in_w - idx[last] : cols - q;
                for (int64_t kpos = 0; kpos < kn; ++kpos) {
                    int64_t kidx[MXC_MAX_RANK], kr = kpos;
                    for (int d = last; d >= 0; --d) {
                        kidx[d] = kr % wd.lens[2 + d];
                        kr /= wd.lens[2 + d];
                    }
                    // output offset in the band of the dims but the last
                    int64_t off = 0;
                    bool inside = true;
                    for (int d = 0; d < last && inside; ++d) {
                        const int64_t o = idx[d] * stride[d] - pad[d] + kidx[d] * dil[d];
                        const int64_t lo = d == 0 ? r0 : 0, hi = d == 0 ? r1 : od.lens[2 + d];
                        inside = o >= lo && o < hi;
                        off = off * od.lens[2 + d] + (o - lo);
                    }
                    if (!inside) continue;
                    off *= out_w;
                    // along the run: input iw reaches output iw * st + shift, in [lo_w, hi_w)
                    const int64_t shift = kidx[last] * dil[last] - pad[last];
                    int64_t a = conv_transpose_floor_div(lo_w - shift + st - 1, st);
                    int64_t b = conv_transpose_floor_div(hi_w - 1 - shift, st) + 1;
                    if (a < idx[last]) a = idx[last];
                    if (b > idx[last] + run) b = idx[last] + run;
                    if (a >= b) continue;
                    const C* src = col.data() + kpos * cols + q + (a - idx[last]);
                    C* dst = acc.get() + off + a * st + shift - lo_w;
                    for (int64_t m = 0; m < mbb; ++m, src += kn * cols, dst += band_len)
                        for (int64_t i = 0; i < b - a; ++i) dst[i * st] += src[i];
                }
                q += run;
                idx[last] += run;
                for (int d = last; d > 0 && idx[d] == xd.lens[2 + d]; --d) {
                    idx[d] = 0;
                    ++idx[d - 1];
                }
            }
        }
        E ep = epi;
        for (int64_t m = 0; m < mbb; ++m) {
            const int64_t e = (n * od.lens[1] + g * mg + m0 + m) * out_plane + r0 * out_rest;
            epilogue_store(ep, acc.get() + m * band_len, y + e, e, band_len);
        }
    });
    return true;
}

// `epi(acc, e)` maps the accumulated value of output element e before the store. (Panels: see
// convolution_transpose_gemm; the GEMM always runs then, or nothing for an empty output.)
template <class T, class E, bool Panels = false> void convolution_transpose_epilogue(const mxc_kargs& k, E epi) {
    if (elements(*k.out_desc) == 0) return;
    if constexpr (Panels) {
        convolution_transpose_gemm<T, E, true>(k, epi);
        return;
    }
    if constexpr (gemm_supported<T>)
        if (convolution_transpose_gemm<T>(k, epi)) return;
    const T* x = input<T>(k, 0);
    const T* w = input<T>(k, 1);
    T* y = output<T>(k);
    for_each_output(k, [&](int64_t e) {
        y[e] = T(epi(mxc_conv_transpose_at(x, k.in_desc[0], w, k.in_desc[1], *k.out_desc, k.ip, e), e));
    });
}

template <class T, bool Panels = false> void convolution_transpose(const mxc_kargs& k) {
    const auto same = [](compute_t<T> v, int64_t) { return v; };
    convolution_transpose_epilogue<T, decltype(same), Panels>(k, same);
}

} // namespace cpu
} // namespace mxc
