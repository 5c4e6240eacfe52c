// convolution: x [N, C, spatial...] * w [M, C/group, k...] -> packed y [N, M, out...], no bias.
// ip = [group, pad_begin[0..s), stride[0..s), dilation[0..s)], s = rank - 2; output position p
// reads input position p * stride - pad_begin + k * dilation (outside: zero), as
// mxc_conv_at (templates/common/convolution.hpp), which the hip kernel uses.
// float, double, half and bfloat16 (not depthwise, standard weights) run as an implicit GEMM per (n, group):
// y[m, p] = sum_(c, k) w[m, c, k] * x[c, p * stride - pad + k * dil], the blocked GEMM of
// templates/cpu/gemm.hpp packing the im2col panel of x straight from x, block by block, or,
// where the blocks would pack it more than once, once into the kernel's arena scratch
// (conv_im2col_bytes); a stride-1 2-d one over a wide plane reads a zero-bordered copy of x in
// the scratch, shifted, instead (conv_shift_form); a 1x1 / stride 1 / no padding convolution
// packs x as a plain matrix, or reads it in place (conv_pointwise_in_place); a 3x3 stride-2 stem
// of at most 3 input channels on AVX-512 keeps its im2col columns in registers instead
// (conv_stem_s2, templates/cpu/conv_stem.hpp).
// The direct loop (other types, depthwise and small groups: convolution_direct) works row by
// row in parallel, the innermost loop over the last output dim with its valid range computed
// up front (no bounds checks inside); 2-d depthwise convolutions run 8 channels at a time
// instead, or for 3 x 3 stride 1 over wide rows vectors along the rows, or for stride 1 over a
// small plane on AVX-512 vectors along the flattened plane, or for 3 x 3 stride 2 on AVX-512
// vectors along rows read in place (templates/cpu/conv_depthwise.hpp).
#pragma once
#include "templates/common/convolution.hpp"
#include "templates/common/gemm_choice.hpp" // mxc_conv_pick
#include "templates/cpu/common.hpp"
#include "templates/cpu/conv_depthwise.hpp"
#include "templates/cpu/conv_stem.hpp"
#include "templates/cpu/gemm.hpp"
#include "templates/cpu/parallel.hpp"
#include "templates/cpu/window.hpp"

