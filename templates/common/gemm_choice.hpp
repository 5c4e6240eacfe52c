// gemm_choice: which kernel runs a dot or a convolution on the hip target, the ONE rule shared
// by the compiler (codegen/gemm_choice.cpp names the choice as template arguments of each
// launch, so that only the chosen kernel is instantiated) and the hip launchers (their
// run-time default, gemm_auto / MXC_CONV_AUTO, for hand-written calls, and the eligibility
// check of a compile-time form). Plain C++17, constexpr, host and device.
#pragma once
#include "templates/common/abi.hpp"
#include "templates/common/math.hpp"
#include "templates/common/types.hpp"

// The element types the tiled GEMM engine takes (templates/hip/gemm.hpp: gemm_supported).
enum mxc_gemm_elem { MXC_GEMM_F32, MXC_GEMM_F64, MXC_GEMM_F16, MXC_GEMM_BF16 };

// The presets of the engine (gemm_large, gemm_medium, gemm_small_m, gemm_small_n: tile sizes
// and their occupancy estimates in templates/hip/gemm.hpp), the two configurations of the
// fp16 matrix-unit kernel (gemm_mma_large, gemm_mma_small; half only) and its fp32 one
// (gemm_mma_f32; float only, 3xTF32 on NVIDIA: templates/hip/mma.hpp), and that one 32 deep
// where the target has the shared memory (gemm_mma_f32_deep); the GEMV kernel for products of
// very few rows (gemm_gemv).
enum mxc_gemm_preset {
    MXC_GEMM_LARGE,
    MXC_GEMM_MEDIUM,
    MXC_GEMM_SMALL_M,
    MXC_GEMM_SMALL_N,
    MXC_GEMM_MMA,
    MXC_GEMM_MMA_SMALL,
    MXC_GEMM_MMA_F32,
    MXC_GEMM_MMA_F32_DEEP,
    MXC_GEMM_GEMV
};

// The matrix-unit kernel's 128x128 tiles (gemm_mma_large) when there are enough of them to fill
// a device (~132 SMs / 110 CUs), else its 64x64 tiles (gemm_mma_small: four times the blocks).
// Never for 64 rows or fewer (a convolution with 64 output channels: ResNet-50's stem): half of
// every 128-row tile would multiply zeros, where 64-row tiles do the same work with all their
// warps on twice the blocks.
MXC_HD constexpr bool mxc_gemm_mma_large(int64_t m, int64_t n, int64_t z) {
    return m > 64 && ((m + 127) / 128) * ((n + 127) / 128) * z >= 128;
}

// The preset for a product of M x N outputs, depth K, Z batches (grid z). A tuning database
// entry (codegen/tuning.hpp) overrides it.
MXC_HD constexpr mxc_gemm_preset mxc_gemm_pick(mxc_gemm_elem e, int64_t m, int64_t n, int64_t k, int64_t z) {
    (void)k;
    // half: the matrix units, except for few rows (a 16-row tile of a 64x64 block would idle)
    if (e == MXC_GEMM_F16 && m > 16) return mxc_gemm_mma_large(m, n, z) ? MXC_GEMM_MMA : MXC_GEMM_MMA_SMALL;
    if (m <= 16) return MXC_GEMM_SMALL_M;
    if (n <= 16) return MXC_GEMM_SMALL_N;
    // 8x8 per thread only when there are enough large tiles to fill a device (~100+ CUs/SMs),
    // the accumulators are float (8x8 doubles would spill) and the rows fill more than half a
    // tile (64 rows, ResNet-50's stem: half the FMAs of a 128-row tile are on zeros, 64 of
    // every 68 issue slots per k step for 32 useful FMAs, where the 64x64 tile spends 18 on 16)
    const int64_t large_tiles = ((m + 127) / 128) * ((n + 127) / 128) * z;
    if (e != MXC_GEMM_F64 && m > 64 && large_tiles >= 96) return MXC_GEMM_LARGE;
    return MXC_GEMM_MEDIUM;
}

