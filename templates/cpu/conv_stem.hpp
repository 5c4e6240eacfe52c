// A network's first convolution on AVX-512 (float): 3 x 3, stride 2, no dilation, one group,
// at most 3 input channels (an image's), output rows of at least 16, and at most max_outputs
// output channels (MobileNetV2's and YOLO's stems: 3 -> 32 from 224x224 and 320x320). As an
// implicit GEMM its depth is 27 at most: the im2col panel it packs costs about what its sums do,
// and each block's set-up and stores weigh on so few multiply-adds (MobileNetV2's stem, one
// thread: 28% of the time in the pack, 13% in the blocks' own work). Here the im2col column of
// 16 outputs of a row stays in registers instead: for each input channel and kernel row, the
// three kernel columns are read from the input row in place (conv_depthwise_s2::row_taps:
// masked loads, the lanes outside the input zeros, even / odd / shifted permutes), and each
// is multiplied into the sums of 16 output channels at once (16 chains of fused multiply-adds,
// the weights broadcast). Each output sums its 27 products in the im2col order (input channel,
// kernel row, kernel column) from 0, fused: the same bits as the GEMM's AVX2 and AVX-512
// micro-kernels (one depth slice). A work item is (image, band of output rows): the sums of all
// output channels go to run, then to the epilogue, a channel a row.
#pragma once
#include "templates/cpu/common.hpp"
#include "templates/cpu/conv_depthwise.hpp"
#include "templates/cpu/gemm.hpp"

#include <type_traits>

namespace mxc {
namespace cpu {

template <class T> struct conv_stem_s2 {
    static constexpr int lanes = 16;
    static constexpr int64_t max_channels = 3, max_outputs = 64, taps = 9;
    static constexpr int64_t run_cap = 12288;  // floats of sums an item holds (all its output channels)
    static constexpr int64_t max_vectors = 64; // of a row: at most 1024 outputs
    using S2 = conv_depthwise_s2<float>;
    const mxc_desc &xd, &od;
    const T* x;
    int64_t ph = 0, pw = 0, cin = 0, mout = 0, vectors = 0;
    int64_t band = 0; // output rows a work item; 0: not this kernel's case
    // weight (m, k) at wk[m * cin * 9 + k] (filled only where the kernel applies: not cleared, since
    // every float convolution constructs this to ask)
    alignas(64) float wk[max_outputs * max_channels * taps];

    // panels: the weights as the micro-kernel's row panels (gemm_a_panels), else as they are
    conv_stem_s2(const mxc_kargs& k, bool panels) : xd(k.in_desc[0]), od(*k.out_desc), x(input<T>(k, 0)) {
#if MXC_GEMM_AVX2
        const mxc_desc& wd = k.in_desc[1];
        if (!std::is_same<T, float>::value || gemm_runtime_isa() != gemm_isa::avx512) return;
        if (od.rank != 4 || k.ip[0] != 1 || wd.lens[2] != 3 || wd.lens[3] != 3 || xd.strides[3] != 1) return;
        if (k.ip[3] != 2 || k.ip[4] != 2 || k.ip[5] != 1 || k.ip[6] != 1) return;
        const int64_t rows = od.lens[2], out_w = od.lens[3];
        cin = wd.lens[1], mout = od.lens[1];
        if (cin > max_channels || mout > max_outputs || rows < 1 || out_w < lanes || out_w > max_vectors * lanes ||
            mout * out_w > run_cap)
            return;
        const T* w = input<T>(k, 1);
        const int64_t kdim = cin * taps;
        for (int64_t m = 0; m < mout; ++m)
            for (int64_t kk = 0; kk < kdim; ++kk)
                wk[m * kdim + kk] = float(panels ? w[gemm_panel_index(m, kk, kdim, mout)]
                                                 : w[m * wd.strides[0] + kk / taps * wd.strides[1] +
                                                     kk % taps / 3 * wd.strides[2] + kk % 3 * wd.strides[3]]);
        ph = k.ip[1], pw = k.ip[2];
        vectors = (out_w + lanes - 1) / lanes;
        const int64_t most = run_cap / (mout * out_w), bands = (rows + most - 1) / most;
        band = (rows + bands - 1) / bands;
#else
        (void)k, (void)panels;
#endif
    }

    void fill_masks(uint16_t* masks) const { S2::row_masks(xd.lens[3], pw, vectors, masks); }

#if MXC_GEMM_AVX2
    // run[m * ld + (oh - r0) * out_w + ow] = output (n, m, oh, ow) before the epilogue, oh in
    // [r0, r1), ld = band * out_w
    __attribute__((target("avx512f"), noinline)) void block(int64_t n, int64_t r0, int64_t r1, const uint16_t* masks,
                                                           float* run) const {
        const int64_t m16 = mout / 16 * 16;
        int64_t m0 = 0;
        for (; m0 < m16; m0 += 16) sums<16>(n, m0, r0, r1, masks, run);
        for (; m0 + 4 <= mout; m0 += 4) sums<4>(n, m0, r0, r1, masks, run);
        for (; m0 < mout; ++m0) sums<1>(n, m0, r0, r1, masks, run);
    }

    // output channels [m0, m0 + NM)
    template <int NM>
    __attribute__((target("avx512f"), always_inline)) inline void sums(int64_t n, int64_t m0, int64_t r0, int64_t r1,
                                                                       const uint16_t* masks, float* run) const {
        const int64_t in_h = xd.lens[2], out_w = od.lens[3], kdim = cin * taps, ld = band * out_w;
        const int64_t row_bytes = xd.strides[2] * int64_t(sizeof(float));
        const char* xn = reinterpret_cast<const char*>(x + n * xd.strides[0]);
        const S2::row_taps read;
        for (int64_t oh = r0; oh < r1; ++oh)
            for (int64_t v = 0; v < vectors; ++v) {
                const uint16_t* mv = masks + 3 * v;
                __m512 acc[NM];
#pragma GCC unroll 16
                for (int j = 0; j < NM; ++j) acc[j] = _mm512_setzero_ps();
                for (int64_t c = 0; c < cin; ++c)
#pragma GCC unroll 3
                    for (int r = 0; r < 3; ++r) {
                        const int64_t ih = 2 * oh - ph + r;
                        const bool inside = ih >= 0 && ih < in_h; // (an address may lie before the plane: masked off)
                        const char* p = xn + c * xd.strides[1] * int64_t(sizeof(float)) + (inside ? ih : 0) * row_bytes +
                                        (2 * v * lanes - pw) * int64_t(sizeof(float));
                        __m512 t[3];
                        read(p, mv, inside ? 0xffff : 0, t[0], t[1], t[2]);
                        const float* wr = wk + m0 * kdim + c * taps + r * 3;
#pragma GCC unroll 3
                        for (int q = 0; q < 3; ++q)
#pragma GCC unroll 16
                            for (int j = 0; j < NM; ++j) acc[j] = _mm512_fmadd_ps(t[q], _mm512_set1_ps(wr[j * kdim + q]), acc[j]);
                    }
                const int64_t left = out_w - v * lanes;
                const __mmask16 keep = __mmask16(left >= lanes ? 0xffff : (1u << left) - 1);
                float* out = run + m0 * ld + (oh - r0) * out_w + v * lanes;
#pragma GCC unroll 16
                for (int j = 0; j < NM; ++j) _mm512_mask_storeu_ps(out + j * ld, keep, acc[j]);
            }
    }
#endif
};

} // namespace cpu
} // namespace mxc