namespace mxc {
namespace cpu {

// Packs the implicit im2col matrix B(c * kn + k, p) of one image and group: x at the group's
// first channel, rows over (input channel, kernel offset), columns over output positions.
template <class T> struct conv_pack_b {
    const T* x;
    const mxc_desc &xd, &wd, &od;
    const int64_t *pad, *stride, *dil;
    int64_t kn;
    // (ld: the rows of a strip in dst, kc unless given: the kernel's scratch holds strips of
    // the whole depth, which the threads may pack a range of rows at a time)
    template <class NR>
    void operator()(int64_t k0, int64_t kc, int64_t j0, int cols, compute_t<T>* dst, NR nrc, int64_t ld = 0) const {
        if (ld == 0) ld = kc;
        using C = compute_t<T>;
        constexpr int nr = NR::value;
        const int s = od.rank - 2, last = s - 1;
        if (s == 2 && cols <= pack2d_cols) return pack2d(k0, kc, j0, cols, dst, nrc, ld);
        const int64_t out_w = od.lens[od.rank - 1], in_w = xd.lens[xd.rank - 1], xs_w = xd.strides[xd.rank - 1];
        for (int64_t kk = 0; kk < kc; ++kk) {
            int64_t kidx[MXC_MAX_RANK], o[MXC_MAX_RANK], rest = (k0 + kk) % kn, at = j0;
            for (int d = s - 1; d >= 0; --d) {
                kidx[d] = rest % wd.lens[2 + d];
                rest /= wd.lens[2 + d];
                o[d] = at % od.lens[2 + d];
                at /= od.lens[2 + d];
            }
            const T* xc = x + (k0 + kk) / kn * xd.strides[1];
            const int64_t shift = kidx[last] * dil[last] - pad[last], st = stride[last];
            for (int col = 0; col < cols;) {
                const int run = int(out_w - o[last] < cols - col ? out_w - o[last] : cols - col);
                bool inside = true;
                int64_t off = 0;
                for (int d = 0; d < last; ++d) {
                    const int64_t pos = o[d] * stride[d] - pad[d] + kidx[d] * dil[d];
                    inside = inside && pos >= 0 && pos < xd.lens[2 + d];
                    off += pos * xd.strides[2 + d];
                }
                // along the run, output ow reads x at ow * st + shift: valid for q in [lo, hi)
                int64_t lo = 0, hi = 0;
                if (inside) {
                    const int64_t ow_lo = shift >= 0 ? 0 : (-shift + st - 1) / st;
                    const int64_t ow_hi = in_w - shift <= 0 ? 0 : (in_w - shift + st - 1) / st;
                    lo = ow_lo - o[last] < 0 ? 0 : ow_lo - o[last] > run ? run : ow_lo - o[last];
                    hi = ow_hi - o[last] < lo ? lo : ow_hi - o[last] > run ? run : ow_hi - o[last];
                }
                // column col + q goes to lane (col + q) % nr of strip (col + q) / nr: piece by piece
                // within a strip, no division per element
                C* row = dst + kk * nr;
                const T* xr = xc + off + (o[last] * st + shift) * xs_w;
                const int64_t step = st * xs_w;
                for (int64_t q = 0; q < run;) {
                    const int64_t c = col + q, lane = c % nr;
                    const int64_t end = q + (nr - lane) < run ? q + (nr - lane) : run;
                    C* d = row + c / nr * ld * nr + lane; // d[t - q] for t in [q, end)
                    const int64_t z0 = lo < end ? (lo > q ? lo : q) : end, z1 = hi < end ? (hi > z0 ? hi : z0) : end;
                    for (int64_t t = q; t < z0; ++t) d[t - q] = C(0);
                    if (step == 1)
                        for (int64_t t = z0; t < z1; ++t) d[t - q] = C(xr[t]);
                    else
                        for (int64_t t = z0; t < z1; ++t) d[t - q] = C(xr[t * step]);
                    for (int64_t t = z1; t < end; ++t) d[t - q] = C(0);
                    q = end;
                }
                col += run;
                o[last] += run;
                for (int d = last; d > 0 && o[d] == od.lens[2 + d]; --d) {
                    o[d] = 0;
                    ++o[d - 1];
                }
            }
        }
    }

    // 2-d convolutions (all but a few): the block's columns are cut once into runs along output
    // rows (segments); then each row kk of the panel is assembled in a contiguous buffer, each
    // segment a zero-filled head (left padding), a copy (stride 1: moves of 8 elements; float
    // stride 2: 4 at a time) and a zero-filled tail (right padding), or all zeros (a padding
    // row), and the buffer is stored
    // into the nr-wide strips with fixed-size copies. The kernel offset and channel of kk step
    // along with it (no division per row; per segment only at the edges with stride > 1).
    static constexpr int pack2d_cols = 64; // the widest block of the float and double shapes (gemm_shape::nc)
    static_assert(gemm_shape<float>::nc <= pack2d_cols && gemm_shape<double>::nc <= pack2d_cols,
                  "conv_pack_b: pack2d's buffers must hold a block's columns");
    struct segment {
        int col, len;
        int64_t ih0, iw0; // the input row and column that the segment's first output reads at kernel offset 0
    };
#if MXC_GEMM_AVX2
    // pack2d's rows for float with unit column stride and a stride of 1 or 2 along the rows, on
    // AVX-512: each strip of 16 columns of a row of the panel built in a register and stored
    // once (a vector load of what smaller stores wrote into a row buffer stalls), from the pieces
    // of segments that cover its lanes, by masked loads: the lanes outside the segment's input
    // columns (padding, or another segment's outputs) read as zeros, so the pieces combine by or;
    // for stride 2, two loads and their even lanes. The masks depend on the kernel column only,
    // and are made once a call. The same values as the scalar path. (Kernels of at most
    // max_kw columns.) A 3x3 of stride 2 without dilation (YOLO's downsampling) builds the rows
    // of its three kernel columns at once: columns 0 and 1 are the even and odd lanes of the same
    // two loads, column 2 the even lanes of two loads two columns on. And every new kernel row
    // fetches the segments' input rows fetch_rows kernel rows on (the next channel's), where
    // the rows a block reads jump a channel at a time, which the hardware's prefetchers do not
    // follow (alone, one thread, min of 11 alternated rounds, 2026-11-26: 32 -> 64 from 160x160
    // 2.24 -> 1.94 ms, with flushed caches 2.54 -> 2.08, the fetches 0.4 of that; 64 -> 128 from
    // 80x80 1.86 -> 1.68, flushed 2.10 -> 1.79; the pack's share of the first 33% -> 19%).
    static constexpr int64_t max_kw = 8, fetch_rows = 6;
    struct pack_rows_avx512 {
        const float* x;
        const segment* seg;
        int segs;
        int64_t in_h, in_w, xs_c, xs_h, sw, kh_n, kw_n, dil_h, dil_w;
        __attribute__((target("avx512f"))) static __m512 or_ps(__m512 a, __m512 b) {
            return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(a), _mm512_castps_si512(b)));
        }
        // the lanes l of a load of 16 from column c that lie in [lo, hi)
        static uint16_t lanes(int64_t c, int64_t lo, int64_t hi) {
            const int64_t a = lo - c < 0 ? 0 : lo - c > 16 ? 16 : lo - c, b = hi - c < 0 ? 0 : hi - c > 16 ? 16 : hi - c;
            return uint16_t(b > a ? ((1u << b) - 1) & ~((1u << a) - 1) : 0u);
        }
        __attribute__((target("avx512f"), noinline)) void run(int64_t kc, int64_t ch, int64_t kh, int64_t kw, int width,
                                                               float* dst, int64_t ld) const {
            const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
            const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
            // 3 kernel columns of stride 2 without dilation: columns 0 and 1 from the same two loads
            const bool triple = kw_n == 3 && sw == 2 && dil_w == 1;
            struct piece {
                int g;          // the segment
                int64_t off;    // lane 0's input column at kernel column 0 (its segment's row)
                uint16_t m[2 * max_kw]; // the loads' lanes at kernel column k: m[2k], m[2k + 1]
                uint16_t m01[2];
            } pc[pack2d_cols + pack2d_cols / 16];
            int start[pack2d_cols / 16 + 1]; // strip s: pieces [start[s], start[s + 1])
            const int strips = width / 16;
            int np = 0;
            for (int st = 0, g0 = 0; st < strips; ++st) {
                start[st] = np;
                while (g0 + 1 < segs && seg[g0].col + seg[g0].len <= 16 * st) ++g0;
                for (int g = g0; g < segs && seg[g].col < 16 * (st + 1); ++g) {
                    piece& p = pc[np++];
                    const int64_t c = (16 * st - seg[g].col) * sw; // lane 0's column after the segment's first
                    p.g = g;
                    p.off = seg[g].iw0 + c;
                    for (int64_t k = 0; k < kw_n; ++k) {
                        const int64_t iw = seg[g].iw0 + k * dil_w, end = iw + (seg[g].len - 1) * sw + 1;
                        const int64_t lo = (iw > 0 ? iw : 0) - iw, hi = (end < in_w ? end : in_w) - iw;
                        p.m[2 * k] = lanes(c, lo, hi);
                        p.m[2 * k + 1] = lanes(c + 16, lo, hi);
                    }
                    // (triple) the lanes of kernel columns 0 and 1 in the loads of column 0's:
                    // column 1's lane l is lane l + 1 there (its lane 15 is lane 16, which its odd
                    // lanes never take)
                    p.m01[0] = uint16_t(p.m[0] | p.m[2] << 1);
                    p.m01[1] = uint16_t(p.m[1] | p.m[3] << 1);
                }
            }
            start[strips] = np;
            const float* rows[pack2d_cols]; // segment g's input row at this depth (null: padding)
            for (int64_t kk = 0; kk < kc; ++kk) {
                const float* xc = x + ch * xs_c + kw * dil_w;
                const int64_t dh = kh * dil_h;
                if (kw == 0) { // the segments' input rows fetch_rows kernel rows on
                    const int64_t ahead = kh + fetch_rows, fc = ch + ahead / kh_n, fh = ahead % kh_n * dil_h;
                    for (int g = 0; g < segs; ++g) {
                        const int64_t ih = seg[g].ih0 + fh, iw = seg[g].iw0 > 0 ? seg[g].iw0 : 0;
                        if (ih >= 0 && ih < in_h)
                            gemm_fetch(x + fc * xs_c + ih * xs_h + iw, ((seg[g].len - 1) * sw + (kw_n - 1) * dil_w + 1) * int64_t(sizeof(float)));
                    }
                }
                for (int g = 0; g < segs; ++g) {
                    const int64_t ih = seg[g].ih0 + dh;
                    rows[g] = ih < 0 || ih >= in_h ? nullptr : xc + ih * xs_h;
                }
                if (triple && kw == 0 && kk + 3 <= kc) { // kernel columns 0, 1 and 2 at once
                    for (int st = 0; st < strips; ++st) {
                        __m512 v0 = _mm512_setzero_ps(), v1 = v0, v2 = v0;
                        for (int i = start[st]; i < start[st + 1]; ++i) {
                            const piece& p = pc[i];
                            const float* r = rows[p.g];
                            if (!r) continue;
                            const __m512 lo = _mm512_maskz_loadu_ps(__mmask16(p.m01[0]), r + p.off);
                            const __m512 hi = _mm512_maskz_loadu_ps(__mmask16(p.m01[1]), r + p.off + 16);
                            const __m512 lo2 = _mm512_maskz_loadu_ps(__mmask16(p.m[4]), r + p.off + 2);
                            const __m512 hi2 = _mm512_maskz_loadu_ps(__mmask16(p.m[5]), r + p.off + 18);
                            v0 = or_ps(v0, _mm512_permutex2var_ps(lo, even, hi));
                            v1 = or_ps(v1, _mm512_permutex2var_ps(lo, odd, hi));
                            v2 = or_ps(v2, _mm512_permutex2var_ps(lo2, even, hi2));
                        }
                        float* d = dst + 16 * st * ld + kk * 16;
                        _mm512_storeu_ps(d, v0);
                        _mm512_storeu_ps(d + 16, v1);
                        _mm512_storeu_ps(d + 32, v2);
                    }
                    kk += 2;
                    kw = 0;
                    if (++kh == kh_n) {
                        kh = 0;
                        ++ch;
                    }
                    continue;
                }
                for (int st = 0; st < strips; ++st) {
                    __m512 v = _mm512_setzero_ps();
                    for (int i = start[st]; i < start[st + 1]; ++i) {
                        const piece& p = pc[i];
                        const float* r = rows[p.g];
                        if (!r) continue;
                        if (sw == 1) {
                            v = or_ps(v, _mm512_maskz_loadu_ps(__mmask16(p.m[2 * kw]), r + p.off));
                        } else {
                            const __m512 lo = _mm512_maskz_loadu_ps(__mmask16(p.m[2 * kw]), r + p.off);
                            const __m512 hi = _mm512_maskz_loadu_ps(__mmask16(p.m[2 * kw + 1]), r + p.off + 16);
                            v = or_ps(v, _mm512_permutex2var_ps(lo, even, hi));
                        }
                    }
                    _mm512_storeu_ps(dst + 16 * st * ld + kk * 16, v);
                }
                if (++kw == kw_n) {
                    kw = 0;
                    if (++kh == kh_n) {
                        kh = 0;
                        ++ch;
                    }
                }
            }
        }
    };
#endif
    template <class NR> void pack2d(int64_t k0, int64_t kc, int64_t j0, int cols, compute_t<T>* dst, NR, int64_t ld) const {
        using C = compute_t<T>;
        constexpr int nr = NR::value;
        segment seg[pack2d_cols];
        int segs = 0;
        const int64_t out_w = od.lens[3], in_h = xd.lens[2], in_w = xd.lens[3];
        const int64_t xs_c = xd.strides[1], xs_h = xd.strides[2], xs_w = xd.strides[3], sw = stride[1];
        for (int col = 0; col < cols;) {
            const int64_t p = j0 + col, oh = p / out_w, ow = p % out_w;
            const int len = int(out_w - ow < cols - col ? out_w - ow : cols - col);
            seg[segs++] = segment{col, len, oh * stride[0] - pad[0], ow * sw - pad[1]};
            col += len;
        }
        const int width = (cols + nr - 1) / nr * nr;
        const int64_t kh_n = wd.lens[2], kw_n = wd.lens[3];
        int64_t ch = k0 / kn, kh = k0 % kn / kw_n, kw = k0 % kn % kw_n;
#if MXC_GEMM_AVX2
        if constexpr (std::is_same<T, float>::value && nr == 16)
            if (xs_w == 1 && sw <= 2 && kw_n <= max_kw && gemm_runtime_isa() == gemm_isa::avx512) {
                const pack_rows_avx512 pr{x, seg, segs, in_h, in_w, xs_c, xs_h, sw, kh_n, kw_n, dil[0], dil[1]};
                return pr.run(kc, ch, kh, kw, width, dst, ld);
            }
#endif
        alignas(64) C row[pack2d_cols + 8];
        for (int c = cols; c < width; ++c) row[c] = C(0); // the last strip's padding
        for (int64_t kk = 0; kk < kc; ++kk) {
            const T* xc = x + ch * xs_c;
            const int64_t dh = kh * dil[0], dw = kw * dil[1];
            for (int g = 0; g < segs; ++g) {
                const segment& sg = seg[g];
                C* r = row + sg.col;
                const int64_t ih = sg.ih0 + dh, iw = sg.iw0 + dw;
                if (ih < 0 || ih >= in_h) {
                    pack_fill(r, sg.len);
                    continue;
                }
                // valid t: 0 <= iw + t * sw < in_w
                const int64_t a = iw >= 0 ? 0 : (-iw + sw - 1) / sw < sg.len ? (-iw + sw - 1) / sw : sg.len;
                int64_t b = sg.len;
                if (iw + (sg.len - 1) * sw >= in_w) b = iw >= in_w ? 0 : (in_w - 1 - iw) / sw + 1;
                if (b < a) b = a;
                pack_fill(r, a);
                pack_copy(r + a, xc + ih * xs_h + (iw + a * sw) * xs_w, b - a, sw * xs_w);
                pack_fill(r + b, sg.len - b);
            }
            for (int c0 = 0; c0 < width; c0 += nr) memcpy(dst + c0 * ld + kk * nr, row + c0, sizeof(C) * nr);
            if (++kw == kw_n) {
                kw = 0;
                if (++kh == kh_n) {
                    kh = 0;
                    ++ch;
                }
            }
        }
    }
    // d[0, n) = 0, in fixed-size pieces (no call for a few elements)
    static void pack_fill(compute_t<T>* d, int64_t n) {
        using C = compute_t<T>;
        const C z[8] = {};
        for (; n >= 8; n -= 8, d += 8) memcpy(d, z, sizeof z);
        if (n & 4) memcpy(d, z, 4 * sizeof(C)), d += 4;
        if (n & 2) memcpy(d, z, 2 * sizeof(C)), d += 2;
        if (n & 1) *d = C(0);
    }
    // d[t] = src[t * step], t < n, widened to the compute type
    static void pack_copy(compute_t<T>* d, const T* src, int64_t n, int64_t step) {
        using C = compute_t<T>;
        if constexpr (std::is_same<T, C>::value)
            if (step == 1) {
                for (; n >= 8; n -= 8, d += 8, src += 8) memcpy(d, src, 8 * sizeof(C));
                if (n & 4) memcpy(d, src, 4 * sizeof(C)), d += 4, src += 4;
                if (n & 2) memcpy(d, src, 2 * sizeof(C)), d += 2, src += 2;
                if (n & 1) *d = *src;
                return;
            }
        int64_t t = 0;
#if defined(__SSE2__)
        if constexpr (std::is_same<T, float>::value)
            if (step == 2) // (a stem's stride 2) 4 at a time: the even lanes of two loads
                for (; t + 4 < n; t += 4)
                    _mm_storeu_ps(d + t, _mm_shuffle_ps(_mm_loadu_ps(src + 2 * t), _mm_loadu_ps(src + 2 * t + 4), 0x88));
#endif
        for (; t < n; ++t) d[t] = C(src[t * step]);
    }
};