// fp32 products on the matrix units (gemm_mma_f32) instead of the SIMT engine, where the
// target has units that take fp32 at fp32 accuracy (NVIDIA sm_80+: three TF32 products per
// step; AMD CDNA: fp32 MFMA) and the compiler was not told otherwise (codegen/gemm_choice.hpp,
// use_f32_matrix_units): dot products of more than 16 rows and columns (skinny ones keep the
// SIMT engine's 16-wide tiles). Why: the SIMT kernel ran ViT-B/16's fp32 products at about 7
// TFLOP/s on the H200 (2026-11-23 profiles), and TF32 tensor cores have about 7 times the
// fp32 FMA rate, 2.5 times after the three products. Not yet timed on a device.
MXC_HD constexpr bool mxc_gemm_f32_mma(int64_t m, int64_t n, int64_t k, int64_t z) {
    (void)k;
    (void)z;
    return m > 16 && n > 16;
}

// Dot products of at most 4 rows and at least 64 columns on the GEMV kernel (gemm_gemv,
// templates/hip/gemm.hpp: a block per output row and 128 columns, B streamed once with
// split-K for the blocks) instead of the tiled engine's 16-row tile. The compiler's choice
// (codegen/gemm_choice.cpp), for dot products only: a convolution's implicit im2col matrix is
// read through per-column states the GEMV kernel does not keep. Why: batch-1 classifiers
// (1x1000x768..2048) took 13-18 us on gemm_small_m, cuBLAS's gemv 4-5 (H200, 2026-11-26).
// Not yet timed on a device.
MXC_HD constexpr bool mxc_gemm_gemv(int64_t m, int64_t n, int64_t k, int64_t z) {
    (void)k;
    (void)z;
    return m >= 1 && m <= 4 && n >= 64;
}

// The block tile of each preset (templates/hip/gemm.hpp defines the configurations and checks
// that they match): rows, columns and the depth of one K step.
struct mxc_gemm_tile_dims {
    int bm, bn, bk;
};
MXC_HD constexpr mxc_gemm_tile_dims mxc_gemm_preset_tile(mxc_gemm_preset p) {
    return p == MXC_GEMM_LARGE     ? mxc_gemm_tile_dims{128, 128, 8}
           : p == MXC_GEMM_MEDIUM  ? mxc_gemm_tile_dims{64, 64, 16}
           : p == MXC_GEMM_SMALL_M ? mxc_gemm_tile_dims{16, 128, 16}
           : p == MXC_GEMM_SMALL_N ? mxc_gemm_tile_dims{128, 16, 16}
           : p == MXC_GEMM_MMA     ? mxc_gemm_tile_dims{128, 128, 32}
           : p == MXC_GEMM_MMA_F32 ? mxc_gemm_tile_dims{64, 64, 16}
           : p == MXC_GEMM_MMA_F32_DEEP ? mxc_gemm_tile_dims{64, 64, 32}
           : p == MXC_GEMM_GEMV         ? mxc_gemm_tile_dims{1, 128, 8}
                                   : mxc_gemm_tile_dims{64, 64, 32};
}

// Split-K: a product with too few output tiles to fill a device (batch 1: a deep convolution
// on a 7x7 or 14x14 image, a transformer's output projection) runs its K loop in S slices on
// S times the blocks. Each block writes its partial tile to a scratch buffer; the last block of
// an output tile to finish adds the S partials in a fixed order and applies the epilogue (no
// atomics on the data: the result does not depend on the schedule; templates/hip/gemm.hpp,
// gemm_fixup_out). The rule aims at about two blocks per SM of a 132-SM device (sm_90; an
// MI250X GCD has 110 CUs), keeps every slice at least 8 K steps deep, or 256 where 8 steps
// are deeper (steps of 64: 4), and takes at most 32 slices. 1: no split.
// Products of 133 to 198 tiles (ViT-B/16's QKV, 144 64x64 tiles at batch 1, and fc1, 192) fill
// one wave and spill into a second that few SMs run: two slices make the busiest SM's share
// three halves of a tile where it was two tiles (a wave model: ceil(2 t / 132) / 2 = 1.5 against
// ceil(t / 132) = 2; also where the SMs hold all the blocks at once, the ones running two tiles
// set the time), so they take 2. Not yet timed on a device: on the H200 (2026-11-26) the split
// fc2 ran 1.5 times the MACs a microsecond of the unsplit QKV, on the same fp32 tile.
MXC_HD constexpr int mxc_gemm_splits(mxc_gemm_tile_dims t, int64_t m, int64_t n, int64_t k, int64_t z) {
    const int64_t tiles = ((m + t.bm - 1) / t.bm) * ((n + t.bn - 1) / t.bn) * z;
    if (tiles <= 0 || tiles > 198) return 1;
    int64_t s = tiles < 132 ? (264 + tiles - 1) / tiles : tiles > 132 ? 2 : 1;
    const int64_t min_steps = 8 * t.bk <= 256 ? 8 : t.bk >= 256 ? 1 : 256 / t.bk; // 8 steps, at most 256 deep
    const int64_t by_depth = ((k + t.bk - 1) / t.bk) / min_steps;
    if (s > by_depth) s = by_depth;
    if (s > 32) s = 32;
    return s >= 2 ? int(s) : 1;
}

