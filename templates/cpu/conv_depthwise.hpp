// Depthwise 2-d convolution on the cpu: every output channel reads one input channel (weights
// [M, 1, kh, kw], group = input channels, any channel multiplier, stride, dilation and padding).
// Stride 1 over at most 1024 outputs a channel, rows as long as the input's, on AVX-512:
// conv_depthwise_flat, below; 3 x 3, stride 2 over rows of at least 16 outputs on AVX-512:
// conv_depthwise_s2, below; 3 x 3, stride 1 or 2 over rows of at least 16 outputs:
// conv_depthwise_rows, below; the others:
// Eight output channels are computed at once, one per lane of a vector: the blocked-channel
// layout (NCHWc8) that ONNX Runtime and oneDNN keep between layers, here only inside the kernel.
// A work item is (image, block of 8 channels, band of output rows):
//   1. the input rows the band reads, zero-padded, are transposed into buf[row * width + col],
//      a vector of the 8 channels' values per position (8 x 8 transposes where the CPU has AVX2);
//   2. each output position sums w[tap] * buf[...] over the taps, whole vectors, in tap order
//      (kernel row, then column) from 0: a stride or dilation is only an offset, there are no
//      edges (the padding is in buf) and no division. The AVX2 clone (the CPUs where the GEMM
//      takes its AVX2/FMA kernel) fuses each multiply and add, as the GEMM's convolutions do:
//      its values differ from the baseline's in the last bits;
//   3. the sums are transposed back into a run per channel (run[lane * run_cap + i]), which the
//      caller hands to the epilogue a channel at a time.
#pragma once
#include "templates/cpu/common.hpp"
#include "templates/cpu/gemm.hpp"

#include <string.h>
#include <type_traits>
#include <utility>