// The implicit GEMM runs per image and group, y[m, p] = sum_k w[m, k] x_im2col[k, p], where
// the weights are packed, the depth K = C / group x kernel elements is at least 4, and the output
// channels per group are at least 4, or 1 without groups (a segmentation head's 32 -> 3 1x1 over
// 128x128: 0.48 ms in the direct loop, 0.12 in the GEMM with half its rows padding; small
// groups keep the direct loops below): conv_gemm_depth is that K, or 0. It runs
// with im2col unless it is a 1x1 (mxc_conv_pick's GEMM_1X1 forms: x is the matrix itself):
// conv_im2col_depth is K where it does, else 0.
inline int64_t conv_gemm_depth(const mxc_desc& wd, const mxc_desc& od, const int64_t* ip) {
    if (od.rank < 3 || wd.rank != od.rank || !mxc_is_packed(wd) || ip[0] < 1) return 0;
    int64_t kdim = wd.lens[1];
    for (int d = 2; d < wd.rank; ++d) kdim *= wd.lens[d];
    return kdim < 4 || od.lens[1] / ip[0] < (ip[0] == 1 ? 1 : 4) ? 0 : kdim;
}
inline int64_t conv_im2col_depth(const mxc_desc& xd, const mxc_desc& wd, const mxc_desc& od, const int64_t* ip) {
    const int64_t kdim = conv_gemm_depth(wd, od, ip);
    if (kdim == 0) return 0;
    const mxc_conv_form f = mxc_conv_pick(xd, wd, od, ip);
    return f == MXC_CONV_GEMM_1X1 || f == MXC_CONV_GEMM_1X1_WIDE ? 0 : kdim;
}
// Where the GEMM's blocks would each pack their own panel of the im2col matrix, or of a 1x1's
// input (more than one block of rows: the matrix packed again for each; MobileNetV2's 960 ->
// 160 over 7x7 on two threads, 8 row blocks, packed it 8 times), the kernel packs it once instead, into its
// arena scratch, as the GEMM's strips, a chunk of columns at a time: whole units of 64 (the
// widest group of strips conv_pack_b::pack2d takes), as many as fit conv_im2col_budget bytes, at
// least one. conv_im2col_cols: the columns of a chunk; conv_im2col_bytes: the scratch the
// compiler reserves (codegen/gemm_choice.hpp, cpu_scratch_bytes), 0 where there is no im2col,
// where the rows can never be cut (gemm_rows_may_split), or for products of fewer than
// conv_im2col_min_macs multiply-adds (about 10 us on a core: repacking costs little there, and
// a small model's arena is not worth doubling for it).
constexpr int64_t conv_im2col_budget = int64_t(2) << 20, conv_im2col_unit = 64, conv_im2col_min_macs = int64_t(1) << 20;
template <class C> constexpr int64_t conv_im2col_cols(int64_t kdim, int64_t cols) {
    const int64_t u = conv_im2col_unit, all = (cols + u - 1) / u * u;
    const int64_t fit = conv_im2col_budget / (kdim * int64_t(sizeof(C))) / u * u, most = fit > u ? fit : u;
    return all < most ? all : most;
}
template <class T>
int64_t conv_im2col_bytes(const mxc_desc& xd, const mxc_desc& wd, const mxc_desc& od, const int64_t* ip) {
    using C = compute_t<T>;
    (void)xd;
    const int64_t kdim = conv_gemm_depth(wd, od, ip); // (a 1x1's too: its input packed once as strips)
    if (kdim == 0) return 0;
    int64_t plane = 1;
    for (int d = 2; d < od.rank; ++d) plane *= od.lens[d];
    const int64_t mg = od.lens[1] / ip[0];
    if (plane == 0 || !gemm_rows_may_split<C>(mg, plane) || double(mg) * double(plane) * double(kdim) < double(conv_im2col_min_macs))
        return 0;
    return kdim * conv_im2col_cols<C>(kdim, plane) * int64_t(sizeof(C));
}

