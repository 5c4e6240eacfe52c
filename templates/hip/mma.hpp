// One warp-level (wavefront-level on AMD) tile multiply-accumulate interface over the GPU matrix
// units: fp16 inputs, fp32 accumulation. One op multiplies a 16x16 A tile by a 16x16 B tile into
// a 16x16 fp32 accumulator:
//
//   using mt = mxc::hip::mma_tile<mxc_half>;        // mt::M, mt::N, mt::K == 16
//   mt::frag_a a; mt::frag_b b; mt::frag_acc acc;
//   mt::zero(acc);
//   for (k0 ...) { mt::load_a(a, As + k0, lda); mt::load_b(b, Bs + k0 * ldb, ldb); mt::mma(acc, a, b); }
//   mt::store(Cs, ldc, acc);                        // fp32, row-major: epilogues do not see the layout
//   mt::load_acc(acc, Cs, ldc);                     // and back: an accumulator kept in memory
//   mt::add(acc, other);                            // acc += other, element-wise (partial sums)
//   mt::nan_recheck                                 // true: an infinite operand's products may
//                                                   // come out NaN (3xTF32, below)
//   mt::rz_sums                                     // true: mma's sums truncate (NVIDIA, below)
//
// A is row-major (A[m][k] = pa[m * lda + k]), B is row-major (B[k][n] = pb[k * ldb + n]), the
// stored tile is row-major (D[m][n] = pd[m * ldd + n]); shared or global memory. B may also be
// stored transposed, k fastest (B[k][n] = pb[n * ldb + k]): mt::frag_bt, mt::load_bt, and mma
// takes it in place of a frag_b (a B operand whose rows in memory run along K). Fragments are
// opaque: every function is warp-collective (all lanes of a full warp call it together, with
// the same pointers and strides), and mma computes acc += A * B. Portable preconditions (what
// wmma requires): the tile pointers 32-byte aligned, lda and ldb multiples of 16 bytes (8
// halves, 4 floats), ldd a multiple of 4. The emulator's wmma (runtime-stub/emu/mma.hpp) checks them.
//
// Implementations, chosen at compile time:
//  - NVIDIA sm_80+ (__CUDA_ARCH__ >= 800): nvcuda::wmma 16x16x16, __half x __half -> float.
//  - AMD CDNA (gfx908, gfx90a, gfx940/941/942): __builtin_amdgcn_mfma_f32_16x16x16f16 on a
//    64-lane wavefront. Lane layout (AMD lab notes "AMD matrix cores", example
//    mfma_fp32_16x16x16fp16.cpp; the AMD matrix instruction calculator gives the same), with
//    lane l = 0..63 and i = 0..3:
//      A: lane l holds A[l % 16][4 * (l / 16) + i]   (a 4 x fp16 vector)
//      B: lane l holds B[4 * (l / 16) + i][l % 16]   (a 4 x fp16 vector)
//      D: lane l holds D[4 * (l / 16) + i][l % 16]   (a 4 x fp32 vector)
//  - everything else (older GPUs, gfx10/11, the host emulator by default): a per-lane FMA
//    loop. Lane l of a warp of W lanes (W = 32 or 64) owns column l % 16 of the tile and the
//    rows l / 16 + j * (W / 16), j < 256 / W; it keeps those rows of A and that column of B.
// The host emulator compiles the wmma or MFMA path with -DMXC_EMU_MMA_WMMA / -DMXC_EMU_MMA_MFMA
// against emulated vendor APIs (runtime-stub/emu/mma.hpp: wmma, mma.sync m16n8k8 TF32, the
// MFMA builtins), so CI checks every lane mapping.
// All paths accumulate fp32 products of fp16 values (exact) in fp32; only the summation order
// differs.
//
// mma_tile<float> is the same interface for fp32 operands (A and B float in memory, the
// accumulator fp32), with a K that depends on the path (mt::K: 8, 4 or 8 below). Results are
// fp32-accurate on every path:
//  - NVIDIA sm_80+: TF32 (10-bit mantissa) products of PTX mma.sync m16n8k8, two a 16x16x8
//    tile (mma_m16n8k8_tf32 below: wmma's 16x16x8 shape took twice the instructions), three
//    products per mma ("3xTF32", the error-compensated scheme of NVIDIA's CUTLASS documentation): each
//    operand x is split into big = tf32(x) (rounded to nearest) and small = x - big (exact in
//    fp32, below half a TF32 unit of x), and acc += a_small b_big + a_big b_small + a_big b_big.
//    The matrix unit reads a TF32 operand's top 19 bits, so small counts truncated to TF32: off
//    by less than 2^-10 of itself, 2^-21 of x (rounding it first took two more integer
//    operations an element, a fifth of the split). With the dropped a_small b_small (below
//    2^-22 of |a b|), a product's error is of the order of a few fp32 roundings, where one TF32
//    product alone is off by up to 2^-11. TF32 products are exact in fp32 (11 x 11 significant
//    bits). A NaN stays NaN through its small part, whatever its payload (rounding a NaN of
//    payload 0x7fffff, the GPU's own, carries into the sign: its big part is -0). An infinite
//    operand's small part is NaN (inf - inf), so its products are NaN where fp32 gives an
//    infinity, as are those of a finite operand within 2^-12 of FLT_MAX (its big part rounds
//    to inf): nan_recheck says so, and the GEMM works every NaN result out again in fp32
//    (gemm_mma_kernel's epilogue), so that its results are IEEE's. (Keeping an infinity's
//    small part 0 took two of the five instructions of each element's split, 128 of the ring
//    loop's 708 a 32-deep k-tile on sm_90, and still gave NaN wherever the other operand's
//    small part was 0 or of the other sign than its big part: about half the time.)
//    The matrix unit's sums truncate (rz_sums: Fasi et al., "Numerical behavior of NVIDIA
//    tensor cores", PeerJ CS 2021), so a running sum loses about half an ulp of itself to
//    each mma, always toward zero: 4.1e-5 of the result after ViT-B/16's 3072-deep products
//    (1152 of them; 3.1e-3 of -76.27 on the H200, 2026-11-26) where an fp32 FMA loop's
//    roundings mostly cancel. A caller that needs fp32's accuracy keeps the chain short: the
//    GEMM multiplies each k-tile into fresh accumulators and adds them to its sums in fp32
//    (gemm_mma_step: on the emulator, which truncates as the hardware does, 3072-deep sums
//    of positive operands are off by 7.8e-7 where one chain was off by 2.7e-5).
//  - AMD CDNA: __builtin_amdgcn_mfma_f32_16x16x4f32, native fp32 (K = 4). Lane layout (the AMD
//    matrix instruction calculator): lane l holds A[l % 16][l / 16], B[l / 16][l % 16], and
//    D[4 * (l / 16) + i][l % 16], i = 0..3, as for 16x16x16f16 with one k per lane.
//  - elsewhere: the per-lane FMA loop of the half path on floats.
#pragma once
#include "templates/hip/common.hpp"