// The depth of one slice when K is cut into `splits` (a whole number of K steps, so that every
// slice starts on a step and vector boundary), and the number of slices that leaves (the last
// one may be shorter; none is empty).
MXC_HD constexpr int64_t mxc_gemm_slice_depth(int64_t k, int splits, int bk) {
    return ((k + splits - 1) / splits + bk - 1) / bk * bk;
}
MXC_HD constexpr int64_t mxc_gemm_slices(int64_t k, int splits, int bk) {
    return k <= 0 ? 1 : (k + mxc_gemm_slice_depth(k, splits, bk) - 1) / mxc_gemm_slice_depth(k, splits, bk);
}
// The scratch of a split product: one counter (4 bytes) per output tile for the fix-up, room
// for mxc_gemm_split_tiles of them (the rule splits only products of at most 198 tiles; a
// product with more runs unsplit), then every slice's partial M x N tiles of the Z batches in
// the compute type (elem_bytes: 8 for double, else 4); what the compiler reserves in the arena.
constexpr int64_t mxc_gemm_split_tiles = 256;
constexpr int64_t mxc_gemm_split_counter_bytes = mxc_gemm_split_tiles * 4;
MXC_HD constexpr int64_t mxc_gemm_split_scratch_bytes(int64_t m, int64_t n, int64_t k, int64_t z, int splits, int bk,
                                                      int64_t elem_bytes) {
    return mxc_gemm_split_counter_bytes + mxc_gemm_slices(k, splits, bk) * z * m * n * elem_bytes;
}

// The forms of a convolution (x [N, C, spatial...], packed w [M, C/group, kernel...], ip =
// [group, pad_begin[s], stride[s], dilation[s]], templates/hip/convolution.hpp):
//   DEPTHWISE   2-d, one input channel per group: the direct kernel (conv_dw_kernel)
//   GEMM_1X1    1x1, stride 1, unpadded, x's spatial dims packed: a GEMM reading x as a plain
//               matrix per image
//   GEMM_IM2COL any other: the implicit-im2col GEMM per group
//   PER_OUTPUT  strided (non-packed) weights: one thread per output (mxc_conv_at)
//   GEMM_1X1_WIDE, GEMM_IM2COL_WIDE  the GEMM forms for a geometry whose indices do not fit
//               31 bits (mxc_conv_index_32): int64 index math; the other two compute their
//               per-element indices in 32 bits with fast divisions (templates/common/fastdiv.hpp)
// AUTO (a launcher's default) decides at run time with mxc_conv_pick.
enum mxc_conv_form {
    MXC_CONV_AUTO,
    MXC_CONV_PER_OUTPUT,
    MXC_CONV_DEPTHWISE,
    MXC_CONV_GEMM_1X1,
    MXC_CONV_GEMM_IM2COL,
    MXC_CONV_GEMM_1X1_WIDE,
    MXC_CONV_GEMM_IM2COL_WIDE,
    MXC_CONV_GEMM_NHWC
};