// Stride 1 (2-d, not a 1x1): the shifted form, where B is not packed at all. The output rows
// are cut into bands; for each, one thread copies the input rows the band reads, with zeros
// around them, into the band's part of the scratch: xp[c][r][q] = x[c][oh0 + r - pad_top][q -
// pad_left], hb x wp (hb = band rows + (kh - 1) * dil_h, wp = out_w + (kw - 1) * dil_w). Over the
// band's extended columns j = (oh - oh0) * wp + ow (ow < wp, those with ow >= out_w discarded),
// row (c, kh, kw) of the im2col matrix is then xp itself from offset c * hb * wp + kh * dil_h *
// wp + kw * dil_w: the micro-kernel reads it in place (gemm_b_shifted), and the same thread
// runs the band's GEMM at once, while the copy is in its core's cache. The copy costs about one
// input where im2col packs one per kernel element (64 3x3 over 56x56: 28% of the time). An
// element sums the same products in the same order as the micro-kernel does with im2col (a
// padded position is a zero either way); where im2col takes gemm_tail for a last strip of a few
// columns (A read in place), those columns round differently. (Strides, by copying the input
// in s x s phases, were tried: no faster for ResNet-50's strided 3x3s and stem, and far slower
// for its 1x1 stride-2 convolutions over 7x7, whose 8 MB of weights each band read again.)
// Taken where the discarded columns are at most conv_shift_waste of the extended ones (3x3 over
// 56x56: 3.5%; over 14x14, 12%, and 7x7, 20%, were slower than im2col as bands: each band of a
// few rows reads all the weights again and ends in a partial strip) and for as many
// multiply-adds as the im2col scratch needs. Small planes with more waste take it as one band
// (`whole`): every thread copies some of the channels, then the threads run the GEMM's blocks
// over the one copy, where the extended columns make at most conv_shift_whole_strips times the
// strips im2col's columns make (3x3 over 14x14: 14 strips of 16 for 13; over 7x7: 4 for 4) and
// the copy fits the budget. Bands of about conv_shift_band_cols columns, and at
// least conv_shift_min_bands of them where the rows allow. Scratch: the K offsets, then `slots`
// band copies, each with conv_shift_slack elements past it (the last strip read whole): as
// many as fit conv_im2col_budget bytes, at least conv_shift_min_slots (the threads a wave of
// bands keeps busy), at most all the bands; the bands run in waves of `slots`, each in the
// copy of its place in the wave. (UNet: 2.7 MB of kernel scratch, where a copy for every band
// took 6.4 MB.)
constexpr int64_t conv_shift_slack = 64, conv_shift_band_cols = 512, conv_shift_min_bands = 4, conv_shift_min_slots = 8;
constexpr double conv_shift_waste = 0.1, conv_shift_whole_strips = 1.1;
// The output shapes of the pixel-rows form (conv_rows_form, below): one group, the output
// channels a multiple of the strips' nr (conv_rows_channels), and for its forms other than a
// whole stride-1 plane and a stem at most conv_rows_max_plane outputs a channel (conv_rows_shape).
constexpr int64_t conv_rows_max_plane = 256;
constexpr int conv_rows_block = 4;                                                          // strips of channels an item
// an item's most rows: whole groups of gemm_mr and a multiple of 4 (its transposes read the
// rows 4 at a time: np rounded up to 4 stays within the tile)
constexpr int64_t conv_rows_tile = (conv_rows_max_plane + 4 * gemm_mr - 1) / (4 * gemm_mr) * (4 * gemm_mr);
static_assert(conv_rows_tile % 4 == 0 && conv_rows_tile % gemm_mr == 0, "conv_rows_tile: whole groups, a multiple of 4");
inline bool conv_rows_channels(const mxc_desc& od, const int64_t* ip) {
    return od.rank == 4 && ip[0] == 1 && od.lens[1] % gemm_shape<float>::nr == 0;
}
inline bool conv_rows_shape(const mxc_desc& od, const int64_t* ip) {
    return conv_rows_channels(od, ip) && od.lens[2] * od.lens[3] <= conv_rows_max_plane;
}
struct conv_shift_geometry {
    bool whole = false;        // one band, copied and multiplied by all the threads
    int64_t wp = 0;            // the copy's columns
    int64_t band = 0, bands = 0; // output rows per band (the last may have fewer); bands
    int64_t hb = 0;            // the copy's rows per band
    int64_t copy = 0;          // elements of a band's copy, the slack included
    int64_t slots = 0;         // band copies in the scratch
    int64_t offsets_bytes = 0; // the K offsets' bytes, rounded up to 64
};
inline bool conv_shift_form(const mxc_desc& xd, const mxc_desc& wd, const mxc_desc& od, const int64_t* ip,
                            conv_shift_geometry& g) {
    const int64_t kdim = conv_im2col_depth(xd, wd, od, ip);
    if (kdim == 0 || od.rank != 4 || ip[3] != 1 || ip[4] != 1) return false;
    const int64_t ho = od.lens[2], wo = od.lens[3], mg = od.lens[1] / ip[0];
    if (ho < 1 || wo < 1) return false;
    g.wp = wo + (wd.lens[3] - 1) * ip[6];
    if (double(mg) * double(ho * wo) * double(kdim) < double(conv_im2col_min_macs)) return false;
    g.offsets_bytes = (kdim * int64_t(sizeof(int64_t)) + 63) / 64 * 64;
    auto whole = [&] {
        g.whole = true;
        g.band = ho;
        g.bands = g.slots = 1;
        g.hb = ho + (wd.lens[2] - 1) * ip[5];
        g.copy = wd.lens[1] * g.hb * g.wp + conv_shift_slack;
        return g.copy * int64_t(sizeof(float)) <= conv_im2col_budget;
    };
    // (the pixel-rows form over a larger plane: where the whole copy fits the budget, else bands)
    if (conv_rows_channels(od, ip) && ho * wo > conv_rows_max_plane) {
        if (whole()) return true;
        g = conv_shift_geometry{};
        g.wp = wo + (wd.lens[3] - 1) * ip[6];
        g.offsets_bytes = (kdim * int64_t(sizeof(int64_t)) + 63) / 64 * 64;
    }
    const bool rows = conv_rows_shape(od, ip); // (no extended column is computed: whatever the waste)
    if (rows || double(g.wp - wo) > conv_shift_waste * double(g.wp)) {
        constexpr int64_t nr = gemm_shape<float>::nr;
        const int64_t strips = ((ho - 1) * g.wp + wo + nr - 1) / nr, im2col = (ho * wo + nr - 1) / nr;
        whole();
        // (the pixel-rows form's shapes take it where im2col would not, if the im2col matrix's
        // scratch holds the copy: no arena grows for it)
        const int64_t bytes = g.offsets_bytes + g.copy * int64_t(sizeof(float));
        return (double(strips) <= conv_shift_whole_strips * double(im2col) ||
                (rows && bytes <= conv_im2col_bytes<float>(xd, wd, od, ip))) &&
               g.copy * int64_t(sizeof(float)) <= conv_im2col_budget;
    }
    const int64_t by_cols = (conv_shift_band_cols + g.wp - 1) / g.wp, by_count = (ho + conv_shift_min_bands - 1) / conv_shift_min_bands;
    g.band = by_cols < by_count ? by_cols : by_count;
    g.bands = (ho + g.band - 1) / g.band;
    g.hb = g.band + (wd.lens[2] - 1) * ip[5];
    g.copy = wd.lens[1] * g.hb * g.wp + conv_shift_slack;
    const int64_t fit = conv_im2col_budget / (g.copy * int64_t(sizeof(float))); // (float: the compute type of all but double)
    g.slots = fit > conv_shift_min_slots ? fit : conv_shift_min_slots;
    if (g.slots > g.bands) g.slots = g.bands;
    return true;
}
// The pixel-rows form of a shifted convolution (one group, output channels a multiple of the
// strips' nr): the GEMM transposed, its
// rows the output pixels read in place from the copy (each pixel's base plus the kernel
// offsets: gemm_rows), its columns the output channels, the weights stored at build time as
// strips of nr channels (codegen/conv_weights_panels.cpp: float weights that would be panels
// are strips here). No column is computed and discarded: over 7x7 the shifted form's extended
// columns fill 4 strips (64) for 49 outputs, over 14x14 14 strips (224) for 196; here the
// pixels go gemm_mr at a time, the last group as many as are left. Such shapes take the whole
// form whatever its waste where the im2col matrix's scratch would hold the copy
// (conv_shift_form): UNet's 3x3s over 16x16 too. Over more than conv_rows_max_plane outputs
// it is taken where the whole plane's copy fits conv_im2col_budget, the plane cut into items of
// at most conv_rows_tile pixels, and else band by band (each band's copy and its pixels on one
// thread, as the shifted form's bands: 64 -> 32 and 32 -> 32 3x3s over 128x128 3.4-3.7 -> 2.8-3.0
// and 1.76 -> 1.41-1.46 ms alone, one thread, 128 -> 64 over 64x64 2.9 -> 2.7; two threads
// 17-18% and 7%). Its B, the weights, is
// stored as aligned strips, where the shifted form's B rows start at every kernel column's
// offset, split across cache lines (alone, one thread, 2026-11-26: 64 3x3 over 56x56 1.10 ->
// 0.96 ms, 128 over 28x28 1.08 -> 0.96, 256 over 32x32 5.33 -> 4.88, 32 -> 64 over 64x64
// 0.735 -> 0.638; two threads 8-10%; ResNet-50's kernels 39.3 -> 38.0 ms, UNet's 31.3 -> 28.7).
inline bool conv_rows_form(const mxc_desc& xd, const mxc_desc& wd, const mxc_desc& od, const int64_t* ip) {
    conv_shift_geometry g;
    return conv_rows_channels(od, ip) && conv_shift_form(xd, wd, od, ip, g);
}
// The same for a 1x1 convolution (any stride, no padding) of such a shape: its rows read the
// input in place (pixel (oh, ow)'s element c at x[c, oh * stride, ow * stride]), no copy. Over
// at most conv_rows_small_plane outputs (7x7: 49 columns, three strips and one column in the
// other form), or with at least as many input channels as output channels: inside ResNet-50
// and MobileNetV2 (one thread, 2026-11-25) their 1x1s over 14x14 with more output channels
// than input ones (256 -> 1024, 64 -> 384, 96 -> 576, 512 -> 1024 with stride 2) ran 2-9%
// slower so (the transposition to channel rows costs per output what a depth of 64-256 does
// not repay), the others 5-27% faster.
constexpr int64_t conv_rows_small_plane = 64;
inline bool conv_rows_pointwise(const mxc_desc& xd, const mxc_desc& wd, const mxc_desc& od, const int64_t* ip) {
    if (!conv_rows_shape(od, ip) || xd.rank != 4 || wd.rank != 4 || wd.lens[2] != 1 || wd.lens[3] != 1) return false;
    if (od.lens[2] * od.lens[3] > conv_rows_small_plane && wd.lens[1] < od.lens[1]) return false;
    const int64_t *pad = ip + 1, *stride = ip + 3;
    return pad[0] == 0 && pad[1] == 0 && (od.lens[2] - 1) * stride[0] < xd.lens[2] && (od.lens[3] - 1) * stride[1] < xd.lens[3];
}
// The same for a strided convolution of such a shape (not a 1x1 without padding: that reads its
// input in place): its input copied once into the scratch with the zeros of its padding around
// it, hc x wc a channel (the rows and columns its outputs read), after the K offsets; pixel (oh,
// ow)'s element kk at copy[oh * stride * wc + ow * stride + off[kk]]. Over at most
// conv_rows_small_plane outputs, and only where the scratch the im2col matrix takes holds the
// copy (ResNet-50's 512 3x3 from 14x14 to 7x7: 256 channels of 15 x 15 in 590 KB; 13% faster
// inside the model, one thread), so that no arena grows: a convolution whose
// im2col path wants no scratch keeps it (examples/cnn.onnx's 16 -> 32 with stride 2 from 32x32
// to 16x16 would add 70 KB to its 96 KB arena). Over a larger plane only a stem's shape: at
// most conv_rows_stem_channels input channels under a kernel of conv_rows_stem_depth elements
// or more, whose copy (an image's few channels) may take up to conv_im2col_budget of scratch
// (ResNet-50's 7x7 from 3 channels, 229 x 229 a channel in 630 KB, where im2col gathers 147
// rows at stride 2: 1.58 -> 1.24 ms alone, one thread, 2026-11-26; 5x5 from 3 channels 0.83 ->
// 0.72; a 3x3 stem from 3 channels, a depth of 27, 0.37 -> 0.44; and 3x3s from 8 to 32 channels
// 5-18% slower); or a kernel of conv_rows_strided_depth elements or more, where the im2col
// matrix's scratch holds the copy (alone, one thread: 256 3x3 from 28x28 to 14x14 1.19 -> 1.04
// ms, in ResNet-50 1.23 -> 1.13; 256 -> 512 from 20x20 to 10x10 1.27 -> 1.04; depths of 576
// and 1152, 64 -> 128 from 80x80 and 128 -> 256 from 40x40 or 56x56, the same either way).
// conv_pixel_rows cuts such planes into items of at most conv_rows_tile pixels.
constexpr int64_t conv_rows_stem_channels = 4, conv_rows_stem_depth = 64, conv_rows_strided_depth = 512;
struct conv_rows_copy_geometry {
    int64_t hc = 0, wc = 0, copy = 0, offsets_bytes = 0;
};
inline bool conv_rows_strided(const mxc_desc& xd, const mxc_desc& wd, const mxc_desc& od, const int64_t* ip,
                              conv_rows_copy_geometry& g) {
    if (!conv_rows_channels(od, ip) || xd.rank != 4 || wd.rank != 4 || (ip[3] == 1 && ip[4] == 1)) return false;
    if (conv_rows_pointwise(xd, wd, od, ip)) return false;
    const int64_t kdim = conv_gemm_depth(wd, od, ip);
    const bool large = od.lens[2] * od.lens[3] > conv_rows_small_plane; // (then a stem's shape or a deep kernel)
    const bool stem = large && kdim < conv_rows_strided_depth;
    if (stem && (wd.lens[1] > conv_rows_stem_channels || kdim < conv_rows_stem_depth)) return false;
    if (kdim == 0 || double(od.lens[1]) * double(od.lens[2] * od.lens[3]) * double(kdim) < double(conv_im2col_min_macs))
        return false;
    g.hc = (od.lens[2] - 1) * ip[3] + (wd.lens[2] - 1) * ip[5] + 1;
    g.wc = (od.lens[3] - 1) * ip[4] + (wd.lens[3] - 1) * ip[6] + 1;
    g.copy = wd.lens[1] * g.hc * g.wc;
    g.offsets_bytes = (kdim * int64_t(sizeof(int64_t)) + 63) / 64 * 64;
    return g.offsets_bytes + g.copy * int64_t(sizeof(float)) <= (stem ? conv_im2col_budget : conv_im2col_bytes<float>(xd, wd, od, ip));
}
// A 1x1 convolution (stride 1, no padding: x is B, conv_im2col_depth 0) of the compute type
// over whole strips (plane a multiple of nr) with at most as many output channels as input
// channels a group reads B in place, like the shifted form reads its copy: row kk at input
// channel kk's plane (gemm_b_shifted), where the other paths pack it, once (conv_im2col_bytes)
// or in each block of rows. Such a product reuses each column of B for few rows, and the pack
// cost about as much as the sums: alone, one thread, 2026-11-26: 32 -> 16 over 112x112 0.126 ->
// 0.100 ms, 144 -> 24 over 56x56 0.130 -> 0.102, 64 -> 64 and 256 -> 64 over 56x56 7-8% faster,
// 256 -> 128, 512 -> 128 and 512 -> 256 2-4%, 1024 -> 256 the same. With more output channels
// than input ones packing B once pays: 128 -> 512 over 28x28 was 8% slower in place, 16 -> 96
// and 64 -> 256 about the same. The sums are the other paths' (the same depth slices, no last
// strip of a few columns).
constexpr int64_t conv_in_place_max_depth = 1024; // (its K offsets on the stack)
template <class T>
bool conv_pointwise_in_place(const mxc_desc& xd, const mxc_desc& wd, const mxc_desc& od, const int64_t* ip) {
    if (!std::is_same<T, compute_t<T>>::value || conv_gemm_depth(wd, od, ip) == 0 || conv_im2col_depth(xd, wd, od, ip) != 0)
        return false;
    int64_t plane = 1;
    for (int d = 2; d < od.rank; ++d) plane *= od.lens[d];
    const int64_t kdim = wd.lens[1], mg = od.lens[1] / ip[0];
    return plane % gemm_shape<compute_t<T>>::nr == 0 && mg <= kdim && kdim <= conv_in_place_max_depth;
}
// The scratch a convolution's implicit GEMM wants: none for a 1x1 read in place, the shifted
// form's, the strided pixel-rows form's copy (or the im2col matrix's where larger: the same
// shape without strips takes im2col), else the im2col matrix's (conv_im2col_bytes), else 0
// (codegen/gemm_choice.cpp reserves it).
template <class T>
int64_t conv_scratch_bytes(const mxc_desc& xd, const mxc_desc& wd, const mxc_desc& od, const int64_t* ip) {
    if (conv_pointwise_in_place<T>(xd, wd, od, ip)) return 0;
    conv_shift_geometry g;
    if (conv_shift_form(xd, wd, od, ip, g)) return g.offsets_bytes + g.slots * g.copy * int64_t(sizeof(compute_t<T>));
    conv_rows_copy_geometry rg;
    if (std::is_same<compute_t<T>, float>::value && conv_rows_strided(xd, wd, od, ip, rg)) {
        const int64_t im = conv_im2col_bytes<T>(xd, wd, od, ip), rows = rg.offsets_bytes + rg.copy * int64_t(sizeof(float));
        return im > rows ? im : rows;
    }
    return conv_im2col_bytes<T>(xd, wd, od, ip);
}
// The shifted form's output: extended column j of row i is element (i, j / wp, j % wp) of the
// group's output (discarded where j % wp >= out_w).
template <class T> struct conv_out_shifted {
    using value_type = T;
    T* y;
    int64_t plane, ebase, wp, wo;
    template <class E, class C>
    void store(E& ep, const C* acc, int64_t acc_ld, int64_t i, int64_t j, int64_t cols, int64_t rows) const {
        for (int64_t jj = j, end = j + cols; jj < end;) {
            const int64_t oh = jj / wp, ow = jj - oh * wp, next = (oh + 1) * wp;
            if (ow < wo) {
                const int64_t len = (oh * wp + wo < end ? oh * wp + wo : end) - jj, o = i * plane + oh * wo + ow;
                epilogue_store_rows(ep, acc + (jj - j), acc_ld, y + o, plane, ebase + o, len, rows);
            }
            jj = next < end ? next : end;
        }
    }
    // (gemm_fetch_out_bytes) the outputs of extended columns j.. of rows i..
    void fetch(int64_t i, int64_t j, int64_t cols, int64_t rows) const {
        const auto at = [&](int64_t jj) { return jj / wp * wo + (jj % wp < wo ? jj % wp : wo); };
        const int64_t p0 = at(j), p1 = at(j + cols);
        for (int64_t r = 0; r < rows; ++r) gemm_fetch_write(y + (i + r) * plane + p0, (p1 - p0) * int64_t(sizeof(T)));
    }
};

