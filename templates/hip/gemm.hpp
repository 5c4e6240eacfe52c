// gemm: the block-tiled matrix product behind the hip dot and convolution kernels (float,
// half, bfloat16, double; other element types keep the one-thread-per-output kernels).
//   out.store(z, i, j, sum_k A_z(i, k) * B_z(k, j)),  i < M, j < N, z < Z (grid z)
// A and B are read only through SOURCES, so strided (transposed, batched) dot operands, the
// weights of a convolution and its implicit im2col matrix share one kernel. A source maps
// the batch index z to a VIEW of one rows x cols matrix:
//   view.at(r, c)   the element (r, c) (the caller keeps r, c in range)
//   view.fast       1: consecutive c are adjacent in memory (load c fastest), 0: r fastest
//   view.vec        vectors of gemm_vec_width<T> elements along the fast dim, starting at a
//                   multiple of the width, are contiguous and 16-byte aligned
//   view.ptr(r, c)  the address of (r, c) (used only when vec)
// The out functor maps (z, i, j) to the output element and applies the epilogue (the plain
// store, or a fused pointwise body, templates/hip/fused.hpp) per element.
//
// Scheme: one block computes a BM x BN tile of C. K is stepped by BK: the block stages the
// BM x BK tile of A (transposed, k-major) and the BK x BN tile of B in shared memory in the
// compute type (loads along the fast dim, 16-byte vectors where the view allows, zero
// outside the matrix), then each thread multiplies-and-accumulates its TM x TN outputs in
// registers (gemm_fma_step: the micro-kernel, the step a matrix-unit version replaces). Thread
// (ty, tx) owns rows ty + i * BM/TM and cols tx + j * BN/TN: the B reads of a warp are
// consecutive (no bank conflicts), the A reads are broadcasts, the stores are coalesced. The
// shared rows are padded by one element so that the transposed A stores spread over the banks.
#pragma once
#include "templates/common/gemm_choice.hpp"
#include "templates/hip/common.hpp"
#include "templates/hip/mma.hpp"

#include <type_traits>

#if defined(__launch_bounds__)
#define MXC_LAUNCH_BOUNDS(n) __launch_bounds__(n)
#else
#define MXC_LAUNCH_BOUNDS(n)
#endif