#if defined(MXC_EMU_MMA_WMMA) || (defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800)
#define MXC_MMA_WMMA 1
#elif defined(MXC_EMU_MMA_MFMA) || defined(__gfx908__) || defined(__gfx90a__) || defined(__gfx940__) || \
    defined(__gfx941__) || defined(__gfx942__)
#define MXC_MMA_MFMA 1
#else
#define MXC_MMA_GENERIC 1
#endif

#if defined(MXC_MMA_WMMA) && defined(__CUDACC__)
#include <cuda_fp16.h>
#include <mma.h>
#endif

namespace mxc {
namespace hip {

// The lane of the calling thread in its warp (blocks of any shape: threads are numbered x
// fastest; on NVIDIA the %laneid register, without the index math).
__device__ inline int mma_lane() {
#if defined(__CUDA_ARCH__)
    unsigned l;
    asm("mov.u32 %0, %%laneid;" : "=r"(l));
    return static_cast<int>(l);
#else
    return static_cast<int>((threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % warpSize);
#endif
}

// The warp size as a compile-time constant where the target fixes it (so that the fragment
// arrays of a warp are sized and indexed by constants), warpSize elsewhere (the emulator).
__device__ inline int mma_warp_size() {
#if defined(__CUDA_ARCH__)
    return 32; // every NVIDIA GPU
#elif defined(__AMDGCN_WAVEFRONT_SIZE)
    return __AMDGCN_WAVEFRONT_SIZE;
#else
    return warpSize;
#endif
}

template <class T> struct mma_tile;

#if defined(MXC_MMA_WMMA)

// c += d element-wise, for wmma accumulators (the same layout in both).
template <class Acc> __device__ inline void wmma_add(Acc& c, const Acc& d) {
#pragma unroll
    for (int i = 0; i < c.num_elements; ++i) c.x[i] += d.x[i];
}

// The fp32 accumulator fragment (16 x 16 of the 16x16x16 shape) loaded from / stored to p,
// row-major. On the device, a pointer into shared memory (the GEMM's float tile, attention's
// scores and outputs, every caller's) takes the shared-state form of the same wmma instruction
// (the same fragment layout: x[i] is operand i): wmma::load_matrix_sync / store_matrix_sync pass
// a generic address, which nvcc 13 leaves generic (sm_90: LD.E / ST.E where LDS / STS do;
// attention_mma_kernel loads and stores its output rows so every key tile).
#define MXC_WMMA_LOAD_C                                                                                                \
    asm volatile("wmma.load.c.sync.aligned.row.m16n16k16.shared.f32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8], %9;"    \
                 : "=f"(c.x[0]), "=f"(c.x[1]), "=f"(c.x[2]), "=f"(c.x[3]), "=f"(c.x[4]), "=f"(c.x[5]), "=f"(c.x[6]), "=f"(c.x[7]) \
                 : "l"(s), "r"(ld)                                                                                     \
                 : "memory")
#define MXC_WMMA_STORE_D                                                                                               \
    asm volatile("wmma.store.d.sync.aligned.row.m16n16k16.shared.f32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8}, %9;" ::"l"(s), \
                 "f"(c.x[0]), "f"(c.x[1]), "f"(c.x[2]), "f"(c.x[3]), "f"(c.x[4]), "f"(c.x[5]), "f"(c.x[6]), "f"(c.x[7]), "r"(ld) \
                 : "memory")
template <class Acc> __device__ inline void wmma_load_acc(Acc& c, const float* p, int ld) {
#if defined(__CUDA_ARCH__)
    static_assert(Acc::num_elements == 8, "wmma_load_acc: 16 x 16 fp32 accumulators");
    if (__isShared(p)) {
        const size_t s = __cvta_generic_to_shared(p);
        MXC_WMMA_LOAD_C;
        return;
    }
#endif
    nvcuda::wmma::load_matrix_sync(c, p, static_cast<unsigned>(ld), nvcuda::wmma::mem_row_major);
}
template <class Acc> __device__ inline void wmma_store_acc(float* p, int ld, const Acc& c) {
#if defined(__CUDA_ARCH__)
    static_assert(Acc::num_elements == 8, "wmma_store_acc: 16 x 16 fp32 accumulators");
    if (__isShared(p)) {
        const size_t s = __cvta_generic_to_shared(p);
        MXC_WMMA_STORE_D;
        return;
    }
#endif
    nvcuda::wmma::store_matrix_sync(p, c, static_cast<unsigned>(ld), nvcuda::wmma::mem_row_major);
}
#undef MXC_WMMA_LOAD_C
#undef MXC_WMMA_STORE_D

template <> struct mma_tile<mxc_half> {
    static constexpr int M = 16, N = 16, K = 16;
    static constexpr bool nan_recheck = false, rz_sums = true;
#if defined(__CUDACC__)
    using vendor_half = __half;
#else
    using vendor_half = mxc_half; // the emulator's wmma takes mxc's half
#endif
    using frag_a = nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, vendor_half, nvcuda::wmma::row_major>;
    using frag_b = nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, vendor_half, nvcuda::wmma::row_major>;
    using frag_bt = nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, vendor_half, nvcuda::wmma::col_major>;
    using frag_acc = nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float>;

    __device__ static void load_a(frag_a& a, const mxc_half* p, int ld) {
        nvcuda::wmma::load_matrix_sync(a, reinterpret_cast<const vendor_half*>(p), static_cast<unsigned>(ld));
    }
    __device__ static void load_b(frag_b& b, const mxc_half* p, int ld) {
        nvcuda::wmma::load_matrix_sync(b, reinterpret_cast<const vendor_half*>(p), static_cast<unsigned>(ld));
    }
    __device__ static void load_bt(frag_bt& b, const mxc_half* p, int ld) {
        nvcuda::wmma::load_matrix_sync(b, reinterpret_cast<const vendor_half*>(p), static_cast<unsigned>(ld));
    }
    __device__ static void zero(frag_acc& c) { nvcuda::wmma::fill_fragment(c, 0.0f); }
    __device__ static void load_acc(frag_acc& c, const float* p, int ld) { wmma_load_acc(c, p, ld); }
    __device__ static void mma(frag_acc& c, const frag_a& a, const frag_b& b) { nvcuda::wmma::mma_sync(c, a, b, c); }
    __device__ static void mma(frag_acc& c, const frag_a& a, const frag_bt& b) { nvcuda::wmma::mma_sync(c, a, b, c); }
    __device__ static void add(frag_acc& c, const frag_acc& d) { wmma_add(c, d); }
    __device__ static void store(float* p, int ld, const frag_acc& c) { wmma_store_acc(p, ld, c); }
};

// One m16n8k8 TF32 product on the matrix unit, d += a b: PTX mma.sync.aligned.m16n8k8.row.col
// .f32.tf32.tf32.f32, one HMMA.1688 instruction on sm_80 and sm_90, where wmma's 16x16x8 shape
// compiles to four HMMA.1684 for the two n8 halves (192 of the fp32 GEMM ring loop's 616
// instructions a 32-deep k-tile, sm_90; its products are the same in half the issue slots). Lane
// l, g = l / 4, t = l % 4 (PTX ISA, "Matrix fragments for mma.m16n8k8", .tf32):
//   a (16 x 8):    a[0] A[g][t], a[1] A[g + 8][t], a[2] A[g][t + 4], a[3] A[g + 8][t + 4]
//   b (8 x 8):     b[0] B[t][g], b[1] B[t + 4][g]
//   c, d (16 x 8): d[0] D[g][2t], d[1] D[g][2t + 1], d[2] D[g + 8][2t], d[3] D[g + 8][2t + 1]
// The matrix unit reads an operand's top 19 bits. Warp-collective; the host emulator's version
// (runtime-stub/emu/mma.hpp) takes the same lanes.
__device__ __forceinline__ void mma_m16n8k8_tf32(float (&d)[4], const float (&a)[4], const float (&b)[2]) {
#if defined(__CUDA_ARCH__)
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(__float_as_uint(a[0])), "r"(__float_as_uint(a[1])), "r"(__float_as_uint(a[2])), "r"(__float_as_uint(a[3])),
          "r"(__float_as_uint(b[0])), "r"(__float_as_uint(b[1])));
#elif defined(MXC_HIP_EMU)
    mxc_emu::mma_m16n8k8_tf32(d, a, b);
#else
    (void)d, (void)a, (void)b; // (nvcc's host pass: device code only)
#endif
}
// 3xTF32 (see the top of the file) on m16n8k8 products: a 16 x 16 tile is two 16 x 8 halves
// (columns 0-7, 8-15), each fragment's elements where mma_m16n8k8_tf32 takes them, the operands
// in big and small parts. Loads and stores are plain shared-memory accesses at those elements
// (the accumulators' pairs of columns as 8-byte ones), where wmma's loads gave the same LDS
// count; the callers' pointers and strides keep wmma's rules (see the top of the file).
template <> struct mma_tile<float> {
    static constexpr int M = 16, N = 16, K = 8;
    static constexpr bool nan_recheck = true; // (see the top of the file)
    static constexpr bool rz_sums = true;
    struct frag_a { float big[4], small[4]; };       // A 16 x 8
    struct frag_b { float big[2][2], small[2][2]; }; // B 8 x 16: [half][b0, b1]
    using frag_bt = frag_b;                          // the same elements, from B's transpose
    struct frag_acc { float x[2][4]; };              // D 16 x 16: [half][d0..d3]
    struct alignas(8) pair { float v[2]; };

    // x rounded to TF32 (10 mantissa bits), to nearest with ties away from zero: what
    // cvt.rna.tf32.f32 gives a finite x, in two integer operations where the conversion takes
    // three (sm_90: 280 against 152 instructions for 64 of them in a row). An infinity stays
    // itself; a NaN may become an infinity (split keeps its small part NaN).
    __device__ static float tf32_round(float x) { return __uint_as_float((__float_as_uint(x) + 0x1000u) & 0xffffe000u); }
    // Each element's split runs unconditionally, no asm in it: a conditional conversion (an
    // asm block nvcc 13 does not if-convert) cost a branch per element, splitting a K step into
    // basic blocks the scheduler could not interleave products across. small = x - big, left
    // for the matrix unit to truncate (see the top of the file): three instructions an element
    // (sm_90). A NaN's small part is a NaN (its big part may be -0), so its products stay NaN;
    // so are an infinity's (inf - inf) and those of an x within 2^-12 of FLT_MAX (big inf, small
    // -inf): see nan_recheck.
    __device__ static void split(float x, float& big, float& small) {
        big = tf32_round(x);
        small = x - big;
    }
    __device__ static void load_a(frag_a& f, const float* p, int ld) {
        const int l = mma_lane(), g = l >> 2, t = l & 3;
        const float x[4] = {p[g * ld + t], p[(g + 8) * ld + t], p[g * ld + t + 4], p[(g + 8) * ld + t + 4]};
#pragma unroll
        for (int i = 0; i < 4; ++i) split(x[i], f.big[i], f.small[i]);
    }
    // B row-major (B[k][n] = p[k * ld + n]) and transposed (p[n * ld + k])
    __device__ static void load_b(frag_b& f, const float* p, int ld) {
        const int l = mma_lane(), g = l >> 2, t = l & 3;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            split(p[t * ld + 8 * h + g], f.big[h][0], f.small[h][0]);
            split(p[(t + 4) * ld + 8 * h + g], f.big[h][1], f.small[h][1]);
        }
    }
    __device__ static void load_bt(frag_bt& f, const float* p, int ld) {
        const int l = mma_lane(), g = l >> 2, t = l & 3;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            split(p[(8 * h + g) * ld + t], f.big[h][0], f.small[h][0]);
            split(p[(8 * h + g) * ld + t + 4], f.big[h][1], f.small[h][1]);
        }
    }
    __device__ static void zero(frag_acc& c) {
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int i = 0; i < 4; ++i) c.x[h][i] = 0.0f;
    }
    // the accumulator's rows g and g + 8, columns 2t, 2t + 1 of each half, at p row-major
    __device__ static void load_acc(frag_acc& c, const float* p, int ld) {
        const int l = mma_lane(), g = l >> 2, t = l & 3;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const pair u = vector_load<pair>(p + g * ld + 8 * h + 2 * t), w = vector_load<pair>(p + (g + 8) * ld + 8 * h + 2 * t);
            c.x[h][0] = u.v[0], c.x[h][1] = u.v[1], c.x[h][2] = w.v[0], c.x[h][3] = w.v[1];
        }
    }
    __device__ static void store(float* p, int ld, const frag_acc& c) {
        const int l = mma_lane(), g = l >> 2, t = l & 3;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            vector_store(p + g * ld + 8 * h + 2 * t, pair{{c.x[h][0], c.x[h][1]}});
            vector_store(p + (g + 8) * ld + 8 * h + 2 * t, pair{{c.x[h][2], c.x[h][3]}});
        }
    }
    // the small terms first: they are added to c before the big one
    __device__ static void mma(frag_acc& c, const frag_a& a, const frag_b& b) {
#pragma unroll
        for (int h = 0; h < 2; ++h) mma_m16n8k8_tf32(c.x[h], a.small, b.big[h]);
#pragma unroll
        for (int h = 0; h < 2; ++h) mma_m16n8k8_tf32(c.x[h], a.big, b.small[h]);
#pragma unroll
        for (int h = 0; h < 2; ++h) mma_m16n8k8_tf32(c.x[h], a.big, b.big[h]);
    }
    __device__ static void add(frag_acc& c, const frag_acc& d) {
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int i = 0; i < 4; ++i) c.x[h][i] += d.x[h][i];
    }
};