// The implicit GEMM; false when the direct loop is the better (or only) choice. With the
// scratch (k.scratch, conv_im2col_bytes) and more than one block of rows, the matrix of each
// image and group is packed once: the threads pack the chunk's 64-column units as
// gemm_b_strips (depth kdim), then run the GEMM's blocks over it, which read the strips in
// place. An element sums the same terms in the same order either way (gemm_block's depth
// slices): the results are the same.
// t[c * ldt + p] = acc[p * ldc + c], c < nc, p < np (np a multiple of 4: conv_pixel_rows's
// rows past its pixels are read and never stored; float: 4 x 4 blocks
// of SSE shuffles, where element by element the reads ldc apart took 12% of a 1x1 256 -> 1024
// over 14x14, 2026-11-25).
template <class C> void conv_rows_transpose(const C* acc, int64_t ldc, C* t, int64_t ldt, int64_t nc, int64_t np) {
#if defined(__SSE2__)
    if constexpr (std::is_same<C, float>::value)
        if (nc % 4 == 0) {
            for (int64_t p = 0; p < np; p += 4)
                for (int64_t c = 0; c < nc; c += 4) {
                    __m128 r0 = _mm_loadu_ps(acc + p * ldc + c), r1 = _mm_loadu_ps(acc + (p + 1) * ldc + c);
                    __m128 r2 = _mm_loadu_ps(acc + (p + 2) * ldc + c), r3 = _mm_loadu_ps(acc + (p + 3) * ldc + c);
                    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
                    _mm_storeu_ps(t + c * ldt + p, r0);
                    _mm_storeu_ps(t + (c + 1) * ldt + p, r1);
                    _mm_storeu_ps(t + (c + 2) * ldt + p, r2);
                    _mm_storeu_ps(t + (c + 3) * ldt + p, r3);
                }
            return;
        }
#endif
    for (int64_t p = 0; p < np; ++p)
        for (int64_t c = 0; c < nc; ++c) t[c * ldt + p] = acc[p * ldc + c];
}

// The pixel-rows form (conv_rows_form, conv_rows_pointwise, conv_rows_strided): pixel p's
// elements of A at base(p)[off[kk]] (a copy) or, off null, base(p)[kk * astep] (a 1x1's input), the
// weights as strips `ws` (kdim x mg, strips of nr channels), into the output y (mg rows of
// `plane` pixels, ldy apart: plane where 0; its epilogue index ebase + its offset). Items: a
// block of up to 4 strips of channels by a range of the pixels, over the pool or, `serial`, on
// the calling thread (a band of the shifted form, itself an item); each sums its tile over
// depth slices as gemm_block_to does (the same slices, the same order), then transposes it
// into channel rows for the epilogue.
template <class T, class E, class Base>
void conv_pixel_rows(const Base& base, const int64_t* off, int64_t astep, const T* ws, int64_t kdim, int64_t mg,
                     int64_t plane, T* y, int64_t ebase, const E& epi, int64_t ldy = 0, bool serial = false) {
    using C = compute_t<T>;
    using S = gemm_shape<C>;
    constexpr int mr = S::mr, nr = S::nr, block = conv_rows_block;
    const int64_t strips = mg / nr, cblocks = (strips + block - 1) / block;
    const gemm_isa isa = gemm_runtime_isa();
    const pool_iface* pool = serial ? nullptr : current_pool();
    const int64_t threads = pool && pool->threads > 1 ? pool->threads : 1, groups = (plane + mr - 1) / mr;
    constexpr int64_t tile_groups = conv_rows_tile / mr; // (an item's tile holds at most this many groups)
    // A 1x1 (off null): as few items as the threads and the tile allow, so that each thread
    // reads its own channels' weights from memory, not all of them (pixel ranges of one channel
    // block on two threads both read its weights); a whole round of the threads where there
    // are few. The others keep four items a thread: their tiles are summed over a depth nine
    // times as deep, and a tile of a whole 16x16 plane (64 KiB) ran slower than two of half.
    const int64_t want = off ? 4 * threads : threads;
    int64_t parts = (want + cblocks - 1) / cblocks;
    if (parts < (groups + tile_groups - 1) / tile_groups) parts = (groups + tile_groups - 1) / tile_groups;
    while (!off && cblocks * parts < 4 * threads && cblocks * parts % threads != 0 && parts < groups) ++parts;
    if (parts > groups) parts = groups;
    const int64_t slices = (kdim + S::kc - 1) / S::kc, kstep = (kdim + slices - 1) / slices;
    // A 1x1 over more than conv_rows_small_plane pixels on more than one thread fetches the
    // next depth slice of its pixels' input rows into L2 while it sums the current one, a share
    // before each group of pixels. Its input was written by the kernel before, its channels
    // spread over the threads: half of what an item reads sits in another core's cache, a
    // plane's stride apart from one depth step to the next, which the hardware's prefetchers do
    // not follow (inside MobileNetV2 on two threads its 576 -> 96 and 384 -> 64 1x1s over 14x14
    // ran no faster than on one; with the fetches 8-19% faster; ResNet-50's 1024 -> 256 over
    // 14x14, 18-24%; on one thread, or over 7x7, they cost 1-5%).
    const bool fetch = !off && threads > 1 && plane > conv_rows_small_plane;
    auto item_at = [&](int64_t item) {
        const int64_t cb = item / parts, part = item % parts;
        const int64_t s0 = strips * cb / cblocks, ns = strips * (cb + 1) / cblocks - s0;
        const int64_t p0 = groups * part / parts * mr, p1e = groups * (part + 1) / parts * mr;
        const int64_t p1 = p1e < plane ? p1e : plane, np = p1 - p0;
        alignas(64) C acc[conv_rows_tile * conv_rows_block * gemm_shape<C>::nr];
        const int64_t ldc = block * nr;
        for (int64_t k0 = 0; k0 < kdim; k0 += kstep) {
            const int64_t kc = kdim - k0 < kstep ? kdim - k0 : kstep;
            const C* b = ws + s0 * kdim * nr + k0 * nr;
            // a 1x1's next slice of its pixels' input rows (kn of them), a share each group
            const int64_t kn = !fetch || k0 + kc >= kdim ? 0 : (kdim - k0 - kc < kstep ? kdim - k0 - kc : kstep);
            const int64_t share = (kn * mr + np - 1) / np, span = (base(p1 - 1) - base(p0) + 1) * int64_t(sizeof(C));
            for (int64_t r0 = 0, kf = k0 + kc; r0 < np; r0 += mr) {
                for (const int64_t ke = kf + share < k0 + kc + kn ? kf + share : k0 + kc + kn; kf < ke; ++kf)
                    gemm_fetch<2>(base(p0) + kf * astep, span);
                const int rows = int(np - r0 < mr ? np - r0 : mr);
                const C* arow[mr];
                for (int r = 0; r < rows; ++r) arow[r] = base(p0 + r0 + r) + (off ? 0 : k0 * astep);
                gemm_rows<C>::run(isa, rows, int(ns), kc, arow, off ? off + k0 : nullptr, astep, b, kdim * nr, acc + r0 * ldc,
                                  ldc, k0 == 0);
            }
        }
        // channel rows for the epilogue, a strip at a time (t: channel c's row at t + c * ldt;
        // the stack an item takes stays below gemm_block_to's), mr channels a store
        alignas(64) C t[gemm_shape<C>::nr * conv_rows_tile];
        const int64_t ldt = (np + 3) / 4 * 4;
        E ep = epi;
        const gemm_out_dense<T> out{y, ldy ? ldy : plane, ebase};
        for (int64_t s = 0; s < ns; ++s) {
            conv_rows_transpose(acc + s * nr, ldc, t, ldt, int64_t(nr), ldt);
            for (int c0 = 0; c0 < nr; c0 += mr)
                out.store(ep, static_cast<const C*>(t + c0 * ldt), ldt, (s0 + s) * nr + c0, p0, np, nr - c0 < mr ? nr - c0 : mr);
        }
    };
    if (serial)
        for (int64_t item = 0; item < cblocks * parts; ++item) item_at(item);
    else
        parallel_for(cblocks * parts, item_at);
}