namespace mxc {
namespace hip {

// One tile configuration: a block of BM x BN outputs, K steps of BK, TM x TN per thread.
template <int BM_, int BN_, int BK_, int TM_, int TN_> struct gemm_config {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, TM = TM_, TN = TN_;
    static constexpr int tx_count = BN / TN, ty_count = BM / TM;
    static constexpr int threads = tx_count * ty_count;
    static constexpr int pad = 1;
    static_assert(BM % TM == 0 && BN % TN == 0, "gemm_config: tiles must split evenly over the threads");
    static_assert(BK % 8 == 0 && BM % 8 == 0 && BN % 8 == 0, "gemm_config: tile sides must hold whole 16-byte vectors");
};

// The presets (the rule that picks one is mxc_gemm_pick, templates/common/gemm_choice.hpp).
// Shared memory = (BK * (BM + 1) + BK * (BN + 1)) elements of the compute type; registers per
// thread ~ TM * TN accumulators + TM + TN fragments + ~30 for addresses and loop state
// (estimates, not measured: no device here).
//   large   128x128x8, 8x8 per thread, 256 threads: 8.3 KiB (float), ~110-128 VGPRs.
//           sm_90: 2 blocks (16 warps) per SM, register bound (65536 / (256 * 128));
//           gfx90a: 512 / 128 = 4 waves per SIMD = 4 blocks per CU (register bound; 64 KiB
//           LDS would hold 7). For big M and N: 64 FMAs per 16 shared loads.
//   medium  64x64x8, 4x4 per thread, 256 threads: 4.2 KiB, ~48-64 VGPRs. sm_90: 4 blocks
//           per SM (registers; threads allow 8); gfx90a: 8 waves per SIMD = 8 blocks per CU.
//           For mid sizes (more blocks to fill 132 SMs / 110 CUs) and for double (8x8
//           doubles would need ~160 registers).
//   small_m 16x128x16, 2x4 per thread, 256 threads: 9.3 KiB, ~40-48 VGPRs. sm_90: 5 blocks
//           per SM; gfx90a: 8 per CU. Batch-1 matvec and few-row products (M <= 16): the B
//           panel is read once, coalesced, in wide tiles.
//   small_n 128x16x16, 4x2 per thread, 256 threads: 9.3 KiB, ~40-48 VGPRs, as small_m. Few
//           columns (a deep convolution on a tiny image at batch 1, a matrix times a vector).
// Double doubles the shared memory and the accumulator registers of each configuration.
// A tuning database entry (codegen/tuning.hpp) replaces the rule for its problem.
using gemm_large = gemm_config<128, 128, 8, 8, 8>;
using gemm_medium = gemm_config<64, 64, 8, 4, 4>;
using gemm_small_m = gemm_config<16, 128, 16, 2, 4>;
using gemm_small_n = gemm_config<128, 16, 16, 4, 2>;

// Whether element type T takes the tiled path.
template <class T>
constexpr bool gemm_supported = std::is_same<T, float>::value || std::is_same<T, double>::value ||
                                std::is_same<T, mxc_half>::value || std::is_same<T, mxc_bf16>::value;

// Elements per 16-byte global load.
template <class T> constexpr int gemm_vec_width = int(16 / sizeof(T));
template <class T, int V> struct alignas(sizeof(T) * V) gemm_vec { T v[V]; };

// The element kind of T for the rule (only for gemm_supported types).
template <class T>
constexpr mxc_gemm_elem gemm_elem_of = std::is_same<T, double>::value     ? MXC_GEMM_F64
                                       : std::is_same<T, mxc_half>::value ? MXC_GEMM_F16
                                       : std::is_same<T, mxc_bf16>::value ? MXC_GEMM_BF16
                                                                          : MXC_GEMM_F32;

// A strided matrix: element (r, c) at p[r * sr + c * sc].
template <class T> struct gemm_strided_view {
    const T* p;
    int64_t sr, sc;
    int fast;
    bool vec;
    __device__ T at(int64_t r, int64_t c) const { return p[r * sr + c * sc]; }
    __device__ const T* ptr(int64_t r, int64_t c) const { return p + r * sr + c * sc; }
};
template <class T> __device__ inline gemm_strided_view<T> make_strided_view(const T* p, int64_t sr, int64_t sc) {
    constexpr int V = gemm_vec_width<T>;
    const bool aligned = reinterpret_cast<uintptr_t>(p) % 16 == 0;
    gemm_strided_view<T> v{p, sr, sc, 1, false};
    if (sc == 1) v.vec = aligned && sr % V == 0;
    else if (sr == 1) {
        v.fast = 0;
        v.vec = aligned && sc % V == 0;
    }
    return v;
}

// Offset of batch z (row-major over the dims before the last two) in a tensor of desc d.
MXC_HD inline int64_t gemm_batch_offset(const mxc_desc& d, int64_t z) {
    int64_t off = 0;
    for (int i = d.rank - 3; i >= 0; --i) {
        off += (z % d.lens[i]) * d.strides[i];
        z /= d.lens[i];
    }
    return off;
}

// Stages the R x CC tile at (r0, c0) of view v (rows < rn, cols < cn; zero outside) into
// shared memory: dst[r * ld + c], or dst[c * ld + r] when Transposed. FastC: v.fast == 1.
template <int Threads, int R, int CC, bool Transposed, bool FastC, class View, class C>
__device__ inline void gemm_stage(const View& v, int64_t r0, int64_t c0, int64_t rn, int64_t cn, C* dst, int ld,
                                  int tid) {
    using T = typename std::remove_cv<typename std::remove_pointer<decltype(v.ptr(0, 0))>::type>::type;
    constexpr int V = gemm_vec_width<T>;
    constexpr int F = FastC ? CC : R, O = FastC ? R : CC; // extents along the fast / other dim
    const int64_t f0 = FastC ? c0 : r0, o0 = FastC ? r0 : c0, fn = FastC ? cn : rn, on = FastC ? rn : cn;
    auto put = [&](int f, int o, C x) {
        const int r = FastC ? o : f, c = FastC ? f : o;
        dst[Transposed ? c * ld + r : r * ld + c] = x;
    };
    if (v.vec) {
        for (int s = tid; s < O * (F / V); s += Threads) {
            const int o = s / (F / V), f = s % (F / V) * V;
            const int64_t go = o0 + o, gf = f0 + f;
            if (go < on && gf + V <= fn) {
                const gemm_vec<T, V> x = *reinterpret_cast<const gemm_vec<T, V>*>(FastC ? v.ptr(go, gf) : v.ptr(gf, go));
#pragma unroll
                for (int e = 0; e < V; ++e) put(f + e, o, C(x.v[e]));
            } else {
                for (int e = 0; e < V; ++e)
                    put(f + e, o, go < on && gf + e < fn ? C(FastC ? v.at(go, gf + e) : v.at(gf + e, go)) : C(0));
            }
        }
    } else {
        for (int s = tid; s < O * F; s += Threads) {
            const int o = s / F, f = s % F;
            const int64_t go = o0 + o, gf = f0 + f;
            put(f, o, go < on && gf < fn ? C(FastC ? v.at(go, gf) : v.at(gf, go)) : C(0));
        }
    }
}

// The multiply-accumulate step over one staged K slice: acc[i][j] += A(row i, k) * B(k, col j).
// The fp16 matrix-unit path replaces this step (same tiles, same epilogue).
template <class Cfg, class C>
__device__ inline void gemm_fma_step(const C (*as)[Cfg::BM + Cfg::pad], const C (*bs)[Cfg::BN + Cfg::pad],
                                     C (&acc)[Cfg::TM][Cfg::TN], int ty, int tx) {
#pragma unroll
    for (int kk = 0; kk < Cfg::BK; ++kk) {
        C a[Cfg::TM], b[Cfg::TN];
#pragma unroll
        for (int i = 0; i < Cfg::TM; ++i) a[i] = as[kk][ty + i * Cfg::ty_count];
#pragma unroll
        for (int j = 0; j < Cfg::TN; ++j) b[j] = bs[kk][tx + j * Cfg::tx_count];
#pragma unroll
        for (int i = 0; i < Cfg::TM; ++i)
#pragma unroll
            for (int j = 0; j < Cfg::TN; ++j) acc[i][j] += a[i] * b[j];
    }
}

template <class Cfg, class T, class SA, class SB, class Out>
__global__ void MXC_LAUNCH_BOUNDS(Cfg::threads)
    gemm_kernel(int64_t m, int64_t n, int64_t k, int64_t z0, int64_t mb0, SA sa, SB sb, Out out) {
    using C = mxc_compute_t<T>;
    __shared__ C as[Cfg::BK][Cfg::BM + Cfg::pad];
    __shared__ C bs[Cfg::BK][Cfg::BN + Cfg::pad];
    const int64_t z = z0 + blockIdx.z;
    const auto va = sa.view(z);
    const auto vb = sb.view(z);
    const int64_t m0 = (mb0 + blockIdx.y) * Cfg::BM, n0 = int64_t(blockIdx.x) * Cfg::BN;
    const int tid = int(threadIdx.x), ty = tid / Cfg::tx_count, tx = tid % Cfg::tx_count;
    C acc[Cfg::TM][Cfg::TN];
#pragma unroll
    for (int i = 0; i < Cfg::TM; ++i)
#pragma unroll
        for (int j = 0; j < Cfg::TN; ++j) acc[i][j] = C(0);
    for (int64_t k0 = 0; k0 < k; k0 += Cfg::BK) {
        // load the tiles (the view's fast dim decides the order; uniform over the block)
        if (va.fast) gemm_stage<Cfg::threads, Cfg::BM, Cfg::BK, true, true>(va, m0, k0, m, k, &as[0][0], Cfg::BM + Cfg::pad, tid);
        else gemm_stage<Cfg::threads, Cfg::BM, Cfg::BK, true, false>(va, m0, k0, m, k, &as[0][0], Cfg::BM + Cfg::pad, tid);
        if (vb.fast) gemm_stage<Cfg::threads, Cfg::BK, Cfg::BN, false, true>(vb, k0, n0, k, n, &bs[0][0], Cfg::BN + Cfg::pad, tid);
        else gemm_stage<Cfg::threads, Cfg::BK, Cfg::BN, false, false>(vb, k0, n0, k, n, &bs[0][0], Cfg::BN + Cfg::pad, tid);
        block_sync();
        // multiply-accumulate
        gemm_fma_step<Cfg>(as, bs, acc, ty, tx);
        block_sync();
    }
    // epilogue
#pragma unroll
    for (int i = 0; i < Cfg::TM; ++i) {
        const int64_t r = m0 + ty + i * Cfg::ty_count;
        if (r >= m) continue;
#pragma unroll
        for (int j = 0; j < Cfg::TN; ++j) {
            const int64_t c = n0 + tx + j * Cfg::tx_count;
            if (c < n) out.store(z, r, c, acc[i][j]);
        }
    }
}

// Launches one configuration; grids beyond the y / z limits (65535) go in several launches.
template <class Cfg, class T, class SA, class SB, class Out>
inline void gemm_launch(int64_t m, int64_t n, int64_t k, int64_t z, const SA& sa, const SB& sb, const Out& out,
                        hipStream_t stream) {
    constexpr int64_t lim = 65535;
    const int64_t gx = (n + Cfg::BN - 1) / Cfg::BN, gy = (m + Cfg::BM - 1) / Cfg::BM;
    auto kernel = gemm_kernel<Cfg, T, SA, SB, Out>;
    for (int64_t z0 = 0; z0 < z; z0 += lim)
        for (int64_t y0 = 0; y0 < gy; y0 += lim) {
            const dim3 grid(unsigned(gx), unsigned(gy - y0 < lim ? gy - y0 : lim), unsigned(z - z0 < lim ? z - z0 : lim));
            hipLaunchKernelGGL(kernel, grid, dim3(Cfg::threads), 0, stream, m, n, k, z0, y0, sa, sb, out);
        }
}

// The fp16 path on the matrix units (templates/hip/mma.hpp: wmma on NVIDIA sm_80+, MFMA on
// AMD CDNA, a per-lane FMA loop elsewhere): the same staging and epilogue contract, the
// multiply-accumulate step done by warps on 16x16x16 tiles. Block = gemm_mma::threads threads
// = 256 / warpSize warps; the 64x64 C tile is 16 sub-tiles of 16x16, warp w owns sub-tiles
// w, w + warps, ... (2 per warp of 32, 4 per wavefront of 64). A and B are staged in half
// (row-major, leading dims multiples of 8 and 32-byte aligned sub-tiles as wmma requires),
// the accumulators go through a float tile in shared memory to the epilogue (one element per
// thread per step: fused bodies are not unrolled). Shared memory: 64x24 + 16x72 halves +
// 64x68 floats = 22.3 KiB; registers ~64 (wmma) / ~40 (MFMA). sm_90: 8 blocks per SM
// (threads); gfx90a: 2 blocks per CU (LDS 64 KiB / 22.3).
struct gemm_mma {
    static constexpr int BM = 64, BN = 64, BK = 16, threads = 256, lda = BK + 8, ldb = BN + 8, ldc = BN + 4;
    static constexpr int subtiles = (BM / 16) * (BN / 16), max_per_warp = subtiles / (threads / 64);
};

// The shared tiles, 32-byte aligned (the sizes of a and b are multiples of 32 bytes).
struct alignas(32) gemm_mma_smem {
    mxc_half a[gemm_mma::BM * gemm_mma::lda];
    mxc_half b[gemm_mma::BK * gemm_mma::ldb];
    float c[gemm_mma::BM * gemm_mma::ldc];
};

template <class SA, class SB, class Out>
__global__ void MXC_LAUNCH_BOUNDS(gemm_mma::threads)
    gemm_mma_kernel(int64_t m, int64_t n, int64_t k, int64_t z0, int64_t mb0, SA sa, SB sb, Out out) {
    using G = gemm_mma;
    using mt = mma_tile<mxc_half>;
    __shared__ gemm_mma_smem sm;
    mxc_half* as = sm.a;
    mxc_half* bs = sm.b;
    float* cs = sm.c;
    const int64_t z = z0 + blockIdx.z;
    const auto va = sa.view(z);
    const auto vb = sb.view(z);
    const int64_t m0 = (mb0 + blockIdx.y) * G::BM, n0 = int64_t(blockIdx.x) * G::BN;
    const int tid = int(threadIdx.x), warp = tid / warpSize, warps = G::threads / warpSize;
    typename mt::frag_acc acc[G::max_per_warp];
    typename mt::frag_a fa;
    typename mt::frag_b fb;
#pragma unroll
    for (int j = 0; j < G::max_per_warp; ++j) mt::zero(acc[j]);
    for (int64_t k0 = 0; k0 < k; k0 += G::BK) {
        // load the tiles
        if (va.fast) gemm_stage<G::threads, G::BM, G::BK, false, true>(va, m0, k0, m, k, as, G::lda, tid);
        else gemm_stage<G::threads, G::BM, G::BK, false, false>(va, m0, k0, m, k, as, G::lda, tid);
        if (vb.fast) gemm_stage<G::threads, G::BK, G::BN, false, true>(vb, k0, n0, k, n, bs, G::ldb, tid);
        else gemm_stage<G::threads, G::BK, G::BN, false, false>(vb, k0, n0, k, n, bs, G::ldb, tid);
        block_sync();
        // multiply-accumulate on the matrix units
#pragma unroll
        for (int j = 0; j < G::max_per_warp; ++j) {
            const int t = warp + j * warps;
            if (t >= G::subtiles) break;
            mt::load_a(fa, as + (t / (G::BN / 16)) * 16 * G::lda, G::lda);
            mt::load_b(fb, bs + (t % (G::BN / 16)) * 16, G::ldb);
            mt::mma(acc[j], fa, fb);
        }
        block_sync();
    }
    // epilogue, through the float tile
#pragma unroll
    for (int j = 0; j < G::max_per_warp; ++j) {
        const int t = warp + j * warps;
        if (t >= G::subtiles) break;
        mt::store(cs + (t / (G::BN / 16)) * 16 * G::ldc + (t % (G::BN / 16)) * 16, G::ldc, acc[j]);
    }
    block_sync();
    for (int e = tid; e < G::BM * G::BN; e += G::threads) {
        const int64_t r = m0 + e / G::BN, c = n0 + e % G::BN;
        if (r < m && c < n) out.store(z, r, c, cs[(e / G::BN) * G::ldc + e % G::BN]);
    }
}

template <class SA, class SB, class Out>
inline void gemm_mma_launch(int64_t m, int64_t n, int64_t k, int64_t z, const SA& sa, const SB& sb, const Out& out,
                            hipStream_t stream) {
    constexpr int64_t lim = 65535;
    const int64_t gx = (n + gemm_mma::BN - 1) / gemm_mma::BN, gy = (m + gemm_mma::BM - 1) / gemm_mma::BM;
    auto kernel = gemm_mma_kernel<SA, SB, Out>;
    for (int64_t z0 = 0; z0 < z; z0 += lim)
        for (int64_t y0 = 0; y0 < gy; y0 += lim) {
            const dim3 grid(unsigned(gx), unsigned(gy - y0 < lim ? gy - y0 : lim), unsigned(z - z0 < lim ? z - z0 : lim));
            hipLaunchKernelGGL(kernel, grid, dim3(gemm_mma::threads), 0, stream, m, n, k, z0, y0, sa, sb, out);
        }
}

// The configuration argument of the launchers (gemm_run, dot, convolution and the fused
// forms): a gemm_config, gemm_mma (half only), or gemm_auto. mxc always names one: the tuning
// database's tile, else the rule's preset (mxc_gemm_pick, applied by the compiler to the
// shapes it knows; codegen/gemm_choice.cpp), so each generated launch instantiates only the
// kernel it runs. Every shape is known then: the generated source passes each kernel static
// descriptors (symbolic dims are fixed before compiling), so no launch needs a run-time choice.
// gemm_auto applies the same rule at run time and so instantiates every preset (plus gemm_mma
// for half): the default for hand-written calls and tests, never generated.
struct gemm_auto {};

// Runs the product with configuration Cfg (see above).
template <class T, class Cfg = gemm_auto, class SA, class SB, class Out>
inline void gemm_run(int64_t m, int64_t n, int64_t k, int64_t z, const SA& sa, const SB& sb, const Out& out,
                     hipStream_t stream) {
    if (m <= 0 || n <= 0 || z <= 0) return;
    if constexpr (std::is_same<Cfg, gemm_mma>::value) {
        static_assert(std::is_same<T, mxc_half>::value, "gemm_mma: the matrix-unit kernel takes half only");
        gemm_mma_launch(m, n, k, z, sa, sb, out, stream);
    } else if constexpr (!std::is_same<Cfg, gemm_auto>::value) {
        gemm_launch<Cfg, T>(m, n, k, z, sa, sb, out, stream);
    } else {
        switch (mxc_gemm_pick(gemm_elem_of<T>, m, n, k, z)) {
        case MXC_GEMM_MMA:
            if constexpr (std::is_same<T, mxc_half>::value) gemm_mma_launch(m, n, k, z, sa, sb, out, stream);
            break;
        case MXC_GEMM_LARGE: gemm_launch<gemm_large, T>(m, n, k, z, sa, sb, out, stream); break;
        case MXC_GEMM_MEDIUM: gemm_launch<gemm_medium, T>(m, n, k, z, sa, sb, out, stream); break;
        case MXC_GEMM_SMALL_M: gemm_launch<gemm_small_m, T>(m, n, k, z, sa, sb, out, stream); break;
        case MXC_GEMM_SMALL_N: gemm_launch<gemm_small_n, T>(m, n, k, z, sa, sb, out, stream); break;
        }
    }
}

// Epilogues: epi.put(e, acc) writes output element e (row-major in the output).
template <class T> struct plain_store {
    T* y;
    __device__ void put(int64_t e, mxc_compute_t<T> acc) const { y[e] = T(acc); }
};

} // namespace hip
} // namespace mxc