#elif defined(MXC_MMA_MFMA)

typedef _Float16 mfma_half4 __attribute__((__vector_size__(4 * sizeof(_Float16))));
typedef float mfma_float4 __attribute__((__vector_size__(4 * sizeof(float))));

// The 16x16 fp32 accumulator of both MFMA tiles: lane l holds D[4 * (l / 16) + i][l % 16].
struct mfma_acc {
    static constexpr bool nan_recheck = false, rz_sums = false;
    struct frag_acc { mfma_float4 v; };
    __device__ static void zero(frag_acc& c) {
        for (int i = 0; i < 4; ++i) c.v[i] = 0.0f;
    }
    __device__ static void store(float* p, int ld, const frag_acc& c) {
        const int l = mma_lane();
        for (int i = 0; i < 4; ++i) p[(4 * (l / 16) + i) * ld + l % 16] = c.v[i];
    }
    __device__ static void load_acc(frag_acc& c, const float* p, int ld) {
        const int l = mma_lane();
        for (int i = 0; i < 4; ++i) c.v[i] = p[(4 * (l / 16) + i) * ld + l % 16];
    }
    __device__ static void add(frag_acc& c, const frag_acc& d) { c.v += d.v; }
};

template <> struct mma_tile<mxc_half> : mfma_acc {
    static constexpr int M = 16, N = 16, K = 16;
    struct frag_a { mfma_half4 v; };
    struct frag_b { mfma_half4 v; };
    using frag_bt = frag_b; // the same lanes, loaded from the transposed layout

    __device__ static _Float16 f16(mxc_half h) { return __builtin_bit_cast(_Float16, h.bits); }
    __device__ static void load_a(frag_a& a, const mxc_half* p, int ld) {
        const int l = mma_lane();
        for (int i = 0; i < 4; ++i) a.v[i] = f16(p[(l % 16) * ld + 4 * (l / 16) + i]);
    }
    __device__ static void load_b(frag_b& b, const mxc_half* p, int ld) {
        const int l = mma_lane();
        for (int i = 0; i < 4; ++i) b.v[i] = f16(p[(4 * (l / 16) + i) * ld + l % 16]);
    }
    __device__ static void load_bt(frag_bt& b, const mxc_half* p, int ld) {
        const int l = mma_lane();
        for (int i = 0; i < 4; ++i) b.v[i] = f16(p[(l % 16) * ld + 4 * (l / 16) + i]);
    }
    __device__ static void mma(frag_acc& c, const frag_a& a, const frag_b& b) {
        c.v = __builtin_amdgcn_mfma_f32_16x16x16f16(a.v, b.v, c.v, 0, 0, 0);
    }
};