// Rows [0, hr) of a zero-bordered copy of one input channel (xc: its first element), rows wp
// apart from d: row r is input row ih0 + r, column q input column q - pad_left, zeros outside
// the input (the shifted form's band copies, conv_rows_strided's copy). A row's inside is one
// copy (moves of whole vectors for the compute type with unit column stride), its edges
// fills: element by element, with the index arithmetic of each, the strided copy took 2% of
// YOLO, one thread.
template <class T, class C>
void conv_copy_rows(const T* xc, const mxc_desc& xd, int64_t ih0, int64_t hr, int64_t pad_left, int64_t wp, C* d) {
    const int64_t in_h = xd.lens[2], in_w = xd.lens[3], sh = xd.strides[2], sw = xd.strides[3];
    const int64_t q0 = pad_left < wp ? pad_left : wp, q1 = in_w + pad_left < wp ? in_w + pad_left : wp;
    for (int64_t r = 0; r < hr; ++r, d += wp) {
        const int64_t ih = ih0 + r;
        if (ih < 0 || ih >= in_h || q1 <= q0) {
            memset(d, 0, sizeof(C) * size_t(wp));
            continue;
        }
        const T* src = xc + ih * sh - pad_left * sw;
        memset(d, 0, sizeof(C) * size_t(q0));
        if (std::is_same<T, C>::value && sw == 1)
            memcpy(d + q0, src + q0, sizeof(C) * size_t(q1 - q0));
        else
            for (int64_t q = q0; q < q1; ++q) d[q] = C(src[q * sw]);
        memset(d + q1, 0, sizeof(C) * size_t(wp - q1));
    }
}

// The K offsets of a zero-bordered input copy (channels hw elements apart, rows `row`): element
// kk = (c, i, j) of a pixel at its base + off[kk] (the shifted form, conv_rows_strided).
inline void conv_copy_offsets(int64_t* off, int64_t cg, int64_t kh_n, int64_t kw_n, int64_t hw, int64_t row,
                              const int64_t* dil) {
    for (int64_t c = 0, kk = 0; c < cg; ++c)
        for (int64_t i = 0; i < kh_n; ++i)
            for (int64_t j = 0; j < kw_n; ++j) off[kk++] = c * hw + i * dil[0] * row + j * dil[1];
}