namespace mxc {
namespace cpu {

template <class T> struct conv_depthwise {
    using C = compute_t<T>;
    static constexpr int lanes = 8;
    typedef C V __attribute__((vector_size(lanes * sizeof(C))));
    // the scratch a work item keeps on its stack: 48 KiB of input, 48 KiB of outputs
    static constexpr int64_t buf_cap = 49152 / int64_t(sizeof(V)); // vectors of input a band holds
    static constexpr int64_t run_cap = 6144 / int64_t(sizeof(C));  // outputs of a channel a band holds
    static constexpr int64_t max_taps = 64;
    static constexpr int64_t chunk = 64; // output positions summed before a transpose

    const mxc_desc &xd, &wd, &od;
    const T *x, *w;
    int64_t sh = 1, sw = 1, dh = 1, dw = 1, ph = 0, pw = 0, kh_n = 1, kw_n = 1, mg = 1;
    int64_t width = 0; // buffer columns: input columns -pw .. the last that an output reads
    int64_t band = 0;  // output rows a work item; 0: not this kernel's case

    explicit conv_depthwise(const mxc_kargs& k)
        : xd(k.in_desc[0]), wd(k.in_desc[1]), od(*k.out_desc), x(input<T>(k, 0)), w(input<T>(k, 1)) {
        if (od.rank != 4 || wd.lens[1] != 1 || k.ip[0] != xd.lens[1]) return;
        ph = k.ip[1], pw = k.ip[2], sh = k.ip[3], sw = k.ip[4], dh = k.ip[5], dw = k.ip[6];
        kh_n = wd.lens[2], kw_n = wd.lens[3], mg = od.lens[1] / k.ip[0];
        if (kh_n * kw_n > max_taps) return;
        width = (od.lens[3] - 1) * sw + (kw_n - 1) * dw + 1;
        int64_t b = 0; // the most rows that fit, then evened out over the bands
        while (b < od.lens[2] && in_rows(b + 1) * width <= buf_cap && (b + 1) * od.lens[3] <= run_cap) ++b;
        if (b == 0) return;
        const int64_t bands = (od.lens[2] + b - 1) / b;
        band = (od.lens[2] + bands - 1) / bands;
    }

    int64_t in_rows(int64_t out_rows) const { return (out_rows - 1) * sh + (kh_n - 1) * dh + 1; }

    // run[l * run_cap + (oh - r0) * out_w + ow] = output (n, m0 + l, oh, ow) before the epilogue,
    // oh in [r0, r1), l < the channels left from m0 (at most 8); buf: buf_cap vectors of scratch.
    void block_any(int64_t n, int64_t m0, int64_t r0, int64_t r1, V* buf, C* run) const {
#if MXC_GEMM_AVX2
        if (gemm_isa_avx2(gemm_runtime_isa())) return block_avx2(n, m0, r0, r1, buf, run);
#endif
        block<false>(n, m0, r0, r1, buf, run);
    }
#if MXC_GEMM_AVX2
    __attribute__((target("avx2,fma"), optimize("fp-contract=fast"), noinline)) void block_avx2(
        int64_t n, int64_t m0, int64_t r0, int64_t r1, V* buf, C* run) const {
        block<true>(n, m0, r0, r1, buf, run);
    }
#endif

    template <bool Avx>
    __attribute__((always_inline)) void block(int64_t n, int64_t m0, int64_t r0, int64_t r1, V* buf, C* run) const {
        const int64_t channels = od.lens[1], out_w = od.lens[3], in_h = xd.lens[2], in_w = xd.lens[3];
        const T* src[lanes]; // each lane's input channel (the block's last for lanes past the channels)
        const T* ws[lanes];  // and its weights
        for (int l = 0; l < lanes; ++l) {
            const int64_t m = m0 + l < channels ? m0 + l : channels - 1;
            src[l] = x + n * xd.strides[0] + m / mg * xd.strides[1];
            ws[l] = w + m * wd.strides[0];
        }
        // wv[r * kw + c][l] = lane l's weight (r, c): 8 x 8 transposes where the taps are contiguous
        V wv[max_taps];
        int64_t t0 = 0;
#if MXC_GEMM_AVX2
        if constexpr (Avx && std::is_same<T, float>::value)
            if (wd.strides[3] == 1 && wd.strides[2] == kw_n)
                for (; t0 + lanes <= kh_n * kw_n; t0 += lanes) transpose8_in(wv + t0, ws, t0);
#endif
        for (int64_t r = 0, t = 0; r < kh_n; ++r)
            for (int64_t c = 0; c < kw_n; ++c, ++t)
                if (t >= t0)
                    for (int l = 0; l < lanes; ++l) wv[t][l] = C(ws[l][r * wd.strides[2] + c * wd.strides[3]]);
        // 1. the input rows, columns [a, b) of buf from the input, the rest zero
        const int64_t a = pw < width ? pw : width, b = pw + in_w < width ? pw + in_w : width, h0 = r0 * sh - ph;
        const int64_t lo = h0 < 0 ? -h0 : 0, hi = in_h - h0 < in_rows(r1 - r0) ? in_h - h0 : in_rows(r1 - r0);
        for (int64_t r = 0; r < in_rows(r1 - r0); ++r) {
            V* row = buf + r * width;
            const bool inside = r >= lo && r < hi;
            for (int64_t c = 0; c < (inside ? a : width); ++c) row[c] = V{};
            for (int64_t c = inside ? b : width; c < width; ++c) row[c] = V{};
        }
        if (lo < hi) transpose_in<Avx>(buf, src, h0 + lo, lo, hi, a, b);
        // 2. and 3., a chunk of the band's outputs (row after row) at a time
        V acc[chunk];
        const int64_t total = (r1 - r0) * out_w;
        for (int64_t i0 = 0, cnt; i0 < total; i0 += cnt) {
            cnt = total - i0 < chunk ? total - i0 : chunk;
            if (out_w >= chunk && out_w - i0 % out_w < cnt) cnt = out_w - i0 % out_w; // long rows: a chunk a row's
            for (int64_t i = i0; i < i0 + cnt;) {
                const int64_t oh = i / out_w, ow = i % out_w, seg = out_w - ow < i0 + cnt - i ? out_w - ow : i0 + cnt - i;
                const V* in = buf + oh * sh * width + ow * sw;
                if (kh_n == 3 && kw_n == 3) taps<3, 3>(in, wv, acc + (i - i0), seg);
                else taps<0, 0>(in, wv, acc + (i - i0), seg);
                i += seg;
            }
            transpose_out<Avx>(acc, cnt, run + i0);
        }
    }

    // acc[i] = sum over taps (r, c) of wv[r * kw + c] * in[i * sw + r * dh * width + c * dw], i < cnt;
    // KH, KW: the kernel's size at compile time (its weights then stay in registers), 0: at run time
    template <int KH, int KW>
    __attribute__((always_inline)) void taps(const V* in, const V* wv, V* acc, int64_t cnt) const {
        const int64_t kh = KH ? KH : kh_n, kw = KW ? KW : kw_n, rs = dh * width;
        if constexpr (KH > 0 && KW > 0) {
            V wk[KH * KW];
            for (int t = 0; t < KH * KW; ++t) wk[t] = wv[t];
            for (int64_t i = 0; i < cnt; ++i) {
                const V* p = in + i * sw;
                V s = V{};
#pragma GCC unroll 8
                for (int r = 0; r < KH; ++r)
#pragma GCC unroll 8
                    for (int c = 0; c < KW; ++c) s = s + wk[r * KW + c] * p[r * rs + c * dw];
                acc[i] = s;
            }
        } else
            for (int64_t i = 0; i < cnt; ++i) {
                const V* p = in + i * sw;
                V s = V{};
                for (int64_t r = 0; r < kh; ++r)
                    for (int64_t c = 0; c < kw; ++c) s = s + wv[r * kw + c] * p[r * rs + c * dw];
                acc[i] = s;
            }
    }

    // buf[r * width + c][l] = src[l][(h + r - lo) * row stride + (c - pw) * column stride] for
    // rows r in [lo, hi) and columns c in [a, b); where the CPU has AVX2 and the columns are
    // contiguous, 8 x 8 transposes along each row, or along all the rows as one run where the
    // plane is contiguous (small planes: the transposes do not stop at the end of a row).
    template <bool Avx>
    __attribute__((always_inline)) void transpose_in(V* buf, const T* const* src, int64_t h, int64_t lo, int64_t hi,
                                                     int64_t a, int64_t b) const {
        const int64_t in_w = xd.lens[3], s2 = xd.strides[2], s3 = xd.strides[3];
#if MXC_GEMM_AVX2
        if constexpr (Avx && std::is_same<T, float>::value)
            if (s3 == 1) {
                const bool flat = s2 == in_w && in_w % lanes != 0; // (rows of whole transposes: each its own)
                for (int64_t r0 = lo; r0 < hi; r0 = flat ? hi : r0 + 1) {
                    const int64_t n = (flat ? hi - r0 : 1) * in_w, off = (h + r0 - lo) * s2;
                    int64_t r = r0, c = pw; // where element f of the run goes
                    for (int64_t f = 0; f < n; f += lanes) {
                        if (f + lanes <= n && c >= a && c + lanes <= b) { // within a row: in place
                            transpose8_in(buf + r * width + c, src, off + f);
                            if ((c += lanes) == pw + in_w) c = pw, ++r;
                            continue;
                        }
                        V t[lanes];
                        if (f + lanes <= n) transpose8_in(t, src, off + f);
                        else
                            for (int64_t i = 0; i < n - f; ++i)
                                for (int l = 0; l < lanes; ++l) t[i][l] = src[l][off + f + i];
                        for (int64_t i = 0; i < lanes && f + i < n; ++i) {
                            if (c >= a && c < b) buf[r * width + c] = t[i];
                            if (++c == pw + in_w) c = pw, ++r;
                        }
                    }
                }
                return;
            }
#endif
        for (int64_t r = lo; r < hi; ++r)
            for (int64_t c = a; c < b; ++c) {
                const int64_t o = (h + r - lo) * s2 + (c - pw) * s3;
                for (int l = 0; l < lanes; ++l) buf[r * width + c][l] = C(src[l][o]);
            }
    }

    // run[l * run_cap + i] = acc[i][l], i < cnt
    template <bool Avx> __attribute__((always_inline)) static void transpose_out(const V* acc, int64_t cnt, C* run) {
        int64_t i = 0;
#if MXC_GEMM_AVX2
        if constexpr (Avx && std::is_same<C, float>::value)
            for (; i + lanes <= cnt; i += lanes) transpose8_out(acc + i, run + i);
#endif
        for (int l = 0; l < lanes; ++l)
            for (int64_t j = i; j < cnt; ++j) run[l * run_cap + j] = acc[j][l];
    }

#if MXC_GEMM_AVX2
    // 8 x 8 floats: r[i][j] -> r[j][i] (unpack pairs, then quads, then swap the 128-bit halves)
    __attribute__((target("avx2"))) static void transpose8(__m256 r[8]) {
        __m256 t[8], u[8];
        for (int i = 0; i < 8; i += 2) {
            t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
            t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
        }
        for (int i = 0; i < 8; i += 4) {
            u[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
            u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
            u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
            u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
        }
        for (int i = 0; i < 4; ++i) {
            r[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
            r[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
        }
    }
    __attribute__((target("avx2"))) static void transpose8_in(V* dst, const T* const* src, int64_t off) {
        __m256 r[8];
        for (int l = 0; l < 8; ++l) r[l] = _mm256_loadu_ps(reinterpret_cast<const float*>(src[l] + off));
        transpose8(r);
        for (int i = 0; i < 8; ++i) _mm256_storeu_ps(reinterpret_cast<float*>(dst + i), r[i]);
    }
    __attribute__((target("avx2"))) static void transpose8_out(const V* acc, C* run) {
        __m256 r[8];
        for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(reinterpret_cast<const float*>(acc + i));
        transpose8(r);
        for (int l = 0; l < 8; ++l) _mm256_storeu_ps(reinterpret_cast<float*>(run + l * run_cap), r[l]);
    }
#endif
};

// 3 x 3, stride 1 or 2 (both dims), dilation 1, over output rows of at least 16 (MobileNetV2
// from 112 down to 28 wide): vectorised along the rows in the NCHW layout, where the kernel above
// spends as much on its transposes as on the sums. A work item is (image, channel, band of
// output rows):
//   1. the band's input rows go into buf in the compute type, zero-padded, each row starting on
//      a whole vector (row_len: a multiple of 16 elements);
//   2. two output rows at a time, vectors of L outputs from a row's last to its first: each
//      input row is read as whole aligned vectors, and the vectors the other kernel columns
//      read are made of them by shuffles (an unaligned load would cross a cache line): stride 1,
//      the vectors one and two columns on; stride 2, two vectors' even and odd columns, and the
//      even ones one on (with the next vector's first); the two rows share their input rows.
//      Each sum takes its taps in order (kernel row, then column) from 0, multiply-adds fused
//      in the AVX2 and AVX-512 clones as in conv_depthwise;
//   3. the last vector of a row runs past the row's end (rows are at least a vector long): its
//      extra lanes land on the next row's first columns, which that row's first vector (the
//      vectors go from the last to the first) stores later, or on run's slack.
template <class T> struct conv_depthwise_rows {
    using C = compute_t<T>;
    static constexpr int64_t buf_cap = 65536 / int64_t(sizeof(C)); // elements of input a band holds
    static constexpr int64_t run_cap = 49152 / int64_t(sizeof(C)); // outputs a band holds
    static constexpr int64_t slack = 16;                            // past a row: a vector's overrun
    static constexpr int64_t min_width = 16; // (14: no faster, 7: slower than 8 channels a vector)
    // stride 2: the band's input rows within half of L1 (twice the input of stride 1 a row)
    static constexpr int64_t buf_cap_s2 = 32768 / int64_t(sizeof(C));

    const mxc_desc &xd, &wd, &od;
    const T *x, *w;
    int64_t ph = 0, pw = 0, mg = 1, st = 1;
    int64_t row_len = 0; // a row of buf: the padded input row, rounded up to 16 elements
    int64_t band = 0;    // output rows a work item; 0: not this kernel's case

    explicit conv_depthwise_rows(const mxc_kargs& k)
        : xd(k.in_desc[0]), wd(k.in_desc[1]), od(*k.out_desc), x(input<T>(k, 0)), w(input<T>(k, 1)) {
        if (od.rank != 4 || wd.lens[1] != 1 || k.ip[0] != xd.lens[1] || wd.lens[2] != 3 || wd.lens[3] != 3) return;
        if (k.ip[5] != 1 || k.ip[6] != 1 || k.ip[3] != k.ip[4] || (k.ip[3] != 1 && k.ip[3] != 2)) return;
        const int64_t rows = od.lens[2], out_w = od.lens[3];
        if (out_w < min_width) return;
        ph = k.ip[1], pw = k.ip[2], mg = od.lens[1] / k.ip[0], st = k.ip[3];
        // stride 2: the last vector (16 lanes, or 8) reads three vectors from twice its column
        row_len = st == 1 ? (out_w + 2 + 15) / 16 * 16 : 2 * ((out_w - 1) / 16 * 16) + 48;
        const int64_t cap = st == 1 ? buf_cap : buf_cap_s2;
        int64_t b = 0; // the most rows that fit, then evened out over the bands
        while (b < rows && (st * b + 3) * row_len + slack <= cap && (b + 1) * out_w + slack <= run_cap) ++b;
        if (b == 0) return;
        const int64_t bands = (rows + b - 1) / b;
        band = (rows + bands - 1) / bands;
    }

    // run[i] = output (n, m, r0 + i / out_w, i % out_w) before the epilogue, i < (r1 - r0) *
    // out_w; buf: buf_cap elements of scratch aligned to 64 bytes, run: run_cap.
    void block_any(int64_t n, int64_t m, int64_t r0, int64_t r1, C* buf, C* run) const {
#if MXC_GEMM_AVX2
        const gemm_isa isa = gemm_runtime_isa();
        if (isa == gemm_isa::avx512 && std::is_same<C, float>::value) return block_avx512(n, m, r0, r1, buf, run);
        if (gemm_isa_avx2(isa)) return block_avx2(n, m, r0, r1, buf, run);
#endif
        block<8>(n, m, r0, r1, buf, run);
    }
#if MXC_GEMM_AVX2
    __attribute__((target("avx2,fma"), optimize("fp-contract=fast"), noinline)) void block_avx2(
        int64_t n, int64_t m, int64_t r0, int64_t r1, C* buf, C* run) const {
        block<8>(n, m, r0, r1, buf, run);
    }
    __attribute__((target("avx512f"), optimize("fp-contract=fast"), noinline)) void block_avx512(
        int64_t n, int64_t m, int64_t r0, int64_t r1, C* buf, C* run) const {
        block<16>(n, m, r0, r1, buf, run);
    }
#endif

    template <int L>
    __attribute__((always_inline)) void block(int64_t n, int64_t m, int64_t r0, int64_t r1, C* buf, C* run) const {
        if (st == 2) return block_strided<L, 2>(n, m, r0, r1, buf, run);
        block_strided<L, 1>(n, m, r0, r1, buf, run);
    }
    template <int L, int S>
    __attribute__((always_inline)) void block_strided(int64_t n, int64_t m, int64_t r0, int64_t r1, C* buf, C* run) const {
        typedef C V __attribute__((vector_size(L * sizeof(C))));
        const int64_t in_h = xd.lens[2], in_w = xd.lens[3], out_w = od.lens[3], h0 = r0 * S - ph, rows = (r1 - r0 - 1) * S + 3;
        // 1. columns [pw, pw + in_w) of each row from the input (those past row_len are not
        // read), zeros around them
        const int64_t a = pw < row_len ? pw : row_len, cnt = pw + in_w < row_len ? in_w : row_len - a;
        const T* src = x + n * xd.strides[0] + m / mg * xd.strides[1];
        for (int64_t r = 0; r < rows; ++r) {
            C* d = buf + r * row_len;
            if (h0 + r < 0 || h0 + r >= in_h) {
                memset(static_cast<void*>(d), 0, sizeof(C) * size_t(row_len));
                continue;
            }
            memset(static_cast<void*>(d), 0, sizeof(C) * size_t(a));
            memset(static_cast<void*>(d + a + cnt), 0, sizeof(C) * size_t(row_len - a - cnt));
            const T* s = src + (h0 + r) * xd.strides[2] + (a - pw) * xd.strides[3];
            d += a;
            if (xd.strides[3] == 1)
                for (int64_t i = 0; i < cnt; ++i) d[i] = C(s[i]);
            else
                for (int64_t i = 0; i < cnt; ++i) d[i] = C(s[i * xd.strides[3]]);
        }
        memset(static_cast<void*>(buf + rows * row_len), 0, sizeof(C) * size_t(slack));
        // 2. and 3.
        const T* wm = w + m * wd.strides[0];
        const V one = V{} + C(1);
        V wv[9];
        for (int r = 0, t = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c, ++t) wv[t] = one * C(wm[r * wd.strides[2] + c * wd.strides[3]]); // (w exactly)
        const int64_t last = (out_w - 1) / L * L;
        int64_t i = 0;
        for (; i + 2 <= r1 - r0; i += 2)
            for (int64_t ow = last; ow >= 0; ow -= L)
                rows_of<V, L, 2, S>(buf + i * S * row_len + ow * S, wv, run + i * out_w + ow, out_w);
        if (i < r1 - r0)
            for (int64_t ow = last; ow >= 0; ow -= L)
                rows_of<V, L, 1, S>(buf + i * S * row_len + ow * S, wv, run + i * out_w + ow, out_w);
    }

    // R output rows of one vector: input row q (q < (R - 1) * S + 3) is kernel row q - rr * S
    // of output row rr; the rows go in order, so each sum takes its kernel rows in order.
    template <class V, int L, int R, int S>
    __attribute__((always_inline)) void rows_of(const C* in, const V* wv, C* out, int64_t out_w) const {
        V s[R];
        for (int rr = 0; rr < R; ++rr) s[rr] = V{};
#pragma GCC unroll 5
        for (int q = 0; q < (R - 1) * S + 3; ++q) {
            V a, b, v[3];
            __builtin_memcpy(&a, in + q * row_len, sizeof a); // (aligned)
            __builtin_memcpy(&b, in + q * row_len + L, sizeof b);
            if constexpr (S == 1) {
                v[0] = a;
                shifted<V, 1>(a, b, v[1], std::make_index_sequence<L>{});
                shifted<V, 2>(a, b, v[2], std::make_index_sequence<L>{});
            } else {
                V c;
                __builtin_memcpy(&c, in + q * row_len + 2 * L, sizeof c);
                strided<V, 0>(a, b, v[0], std::make_index_sequence<L>{});
                strided<V, 1>(a, b, v[1], std::make_index_sequence<L>{});
                shifted<V, 1>(v[0], c, v[2], std::make_index_sequence<L>{}); // (c's first: column 2L)
            }
#pragma GCC unroll 2
            for (int rr = 0; rr < R; ++rr)
                if (q - rr * S >= 0 && q - rr * S < 3)
                    for (int c = 0; c < 3; ++c) s[rr] = s[rr] + wv[(q - rr * S) * 3 + c] * v[c];
        }
        for (int rr = 0; rr < R; ++rr) __builtin_memcpy(out + rr * out_w, &s[rr], sizeof s[rr]);
    }
    // v = lanes K, K + 2, .. of a followed by b (the even or odd columns of the two)
    template <class V, int K, size_t... I>
    __attribute__((always_inline)) static void strided(const V& a, const V& b, V& v, std::index_sequence<I...>) {
        v = __builtin_shufflevector(a, b, (K + 2 * I)...);
    }
    // v = lanes K .. K + L of a followed by b
    template <class V, int K, size_t... I>
    __attribute__((always_inline)) static void shifted(const V& a, const V& b, V& v, std::index_sequence<I...>) {
        v = __builtin_shufflevector(a, b, (K + I)...);
    }
};

// 3 x 3, stride 2, dilation 1, float, on AVX-512 (MobileNetV2's stride-2 3x3s from 112x112 and
// 56x56): the rows read straight from x, where conv_depthwise_rows copies each band's input
// rows into its buffer first (40% of its time from 112x112 inside the model). A vector of 16
// outputs of a row reads input columns 2 ow - pw .. + 32 of each of its three input rows: two
// masked loads of 16 and one of the single column after them (the masks: the columns inside
// the input, none for a row outside it: zeros, as the padding is), the two's even and odd
// columns (two permutes: kernel columns 0 and 1) and the even ones one on, with the single one
// last (a third: kernel column 2). Each sum takes its taps in order (kernel row, then column)
// from 0, fused: the same bits as the other kernels' AVX-512 and AVX2 clones. The masks depend
// only on the vector's place in the row: the caller computes them once a call. A work item is
// (image, channel, band of output rows): the sums go to run, then to the epilogue.
template <class T> struct conv_depthwise_s2 {
    static constexpr int lanes = 16;
    static constexpr int64_t run_cap = 12288;   // floats of sums an item holds
    static constexpr int64_t max_vectors = 64;  // of a row: at most 1024 outputs
    static constexpr int64_t min_width = 16; // (narrower rows: the 8-channel kernel, 1.3-3x faster over 14 and 7)
    static constexpr int64_t fetch_ahead = 4;
    const mxc_desc &xd, &wd, &od;
    const T *x, *w;
    int64_t ph = 0, pw = 0, mg = 1, vectors = 0;
    int64_t band = 0; // output rows a work item; 0: not this kernel's case

    explicit conv_depthwise_s2(const mxc_kargs& k)
        : xd(k.in_desc[0]), wd(k.in_desc[1]), od(*k.out_desc), x(input<T>(k, 0)), w(input<T>(k, 1)) {
#if MXC_GEMM_AVX2
        if (!std::is_same<T, float>::value || gemm_runtime_isa() != gemm_isa::avx512) return;
        if (od.rank != 4 || wd.lens[1] != 1 || k.ip[0] != xd.lens[1] || wd.lens[2] != 3 || wd.lens[3] != 3) return;
        if (k.ip[3] != 2 || k.ip[4] != 2 || k.ip[5] != 1 || k.ip[6] != 1 || xd.strides[3] != 1) return;
        const int64_t rows = od.lens[2], out_w = od.lens[3];
        if (rows < 1 || out_w < min_width || out_w > max_vectors * lanes) return;
        ph = k.ip[1], pw = k.ip[2], mg = od.lens[1] / k.ip[0];
        vectors = (out_w + lanes - 1) / lanes;
        const int64_t most = run_cap / out_w, bands = (rows + most - 1) / most;
        band = (rows + bands - 1) / bands;
#else
        (void)k;
#endif
    }

    // masks[3 * v + i]: the lanes inside the input of load i of vector v of a row (0 and 1: the
    // 16 columns from 32 v - pw and the 16 after them; 2: the one after those, lane 0)
    void fill_masks(uint16_t* masks) const { row_masks(xd.lens[3], pw, vectors, masks); }
    // the same for rows of in_w columns, pw of left padding, `vectors` vectors of outputs a row
    // (conv_stem_s2 reads its rows so too)
    static void row_masks(int64_t in_w, int64_t pw, int64_t vectors, uint16_t* masks) {
        for (int64_t v = 0; v < vectors; ++v)
            for (int i = 0; i < 3; ++i) {
                const int64_t col = 2 * v * lanes - pw + i * lanes;
                uint16_t m = 0;
                for (int l = 0; l < (i < 2 ? lanes : 1); ++l)
                    if (col + l >= 0 && col + l < in_w) m = uint16_t(m | (1u << l));
                masks[3 * v + i] = m;
            }
    }
#if MXC_GEMM_AVX2
    // kernel columns 0, 1 and 2 of one kernel row for a vector of 16 outputs: p at the input
    // row's column 32 v - pw, mv its masks (row_masks), inside 0 for a row outside the input
    struct row_taps {
        __m512i even, odd, next;
        __attribute__((target("avx512f"))) row_taps()
            : even(_mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0)),
              odd(_mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1)),
              next(_mm512_set_epi32(16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)) {}
        __attribute__((target("avx512f"), always_inline)) inline void operator()(const char* p, const uint16_t* mv,
                                                                                 uint16_t inside, __m512& c0, __m512& c1,
                                                                                 __m512& c2) const {
            constexpr int64_t lane_bytes = lanes * int64_t(sizeof(float));
            const __m512 a = _mm512_maskz_loadu_ps(__mmask16(mv[0] & inside), p);
            const __m512 b = _mm512_maskz_loadu_ps(__mmask16(mv[1] & inside), p + lane_bytes);
            const __m512 e = _mm512_maskz_loadu_ps(__mmask16(mv[2] & inside), p + 2 * lane_bytes);
            c0 = _mm512_permutex2var_ps(a, even, b);
            c1 = _mm512_permutex2var_ps(a, odd, b);
            c2 = _mm512_permutex2var_ps(c0, next, e);
        }
    };
#endif

#if MXC_GEMM_AVX2
    // run[(oh - r0) * out_w + ow] = output (n, m, oh, ow) before the epilogue, oh in [r0, r1)
    __attribute__((target("avx512f"), noinline)) void block(int64_t n, int64_t m, int64_t r0, int64_t r1,
                                                           const uint16_t* masks, float* run) const {
        const int64_t in_h = xd.lens[2], out_w = od.lens[3];
        const char* xc = reinterpret_cast<const char*>(x + n * xd.strides[0] + m / mg * xd.strides[1]);
        const float* wm = reinterpret_cast<const float*>(w + m * wd.strides[0]);
        __m512 wv[9];
        for (int r = 0, t = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c, ++t) wv[t] = _mm512_set1_ps(wm[r * wd.strides[2] + c * wd.strides[3]]);
        const row_taps taps;
        const int64_t row_bytes = xd.strides[2] * int64_t(sizeof(float)), lane_bytes = lanes * int64_t(sizeof(float));
        for (int64_t oh = r0; oh < r1; ++oh) {
            const char* row[3]; // (an address may lie before the plane: its lanes masked off)
            uint16_t inside[3];
            for (int r = 0; r < 3; ++r) {
                const int64_t ih = 2 * oh - ph + r;
                inside[r] = ih >= 0 && ih < in_h ? 0xffff : 0;
                row[r] = xc + (inside[r] ? ih : 0) * row_bytes - pw * int64_t(sizeof(float));
            }
            float* out = run + (oh - r0) * out_w;
            // the input rows fetch_ahead output rows on (the two that row reads and the one before
            // it does not), into L1:
            // the hardware's prefetchers left this kernel waiting on memory (inside MobileNetV2,
            // one thread: 96 channels from 112x112, 0.25 -> 0.19 ms)
            for (int64_t q = 2 * (oh + fetch_ahead) - ph + 1, q1 = q + 2; q < q1; ++q)
                if (q >= 0 && q < in_h) gemm_fetch(xc + q * row_bytes, xd.lens[3] * int64_t(sizeof(float)));
            for (int64_t v = 0; v < vectors; ++v) {
                const uint16_t* mv = masks + 3 * v;
                __m512 s = _mm512_setzero_ps();
#pragma GCC unroll 3
                for (int r = 0; r < 3; ++r) {
                    __m512 c0, c1, c2;
                    taps(row[r] + 2 * v * lane_bytes, mv, inside[r], c0, c1, c2);
                    s = _mm512_fmadd_ps(wv[3 * r], c0, s);
                    s = _mm512_fmadd_ps(wv[3 * r + 1], c1, s);
                    s = _mm512_fmadd_ps(wv[3 * r + 2], c2, s);
                }
                const int64_t left = out_w - v * lanes;
                _mm512_mask_storeu_ps(out + v * lanes, __mmask16(left >= lanes ? 0xffff : (1u << left) - 1), s);
            }
        }
    }
#endif
};

// Stride 1 over a small plane whose output rows are as long as the input rows (the padding of
// a row adds up to the kernel's width: MobileNetV2's 3x3s over 28x28, 14x14 and 7x7), float,
// on AVX-512: vectorised along the flattened plane, where the kernels above either transpose
// 8 channels in and out or waste a row's lanes. Output position p = oh * W + ow, 16 at a time;
// its tap (r, c) is input element p + (r * dh - ph) * W + (c * dw - pw) of the channel's plane
// (rows W apart), read straight from x by a masked load whose mask holds the lanes where the
// tap is inside the input (a row above or below, a column left or right of it, past the plane:
// zeros, which the padding is). No copy, no transpose: per 16 outputs a load and a fused
// multiply-add a tap, in tap order (kernel row, then column) from 0, as the kernels above sum
// (the same bits as their AVX2 and AVX-512 clones). The masks are the same for every channel:
// the caller computes the table (masks) once a call. A work item is (image, block of channels):
// the sums go to run (a channel's plane a row), then to the epilogue as rows.
template <class T> struct conv_depthwise_flat {
    static constexpr int lanes = 16;
    static constexpr int64_t max_plane = 1024, max_vectors = max_plane / lanes, max_taps = 25;
    static constexpr int64_t run_cap = 4096; // floats of sums an item holds (its channels' planes)
    const mxc_desc &xd, &wd, &od;
    const T *x, *w;
    int64_t mg = 1, kh = 0, kw = 0, ph = 0, pw = 0, dh = 1, dw = 1, taps = 0, plane = 0, vectors = 0;
    int64_t channels = 0; // channels a work item; 0: not this kernel's case
    int64_t off[max_taps] = {};

    explicit conv_depthwise_flat(const mxc_kargs& k)
        : xd(k.in_desc[0]), wd(k.in_desc[1]), od(*k.out_desc), x(input<T>(k, 0)), w(input<T>(k, 1)) {
#if MXC_GEMM_AVX2
        if (!std::is_same<T, float>::value || gemm_runtime_isa() != gemm_isa::avx512) return;
        if (od.rank != 4 || wd.lens[1] != 1 || k.ip[0] != xd.lens[1] || k.ip[3] != 1 || k.ip[4] != 1) return;
        const int64_t in_w = xd.lens[3];
        ph = k.ip[1], pw = k.ip[2], dh = k.ip[5], dw = k.ip[6];
        kh = wd.lens[2], kw = wd.lens[3], taps = kh * kw, plane = od.lens[2] * od.lens[3];
        if (od.lens[3] != in_w || xd.strides[3] != 1 || xd.strides[2] != in_w || taps > max_taps) return;
        if (plane == 0 || plane > max_plane || (wd.strides[2] != kw && kh > 1) || wd.strides[3] != 1) return;
        mg = od.lens[1] / k.ip[0];
        vectors = (plane + lanes - 1) / lanes;
        for (int64_t r = 0, t = 0; r < kh; ++r)
            for (int64_t c = 0; c < kw; ++c, ++t) off[t] = (r * dh - ph) * in_w + (c * dw - pw);
        channels = run_cap / (vectors * lanes);
        if (channels > 8) channels = 8;
#else
        (void)k;
#endif
    }

    // masks[v * taps + t]: the lanes of output vector v whose tap t is inside the input
    void fill_masks(uint16_t* masks) const {
        const int64_t in_h = xd.lens[2], in_w = xd.lens[3], out_w = od.lens[3];
        for (int64_t i = 0; i < vectors * taps; ++i) masks[i] = 0;
        for (int64_t p = 0; p < plane; ++p) {
            const int64_t oh = p / out_w, ow = p % out_w, v = p / lanes;
            const uint16_t bit = uint16_t(1u << (p % lanes));
            for (int64_t r = 0, t = 0; r < kh; ++r) {
                const int64_t ih = oh + r * dh - ph;
                for (int64_t c = 0; c < kw; ++c, ++t) {
                    const int64_t iw = ow + c * dw - pw;
                    if (ih >= 0 && ih < in_h && iw >= 0 && iw < in_w) masks[v * taps + t] |= bit;
                }
            }
        }
    }

#if MXC_GEMM_AVX2
    // run[j * vectors * lanes + p] = output (n, m0 + j, p) before the epilogue, j < nc, p < the plane
    __attribute__((target("avx512f"), noinline)) void block(int64_t n, int64_t m0, int64_t nc, const uint16_t* masks,
                                                           float* run) const {
        for (int64_t j = 0; j < nc; ++j) {
            const int64_t m = m0 + j;
            const float* xc = reinterpret_cast<const float*>(x + n * xd.strides[0] + m / mg * xd.strides[1]);
            const float* wm = reinterpret_cast<const float*>(w + m * wd.strides[0]);
            float* out = run + j * vectors * lanes;
            if (taps == 9) sums<9>(xc, wm, masks, out);
            else sums<0>(xc, wm, masks, out);
        }
    }
    template <int Taps>
    __attribute__((target("avx512f"), always_inline)) inline void sums(const float* xc, const float* wm, const uint16_t* masks,
                                                                      float* out) const {
        const int64_t nt = Taps ? Taps : taps;
        __m512 wv[max_taps];
        for (int64_t t = 0; t < nt; ++t) wv[t] = _mm512_set1_ps(wm[t]);
        const char* base = reinterpret_cast<const char*>(xc); // (a tap's address may lie before the plane: masked off)
        intptr_t ob[max_taps];
        for (int64_t t = 0; t < nt; ++t) ob[t] = intptr_t(off[t] * int64_t(sizeof(float)));
        int64_t v = 0;
        for (; v + 2 <= vectors; v += 2) { // two vectors' sums interleaved (each its own chain)
            __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
            const uint16_t* mv = masks + v * nt;
            const char* b = base + v * lanes * int64_t(sizeof(float));
#pragma GCC unroll 25
            for (int64_t t = 0; t < nt; ++t) {
                s0 = _mm512_fmadd_ps(wv[t], _mm512_maskz_loadu_ps(__mmask16(mv[t]), b + ob[t]), s0);
                s1 = _mm512_fmadd_ps(wv[t], _mm512_maskz_loadu_ps(__mmask16(mv[nt + t]), b + ob[t] + lanes * sizeof(float)), s1);
            }
            _mm512_storeu_ps(out + v * lanes, s0);
            _mm512_storeu_ps(out + (v + 1) * lanes, s1);
        }
        for (; v < vectors; ++v) {
            __m512 s = _mm512_setzero_ps();
            const uint16_t* mv = masks + v * nt;
            const char* b = base + v * lanes * int64_t(sizeof(float));
#pragma GCC unroll 25
            for (int64_t t = 0; t < nt; ++t) s = _mm512_fmadd_ps(wv[t], _mm512_maskz_loadu_ps(__mmask16(mv[t]), b + ob[t]), s);
            _mm512_storeu_ps(out + v * lanes, s);
        }
    }
#endif
};

} // namespace cpu
} // namespace mxc