// Native fp32: one float of A and of B per lane, K = 4.
template <> struct mma_tile<float> : mfma_acc {
    static constexpr int M = 16, N = 16, K = 4;
    struct frag_a { float v; };
    struct frag_b { float v; };
    using frag_bt = frag_b;

    __device__ static void load_a(frag_a& a, const float* p, int ld) {
        const int l = mma_lane();
        a.v = p[(l % 16) * ld + l / 16];
    }
    __device__ static void load_b(frag_b& b, const float* p, int ld) {
        const int l = mma_lane();
        b.v = p[(l / 16) * ld + l % 16];
    }
    __device__ static void load_bt(frag_bt& b, const float* p, int ld) {
        const int l = mma_lane();
        b.v = p[(l % 16) * ld + l / 16];
    }
    __device__ static void mma(frag_acc& c, const frag_a& a, const frag_b& b) {
        c.v = __builtin_amdgcn_mfma_f32_16x16x4f32(a.v, b.v, c.v, 0, 0, 0);
    }
};

#else

// The per-lane FMA loop, for half (K = 16) and float (K = 8) operands.
template <class T, int K_> struct mma_tile_generic {
    static constexpr int M = 16, N = 16, K = K_;
    static constexpr int max_rows = 8; // 256 / warpSize for warps of 32 or 64 lanes
    static constexpr bool nan_recheck = false, rz_sums = false;
    struct frag_a { T v[max_rows][K]; };
    struct frag_b { T v[K]; };
    using frag_bt = frag_b;
    struct frag_acc { float v[max_rows]; };

    __device__ static int rows() { return 256 / warpSize; }
    __device__ static int row(int j) { return mma_lane() / 16 + j * (warpSize / 16); }
    __device__ static void load_a(frag_a& a, const T* p, int ld) {
        for (int j = 0; j < rows(); ++j)
            for (int k = 0; k < K; ++k) a.v[j][k] = p[row(j) * ld + k];
    }
    __device__ static void load_b(frag_b& b, const T* p, int ld) {
        const int col = mma_lane() % 16;
        for (int k = 0; k < K; ++k) b.v[k] = p[k * ld + col];
    }
    __device__ static void load_bt(frag_bt& b, const T* p, int ld) {
        const int col = mma_lane() % 16;
        for (int k = 0; k < K; ++k) b.v[k] = p[col * ld + k];
    }
    __device__ static void zero(frag_acc& c) {
        for (int j = 0; j < max_rows; ++j) c.v[j] = 0.0f;
    }
    __device__ static void mma(frag_acc& c, const frag_a& a, const frag_b& b) {
        for (int j = 0; j < rows(); ++j) {
            float s = c.v[j];
            for (int k = 0; k < K; ++k) s = fmaf(static_cast<float>(a.v[j][k]), static_cast<float>(b.v[k]), s);
            c.v[j] = s;
        }
    }
    __device__ static void store(float* p, int ld, const frag_acc& c) {
        const int col = mma_lane() % 16;
        for (int j = 0; j < rows(); ++j) p[row(j) * ld + col] = c.v[j];
    }
    __device__ static void load_acc(frag_acc& c, const float* p, int ld) {
        const int col = mma_lane() % 16;
        for (int j = 0; j < rows(); ++j) c.v[j] = p[row(j) * ld + col];
    }
    __device__ static void add(frag_acc& c, const frag_acc& d) {
        for (int j = 0; j < max_rows; ++j) c.v[j] += d.v[j];
    }
};
template <> struct mma_tile<mxc_half> : mma_tile_generic<mxc_half, 16> {};
template <> struct mma_tile<float> : mma_tile_generic<float, 8> {};

#endif

} // namespace hip
} // namespace mxc