// Panels: the weights are stored as the GEMM's row panels (gemm_a_panels, float; the compiler
// does so where conv_gemm_depth is not 0: codegen/conv_weights_panels.cpp), group after group,
// in the bytes of the weights; the descriptor stays the weights' own.
template <class T, class E, bool Panels = false> bool convolution_gemm(const mxc_kargs& k, const E& epi) {
    using C = compute_t<T>;
    const mxc_desc &xd = k.in_desc[0], &wd = k.in_desc[1], &od = *k.out_desc;
    const int r = od.rank, s = r - 2;
    const int64_t group = k.ip[0];
    const int64_t* pad = k.ip + 1;
    const int64_t* stride = k.ip + 1 + s;
    const int64_t* dil = k.ip + 1 + 2 * s;
    const int64_t cg = wd.lens[1], mg = od.lens[1] / group;
    const int64_t kdim = conv_gemm_depth(wd, od, k.ip);
    if (kdim == 0) return false;
    const int64_t kn = kdim / cg; // the kernel's elements
    int64_t plane = 1;
    for (int d = 2; d < r; ++d) plane *= od.lens[d];
    const bool pointwise = conv_im2col_depth(xd, wd, od, k.ip) == 0; // a 1x1: x is the matrix
    const T* x = input<T>(k, 0);
    const T* w = input<T>(k, 1);
    T* y = output<T>(k);
    const int64_t images = od.lens[0];
    const gemm_split sp = gemm_plan<T>(mg, plane, images * group);
    auto pack_b = [&](int64_t n, int64_t g) {
        return conv_pack_b<T>{x + n * xd.strides[0] + g * cg * xd.strides[1], xd, wd, od, pad, stride, dil, kn};
    };
    auto pack_a = [&](int64_t g) {
        if constexpr (Panels) {
            static_assert(std::is_same<T, C>::value, "convolution_gemm: panels of the compute type");
            return gemm_a_panels<C>{w + g * mg * kdim, kdim, mg};
        } else {
            return gemm_pack_a_strided<T>{w + g * mg * wd.strides[0], wd.strides[0], 1};
        }
    };
    if constexpr (Panels)
        if (conv_rows_pointwise(xd, wd, od, k.ip)) {
            static_assert(std::is_same<T, C>::value, "convolution_gemm: strips of the compute type");
            const int64_t wo = od.lens[3], sh = stride[0] * xd.strides[2], sw = stride[1] * xd.strides[3];
            for (int64_t n = 0; n < images; ++n) {
                const T* xn = x + n * xd.strides[0];
                auto at = [&](int64_t p) -> const C* { return xn + p / wo * sh + p % wo * sw; };
                conv_pixel_rows<T>(at, nullptr, xd.strides[1], w, kdim, mg, plane, y + n * mg * plane, n * mg * plane, epi);
            }
            return true;
        }
    if constexpr (Panels) {
        conv_rows_copy_geometry rg;
        if (k.scratch && conv_rows_strided(xd, wd, od, k.ip, rg)) {
            int64_t* off = static_cast<int64_t*>(k.scratch);
            C* copy = reinterpret_cast<C*>(static_cast<char*>(k.scratch) + rg.offsets_bytes);
            const int64_t kh_n = wd.lens[2], kw_n = wd.lens[3], hw = rg.hc * rg.wc, wo = od.lens[3];
            conv_copy_offsets(off, cg, kh_n, kw_n, hw, rg.wc, dil);
            const int64_t sh = stride[0] * rg.wc, sw = stride[1];
            for (int64_t n = 0; n < images; ++n) {
                const T* xn = x + n * xd.strides[0];
                parallel_for(cg, [&](int64_t c) { // channel c of the copy: zeros where the padding is
                    conv_copy_rows(xn + c * xd.strides[1], xd, -pad[0], rg.hc, pad[1], rg.wc, copy + c * hw);
                });
                auto at = [&](int64_t p) -> const C* { return copy + p / wo * sh + p % wo * sw; };
                conv_pixel_rows<T>(at, off, 0, w, kdim, mg, plane, y + n * mg * plane, n * mg * plane, epi);
            }
            return true;
        }
    }
#if MXC_GEMM_AVX2
    if constexpr (std::is_same<T, float>::value) { // a stem of at most 3 input channels: im2col in registers
        using St = conv_stem_s2<T>;
        const St st(k, Panels);
        if (st.band > 0) {
            uint16_t masks[3 * St::max_vectors];
            st.fill_masks(masks);
            const int64_t rows = od.lens[2], out_w = od.lens[3], bands = (rows + st.band - 1) / st.band;
            const bool fetch_out = double(elements(od)) * double(sizeof(T)) > double(gemm_fetch_out_bytes);
            parallel_for(images * bands, [&](int64_t t) {
                E ep = epi;
                const int64_t n = t / bands, r0 = t % bands * st.band, r1 = r0 + st.band < rows ? r0 + st.band : rows;
                const int64_t e = n * od.lens[1] * plane + r0 * out_w;
                if (fetch_out) // (the item's rows of every output channel, as channel_bands does)
                    for (int64_t m = 0; m < od.lens[1]; ++m) gemm_fetch_write(y + e + m * plane, (r1 - r0) * out_w * int64_t(sizeof(T)));
                alignas(64) float run[St::run_cap];
                st.block(n, r0, r1, masks, run);
                epilogue_store_rows(ep, static_cast<const float*>(run), st.band * out_w, y + e, plane, e, (r1 - r0) * out_w,
                                    od.lens[1]);
            });
            return true;
        }
    }
#endif
    conv_shift_geometry sg;
    if (k.scratch && conv_shift_form(xd, wd, od, k.ip, sg)) {
        // the pixel-rows form (the weights stored as strips): conv_rows_form, given the shifted form
        const bool as_rows = Panels && conv_rows_channels(od, k.ip);
        int64_t* off = static_cast<int64_t*>(k.scratch);
        C* copies = reinterpret_cast<C*>(static_cast<char*>(k.scratch) + sg.offsets_bytes);
        const int64_t kh_n = wd.lens[2], kw_n = wd.lens[3], hw = sg.hb * sg.wp, ho = od.lens[2], wo = od.lens[3];
        conv_copy_offsets(off, cg, kh_n, kw_n, hw, sg.wp, dil);
        // channel c's rows of the copy of a band from output row oh0: rows [0, hr) read input row
        // oh0 + r - pad_top, column q input column q - pad_left, the others zeros
        auto copy_channel = [&](const T* xg, C* xp, int64_t c, int64_t oh0, int64_t hr) {
            conv_copy_rows(xg + c * xd.strides[1], xd, oh0 - pad[0], hr, pad[1], sg.wp, xp + c * hw);
        };
        for (int64_t ng = 0; ng < images * group; ++ng) {
            const int64_t n = ng / group, g = ng % group, ybase = (n * od.lens[1] + g * mg) * plane;
            const T* xg = x + n * xd.strides[0] + g * cg * xd.strides[1];
            const auto pa = pack_a(g);
            if (sg.whole) { // one band: the threads copy channels, then run the GEMM's blocks
                parallel_for(cg, [&](int64_t c) { copy_channel(xg, copies, c, 0, sg.hb); });
                for (int64_t i = cg * hw; i < sg.copy; ++i) copies[i] = C(0);
                if constexpr (Panels)
                    if (as_rows) {
                        const int64_t wp = sg.wp;
                        auto at = [&](int64_t p) -> const C* { return copies + p / wo * wp + p % wo; };
                        conv_pixel_rows<T>(at, off, 0, w, kdim, mg, plane, y + ybase, ybase, epi);
                        continue;
                    }
                const int64_t cols = (ho - 1) * sg.wp + wo;
                const gemm_split cs = gemm_plan<T>(mg, cols, 1);
                const conv_out_shifted<T> out{y + ybase, plane, ybase, sg.wp, wo};
                parallel_for(cs.blocks(), [&](int64_t b) { gemm_block_to(cs, kdim, pa, gemm_b_shifted<C>{copies, off}, out, epi, b); });
                continue;
            }
            for (int64_t wave = 0; wave < sg.bands; wave += sg.slots) {
                parallel_for(sg.bands - wave < sg.slots ? sg.bands - wave : sg.slots, [&](int64_t slot) {
                    const int64_t band = wave + slot, oh0 = band * sg.band, rows = ho - oh0 < sg.band ? ho - oh0 : sg.band;
                    C* xp = copies + slot * sg.copy;
                    const int64_t hr = rows + (kh_n - 1) * dil[0];
                    for (int64_t c = 0; c < cg; ++c) copy_channel(xg, xp, c, oh0, hr);
                    for (int64_t i = cg * hw; i < sg.copy; ++i) xp[i] = C(0); // (the slack)
                    // the band's GEMM, block after block on this thread (the bands are the items)
                    const int64_t cols = (rows - 1) * sg.wp + wo, e0 = ybase + oh0 * wo;
                    if constexpr (Panels)
                        if (as_rows) { // its pixels as rows, on this thread
                            auto at = [&](int64_t p) -> const C* { return xp + p / wo * sg.wp + p % wo; };
                            conv_pixel_rows<T>(at, off, 0, w, kdim, mg, rows * wo, y + e0, e0, epi, plane, true);
                            return;
                        }
                    const gemm_split cs = gemm_plan<T>(mg, cols, sg.bands);
                    const conv_out_shifted<T> out{y + e0, plane, e0, sg.wp, wo};
                    for (int64_t b = 0; b < cs.blocks(); ++b) gemm_block_to(cs, kdim, pa, gemm_b_shifted<C>{xp, off}, out, epi, b);
                });
            }
        }
        return true;
    }
    if (conv_pointwise_in_place<T>(xd, wd, od, k.ip)) {
        int64_t off[conv_in_place_max_depth]; // row kk of B: input channel kk's plane
        for (int64_t kk = 0; kk < kdim; ++kk) off[kk] = kk * xd.strides[1];
        for (int64_t ng = 0; ng < images * group; ++ng) {
            const int64_t n = ng / group, g = ng % group, ybase = (n * od.lens[1] + g * mg) * plane;
            const C* xg = reinterpret_cast<const C*>(x + n * xd.strides[0] + g * cg * xd.strides[1]);
            const auto pa = pack_a(g);
            const gemm_split cs = gemm_plan<T>(mg, plane, 1);
            const gemm_out_dense<T> out{y + ybase, plane, ybase};
            parallel_for(cs.blocks(), [&](int64_t b) { gemm_block_to(cs, kdim, pa, gemm_b_shifted<C>{xg, off}, out, epi, b); });
        }
        return true;
    }
    if (k.scratch && sp.row_blocks > 1) {
        constexpr int nr = gemm_shape<C>::nr;
        constexpr int64_t unit = conv_im2col_unit;
        static_assert(unit <= conv_pack_b<T>::pack2d_cols && unit % nr == 0, "convolution_gemm: units of whole strips");
        C* strips = static_cast<C*>(k.scratch);
        const int64_t chunk = conv_im2col_cols<C>(kdim, plane);
        for (int64_t ng = 0; ng < images * group; ++ng) {
            const int64_t n = ng / group, g = ng % group, ybase = (n * od.lens[1] + g * mg) * plane;
            const conv_pack_b<T> pb = pack_b(n, g);
            const auto pa = pack_a(g);
            for (int64_t p0 = 0; p0 < plane; p0 += chunk) {
                const int64_t cols = plane - p0 < chunk ? plane - p0 : chunk;
                // the chunk's units, each in `parts` ranges of rows where there are fewer units than
                // the pool wants items (a 7x7 plane is one unit)
                const int64_t units = (cols + unit - 1) / unit, want = 4 * (current_pool() ? current_pool()->threads : 1);
                const int64_t split = (want + units - 1) / units, most = (kdim + 63) / 64; // (ranges of 64 rows or more)
                const int64_t parts = units >= want ? 1 : split < most ? split : most;
                parallel_for(units * parts, [&](int64_t item) {
                    const int64_t j = item / parts * unit, part = item % parts;
                    const int64_t kb = kdim * part / parts, ke = kdim * (part + 1) / parts;
                    const int width = int(cols - j < unit ? cols - j : unit);
                    C* dst = strips + j * kdim; // strip j / nr
                    if (width % nr) // its rows of the last strip's padding
                        for (int64_t kk = kb; kk < ke; ++kk) memset(dst + width / nr * nr * kdim + kk * nr, 0, sizeof(C) * nr);
                    if (!pointwise) return pb(kb, ke - kb, p0 + j, width, dst + kb * nr, gemm_nr<nr>{}, kdim);
                    // a 1x1: row kk of the matrix is input channel kk's plane
                    const T* src = x + n * xd.strides[0] + g * cg * xd.strides[1] + p0 + j;
                    for (int64_t kk = kb; kk < ke; ++kk)
                        for (int c0 = 0; c0 < width; c0 += nr) {
                            const int w = width - c0 < nr ? width - c0 : nr;
                            C* d = dst + c0 * kdim + kk * nr;
                            const T* row = src + kk * xd.strides[1] + c0;
                            if constexpr (std::is_same<T, C>::value)
                                if (w == nr) { memcpy(d, row, sizeof(C) * nr); continue; } // a fixed size: a few moves
                            for (int c = 0; c < w; ++c) d[c] = C(row[c]);
                        }
                });
                const gemm_split cs = gemm_plan<T>(mg, cols, 1);
                parallel_for(cs.blocks(), [&](int64_t b) {
                    gemm_block(cs, kdim, pa, gemm_b_strips<C>{strips, kdim}, y + ybase + p0, plane, ybase + p0, epi, b);
                });
            }
        }
        return true;
    }
    const int64_t blocks = sp.blocks();
    parallel_for(images * group * blocks, [&](int64_t t) {
        const int64_t n = t / (group * blocks), g = t / blocks % group;
        const T* xg = x + n * xd.strides[0] + g * cg * xd.strides[1];
        const int64_t ybase = (n * od.lens[1] + g * mg) * plane;
        if (pointwise)
            gemm_block(sp, cg, pack_a(g), gemm_pack_b_strided<T>{xg, xd.strides[1], 1}, y + ybase, plane, ybase, epi, t % blocks);
        else
            gemm_block(sp, kdim, pack_a(g), pack_b(n, g), y + ybase, plane, ybase, epi, t % blocks);
    });
    return true;
}