// 1 + the largest element offset of d (0 when it is empty or has a negative stride).
MXC_HD inline int64_t mxc_desc_extent(const mxc_desc& d) {
    int64_t e = 1;
    for (int i = 0; i < d.rank; ++i) {
        if (d.lens[i] <= 0 || d.strides[i] < 0) return 0;
        e += (d.lens[i] - 1) * d.strides[i];
    }
    return e;
}

// Whether the convolution's per-element indices fit 31 bits: x, w and y each span fewer than
// 2^31 elements, y has fewer, and every position o * stride - pad + k * dilation (and
// o + pad - k * dilation, transposed) stays below 2^31 in magnitude. ip as mxc_conv_pick's.
MXC_HD inline bool mxc_conv_index_32(const mxc_desc& xd, const mxc_desc& wd, const mxc_desc& od, const int64_t* ip) {
    constexpr int64_t lim = int64_t(1) << 31;
    const mxc_desc* descs[] = {&xd, &wd, &od};
    for (const mxc_desc* d : descs) {
        const int64_t e = mxc_desc_extent(*d);
        if (e <= 0 || e >= lim) return false;
    }
    if (mxc_elements(od) >= lim) return false; // the packed output index
    const int s = od.rank - 2;
    for (int d = 0; d < s; ++d) {
        const int64_t olen = od.lens[2 + d], klen = wd.lens[2 + d];
        const int64_t pad = ip[1 + d] < 0 ? -ip[1 + d] : ip[1 + d], stride = ip[1 + s + d];
        const int64_t dil = ip[1 + 2 * s + d] < 0 ? -ip[1 + 2 * s + d] : ip[1 + 2 * s + d];
        if (stride <= 0 || olen >= lim / (stride + 1) || klen >= lim / (dil + 1) ||
            olen * (stride + 1) + klen * (dil + 1) + pad >= lim)
            return false;
    }
    return true;
}

// The form for the convolution of x (xd) by w (wd) into od with parameters ip, for an element
// type the GEMM engine takes (others always compute per output).
MXC_HD inline mxc_conv_form mxc_conv_pick(const mxc_desc& xd, const mxc_desc& wd, const mxc_desc& od, const int64_t* ip) {
    if (!mxc_is_packed(wd)) return MXC_CONV_PER_OUTPUT;
    const int s = od.rank - 2;
    if (wd.lens[1] == 1 && ip[0] > 1 && s == 2) return MXC_CONV_DEPTHWISE;
    int64_t packed = 1;
    for (int d = s - 1; d >= 0; --d) {
        const int64_t xlen = xd.lens[2 + d];
        if (wd.lens[2 + d] != 1 || ip[1 + s + d] != 1 || ip[1 + d] != 0 || od.lens[2 + d] != xlen ||
            (xlen != 1 && xd.strides[2 + d] != packed))
            return mxc_conv_index_32(xd, wd, od, ip) ? MXC_CONV_GEMM_IM2COL : MXC_CONV_GEMM_IM2COL_WIDE;
        packed *= xlen;
    }
    return mxc_conv_index_32(xd, wd, od, ip) ? MXC_CONV_GEMM_1X1 : MXC_CONV_GEMM_1X1_WIDE;
}

// Whether 4-d weights w [M, C, kh, kw] lie in memory channels-last, as [M, kh, kw, C] packed
// (strides kh*kw*C, 1, kw*C, C; a dim of length 1 may have any stride). The compiler stores a
// constant convolution's weights so when the convolution runs channels-last
// (codegen/channels_last_weights.cpp), and says so in their descriptor; packed 1x1 weights are
// both layouts at once.
MXC_HD inline bool mxc_conv_w_channels_last(const mxc_desc& wd) {
    if (wd.rank != 4) return false;
    const int64_t c = wd.lens[1], kh = wd.lens[2], kw = wd.lens[3];
    const int64_t want[4] = {kh * kw * c, 1, kw * c, c};
    for (int i = 0; i < 4; ++i)
        if (wd.lens[i] != 1 && wd.strides[i] != want[i]) return false;
    return true;
}
// The packed (row-major) descriptor of d's shape.
MXC_HD inline mxc_desc mxc_packed_like(const mxc_desc& d) {
    mxc_desc p = d;
    int64_t acc = 1;
    for (int i = d.rank - 1; i >= 0; --i) {
        p.strides[i] = acc;
        acc *= d.lens[i];
    }
    return p;
}

// GEMM_NHWC (half, chosen by the compiler, never by mxc_conv_pick): a GEMM_IM2COL or GEMM_1X1
// convolution run channels-last. The launcher copies x to NHWC in the kernel's scratch, and the
// weights to [M, kernel..., C] unless they lie so already (mxc_conv_w_channels_last: the
// compiler stores constant weights so), so that both GEMM operands are 16-byte vectors along K
// (channels innermost: 8 halves at one input position, or zeros in the padding), which the
// matrix-unit kernel copies asynchronously; the NCHW im2col matrix is gathered 2 bytes at a
// time. For 2-d, ungrouped convolutions of packed x with channels a multiple of 8, in 32-bit
// index math, whose B is not vectors already (a 1x1 over a plane of a multiple of 8), and
// whose weights are packed in either layout (the form is the one the packed weights get).
MXC_HD inline bool mxc_conv_channels_last(const mxc_desc& xd, const mxc_desc& wd, const mxc_desc& od, const int64_t* ip) {
    if (!mxc_is_packed(wd) && !mxc_conv_w_channels_last(wd)) return false;
    const mxc_conv_form f = mxc_conv_pick(xd, mxc_packed_like(wd), od, ip);
    if (f != MXC_CONV_GEMM_IM2COL && f != MXC_CONV_GEMM_1X1) return false;
    if (od.rank != 4 || ip[0] != 1 || wd.lens[1] % 8 != 0 || !mxc_is_packed(xd)) return false;
    return !(f == MXC_CONV_GEMM_1X1 && od.lens[2] * od.lens[3] % 8 == 0);
}
// Whether the channels-last form pays for its transpose of x (a read and a write of x, and a
// launch, every run; the weights' transpose is the compiler's): products of at least 2^28 multiply-adds
// (m x n x k x z; ResNet-50's convolutions at batch 1 have 2^26 - 2^27, at batch 32 32 times
// that). Not yet measured on a device: codegen/gemm_choice.cpp lets MXC_CHANNELS_LAST=0 / 1
// (in mxc's environment) turn the form off, or on wherever mxc_conv_channels_last allows it.
MXC_HD constexpr bool mxc_conv_channels_last_pays(int64_t m, int64_t n, int64_t k, int64_t z) {
    return double(m) * double(n) * double(k) * double(z) >= double(int64_t(1) << 28); // (no int64 overflow)
}
// Its scratch: split-K's (the counters, and the partial sums of a split configuration:
// split_bytes, 0 for none) first, then x in NHWC at mxc_conv_nhwc_offset, then the weights
// (unless they are channels-last already) at 256-byte boundaries; mxc_conv_nhwc_bytes in all
// (elem_bytes: 2).
MXC_HD constexpr int64_t mxc_round_256(int64_t b) { return (b + 255) / 256 * 256; }
MXC_HD constexpr int64_t mxc_conv_nhwc_offset(int64_t split_bytes) {
    return mxc_round_256(split_bytes > mxc_gemm_split_counter_bytes ? split_bytes : mxc_gemm_split_counter_bytes);
}
MXC_HD inline int64_t mxc_conv_nhwc_w_offset(const mxc_desc& xd, int64_t split_bytes, int64_t elem_bytes) {
    return mxc_conv_nhwc_offset(split_bytes) + mxc_round_256(mxc_elements(xd) * elem_bytes);
}
MXC_HD inline int64_t mxc_conv_nhwc_bytes(const mxc_desc& xd, const mxc_desc& wd, int64_t split_bytes, int64_t elem_bytes) {
    return mxc_conv_nhwc_w_offset(xd, split_bytes, elem_bytes) + (mxc_conv_w_channels_last(wd) ? 0 : mxc_elements(wd) * elem_bytes);
}

// The depthwise tile for an output row of ow elements: wide (dw_wide, 8x64) or narrow
// (dw_narrow, 8x16).
MXC_HD constexpr bool mxc_conv_dw_wide(int64_t ow) { return ow > 16; }