// The direct loop (types without the GEMM, depthwise and other small groups, non-packed
// weights), row by row: conv_rows<T>::row accumulates columns [c0, c1) of one output row in
// acc: for every input channel of the group, the kernel rows (offsets over the leading spatial
// dims) whose input row exists, up to 3 at a time, fold w * x over the columns whose input
// column exists (window_row, templates/cpu/window.hpp: up to 3 rows by 3 kernel columns a pass).
template <class T> struct conv_rows {
    using C = compute_t<T>;
    const mxc_desc &xd, &wd, &od;
    const T *x, *w;
    const int64_t *pad, *stride, *dil;
    int s, last;
    int64_t cg, mg, krows, k_w;

    conv_rows(const mxc_kargs& k)
        : xd(k.in_desc[0]), wd(k.in_desc[1]), od(*k.out_desc), x(input<T>(k, 0)), w(input<T>(k, 1)), pad(k.ip + 1),
          stride(k.ip + 1 + (od.rank - 2)), dil(k.ip + 1 + 2 * (od.rank - 2)), s(od.rank - 2), last(od.rank - 1),
          cg(wd.lens[1]), mg(od.lens[1] / k.ip[0]), krows(1), k_w(wd.lens[last]) {
        for (int d = 2; d < last; ++d) krows *= wd.lens[d];
    }

    // The fold of kernel rows wr[0 .. rows) (make of window_row): acc + w * x.
    auto fold(const T* const* wr, int rows) const {
        const int64_t ws = wd.strides[last], kw_n = k_w;
        return [wr, rows, ws, kw_n](int r0, int64_t kw0) {
            C wv[3][3] = {};
            for (int r = 0; r < 3 && r0 + r < rows; ++r)
                for (int64_t j = 0; j < 3 && kw0 + j < kw_n; ++j) wv[r][j] = C(wr[r0 + r][(kw0 + j) * ws]);
            return [wv](C a, C v, int r, int j) { return a + wv[r][j] * v; };
        };
    }

    // acc[0, c1 - c0) = output (n, m, row, c0 .. c1 - 1) before the epilogue; row over the
    // output's leading spatial dims.
    void row(int64_t n, int64_t m, int64_t row, int64_t c0, int64_t c1, C* acc) const {
        int64_t o[MXC_MAX_RANK]; // the output index over the leading spatial dims
        for (int64_t d = s - 2, rest = row; d >= 0; --d) {
            o[d] = d > 0 ? rest % od.lens[2 + d] : rest;
            rest /= od.lens[2 + d];
        }
        for (int64_t i = 0; i < c1 - c0; ++i) acc[i] = C(0);
        const T* xg = x + n * xd.strides[0] + m / mg * cg * xd.strides[1];
        for (int64_t c = 0; c < cg; ++c) {
            const T* xc = xg + c * xd.strides[1];
            const T* wc = w + m * wd.strides[0] + c * wd.strides[1];
            const T* xr[3] = {};
            const T* wr[3] = {};
            int rows = 0;
            int64_t kd[MXC_MAX_RANK] = {}; // the kernel row's index over the leading dims
            for (int64_t kr = 0; kr < krows; ++kr) {
                int64_t xoff = 0, woff = 0;
                bool inside = true;
                for (int d = 0; d < s - 1 && inside; ++d) {
                    const int64_t pos = o[d] * stride[d] - pad[d] + kd[d] * dil[d];
                    inside = pos >= 0 && pos < xd.lens[2 + d];
                    xoff += pos * xd.strides[2 + d];
                    woff += kd[d] * wd.strides[2 + d];
                }
                for (int d = s - 2; d >= 0 && ++kd[d] == wd.lens[2 + d]; --d) kd[d] = 0;
                if (inside) {
                    xr[rows] = xc + xoff;
                    wr[rows++] = wc + woff;
                }
                if (rows == 3 || (kr == krows - 1 && rows > 0)) {
                    window_row(acc, c0, c1, xr, rows, xd.lens[last], xd.strides[last], stride[s - 1], dil[s - 1],
                               pad[s - 1], k_w, fold(wr, rows));
                    rows = 0;
                }
            }
        }
    }
};

// Work items of (image, output channel, block of output rows) over the thread pool; each row,
// in chunks of up to 256 columns (or as many short rows as fit), accumulates in a stack buffer,
// then the epilogue maps it into y.
template <class T, class E> void convolution_direct(const mxc_kargs& k, const E& epi) {
    using C = compute_t<T>;
    constexpr int64_t chunk = 256;
    const mxc_desc& od = *k.out_desc;
    if (elements(od) == 0) return;
    const conv_rows<T> cr(k);
    const int64_t out_w = od.lens[od.rank - 1], channels = od.lens[1];
    const int64_t rows = elements(od) / (od.lens[0] * channels * out_w);
    const int64_t per = rows_per_item(rows, out_w * cr.krows * cr.k_w * cr.cg, 1 << 15), blocks = (rows + per - 1) / per;
    T* y = output<T>(k);
    // Items of (image and channel, band of `band` output rows) over the pool (the stride-2 and
    // rows depthwise kernels): sums(n, m, r0, r1, run) puts the band's sums in run (the
    // capacity cap's value), which the epilogue then stores. Each item's outputs are fetched for writing as
    // it starts where the output is large (gemm_fetch_out_bytes; inside MobileNetV2, one
    // thread, 2026-11-26: 32 3x3 over 112x112 0.144 -> 0.121 ms, 96 stride 2 from 112x112
    // 0.271 -> 0.239 in the rows kernel; fetching the next item's input rows as well made the
    // 144-channel ones over 56x56 7-18% slower).
    auto channel_bands = [&](auto cap, int64_t band, const auto& sums) {
        constexpr int64_t Cap = decltype(cap)::value;
        const int64_t bands = (rows + band - 1) / band;
        const bool fetch_out = double(elements(od)) * double(sizeof(T)) > double(gemm_fetch_out_bytes);
        parallel_for(od.lens[0] * channels * bands, [&](int64_t t) {
            E ep = epi;
            const int64_t nm = t / bands, r0 = t % bands * band, r1 = r0 + band < rows ? r0 + band : rows;
            const int64_t e = (nm * rows + r0) * out_w;
            alignas(64) C run[Cap];
            if (fetch_out) gemm_fetch_write(y + e, (r1 - r0) * out_w * int64_t(sizeof(T)));
            sums(nm / channels, nm % channels, r0, r1, run);
            epilogue_store(ep, static_cast<const C*>(run), y + e, e, (r1 - r0) * out_w);
        });
    };
#if MXC_GEMM_AVX2
    if constexpr (std::is_same<T, float>::value) {
        using D = conv_depthwise_flat<T>;
        if (const D df(k); df.channels > 0) { // a block of channels a work item
            uint16_t masks[D::max_vectors * D::max_taps];
            df.fill_masks(masks);
            const int64_t blocks = (channels + df.channels - 1) / df.channels, plane = df.plane, ld = df.vectors * D::lanes;
            parallel_for(od.lens[0] * blocks, [&](int64_t t) {
                E ep = epi;
                const int64_t n = t / blocks, m0 = t % blocks * df.channels;
                const int64_t nc = channels - m0 < df.channels ? channels - m0 : df.channels, e = (n * channels + m0) * plane;
                alignas(64) float run[D::run_cap];
                df.block(n, m0, nc, masks, run);
                epilogue_store_rows(ep, static_cast<const float*>(run), ld, y + e, plane, e, plane, nc);
            });
            return;
        }
        using S = conv_depthwise_s2<T>;
        if (const S ds(k); ds.band > 0) {
            uint16_t masks[3 * S::max_vectors];
            ds.fill_masks(masks);
            channel_bands(std::integral_constant<int64_t, S::run_cap>{}, ds.band,
                          [&](int64_t n, int64_t m, int64_t r0, int64_t r1, float* run) { ds.block(n, m, r0, r1, masks, run); });
            return;
        }
    }
#endif
    if (const conv_depthwise_rows<T> dr(k); dr.band > 0) {
        using D = conv_depthwise_rows<T>;
        channel_bands(std::integral_constant<int64_t, D::run_cap>{}, dr.band, [&](int64_t n, int64_t m, int64_t r0, int64_t r1, C* run) {
            alignas(64) C buf[D::buf_cap]; // (its rows start on a whole vector)
            dr.block_any(n, m, r0, r1, buf, run);
        });
        return;
    }
    if (const conv_depthwise<T> dw(k); dw.band > 0) { // 8 channels by a band of rows a work item
        using D = conv_depthwise<T>;
        const int64_t cblocks = (channels + D::lanes - 1) / D::lanes, bands = (rows + dw.band - 1) / dw.band;
        parallel_for(od.lens[0] * cblocks * bands, [&](int64_t t) {
            E ep = epi;
            const int64_t nb = t / bands, n = nb / cblocks, m0 = nb % cblocks * D::lanes;
            const int64_t r0 = t % bands * dw.band, r1 = r0 + dw.band < rows ? r0 + dw.band : rows;
            const int64_t e = ((n * channels + m0) * rows + r0) * out_w, nl = channels - m0 < D::lanes ? channels - m0 : D::lanes;
            typename D::V buf[D::buf_cap];
            C run[D::lanes * D::run_cap];
            dw.block_any(n, m0, r0, r1, buf, run);
            epilogue_store_rows(ep, static_cast<const C*>(run), D::run_cap, y + e, rows * out_w, e, (r1 - r0) * out_w, nl);
        });
        return;
    }
    parallel_for(od.lens[0] * channels * blocks, [&](int64_t t) {
        E ep = epi; // the epilogue may keep state: one copy per work item
        const int64_t nm = t / blocks, r0 = t % blocks * per, r1 = r0 + per < rows ? r0 + per : rows;
        C acc[chunk];
        for (int64_t row = r0; row < r1;)
            if (out_w <= chunk) { // as many whole rows as fit, one epilogue run for them
                const int64_t rn = chunk / out_w < r1 - row ? chunk / out_w : r1 - row, e = (nm * rows + row) * out_w;
                for (int64_t q = 0; q < rn; ++q) cr.row(nm / channels, nm % channels, row + q, 0, out_w, acc + q * out_w);
                epilogue_store(ep, static_cast<const C*>(acc), y + e, e, rn * out_w);
                row += rn;
            } else {
                for (int64_t c0 = 0; c0 < out_w; c0 += chunk) {
                    const int64_t c1 = c0 + chunk < out_w ? c0 + chunk : out_w, e = (nm * rows + row) * out_w + c0;
                    cr.row(nm / channels, nm % channels, row, c0, c1, acc);
                    epilogue_store(ep, static_cast<const C*>(acc), y + e, e, c1 - c0);
                }
                ++row;
            }
    });
}

// `epi(acc, e)` maps the accumulated value of output element e before the store (fused
// epilogues, templates/cpu/fused.hpp); the plain kernel stores acc as it is.
// (Panels: see convolution_gemm; the GEMM always runs then, or nothing for an empty output.)
template <class T, class E, bool Panels = false> void convolution_epilogue(const mxc_kargs& k, E epi) {
    if constexpr (Panels) {
        if (elements(*k.out_desc) > 0 && !convolution_gemm<T, E, true>(k, epi)) abort(); // (never: the compiler checked)
    } else {
        if constexpr (gemm_supported<T>)
            if (elements(*k.out_desc) > 0 && convolution_gemm<T>(k, epi)) return;
        convolution_direct<T>(k, epi);
    }
}

template <class T, bool Panels = false> void convolution(const mxc_kargs& k) {
    const auto same = [](compute_t<T> v, int64_t) { return v; }; // (a lambda, not a function pointer: inlined)
    convolution_epilogue<T, decltype(same), Panels>(k, same);
}

} // namespace cpu
} // namespace mxc
