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
// and optionally, for a vector view some of whose vectors are all zeros without being in
// memory (the padding of a channels-last convolution's im2col matrix):
//   view.src(r, c)  the address of the vector at (r, c), or null where it is zeros
// and optionally, for an element-wise view whose index math splits into a column part and a
// row part (the implicit im2col matrix), a per-column state (gemm_has_col):
//   view.cols()         whether col / at_col apply (uniform over the grid; else at is used)
//   view.col(c, cn)     the state of column c (c >= cn allowed: its elements are zero)
//   view.at_col(r, st)  the element (r, c) for st = col(c, cn), zero when c >= cn
// and, with those, where the row part does not depend on the column (gemm_has_row):
//   view.rows()            whether row / at_rc apply (uniform; only where cols() does)
//   view.row(r)            the state of row r (r < rn)
//   view.at_rc(rs, st)     the element (r, c) for rs = row(r), st = col(c, cn): at_col(r, st)
// The block's column states sit in shared memory, computed once before the k loop; with row
// states a thread loads a few rows of a k-tile, each row's state computed once for the row's
// columns it loads (gemm_col_loads), else one column, its state read once a k-tile.
// The out functor maps (z, i, j) to the output element and applies the epilogue (the plain
// store, or a fused pointwise body, templates/hip/fused.hpp) per element:
//   out.store(z, r, c, v)                    one element
// and optionally (gemm_has_run) a RUN of columns c .. c + count - 1 of row r at once:
//   out.template store_run<N>(z, r, c, v, count)   const C* v, 1 <= count <= N, every column < n,
//                                                  c a multiple of the caller's run width N
// The kernels call gemm_store_run<N>(out, z, r, c, v, count) (or with v an array of N: N
// deduced), which falls back to store per element. N, the run's largest count, is a constant
// so that v (registers) is only ever indexed by constants: a loop up to a run-time count would
// put it in local memory. Out functors whose consecutive columns are consecutive output
// elements hand the run on to the epilogue as one: epi.template put_run<N>(e0, v, count) for
// elements e0 .. e0 + count - 1 (epi_put_run: put per element where E has none), which
// computes the index math once and stores 16-byte vectors where the address allows.
//
// Scheme: one block computes a BM x BN tile of C. K is stepped by BK through two shared
// stages of the BM x BK tile of A (transposed, k-major) and the BK x BN tile of B in the
// compute type, one barrier per step: while each thread multiplies-and-accumulates its TM x TN
// outputs in registers from one stage (gemm_fma_step: the micro-kernel, the step a
// matrix-unit version replaces), the next tile's 16-byte vector loads (where the view allows
// them; zero outside the matrix) are in flight into registers, written to the other stage
// after the multiply (gemm_simt_fetch / gemm_simt_put; element-wise views are loaded there).
// Thread (ty, tx) owns runs of consecutive rows and columns (gemm_own), read from the stages
// as 16-byte vectors: the B reads of a warp are consecutive vectors, the A reads broadcasts. The
// shared rows are padded by 16 bytes (gemm_pad: vector stores stay aligned, the transposed
// stores spread over the banks). Where A's vectors run along K and B's along N and the target
// has asynchronous copies (NVIDIA sm_80+), float and double tiles feed the same thread tiles
// from a ring of stages copied without registers instead (gemm_simt_ring).
#pragma once
#include "templates/hip/common.hpp" // first: the hip runtime, for MXC_HD's __host__ __device__
#include "templates/hip/async_copy.hpp"
#include "templates/hip/mma.hpp"

#include "templates/common/gemm_choice.hpp"

#include <type_traits>


namespace mxc {
namespace hip {

// One tile configuration: a block of BM x BN outputs, K steps of BK, TM x TN per thread.
template <int BM_, int BN_, int BK_, int TM_, int TN_> struct gemm_config {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, TM = TM_, TN = TN_;
    static constexpr int tx_count = BN / TN, ty_count = BM / TM;
    static constexpr int threads = tx_count * ty_count;
    static_assert(BM % TM == 0 && BN % TN == 0, "gemm_config: tiles must split evenly over the threads");
    static_assert(BK % 8 == 0 && BM % 8 == 0 && BN % 8 == 0, "gemm_config: tile sides must hold whole 16-byte vectors");
};


// The presets (the rule that picks one is mxc_gemm_pick, templates/common/gemm_choice.hpp).
// Shared memory = 2 stages x BK x (BM + BN + 2 gemm_pad) elements of the compute type (<= 48
// KiB: gemm_kernel checks). Registers measured with ptxas -v (nvcc 13, sm_90) and clang-15
// (gfx90a) on the ResNet-50 kernels (batch 1) and a 1024^3 product / 112x112 convolutions:
//   large   128x128x8, 8x8 per thread, 256 threads: 17 KiB (float). sm_90: 126 registers, no
//           spills: 2 blocks (16 warps) per SM; its ring (4 stages, 41 KiB, A k-major) 123-128,
//           596 instructions an 8-deep k-tile of 512 FFMA where the staged loop takes 941-1001.
//           gfx90a: 256 VGPRs + 30-38 AGPRs (spill room), 1 wave per SIMD. For big M and N: 64
//           FMAs per 16 shared loads.
//   medium  64x64x16, 4x4 per thread, 256 threads: 17 KiB. sm_90: 87-105 registers, no spills
//           (at least 2 blocks per SM: the bound caps them at 128; with no minimum ptxas
//           capped them at 64-80 and spilled up to 64 bytes); gfx90a: 191-199 VGPRs, 2 waves
//           per SIMD. For mid sizes (more blocks to fill 132 SMs / 110 CUs) and for double
//           (8x8 doubles would need ~160 registers). K steps of 16, not 8: the fp32 GEMMs of
//           ViT and BERT at batch 1 (1.5 blocks per SM) took ~1.4 us per 8-deep step on the
//           H200 (2026-11-23 profiles: ViT's 197x3072x768, 132 us for 96 steps) against
//           ~0.3 us of math: one round of loads in flight per step, so deeper steps should
//           halve the rounds (not yet measured; steps of 8: 64 registers, 4 blocks per SM;
//           gfx90a 132-136 VGPRs, 3 waves).
//   small_m 16x128x16, 2x4 per thread, 256 threads: 19 KiB. sm_90: 60-64 registers; gfx90a:
//           202 VGPRs, 2 waves per SIMD. Batch-1 matvec and few-row products (M <= 16): the B
//           panel is read once, coalesced, in wide tiles.
//   small_n 128x16x16, 4x2 per thread, 256 threads: 19 KiB, as small_m. Few columns (a deep
//           convolution on a tiny image at batch 1, a matrix times a vector).
// Double doubles the shared memory and the accumulator registers of each configuration.
// A tuning database entry (codegen/tuning.hpp) replaces the rule for its problem.
using gemm_large = gemm_config<128, 128, 8, 8, 8>;
using gemm_medium = gemm_config<64, 64, 16, 4, 4>;
using gemm_small_m = gemm_config<16, 128, 16, 2, 4>;
using gemm_small_n = gemm_config<128, 16, 16, 4, 2>;
// the rule's table of tiles (split-K) must match
static_assert(mxc_gemm_preset_tile(MXC_GEMM_LARGE).bm == gemm_large::BM && mxc_gemm_preset_tile(MXC_GEMM_LARGE).bn == gemm_large::BN &&
                  mxc_gemm_preset_tile(MXC_GEMM_LARGE).bk == gemm_large::BK && mxc_gemm_preset_tile(MXC_GEMM_MEDIUM).bm == gemm_medium::BM &&
                  mxc_gemm_preset_tile(MXC_GEMM_MEDIUM).bn == gemm_medium::BN && mxc_gemm_preset_tile(MXC_GEMM_MEDIUM).bk == gemm_medium::BK &&
                  mxc_gemm_preset_tile(MXC_GEMM_SMALL_M).bm == gemm_small_m::BM && mxc_gemm_preset_tile(MXC_GEMM_SMALL_M).bn == gemm_small_m::BN &&
                  mxc_gemm_preset_tile(MXC_GEMM_SMALL_M).bk == gemm_small_m::BK && mxc_gemm_preset_tile(MXC_GEMM_SMALL_N).bm == gemm_small_n::BM &&
                  mxc_gemm_preset_tile(MXC_GEMM_SMALL_N).bn == gemm_small_n::BN && mxc_gemm_preset_tile(MXC_GEMM_SMALL_N).bk == gemm_small_n::BK,
              "mxc_gemm_preset_tile must list the presets' tiles");

// Whether element type T takes the tiled path.
template <class T>
constexpr bool gemm_supported = std::is_same<T, float>::value || std::is_same<T, double>::value ||
                                std::is_same<T, mxc_half>::value || std::is_same<T, mxc_bf16>::value;

// Elements per 16-byte global load.
template <class T> constexpr int gemm_vec_width = int(16 / sizeof(T));
template <class T, int V> struct alignas(sizeof(T) * V) gemm_vec { T v[V]; };

// Thread (ty, tx)'s rows and columns of the block tile (gemm_fma_step, the epilogue): in runs of
// W consecutive ones (W = min(T, 16 bytes of the compute type C): one vector read from a
// shared stage row), run g of the thread at g * (count * W) + t * W. So a warp's reads of one
// run are consecutive vectors (B: 16 columns x 16 bytes = 256 bytes, the two wavefronts a
// 256-byte read takes; A: broadcasts), and a 4x4 tile takes 2 vector reads per k step where
// scalar reads (rows ty + i * ty_count) took 8: 16 FMAs per 8 shared-read instructions left
// the medium tile bound by the shared-memory pipe (one instruction per clock per SM against
// four FMA instructions), as textbook SGEMMs note (e.g. Boehm's "How to optimize a CUDA
// matmul kernel for cuBLAS-like performance", vectorised shared memory access).
template <class C, int T, int Count> struct gemm_own {
    static constexpr int W = T < gemm_vec_width<C> ? T : gemm_vec_width<C>, runs = T / W;
    static_assert(T % W == 0, "gemm_own: a thread's rows / columns must split into whole runs");
    // the i-th (i < T) row / column of thread t
    static MXC_HD constexpr int at(int t, int i) { return (i / W) * (Count * W) + t * W + i % W; }
};

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
template <class T> MXC_HD inline gemm_strided_view<T> make_strided_view(const T* p, int64_t sr, int64_t sc) {
    constexpr int V = gemm_vec_width<T>;
    const bool aligned = aligned_16(p);
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

// The optional vector source (see the view contract above): v.src where the view has one,
// else v.ptr (never null).
template <class View, class = void> struct gemm_has_src : std::false_type {};
template <class View>
struct gemm_has_src<View, std::void_t<decltype(std::declval<const View&>().src(int64_t(0), int64_t(0)))>> : std::true_type {};
// The vector at (o, f) along the other / fast dim of v (FastC: (r, c) = (o, f), else (f, o)),
// inside the matrix where `in`: whether it is in memory (src its address) rather than zeros.
template <bool FastC, class View, class T>
__device__ __forceinline__ bool gemm_vec_src(const View& v, int64_t o, int64_t f, bool in, const T*& src) {
    if constexpr (gemm_has_src<View>::value) {
        if (in) src = FastC ? v.src(o, f) : v.src(f, o);
        return src != nullptr;
    } else {
        if (in) src = FastC ? v.ptr(o, f) : v.ptr(f, o);
        return in;
    }
}

// The optional per-column state (see the view contract above).
struct gemm_no_col {};
template <class View, class = void> struct gemm_has_col : std::false_type {};
template <class View>
struct gemm_has_col<View, std::void_t<decltype(std::declval<const View&>().col(int64_t(0), int64_t(0)))>> : std::true_type {};
// Thread tid's column state for the tiles of CC columns at c0 (< cn) that Threads threads load
// element s = tid + i * Threads, column fastest: its column is c0 + tid % CC in every tile
// when Threads % CC == 0 (else, or for a view without one, gemm_no_col: no state).
template <int Threads, int CC, class View>
__device__ inline auto gemm_col_of(const View& v, int64_t c0, int64_t cn, int tid) {
    if constexpr (gemm_has_col<View>::value && Threads % CC == 0) return v.col(c0 + tid % CC, cn);
    else return gemm_no_col{};
}
template <class CS> constexpr bool gemm_col_state = !std::is_same<CS, gemm_no_col>::value;
// The column states of a block's BN columns at n0 (< n), in shared memory cols[0 .. BN) (the
// kernel's __shared__ array of gemm_col_of's type, one element where there are none), filled
// before the k loop: column c's at cols[c].
template <int Threads, int BN, class View, class CS>
__device__ __forceinline__ void gemm_fill_cols(const View& v, int64_t n0, int64_t n, int tid, CS* cols) {
    if constexpr (gemm_col_state<CS>) {
        if (tid < BN) cols[tid] = gemm_col_of<Threads, BN>(v, n0, n, tid);
        block_sync();
    }
}
inline constexpr const gemm_no_col* gemm_no_cols = nullptr; // (an operand without column states)
template <class View, class = void> struct gemm_has_row : std::false_type {};
template <class View>
struct gemm_has_row<View, std::void_t<decltype(std::declval<const View&>().row(int64_t(0)))>> : std::true_type {};

// Runs of consecutive columns (see the out contract above).
template <class Out, class C, class = void> struct gemm_has_run : std::false_type {};
template <class Out, class C>
struct gemm_has_run<Out, C, std::void_t<decltype(std::declval<const Out&>().template store_run<1>(int64_t(0), int64_t(0), int64_t(0),
                                                                                                   static_cast<const C*>(nullptr), 0))>>
    : std::true_type {};
template <int N, class Out, class C>
__device__ __forceinline__ void gemm_store_run(const Out& out, int64_t z, int64_t r, int64_t c, const C* v, int count) {
    if constexpr (gemm_has_run<Out, C>::value) {
        out.template store_run<N>(z, r, c, v, count);
    } else {
#pragma unroll
        for (int i = 0; i < N; ++i)
            if (i < count) out.store(z, r, c + i, v[i]);
    }
}
template <class Out, class C, int N>
__device__ __forceinline__ void gemm_store_run(const Out& out, int64_t z, int64_t r, int64_t c, const C (&v)[N], int count) {
    gemm_store_run<N>(out, z, r, c, &v[0], count);
}
template <class E, class C, class = void> struct epi_has_run : std::false_type {};
template <class E, class C>
struct epi_has_run<E, C, std::void_t<decltype(std::declval<const E&>().template put_run<1>(int64_t(0), static_cast<const C*>(nullptr), 0))>>
    : std::true_type {};
template <int N, class E, class C> __device__ __forceinline__ void epi_put_run(const E& epi, int64_t e0, const C* v, int count) {
    if constexpr (epi_has_run<E, C>::value) {
        epi.template put_run<N>(e0, v, count);
    } else {
#pragma unroll
        for (int i = 0; i < N; ++i)
            if (i < count) epi.put(e0 + i, v[i]);
    }
}

// Elements 0 .. count - 1 (count <= N) of a run at p, in the widest aligned vectors that a whole
// run (count == N) allows: 16 bytes (or N elements), else halves of those down to 4 bytes;
// else (a partial run, an odd address) one element at a time.
template <int W, int N, class T> __device__ __forceinline__ bool gemm_run_vectors_fit(const T* p, int count) {
    return count == N && reinterpret_cast<uintptr_t>(p) % (sizeof(T) * W) == 0;
}
template <int N, class T> constexpr int gemm_run_width = gemm_vec_width<T> < N ? gemm_vec_width<T> : N;
template <int N, int W, class T, class C> __device__ __forceinline__ void gemm_write_run_w(T* p, const C* v, int count) {
    static_assert(N % W == 0, "gemm_write_run: the run must split into whole vectors");
    if constexpr (W * sizeof(T) >= 4 && W > 1) {
        if (gemm_run_vectors_fit<W, N>(p, count)) {
#pragma unroll
            for (int h = 0; h < N; h += W) {
                gemm_vec<T, W> x;
#pragma unroll
                for (int e = 0; e < W; ++e) x.v[e] = T(v[h + e]);
                vector_store(p + h, x);
            }
            return;
        }
        gemm_write_run_w<N, W / 2>(p, v, count);
    } else {
#pragma unroll
        for (int i = 0; i < N; ++i)
            if (i < count) p[i] = T(v[i]);
    }
}
template <int N, int W, class T> __device__ __forceinline__ void gemm_read_run_w(const T* p, T* x, int count) {
    static_assert(N % W == 0, "gemm_read_run: the run must split into whole vectors");
    if constexpr (W * sizeof(T) >= 4 && W > 1) {
        if (gemm_run_vectors_fit<W, N>(p, count)) {
#pragma unroll
            for (int h = 0; h < N; h += W) {
                const gemm_vec<T, W> y = vector_load<gemm_vec<T, W>>(p + h);
#pragma unroll
                for (int e = 0; e < W; ++e) x[h + e] = y.v[e];
            }
            return;
        }
        gemm_read_run_w<N, W / 2>(p, x, count);
    } else {
#pragma unroll
        for (int i = 0; i < N; ++i)
            if (i < count) x[i] = p[i];
    }
}
template <int N, class T, class C> __device__ __forceinline__ void gemm_write_run(T* p, const C* v, int count) {
    gemm_write_run_w<N, gemm_run_width<N, T>>(p, v, count);
}
template <int N, class T> __device__ __forceinline__ void gemm_read_run(const T* p, T* x, int count) {
    gemm_read_run_w<N, gemm_run_width<N, T>>(p, x, count);
}

// Thread tid's elements of an O x F tile (o0, on: the first row and the row count of the view;
// column fastest, Threads % F == 0) through the column states of the tile's columns (cols[c],
// in shared memory), put(o, c, element). Loaded B at a time before any is written, so that B
// loads are in flight at once (a load written at once to shared memory waits for its data).
//  - With row states (v.rows()): a warp's lanes on consecutive columns of one row (L = 32
//    lanes a row where F allows), thread tid on rows tid / L + g * Threads / L and columns tid
//    % L + i * L, each row's state computed once for its F / L columns (the implicit im2col
//    matrix: a row's channel and kernel offsets, two divisions, once, where each element took
//    them; sm_90, nvcc 13, ResNet-50's 3x3 convolutions, the loop's path for such views alone:
//    the SIMT medium tile 722-727 -> 551 instructions a 16-deep k-tile of 256 FFMA, the fp16
//    matrix-unit 64 x 64 x 32 tile 941 -> 551 a 32-deep k-tile, 115 -> 80-98 registers).
//  - Else: column tid % F, its state read once, rows tid / F + i * Threads / F.
template <int Threads, int F, int O, int B, class View, class CS, class Put>
__device__ __forceinline__ void gemm_col_loads(const View& v, int64_t o0, int64_t on, const CS* cols, int tid, Put put) {
    using T = decltype(v.at_col(int64_t(0), cols[0]));
    if constexpr (gemm_has_row<View>::value) {
        constexpr int L = F < 32 ? F : 32, groups = Threads / L, rpt = O / groups, cpr = F / L;
        if constexpr (Threads % L == 0 && F % L == 0 && O % groups == 0 && rpt >= 1 && rpt * cpr <= 16) {
            if (v.rows()) {
                T x[rpt * cpr];
#pragma unroll
                for (int g = 0; g < rpt; ++g) {
                    const int o = tid / L + g * groups;
                    const bool in = o0 + o < on;
                    const auto rs = v.row(in ? o0 + o : o0);
#pragma unroll
                    for (int i = 0; i < cpr; ++i) x[g * cpr + i] = in ? v.at_rc(rs, cols[tid % L + i * L]) : T(0.0f);
                }
#pragma unroll
                for (int g = 0; g < rpt; ++g)
#pragma unroll
                    for (int i = 0; i < cpr; ++i) put(tid / L + g * groups, tid % L + i * L, x[g * cpr + i]);
                return;
            }
        }
    }
    constexpr int step = Threads / F, n = (O + step - 1) / step;
    const CS st = cols[tid % F]; // (read once, not after each store)
#pragma unroll 1
    for (int i0 = 0; i0 < n; i0 += B) {
        T x[B];
#pragma unroll
        for (int b = 0; b < B; ++b) {
            const int o = tid / F + (i0 + b) * step;
            x[b] = i0 + b < n && o < O && o0 + o < on ? v.at_col(o0 + o, st) : T(0.0f);
        }
#pragma unroll
        for (int b = 0; b < B; ++b) {
            const int o = tid / F + (i0 + b) * step;
            if (i0 + b < n && o < O) put(o, tid % F, x[b]);
        }
    }
}

// The SIMT kernel's staging of the R x CC tile at (r0, c0) of view v (rows < rn, cols < cn;
// zero outside) into a shared stage of the compute type C, dst[r * ld + c] or, Transposed,
// dst[c * ld + r], in two halves around the multiply of the current k-tile (as gemm_fetch /
// gemm_put below for the matrix-unit kernel, which stage half as half in exact thread shares):
//  - gemm_simt_fetch loads thread tid's vectors s = tid + i * Threads (i < n; any thread
//    count: the last may be partial) of a vector view into registers of T before the multiply
//    (whole 16-byte loads, the elements past the edge zeroed, as gemm_fetch);
//  - gemm_simt_put writes them after it, converted to C: 16-byte stores where the vector runs
//    along a stage row, else one store per element. An element-wise view (odd strides, the
//    implicit im2col matrix) is loaded and stored there, element by element (through the column
//    state cs where there is one: gemm_col_loads).
// FastC: v.fast == 1 (consecutive c adjacent in memory).
template <int Threads, int R, int CC, class T> struct gemm_simt_regs {
    static constexpr int V = gemm_vec_width<T>, vectors = R * CC / V, n = (vectors + Threads - 1) / Threads;
    gemm_vec<T, V> x[n];
};
template <int Threads, int R, int CC, bool FastC, class View, class T>
__device__ __forceinline__ void gemm_simt_fetch(const View& v, int64_t r0, int64_t c0, int64_t rn, int64_t cn,
                                                gemm_simt_regs<Threads, R, CC, T>& buf, int tid) {
    using B = gemm_simt_regs<Threads, R, CC, T>;
    constexpr int V = B::V, F = FastC ? CC : R;
    const int64_t f0 = FastC ? c0 : r0, o0 = FastC ? r0 : c0, fn = FastC ? cn : rn, on = FastC ? rn : cn;
#pragma unroll
    for (int i = 0; i < B::n; ++i) {
        const int s = tid + i * Threads, o = s / (F / V), f = s % (F / V) * V;
        const int64_t go = o0 + o, gf = f0 + f;
        gemm_vec<T, V> x;
        const T* src = nullptr;
        if (gemm_vec_src<FastC>(v, go, gf, (B::vectors % Threads == 0 || s < B::vectors) && go < on && gf < fn, src)) {
            x = vector_load<gemm_vec<T, V>>(src);
        } else {
#pragma unroll
            for (int e = 0; e < V; ++e) x.v[e] = T(0.0f);
        }
#pragma unroll
        for (int e = 0; e < V; ++e) buf.x[i].v[e] = gf + e < fn ? x.v[e] : T(0.0f);
    }
}
template <int Threads, int R, int CC, bool Transposed, bool FastC, class View, class T, class C, class CS>
__device__ __forceinline__ void gemm_simt_put(const View& v, int64_t r0, int64_t c0, int64_t rn, int64_t cn,
                                              const gemm_simt_regs<Threads, R, CC, T>& buf, C* dst, int ld, int tid,
                                              const CS* cols) {
    using B = gemm_simt_regs<Threads, R, CC, T>;
    constexpr int V = B::V, VC = gemm_vec_width<C>; // V is a multiple of VC (sizeof(C) >= sizeof(T))
    constexpr int F = FastC ? CC : R, O = FastC ? R : CC; // extents along the fast / other dim
    auto at = [&](int f, int o) -> C& {
        const int r = FastC ? o : f, c = FastC ? f : o;
        return dst[Transposed ? c * ld + r : r * ld + c];
    };
    if (v.vec) {
#pragma unroll
        for (int i = 0; i < B::n; ++i) {
            const int s = tid + i * Threads, o = s / (F / V), f = s % (F / V) * V;
            if (B::vectors % Threads != 0 && s >= B::vectors) break;
            if constexpr (FastC != Transposed) { // the vector runs along a stage row
#pragma unroll
                for (int h = 0; h < V / VC; ++h) {
                    gemm_vec<C, VC> y;
#pragma unroll
                    for (int e = 0; e < VC; ++e) y.v[e] = C(buf.x[i].v[h * VC + e]);
                    vector_store(&at(f + h * VC, o), y);
                }
            } else {
#pragma unroll
                for (int e = 0; e < V; ++e) at(f + e, o) = C(buf.x[i].v[e]);
            }
        }
    } else {
        const int64_t f0 = FastC ? c0 : r0, o0 = FastC ? r0 : c0, fn = FastC ? cn : rn, on = FastC ? rn : cn;
        if constexpr (FastC && gemm_col_state<CS>) {
            if (v.cols()) {
                constexpr int per_thread = O * F / Threads;
                gemm_col_loads<Threads, F, O, per_thread < 1 ? 1 : per_thread>(v, o0, on, cols, tid, [&](int o, int c, T x) { at(c, o) = C(x); });
                return;
            }
        }
#pragma unroll 1 // unrolled, ptxas -v (sm_90) gave the medium dot 128 registers (64 so), the large 140 (126)
        for (int s = tid; s < O * F; s += Threads) {
            const int o = s / F, f = s % F;
            const int64_t go = o0 + o, gf = f0 + f;
            at(f, o) = go < on && gf < fn ? C(FastC ? v.at(go, gf) : v.at(gf, go)) : C(0);
        }
    }
}

// The SIMT kernel's stages: A transposed (k-major, as[k][i]) and B (bs[k][j]), rows padded by
// 16 bytes (gemm_pad<C> elements): rows stay 16-byte aligned for the vector stores (A with
// its fast dim along M, B along N), and for float, BK = 8, the transposed stores of an A read
// along K (or a B read along K) spread over the banks: thread s writes its 4 elements at
// k = 4 (s % 2) + e, row s / 2, and (BM + 4) * 4 = 16 (mod 32) words puts the two k halves
// of a warp on different banks (BK = 16: 2-way conflicts there, once per k-tile). The
// multiply's reads are conflict-free whatever the pad: a warp reads consecutive words of one
// B row (tx) and a few consecutive words of one A row (broadcasts).
template <class C> constexpr int gemm_pad = gemm_vec_width<C>;

// The k-tile at k0 of A (BM x BK) and B (BK x BN) into registers (vector views), then into a
// stage (the views' fast dims and vec flags are uniform over the block).
template <class Cfg, class VA, class VB, class RA, class RB>
__device__ __forceinline__ void gemm_simt_fetch_ab(const VA& va, const VB& vb, int64_t m0, int64_t n0, int64_t k0, int64_t m,
                                                   int64_t n, int64_t k, RA& ra, RB& rb, int tid) {
    if (va.vec) {
        if (va.fast) gemm_simt_fetch<Cfg::threads, Cfg::BM, Cfg::BK, true>(va, m0, k0, m, k, ra, tid);
        else gemm_simt_fetch<Cfg::threads, Cfg::BM, Cfg::BK, false>(va, m0, k0, m, k, ra, tid);
    }
    if (vb.vec) {
        if (vb.fast) gemm_simt_fetch<Cfg::threads, Cfg::BK, Cfg::BN, true>(vb, k0, n0, k, n, rb, tid);
        else gemm_simt_fetch<Cfg::threads, Cfg::BK, Cfg::BN, false>(vb, k0, n0, k, n, rb, tid);
    }
}
template <class Cfg, class VA, class VB, class RA, class RB, class C, class CB>
__device__ __forceinline__ void gemm_simt_put_ab(const VA& va, const VB& vb, int64_t m0, int64_t n0, int64_t k0, int64_t m,
                                                 int64_t n, int64_t k, const RA& ra, const RB& rb, C* as, C* bs, int tid,
                                                 const CB* cb) {
    constexpr int lda = Cfg::BM + gemm_pad<C>, ldb = Cfg::BN + gemm_pad<C>;
    if (va.fast) gemm_simt_put<Cfg::threads, Cfg::BM, Cfg::BK, true, true>(va, m0, k0, m, k, ra, as, lda, tid, gemm_no_cols);
    else gemm_simt_put<Cfg::threads, Cfg::BM, Cfg::BK, true, false>(va, m0, k0, m, k, ra, as, lda, tid, gemm_no_cols);
    if (vb.fast) gemm_simt_put<Cfg::threads, Cfg::BK, Cfg::BN, false, true>(vb, k0, n0, k, n, rb, bs, ldb, tid, cb);
    else gemm_simt_put<Cfg::threads, Cfg::BK, Cfg::BN, false, false>(vb, k0, n0, k, n, rb, bs, ldb, tid, cb);
}

// The multiply-accumulate step over one staged K slice: acc[i][j] += A(row i, k) * B(k, col j),
// rows and columns as gemm_own gives them, read as vectors.
template <class Cfg, class C>
__device__ inline void gemm_fma_step(const C (*as)[Cfg::BM + gemm_pad<C>], const C (*bs)[Cfg::BN + gemm_pad<C>],
                                     C (&acc)[Cfg::TM][Cfg::TN], int ty, int tx) {
    using OM = gemm_own<C, Cfg::TM, Cfg::ty_count>;
    using ON = gemm_own<C, Cfg::TN, Cfg::tx_count>;
#pragma unroll
    for (int kk = 0; kk < Cfg::BK; ++kk) {
        C a[Cfg::TM], b[Cfg::TN];
#pragma unroll
        for (int g = 0; g < OM::runs; ++g) {
            const auto x = vector_load<gemm_vec<C, OM::W>>(&as[kk][OM::at(ty, g * OM::W)]);
#pragma unroll
            for (int e = 0; e < OM::W; ++e) a[g * OM::W + e] = x.v[e];
        }
#pragma unroll
        for (int g = 0; g < ON::runs; ++g) {
            const auto x = vector_load<gemm_vec<C, ON::W>>(&bs[kk][ON::at(tx, g * ON::W)]);
#pragma unroll
            for (int e = 0; e < ON::W; ++e) b[g * ON::W + e] = x.v[e];
        }
#pragma unroll
        for (int i = 0; i < Cfg::TM; ++i)
#pragma unroll
            for (int j = 0; j < Cfg::TN; ++j) acc[i][j] += a[i] * b[j];
    }
}

// The out of a split product. The blocks of slice s store their partial tile (compute type)
// to part[s][z][i][j]; then each block counts itself done on its output tile's counter
// (gemm_tile_done), and the block that counts last adds the tile's partials, slice 0 first,
// then 1, 2, ... (each sum is the unsplit one's order of slices, whatever order the blocks ran
// in), hands them to the product's own out (its epilogue) and sets the counter back to zero.
// The fix-up needs no second kernel (no launch, no gap between the two) and no atomics on the
// data. The counters (mxc_gemm_split_tiles of them at the start of the scratch) must be zero
// when the launch starts: the library clears them once per run (codegen/emit.cpp), and each
// launch leaves them zero for the next split product of the run.
template <class C, class Out> struct gemm_fixup_out {
    C* part;
    unsigned* tiles_done; // per output tile [z][tile row][tile column]
    int64_t m, n, zc, slices;
    Out out;
    __device__ void store(int64_t zz, int64_t i, int64_t j, C v) const { part[(zz * m + i) * n + j] = v; }
    template <int N, class V> __device__ __forceinline__ void store_run(int64_t zz, int64_t i, int64_t j, const V* v, int count) const {
        gemm_write_run<N>(part + (zz * m + i) * n + j, v, count);
    }
};

// Called by every thread of a block after its epilogue, for its output tile (tile row tm,
// tile column tn; grid z index zz): nothing, except for a split product's out (above). The
// fix-up's threads take runs of RW columns of one row (8: two 16-byte loads a slice), and
// issue the loads of U slices before the first add.
template <int BM, int BN, int Threads, int RW = 8, int U = 8, class Out>
__device__ __forceinline__ void gemm_tile_done(const Out&, int64_t, int64_t, int64_t) {}
template <int BM, int BN, int Threads, int RW = 8, int U = 8, class C, class Out>
__device__ __forceinline__ void gemm_tile_done(const gemm_fixup_out<C, Out>& f, int64_t zz, int64_t tm, int64_t tn) {
    constexpr int runs = BN / RW; // runs of RW columns of one row, consecutive threads on consecutive runs
    static_assert(BN % RW == 0, "gemm_tile_done: the tile's rows must split into whole runs");
    __shared__ int last;
    const int64_t z = zz % f.zc, tiles_m = (f.m + BM - 1) / BM, tiles_n = (f.n + BN - 1) / BN;
    unsigned* const done = f.tiles_done + (z * tiles_m + tm) * tiles_n + tn;
    __threadfence(); // release: this thread's partial stores, before its block counts
    block_sync();
    if (threadIdx.x == 0) {
        last = atomicAdd(done, 1u) == unsigned(f.slices - 1);
        if (last) atomicExch(done, 0u); // every slice has counted: zero for the next launch
    }
    block_sync();
    if (!last) return;
    __threadfence(); // acquire: the other slices' partial stores
    const int64_t total = f.zc * f.m * f.n, m0 = tm * BM, n0 = tn * BN;
    for (int e = int(threadIdx.x); e < BM * runs; e += Threads) {
        const int64_t r = m0 + e / runs, c = n0 + e % runs * RW;
        if (r >= f.m || c >= f.n) continue;
        const int count = f.n - c < RW ? int(f.n - c) : RW;
        const C* p = f.part + (z * f.m + r) * f.n + c;
        C acc[RW] = {};
        gemm_read_run<RW>(p, acc, count);
        // the other slices U at a time, every load of a group issued before the first add:
        // one memory latency a group (it was one a slice, the loop's next load waiting for the
        // add before it: 6 slices of 4 runs a thread, ViT-B/16's fc2 on gemm_mma_f32_deep, were
        // 24 latencies in a row at the end of the kernel); added in slice order as before
        for (int64_t s0 = 1; s0 < f.slices; s0 += U) {
            C x[U][RW] = {};
#pragma unroll
            for (int u = 0; u < U; ++u)
                if (s0 + u < f.slices) gemm_read_run<RW>(p + (s0 + u) * total, x[u], count);
#pragma unroll
            for (int u = 0; u < U; ++u)
                if (s0 + u < f.slices)
#pragma unroll
                    for (int i = 0; i < RW; ++i) acc[i] += x[u][i];
        }
        gemm_store_run(f.out, z, r, c, acc, count);
    }
}

// The epilogue of the SIMT kernels: thread (ty, tx)'s outputs handed to out (gemm_store_run: a
// thread's columns come in runs of ON::W consecutive ones), then split-K's fix-up.
template <class Cfg, class C, class Out>
__device__ __forceinline__ void gemm_simt_store(const C (&acc)[Cfg::TM][Cfg::TN], const Out& out, int64_t zz, int64_t tm, int64_t tn,
                                                int64_t m, int64_t n, int ty, int tx) {
    using OM = gemm_own<C, Cfg::TM, Cfg::ty_count>;
    using ON = gemm_own<C, Cfg::TN, Cfg::tx_count>;
    const int64_t m0 = tm * Cfg::BM, n0 = tn * Cfg::BN;
#pragma unroll
    for (int i = 0; i < Cfg::TM; ++i) {
        const int64_t r = m0 + OM::at(ty, i);
        if (r >= m) continue;
#pragma unroll
        for (int g = 0; g < ON::runs; ++g) {
            const int64_t c = n0 + ON::at(tx, g * ON::W);
            if (c >= n) continue;
            C v[ON::W];
#pragma unroll
            for (int e = 0; e < ON::W; ++e) v[e] = acc[i][g * ON::W + e];
            gemm_store_run(out, zz, r, c, v, n - c < ON::W ? int(n - c) : ON::W);
        }
    }
    gemm_tile_done<Cfg::BM, Cfg::BN, Cfg::threads>(out, zz, tm, tn);
}

// gemm_kernel's register-staged loop: two shared stages (as[2][BK][lda], bs[2][BK][ldb] at
// `stage`), one barrier per k-tile: the next k-tile's vector loads go to registers before the
// current tile is multiplied and to the other stage after it, so that their global latency
// hides behind the multiply (element-wise views are loaded after the multiply).
template <class Cfg, class C> constexpr int gemm_staged_elems = 2 * Cfg::BK * (Cfg::BM + Cfg::BN + 2 * gemm_pad<C>);
template <class Cfg, class T, class VA, class VB, class C>
__device__ __forceinline__ void gemm_simt_staged(const VA& va, const VB& vb, int64_t m0, int64_t n0, int64_t kb, int64_t ke, int64_t m,
                                                 int64_t n, C* stage, C (&acc)[Cfg::TM][Cfg::TN], int tid, int ty, int tx) {
    constexpr int lda = Cfg::BM + gemm_pad<C>, ldb = Cfg::BN + gemm_pad<C>;
    const auto as = reinterpret_cast<C(*)[Cfg::BK][lda]>(stage);
    const auto bs = reinterpret_cast<C(*)[Cfg::BK][ldb]>(stage + 2 * Cfg::BK * lda);
    // B's column states, if any, in shared memory: column c's at cb[c]
    using CB = decltype(gemm_col_of<Cfg::threads, Cfg::BN>(vb, n0, n, tid));
    __shared__ CB cb[gemm_col_state<CB> ? Cfg::BN : 1];
    gemm_fill_cols<Cfg::threads, Cfg::BN>(vb, n0, n, tid, cb);
    gemm_simt_regs<Cfg::threads, Cfg::BM, Cfg::BK, T> ra;
    gemm_simt_regs<Cfg::threads, Cfg::BK, Cfg::BN, T> rb;
    gemm_simt_fetch_ab<Cfg>(va, vb, m0, n0, kb, m, n, ke, ra, rb, tid);
    gemm_simt_put_ab<Cfg>(va, vb, m0, n0, kb, m, n, ke, ra, rb, &as[0][0][0], &bs[0][0][0], tid, cb);
    block_sync();
    int cur = 0;
    for (int64_t k0 = kb; k0 < ke; k0 += Cfg::BK) {
        const bool next = k0 + Cfg::BK < ke;
        // the next k-tile (zeros past ke: unconditional, fewer live registers), in flight during the multiply
        gemm_simt_fetch_ab<Cfg>(va, vb, m0, n0, k0 + Cfg::BK, m, n, ke, ra, rb, tid);
        gemm_fma_step<Cfg>(as[cur], bs[cur], acc, ty, tx);
        if (next) gemm_simt_put_ab<Cfg>(va, vb, m0, n0, k0 + Cfg::BK, m, n, ke, ra, rb, &as[cur ^ 1][0][0], &bs[cur ^ 1][0][0], tid, cb);
        block_sync(); // the other stage is written, and every thread is done with this one
        cur ^= 1;
    }
}

// Whether a view type can be a vector view at all (views that never are declare vec a constant
// false: the im2col matrix), so that no ring kernel (and no GEMV vector load) is built for them.
// (&View::vec: a plain pointer for a static member, a pointer to member otherwise)
template <class View, bool Static = std::is_pointer<decltype(&View::vec)>::value> struct gemm_may_vec : std::true_type {};
template <class View> struct gemm_may_vec<View, true> : std::bool_constant<View::vec> {};
template <class Source> using gemm_view_of = decltype(std::declval<const Source&>().view(int64_t(0)));

// GEMV: products of very few rows (a classifier or a pooler at batch 1: 1x1000x2048), which
// read each element of B once and do one multiply-add with it, so their time is B's bytes over
// the memory bandwidth the grid keeps busy. The tiled kernels stage B through shared memory for
// reuse across rows that are not there (gemm_small_m: 16-row tiles of which 15 rows idle) and
// have one k-tile in flight a block, on few blocks: 14-18 us on the H200 for the 3-8 MB
// classifiers of ViT-B/16, ResNet-50 and MobileNetV2, where cuBLAS's gemv took 4-5
// (2026-11-26 profiles). Here a block computes one output row's BN = 128 columns: thread t
// takes columns 4 (t % 32) .. + 3 (four elements of a B row: a 16-byte load for float, 8 for
// half; a run of 32 threads reads 128 consecutive columns) of every 8th row k of the block's K
// range, starting at t / 32, the loads of `unroll` such rows issued before their multiply-adds;
// the 8 groups' sums are added in shared memory in a fixed order. Split-K (gemm_split,
// mxc_gemm_splits with the preset's 8-deep steps: slices of at least 64 rows) gives the grid
// its blocks: 96 for ViT-B/16's 1x1000x768, 256 for ResNet-50's 1x1000x2048. A product with
// more rows runs each row as a block row (B read again per row, mostly from L2): the compiler
// takes it for dot products of at most 4 rows (mxc_gemm_gemv). Any view works (element loads
// where B is not a vector view along N), at full speed for B stored K x N.
struct gemm_gemv {
    static constexpr int BM = 1, BN = 128, BK = 8, threads = 256;
    static constexpr int V = 4;                // columns a thread
    static constexpr int lanes = BN / V;       // threads a row of B (32)
    static constexpr int groups = threads / lanes; // rows of B at once (8)
    static constexpr int unroll = 8;           // rows of B a thread loads before it multiplies
};
static_assert(mxc_gemm_preset_tile(MXC_GEMM_GEMV).bm == gemm_gemv::BM && mxc_gemm_preset_tile(MXC_GEMM_GEMV).bn == gemm_gemv::BN &&
                  mxc_gemm_preset_tile(MXC_GEMM_GEMV).bk == gemm_gemv::BK && gemm_gemv::BK == gemm_gemv::groups,
              "mxc_gemm_preset_tile must list gemm_gemv's tile (K steps of one row a group)");
template <class Cfg> struct gemm_is_gemv : std::is_same<Cfg, gemm_gemv> {};

// V elements of row k of B at column c into x (compute type), zeros past n: one or two vector
// loads where the view has vectors along N and the run is whole, else element by element.
template <int V, class View, class C>
__device__ __forceinline__ void gemv_load_b(const View& vb, int64_t k, int64_t c, int64_t n, bool whole, C* x) {
    using T = std::remove_cv_t<std::remove_reference_t<decltype(vb.at(int64_t(0), int64_t(0)))>>;
    constexpr int W = gemm_vec_width<T> < V ? gemm_vec_width<T> : V; // (a vector of W: aligned where c is a multiple of V)
    if constexpr (gemm_may_vec<View>::value) {
        if (whole) {
            const T* p = vb.ptr(k, c);
#pragma unroll
            for (int h = 0; h < V; h += W) {
                const gemm_vec<T, W> y = vector_load<gemm_vec<T, W>>(p + h);
#pragma unroll
                for (int e = 0; e < W; ++e) x[h + e] = C(y.v[e]);
            }
            return;
        }
    }
#pragma unroll
    for (int e = 0; e < V; ++e) x[e] = c + e < n ? C(vb.at(k, c + e)) : C(0);
}

template <class T, class SA, class SB, class Out>
__global__ void MXC_LAUNCH_BOUNDS_MIN(gemm_gemv::threads, 2)
    gemv_kernel(int64_t m, int64_t n, int64_t k, int64_t z0, int64_t mb0, int64_t zc, int64_t ks, SA sa, SB sb, Out out) {
    grid_dependency_sync();
    using C = mxc_compute_t<T>;
    using G = gemm_gemv;
    constexpr int V = G::V, U = G::unroll;
    alignas(16) __shared__ C sums[G::groups][G::BN];
    // grid z: batch z of zc, K slice zz / zc (split-K: K range [kb, ke); else the whole of K)
    const int64_t zz = z0 + blockIdx.z, z = zz % zc, kb = zz / zc * ks, ke = kb + ks < k ? kb + ks : k;
    const auto va = sa.view(z);
    const auto vb = sb.view(z);
    const int64_t r = mb0 + blockIdx.y, n0 = int64_t(blockIdx.x) * G::BN; // (r < m: one block row a row)
    const int tid = int(threadIdx.x), lane = tid % G::lanes, g = tid / G::lanes;
    const int64_t c = n0 + lane * V;
    bool whole = false;
    if constexpr (gemm_may_vec<std::remove_cv_t<decltype(vb)>>::value) whole = vb.vec && vb.fast && c + V <= n;
    C acc[V] = {};
    for (int64_t k0 = kb + g; k0 < ke; k0 += G::groups * U) {
        C a[U], b[U][V];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int64_t kk = k0 + int64_t(u) * G::groups;
            if (kk < ke) {
                a[u] = C(va.at(r, kk));
                gemv_load_b<V>(vb, kk, c, n, whole, b[u]);
            } else {
                a[u] = C(0);
#pragma unroll
                for (int e = 0; e < V; ++e) b[u][e] = C(0);
            }
        }
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
            for (int e = 0; e < V; ++e) acc[e] += a[u] * b[u][e];
    }
#pragma unroll
    for (int e = 0; e < V; ++e) sums[g][lane * V + e] = acc[e];
    block_sync();
    if (g == 0 && c < n) {
        C v[V];
#pragma unroll
        for (int e = 0; e < V; ++e) v[e] = sums[0][lane * V + e];
#pragma unroll
        for (int h = 1; h < G::groups; ++h)
#pragma unroll
            for (int e = 0; e < V; ++e) v[e] += sums[h][lane * V + e];
        gemm_store_run(out, zz, r, c, v, n - c < V ? int(n - c) : V);
    }
    // split-K's fix-up: a thread a column, 16 slices' loads at a time (the tile is one row)
    gemm_tile_done<G::BM, G::BN, G::threads, 1, 16>(out, zz, mb0 + blockIdx.y, blockIdx.x);
}

// The fp16 path on the matrix units (templates/hip/mma.hpp: wmma on NVIDIA sm_80+, MFMA on
// AMD CDNA, a per-lane FMA loop elsewhere): the same sources and epilogue contract, the
// multiply-accumulate done by warps on 16x16x16 fragments. The recipe of tensor-core GEMMs:
//  - a BM x BN block tile, K stepped by BK = 32; 256 threads = 256 / warpSize warps (the
//    configuration's `threads`: 64, 128 or 256);
//  - each warp owns a rectangular warp tile of FM x FN fragments: per 16-deep step it loads
//    its FN B fragments once, then each of its FM A fragments once, and issues FM * FN mma;
//    the warps split the block tile warps_m (rows) x warps_n (cols), warps_m = BM / (16 FM)
//    fixed, warps_n and FN following from warpSize (8 warps of 32 or 4 wavefronts of 64);
//  - the pipelined loop (gemm_mma_small on sm_80+, vector views; see below), or two shared
//    stages and one barrier per k-tile: the next k-tile's global loads go to
//    registers (gemm_fetch, 16-byte vectors, where the view allows them) before the current
//    tile is multiplied, and are written to the other stage (gemm_put) after it; element-wise
//    views (the implicit im2col matrix) are loaded into the other stage after the multiply
//    (the im2col matrix through the per-column states of the block's BN columns, kept in
//    shared memory: 2 KiB more);
//  - A and B staged row-major in half, rows padded by 8 halves (16 bytes): leading dims stay
//    multiples of 8 and fragment pointers 32-byte aligned (wmma's rules) while consecutive
//    8-row groups of a fragment load fall on different banks (lda = 40 halves: rows 20 words
//    apart; ldb = BN + 8: 4 words apart mod 32);
//  - the accumulators go through a float tile that reuses the stage memory (after the main
//    loop) to the out functor, rows in `passes` parts where the whole float tile would not
//    fit: a thread reads a run of 8 consecutive columns of one row (two 16-byte shared reads)
//    and hands it to gemm_store_run, so that the output index math is done once per run and
//    the stores are 16-byte vectors where the output allows (see the out contract above).
// Configurations (usable as a Cfg of gemm_mma_launch):
//   gemm_mma_large 128x128x32, warp tile 64 x 32 (warp 32: 4x2 fragments) or 64 x 64 (wavefront
//     64: 4x4). Shared memory 2 x (128x40 + 32x136) halves = 37 KiB (<= 48 KiB static), float
//     tile 64 x 132 in two passes. Per k-tile and warp of 32: 16 mma per barrier (the old
//     64x64x16 kernel: 1 per barrier, 2 barriers per 16-deep step), 12 fragment loads (6 KiB of
//     shared reads) for 16 mma = 384 B per mma (old: 1 KiB; wavefront 64: 256 B); 64 MACs
//     per staged element (old: 32). Measured (ptxas -v, nvcc 13, sm_90, ResNet-50 fp16
//     kernels): 127-128 registers (min 2 blocks per SM), 0-16 bytes of spill stores (im2col:
//     125-127, none; batch 32); gfx90a (clang-15): 70-87 VGPRs + 64 AGPRs, no scratch, 3 waves
//     per SIMD. The staging functions are forced inline: clang kept gemm_mma_put out of line
//     and passed it the im2col view, g included, in scratch (230 VGPRs, 888 bytes per lane,
//     1 wave per SIMD). With the epilogue in runs (ResNet-50 batch 32, sm_90): the fused 1x1
//     kernels spill 112 / 124 bytes (stores / loads; per-element epilogue: 60 / 72), the plain
//     1x1 8 / 12 (28 / 36), the im2col none; the epilogue's static PTX grew from ~1.2k to ~15k
//     instructions (every extra input's run paths, up to max_inputs, unrolled).
//   gemm_mma_large_ring: the large tile with 4 stages, 4 x (128x40 + 128x40) halves = 80 KiB
//     (B's stages sized for either layout) in dynamic shared memory (dynamic_shared,
//     allow_dynamic_shared), two blocks per SM on sm_80 (164 KiB) and sm_90 (228 KiB); the
//     float tile in one pass. Its main loop is gemm_mma_small's pipelined one where both views
//     are vectors, else the register-staged loop in the first two stages. The compiler's large
//     tile where the target has such memory and asynchronous copies (has_large_ring,
//     codegen/gemm_choice.hpp). Why: at batch 32 (ResNet-50 fp16, H200, 2026-11-23) the
//     register-staged large tile ran the 1x1 convolutions at about 27 TFLOP/s, each k-tile
//     waiting for one round of global loads; the ring keeps three in flight, and with no
//     registers holding them the fused 1x1 kernels spill less (sm_90, ResNet-50 batch 32: 128
//     registers, 72 / 84 bytes of spill stores / loads where gemm_mma_large's spill 92 / 108;
//     the channels-last ones 12 / 12), every byte of it in the register-staged loop; since the
//     loops are separate kernels (gemm_loop), the ring kernels spill 0-4 / 0-8 bytes (ptxas -v,
//     nvcc 13, 2026-11-24; the staged ones keep theirs). Not yet timed.
//   gemm_mma_small 64x64x32 with 4 stages, warp tile 32 x 16 (warp 32: 2x1) or 32 x 32
//     (wavefront 64: 2x2). 4 x (64x40 + 32x72) halves = 38 KiB (the register-staged loop uses
//     two of the stages), float tile 64 x 68 in one pass; 4 mma per barrier (warp 32). For
//     problems with few large tiles (batch 1, small M or N): four times the blocks of the
//     large one. Where both views are 16-byte vectors along their rows (A along K, B along N:
//     plain and batched products, 1x1 convolutions over planes of a multiple of 8) and there
//     are asynchronous copies (sm_80+; templates/hip/async_copy.hpp), its main loop is
//     pipelined (gemm_pipelined): three k-tiles in flight while one is multiplied. Why: at
//     batch 1 (BERT, ViT; the H200 profiles of 2026-11-23) the register-staged loop took about
//     2.3 us per 32-deep step (ViT's 197x3072x768: 55 us for 24 steps) with ~1.5 blocks per
//     SM, far more than the step's math and its share of memory bandwidth: each step waited
//     for one round of global loads (only the next step in flight) and a barrier. A 64-deep
//     step (the ninth session's try, never timed) halves the rounds; the ring of stages hides
//     three of them (a reading of the profiles, not yet a measurement). sm_90, no spills:
//     ResNet-50 fp16's convolutions 86-96 registers; BERT-base's fused products took 110-130
//     with both loops in one kernel (130: one block per SM), their ring kernels take 94-112.
//   gemm_mma_f32 64x64x16 with 4 stages on 128 threads, fp32 operands (mma_tile<float>: 3xTF32
//     mma.sync m16n8k8 on NVIDIA sm_80+, fp32 MFMA 16x16x4 on AMD; templates/hip/mma.hpp): the small
//     tile's layout with rows padded by 4 floats; 16 deep so that 4 x (64x20 + 64x20) floats =
//     40 KiB fit the 48 KiB (32 deep would need 72 KiB, more than gfx90a's 64). The compiler's
//     choice for float dot products where the target has such units (mxc_gemm_f32_mma); never
//     gemm_auto's. 4 warps of 32 x 32 (2 x 2 fragments; wavefronts of 64: 2 of 32 x 64): per
//     8-deep step a warp loads and splits 4 fragments for 4 products of three TF32 mma each,
//     where the 8 warps of 32 x 16 it had until 2026-11-28 split 3 for 2 (the split, two
//     conversions and a select per element, was most of a step's instructions: a block's step
//     now issues about 30% fewer; the split is three instructions an element since 2026-11-29,
//     the epilogue working NaN results out again: gemm_recheck_nan; each k-tile's products go
//     to fresh accumulators: gemm_mma_step). sm_90 (ptxas -v, nvcc 13, ViT-B/16's products):
//     the ring kernels 157-160 registers, no spills (three blocks per SM); the staged ones 185-255,
//     one spilling 36 bytes (it runs only views that are not vectors). Its 8-warp form is the
//     tuning candidate mma:64x64x16/2x4. Not yet timed on a device.
//   gemm_mma_f32_deep: the same 32 deep, 4 x (64x36 + 64x36) floats = 72 KiB of dynamic shared
//     memory: the compiler's fp32 tile where the target has that memory (two blocks an SM on
//     sm_80, three on sm_90: has_large_ring, 164 / 228 KiB; gfx90a has 64). Why: at batch 1 a
//     K step of the ring costs at least a memory latency shared by the stages in flight (ViT's
//     fp16 products, 64 bytes a row a stage like the fp32 tile 16 deep, took 0.57 us a step on
//     the H200, 2026-11-26), so twice the depth halves the steps; their products are the same.
//     sm_90 (ViT-B/16, 2026-11-29, the products on mma.sync m16n8k8): ring kernels 154-156
//     registers (three blocks an SM), no spills, 444-464 instructions a 32-deep k-tile of 96
//     HMMA.1688 (wmma's shape: 616-624 of 192 HMMA.1684); the staged ones 217-220, none. Not
//     yet timed; MXC_LARGE_RING=0 keeps 16 deep.
// gemm_mma_pick_large chooses between the half ones by the number of large tiles;
// gemm_mma_launch<G> runs one (G = gemm_auto: the choice at run time, half).
template <int BM_, int BN_, int FM_, int MinBlocks, int BK_ = 32, int Stages_ = 2, class E = mxc_half, int Threads_ = 256>
struct gemm_mma_config {
    using elem = E; // the operands' type: mxc_half, or float (mma_tile<float>)
    static constexpr int BM = BM_, BN = BN_, BK = BK_, threads = Threads_, FM = FM_, min_blocks = MinBlocks;
    static constexpr int stages = Stages_; // of the pipelined loop (MXC_ASYNC_COPY); the register-staged one uses 2
    static constexpr int pad = int(16 / sizeof(E)); // rows padded by 16 bytes
    // A k-major float stage B's rows are padded by 32 bytes: a TF32 fragment of B (m16n8k8:
    // lane l holds B[l % 4 (+4)][l / 4], 32-bit loads) reads banks (ldb (l % 4) + l / 4) % 32,
    // all 32 distinct for ldb = 8 (mod 32) where ldb = 4 (mod 32) reads two lanes a bank (ViT's
    // weights, [K, N] row-major, stage so). A's rows and a transposed B's (row l / 4, column
    // l % 4: lda = 4 (mod 32)) and the half fragments (ldmatrix: 16-byte rows) are conflict-free
    // with 16. The deep float stage holds a transposed B, as large: its size is unchanged.
    static constexpr int lda = BK + pad, ldb = BN + (sizeof(E) == 4 ? 2 * pad : pad), ldc = BN + 4;
    static constexpr int warps_m = BM / (16 * FM);
    static constexpr int fn_max = BN / 16 / (threads / 64 / warps_m); // fragments along N, wavefronts of 64
    // halves per stage; the ring's configurations stage a B of 16-byte vectors along K
    // transposed (n-major, leading dim lda: gemm_mma_step's BT), so their B stages hold either
    // layout. (Sized so, gemm_mma_large's fused 1x1 kernels spilled 144 bytes where they spill
    // 112, ResNet-50 batch 32 on sm_90: it keeps the k-major stage and transposes such a B.)
    static constexpr int a_elems = BM * lda, b_elems = stages > 2 && BN * lda > BK * ldb ? BN * lda : BK * ldb;
    static constexpr bool b_transposed = b_elems >= BN * lda; // a stage can hold B n-major
    static constexpr int ab_bytes = stages * (a_elems + b_elems) * int(sizeof(E)); // A's stages, then B's
    // the float tile in `passes` parts of c_rows rows, each fitting in the stage memory
    static constexpr int passes = BM * ldc * 4 <= ab_bytes ? 1 : (BM / 2) * ldc * 4 <= ab_bytes ? 2 : 4;
    static constexpr int c_rows = BM / passes;
    static constexpr int smem_bytes = ab_bytes;
    // past the 48 KiB of static shared memory: dynamic (gemm_mma_launch_slices asks for it)
    static constexpr bool dynamic_smem = smem_bytes > 48 * 1024;
    static_assert(threads == 64 || threads == 128 || threads == 256, "gemm_mma_config: 64, 128 or 256 threads (1-4 wavefronts of 64)");
    static_assert(stages >= 2 && (stages & (stages - 1)) == 0, "gemm_mma_config: 2, 4, 8 ... stages");
    static_assert(BM % (16 * FM) == 0 && threads / 64 % warps_m == 0, "gemm_mma_config: warps must tile the rows");
    static_assert(FM % passes == 0 && c_rows * ldc * 4 <= ab_bytes, "gemm_mma_config: the float tile must fit");
    static_assert(smem_bytes <= 96 * 1024, "gemm_mma_config: at most 96 KiB of shared memory (two blocks per SM on sm_90)");
    static_assert((a_elems * sizeof(E)) % 32 == 0 && (b_elems * sizeof(E)) % 32 == 0, "gemm_mma_config: stages must stay 32-byte aligned");
    static_assert(BK % 16 == 0, "gemm_mma_config: K steps of whole 16-deep fragments (8 and 4 for float)");
    static_assert(BN % 8 == 0 && ldc % 4 == 0, "gemm_mma_config: the epilogue reads runs of 8 floats, rows 16-byte aligned");
};
using gemm_mma_large = gemm_mma_config<128, 128, 4, 2>; // sm_90: <= 128 registers, 2 blocks per SM
using gemm_mma_large_ring = gemm_mma_config<128, 128, 4, 2, 32, 4>; // 80 KiB, dynamic: NVIDIA sm_80 / sm_90
using gemm_mma_small = gemm_mma_config<64, 64, 2, 1, 32, 4>;
using gemm_mma_f32 = gemm_mma_config<64, 64, 2, 2, 16, 4, float, 128>; // 4 warps of 32 x 32
using gemm_mma_f32_deep = gemm_mma_config<64, 64, 2, 2, 32, 4, float, 128>; // 72 KiB, dynamic: NVIDIA sm_80 / sm_90
static_assert(mxc_gemm_preset_tile(MXC_GEMM_MMA).bm == gemm_mma_large::BM && mxc_gemm_preset_tile(MXC_GEMM_MMA).bn == gemm_mma_large::BN &&
                  mxc_gemm_preset_tile(MXC_GEMM_MMA).bk == gemm_mma_large::BK && mxc_gemm_preset_tile(MXC_GEMM_MMA_SMALL).bm == gemm_mma_small::BM &&
                  mxc_gemm_preset_tile(MXC_GEMM_MMA_SMALL).bn == gemm_mma_small::BN && mxc_gemm_preset_tile(MXC_GEMM_MMA_SMALL).bk == gemm_mma_small::BK &&
                  mxc_gemm_preset_tile(MXC_GEMM_MMA_F32).bm == gemm_mma_f32::BM && mxc_gemm_preset_tile(MXC_GEMM_MMA_F32).bn == gemm_mma_f32::BN &&
                  mxc_gemm_preset_tile(MXC_GEMM_MMA_F32).bk == gemm_mma_f32::BK &&
                  mxc_gemm_preset_tile(MXC_GEMM_MMA_F32_DEEP).bm == gemm_mma_f32_deep::BM &&
                  mxc_gemm_preset_tile(MXC_GEMM_MMA_F32_DEEP).bn == gemm_mma_f32_deep::BN &&
                  mxc_gemm_preset_tile(MXC_GEMM_MMA_F32_DEEP).bk == gemm_mma_f32_deep::BK,
              "mxc_gemm_preset_tile must list the matrix-unit tiles");

// The choice between them: mxc_gemm_mma_large (templates/common/gemm_choice.hpp, the rule the
// compiler applies: MXC_GEMM_MMA names gemm_mma_large, MXC_GEMM_MMA_SMALL gemm_mma_small).
inline bool gemm_mma_pick_large(int64_t m, int64_t n, int64_t z) { return mxc_gemm_mma_large(m, n, z); }

// Thread tid's share of the R x CC tile at (r0, c0) of view v (zero outside rn x cn), staged
// row-major (dst[r * ld + c]) in two halves around the multiply of the current k-tile:
//  - with v.vec, gemm_fetch loads E = R * CC / Threads elements as 16-byte vectors into
//    registers (chunk i is s = tid + i * Threads) before the multiply, gemm_put writes them
//    (one 16-byte shared store each when the fast dim is c) after it: the global latency
//    hides behind the matrix math. A vector that starts inside the matrix is loaded whole and
//    its elements past the edge are zeroed: it lies in one aligned 16-byte chunk (no page or
//    allocation granule is crossed), and one predicated load per chunk keeps the prefetch
//    small in registers (per-element edge loads, if-converted, cost ~100 registers).
//  - otherwise (element-wise views: the implicit im2col matrix, odd strides) gemm_put loads
//    and stores element by element after the multiply (element i: s = tid + i * Threads,
//    consecutive threads on consecutive addresses); holding 2 x 16 such loads with their
//    64-bit addresses across the multiply would spill. A view with a per-column state (the
//    im2col matrix) is read through it, 8 loads in flight (gemm_col_loads); the states of the
//    block's columns sit in shared memory (in registers across the multiply they spilled the
//    large configuration), and prefetching the 16 loads before the multiply spilled too
//    (ptxas -v, sm_90: 128 registers, 92-108 bytes).
// FastC: v.fast == 1 (consecutive c adjacent in memory).
template <int Threads, int R, int CC, bool FastC, class View, class T, int E>
__device__ __forceinline__ void gemm_fetch(const View& v, int64_t r0, int64_t c0, int64_t rn, int64_t cn, T (&buf)[E], int tid) {
    constexpr int V = gemm_vec_width<T>;
    constexpr int F = FastC ? CC : R; // extent along the fast dim
    static_assert(E * Threads == R * CC && E % V == 0 && F % V == 0, "gemm_fetch: the tile must split into whole vectors");
    const int64_t f0 = FastC ? c0 : r0, o0 = FastC ? r0 : c0, fn = FastC ? cn : rn, on = FastC ? rn : cn;
#pragma unroll
    for (int i = 0; i < E / V; ++i) {
        const int s = tid + i * Threads, o = s / (F / V), f = s % (F / V) * V;
        const int64_t go = o0 + o, gf = f0 + f;
        gemm_vec<T, V> x;
        const T* src = nullptr;
        if (gemm_vec_src<FastC>(v, go, gf, go < on && gf < fn, src)) {
            x = vector_load<gemm_vec<T, V>>(src);
        } else {
#pragma unroll
            for (int e = 0; e < V; ++e) x.v[e] = T(0.0f);
        }
#pragma unroll
        for (int e = 0; e < V; ++e) buf[i * V + e] = gf + e < fn ? x.v[e] : T(0.0f);
    }
}
// gemm_put's element-wise form: thread tid's elements of the tile, loaded and stored one by one
// (element i: s = tid + i * Threads, consecutive threads on consecutive addresses).
template <int Threads, int R, int CC, bool FastC, class View, class T>
__device__ __forceinline__ void gemm_put_each(const View& v, int64_t r0, int64_t c0, int64_t rn, int64_t cn, T* dst, int ld, int tid) {
    constexpr int F = FastC ? CC : R;
    const int64_t f0 = FastC ? c0 : r0, o0 = FastC ? r0 : c0, fn = FastC ? cn : rn, on = FastC ? rn : cn;
#pragma unroll 2 // more loads in flight spill the large configuration (sm_90, 128 registers)
    for (int s = tid; s < R * CC; s += Threads) {
        const int o = s / F, f = s % F;
        const int64_t go = o0 + o, gf = f0 + f;
        dst[FastC ? o * ld + f : f * ld + o] = go < on && gf < fn ? (FastC ? v.at(go, gf) : v.at(gf, go)) : T(0.0f);
    }
}
template <int Threads, int R, int CC, bool FastC, class View, class T, int E, class CS>
__device__ __forceinline__ void gemm_put(const View& v, int64_t r0, int64_t c0, int64_t rn, int64_t cn, const T (&buf)[E], T* dst,
                                int ld, int tid, const CS* cols) {
    constexpr int V = gemm_vec_width<T>;
    constexpr int F = FastC ? CC : R;
    if (v.vec) {
#pragma unroll
        for (int i = 0; i < E / V; ++i) {
            const int s = tid + i * Threads, o = s / (F / V), f = s % (F / V) * V;
            if (FastC) {
                gemm_vec<T, V> x;
#pragma unroll
                for (int e = 0; e < V; ++e) x.v[e] = buf[i * V + e];
                vector_store(dst + o * ld + f, x);
            } else {
#pragma unroll
                for (int e = 0; e < V; ++e) dst[(f + e) * ld + o] = buf[i * V + e];
            }
        }
    } else {
        if constexpr (FastC && gemm_col_state<CS>) {
            if (v.cols()) { // 8 loads in flight
                gemm_col_loads<Threads, F, R, 8>(v, r0, rn, cols, tid, [&](int o, int c, T x) { dst[o * ld + c] = x; });
                return;
            }
        }
        gemm_put_each<Threads, R, CC, FastC>(v, r0, c0, rn, cn, dst, ld, tid);
    }
}

// The k-tile at k0 of A (BM x BK) and B (BK x BN): registers (vector views), then the stage
// (the views' fast dims and vec flags are uniform over the block).
template <class G, class VA, class VB>
__device__ __forceinline__ void gemm_mma_fetch(const VA& va, const VB& vb, int64_t m0, int64_t n0, int64_t k0, int64_t m, int64_t n,
                                      int64_t k, typename G::elem (&ra)[G::BM * G::BK / G::threads],
                                      typename G::elem (&rb)[G::BK * G::BN / G::threads], int tid) {
    if (va.vec) {
        if (va.fast) gemm_fetch<G::threads, G::BM, G::BK, true>(va, m0, k0, m, k, ra, tid);
        else gemm_fetch<G::threads, G::BM, G::BK, false>(va, m0, k0, m, k, ra, tid);
    }
    if (vb.vec) {
        if (vb.fast) gemm_fetch<G::threads, G::BK, G::BN, true>(vb, k0, n0, k, n, rb, tid);
        else gemm_fetch<G::threads, G::BK, G::BN, false>(vb, k0, n0, k, n, rb, tid);
    }
}
// BT: B is 16-byte vectors along K (vb.vec, !vb.fast), staged transposed: each of gemm_fetch's
// vectors (k .. k + 7 of column n) is one 16-byte store at bs[n * lda + k].
template <class G, bool BT = false, class VA, class VB, class CB>
__device__ __forceinline__ void gemm_mma_put(const VA& va, const VB& vb, int64_t m0, int64_t n0, int64_t k0, int64_t m, int64_t n,
                                    int64_t k, const typename G::elem (&ra)[G::BM * G::BK / G::threads],
                                    const typename G::elem (&rb)[G::BK * G::BN / G::threads], typename G::elem* as,
                                    typename G::elem* bs, int tid,
                                    const CB* cb) {
    if (va.fast) gemm_put<G::threads, G::BM, G::BK, true>(va, m0, k0, m, k, ra, as, G::lda, tid, gemm_no_cols);
    else gemm_put<G::threads, G::BM, G::BK, false>(va, m0, k0, m, k, ra, as, G::lda, tid, gemm_no_cols);
    if constexpr (BT) {
        constexpr int V = gemm_vec_width<typename G::elem>, E = G::BK * G::BN / G::threads;
#pragma unroll
        for (int i = 0; i < E / V; ++i) {
            const int s = tid + i * G::threads, o = s / (G::BK / V), f = s % (G::BK / V) * V;
            gemm_vec<typename G::elem, V> x;
#pragma unroll
            for (int e = 0; e < V; ++e) x.v[e] = rb[i * V + e];
            vector_store(bs + o * G::lda + f, x);
        }
    } else {
        if (vb.fast) gemm_put<G::threads, G::BK, G::BN, true>(vb, k0, n0, k, n, rb, bs, G::ldb, tid, cb);
        else gemm_put<G::threads, G::BK, G::BN, false>(vb, k0, n0, k, n, rb, bs, G::ldb, tid, cb);
    }
}

// One k-tile of the block: this warp's FM x fn fragments += its rows of stage A x its columns
// of stage B, mt::K deep at a time. BT: stage B is transposed (bs[n * lda + k], the pipelined
// loop's layout for a B whose rows run along K), else bs[k * ldb + n].
template <class G, bool BT, class Acc>
__device__ __forceinline__ void gemm_mma_products(const typename G::elem* as, const typename G::elem* bs, Acc (&acc)[G::FM][G::fn_max],
                                                  int row0, int col0, int fn) {
    using mt = mma_tile<typename G::elem>;
    constexpr int FM = G::FM, FNX = G::fn_max;
#pragma unroll
    for (int kk = 0; kk < G::BK; kk += mt::K) {
        std::conditional_t<BT, typename mt::frag_bt, typename mt::frag_b> fb[FNX];
#pragma unroll
        for (int j = 0; j < FNX; ++j) {
            if (j >= fn) continue;
            if constexpr (BT) mt::load_bt(fb[j], bs + (col0 + j * 16) * G::lda + kk, G::lda);
            else mt::load_b(fb[j], bs + kk * G::ldb + col0 + j * 16, G::ldb);
        }
#pragma unroll
        for (int i = 0; i < FM; ++i) {
            typename mt::frag_a fa;
            mt::load_a(fa, as + (row0 + i * 16) * G::lda + kk, G::lda);
#pragma unroll
            for (int j = 0; j < FNX; ++j)
                if (j < fn) mt::mma(acc[i][j], fa, fb[j]);
        }
    }
}

// Where the matrix unit's sums truncate (mma_tile<E>::rz_sums) and the operands are fp32, the
// k-tile's products go to fresh accumulators, added to the block's with rounding at its end
// (see templates/hip/mma.hpp; sm_90, ViT-B/16's fp32 products: 32 FADD more a 32-deep k-tile
// of 192 HMMA, 131-135 -> 163 registers, still three blocks an SM). Half operands keep one
// chain: their own rounding, 2^-11, is far above the bias.
template <class G, bool BT = false, class Acc>
__device__ __forceinline__ void gemm_mma_step(const typename G::elem* as, const typename G::elem* bs, Acc (&acc)[G::FM][G::fn_max],
                                              int row0, int col0, int fn) {
    using mt = mma_tile<typename G::elem>;
    constexpr int FM = G::FM, FNX = G::fn_max;
    if constexpr (mt::rz_sums && std::is_same<typename G::elem, float>::value) {
        Acc part[FM][FNX];
#pragma unroll
        for (int i = 0; i < FM; ++i)
#pragma unroll
            for (int j = 0; j < FNX; ++j)
                if (j < fn) mt::zero(part[i][j]);
        gemm_mma_products<G, BT>(as, bs, part, row0, col0, fn);
#pragma unroll
        for (int i = 0; i < FM; ++i)
#pragma unroll
            for (int j = 0; j < FNX; ++j)
                if (j < fn) mt::add(acc[i][j], part[i][j]);
    } else {
        gemm_mma_products<G, BT>(as, bs, acc, row0, col0, fn);
    }
}

#if defined(MXC_ASYNC_COPY)
// Thread tid's 16-byte chunks of the R x CC tile at (r0, c0) of a vector view whose fast dim
// is c (chunk s = tid + i * Threads, consecutive threads on consecutive chunks of a row),
// copied asynchronously to dst (row-major, leading dim ld): a chunk that starts outside
// rn x cn is zeros (nothing read), one that crosses the c edge is read up to it (the rest
// zeros; the vector views' rule: it lies in one aligned 16-byte chunk).
// Transposed: the tile lands column-major instead (element (o, f) at dst[f * ld + o]: the SIMT
// ring's k-major A), each chunk as V one-element copies.
template <int Threads, int R, int CC, bool Transposed = false, class View, class T>
__device__ __forceinline__ void gemm_async_tile(const View& v, int64_t r0, int64_t c0, int64_t rn, int64_t cn, T* dst, int ld,
                                                int tid) {
    constexpr int V = gemm_vec_width<T>, chunks = R * CC / V;
    static_assert(CC % V == 0, "gemm_async_tile: rows of whole 16-byte chunks");
#pragma unroll
    for (int i = 0; i < (chunks + Threads - 1) / Threads; ++i) {
        const int s = tid + i * Threads;
        if (chunks % Threads != 0 && s >= chunks) break;
        const int o = s / (CC / V), f = s % (CC / V) * V;
        const int64_t go = r0 + o, gf = c0 + f;
        const T* src = nullptr;
        const bool in = gemm_vec_src<true>(v, go, gf, go < rn && gf < cn, src);
        const int count = in ? int(cn - gf < V ? cn - gf : V) : 0;
        if constexpr (Transposed) {
#pragma unroll
            for (int e = 0; e < V; ++e) async_copy_elem<sizeof(T)>(dst + (f + e) * ld + o, in ? src + e : v.ptr(0, 0), e < count);
        } else {
            async_copy16(dst + o * ld + f, in ? src : v.ptr(0, 0), count * int(sizeof(T)));
        }
    }
}

// View v with rows and columns swapped (a B whose rows run along K, copied as its transpose).
template <class View, class T> struct gemm_transposed {
    const View& v;
    __device__ const T* ptr(int64_t r, int64_t c) const { return v.ptr(c, r); }
    __device__ T at(int64_t r, int64_t c) const { return v.at(c, r); }
    __device__ const T* src(int64_t r, int64_t c) const {
        const T* p = nullptr;
        gemm_vec_src<true>(v, c, r, true, p);
        return p;
    }
};

// gemm_async_tile over the consecutive k-tiles of a plain strided view (gemm_strided_view: no
// src), with the index math done once instead of per tile and chunk. The view's element (o, f)
// (o along the other dim, f along the fast one, whose stride is 1: v.vec) is at p0 + o * so + f.
// Thread tid's chunks of an R x CC tile are rows o0 + i * step at column f (o0 = tid / (CC / V),
// f = tid % (CC / V) * V, step = Threads / (CC / V)), the same in every tile; a tile moves by
// CC along f (KAlongF: A, and a B of vectors along K staged transposed) or by R along o (a B of
// vectors along N). So one address, advanced a tile at a time, and the distances left to the
// edges give every chunk's address and bytes. (sm_90, nvcc 13, ViT-B/16's fp32 products: the
// generic tile's 64-bit index math and bounds per chunk took about 270 of the ring loop's 954
// instructions a 32-deep k-tile for its 8 copies, streamed about 120; nvdisasm of the cubin.
// cp.async's ignore-src form in place of a byte count saved 40 more but took the kernels from
// 127 registers to 198.) Transposed (with KAlongF): the tile lands column-major, element (o, f)
// at f * ld + o, as gemm_async_tile's Transposed. The distances along K are 32-bit (the K
// slice at most gemm_ring_max_depth deep; the 64-bit ones took a pair of instructions for
// every add and compare; sm_90, nvcc 13, ViT-B/16's products: the fp16 ring's loop 95-100 ->
// 82 instructions a 32-deep k-tile of 8 HMMA, the fp32 one's 721-744 -> 704-716, the SIMT
// medium tile's 367 -> 349 a 16-deep k-tile, gemm_large's 614 -> 604-606).
// The deepest K slice the pipelined loop takes (its K distances and tile counts are int; a
// deeper one runs the kernels' other loops).
constexpr int64_t gemm_ring_max_depth = (int64_t(1) << 30);
template <int Threads, int R, int CC, bool KAlongF, class T, bool Transposed = false> struct gemm_async_stream {
    static constexpr int V = gemm_vec_width<T>, per_row = CC / V, chunks = R * per_row;
    static constexpr int n = (chunks + Threads - 1) / Threads, step = Threads / per_row;
    static_assert(CC % V == 0 && Threads % per_row == 0, "gemm_async_stream: rows of whole chunks, whole rows per round");
    static_assert(n <= 31, "gemm_async_stream: a bit per chunk");
    static_assert(!Transposed || KAlongF, "gemm_async_stream: only a tile along K lands transposed");
    const T* p;      // this thread's first chunk in the next tile
    int64_t ostep;   // elements between this thread's chunks (step rows along o)
    int64_t kstep;   // elements from one tile to the next
    int rem;         // what is left to the edge from this thread's first chunk: KAlongF, elements
                     // along f; else rows along o
    int fixed;       // what stays the same from tile to tile: KAlongF, bit i set where chunk i's
                     // row is inside; else the bytes of each chunk (0 to 16: the f edge)
    int ld;          // a stage's leading dim
    int dst0;        // this thread's first chunk in a stage
    int first;       // tid: chunk s = first + i * Threads (its count, when Threads does not divide chunks)
    // The tiles start at (ob, fb) of an on x fn matrix.
    __device__ gemm_async_stream(const T* p0, int64_t so, int64_t ob, int64_t fb, int64_t on, int64_t fn, int ld_, int tid) {
        const int o0 = tid / per_row, f = tid % per_row * V;
        const int64_t orem = on - (ob + o0), frem = fn - (fb + f);
        p = p0 + (ob + o0) * so + fb + f;
        ostep = step * so;
        kstep = KAlongF ? CC : R * so;
        rem = int(KAlongF ? frem : orem); // within the slice's depth (gemm_ring_max_depth)
        fixed = 0;
        if (KAlongF) {
#pragma unroll
            for (int i = 0; i < n; ++i) fixed |= orem > int64_t(i) * step ? 1 << i : 0;
        } else {
            fixed = frem <= 0 ? 0 : int(frem < V ? frem : V) * int(sizeof(T));
        }
        ld = ld_;
        dst0 = Transposed ? f * ld + o0 : o0 * ld + f;
        first = tid;
    }
    // Copies the next tile to the stage at dst and moves on. A chunk outside the
    // matrix is zeros (its address not read); one that crosses the f edge is read up to it.
    __device__ __forceinline__ void issue(T* dst) {
        constexpr int full = V * int(sizeof(T));
        int bytes, rows;
        if (KAlongF) bytes = rem <= 0 ? 0 : rem < V ? int(rem) * int(sizeof(T)) : full, rows = R;
        else bytes = fixed, rows = rem <= 0 ? 0 : rem < R ? int(rem) : R;
        auto inside = [&](int i) { return bytes > 0 && (KAlongF ? (fixed >> i & 1) != 0 : i * step < rows); };
#pragma unroll
        for (int i = 0; i < n; ++i) {
            if (chunks % Threads != 0 && first + i * Threads >= chunks) break;
            if constexpr (Transposed) {
#pragma unroll
                for (int e = 0; e < V; ++e)
                    async_copy_elem<sizeof(T)>(dst + dst0 + i * step + e * ld, p + i * ostep + e,
                                               inside(i) && e * int(sizeof(T)) < bytes);
            } else {
                async_copy16(dst + dst0 + i * step * ld, p + i * ostep, inside(i) ? bytes : 0);
            }
        }
        p += kstep;
        rem -= KAlongF ? CC : R;
    }
};
template <class View> struct gemm_is_strided_view : std::false_type {};
template <class T> struct gemm_is_strided_view<gemm_strided_view<T>> : std::true_type {};

// Whether geometry G stages A k-major (a_kmajor: as[k * lda + i]; else row-major, as[i * lda + k]).
template <class G, class = void> struct gemm_a_kmajor : std::false_type {};
template <class G> struct gemm_a_kmajor<G, std::void_t<decltype(G::a_kmajor)>> : std::bool_constant<G::a_kmajor> {};

// The pipelined main loop (sm_80+; both views 16-byte vectors: A along K, B along N or, BT,
// along K, staged transposed): G::stages shared stages in a ring, the k-tiles t + 1 .. t + stages - 1 in flight
// as asynchronous copies while tile t is multiplied (no registers hold them), one barrier
// per k-tile. Iteration t waits for tile t's copies (its group), passes the barrier (every
// thread's copies of tile t have landed, and every warp is done with tile t - 1), refills
// tile t - 1's stage with tile t + stages - 1, then multiplies tile t: step(a, b) with the
// tile's stages of A and B (the matrix units' gemm_mma_step, the SIMT ring's
// gemm_fma_step_rows). One group is committed per tile, so that "all but the stages - 2
// newest groups" is always "up to tile t"; the loop's refills past the last tile copy zeros
// (nothing read) into stages nobody reads, where a test a k-tile cost a branch around the
// copies (sm_90: the fp16 ring's loop 82 -> 67 instructions a k-tile, the SIMT medium tile's
// 349 -> 341, gemm_large's 604-606 -> 596). G: the geometry (elem, threads, BM,
// BN, BK, stages, lda, ldb, a_elems, b_elems; a_kmajor where A's stages are k-major).
template <class G, bool BT, class VA, class VB, class Step>
__device__ __forceinline__ void gemm_pipelined(const VA& va, const VB& vb, int64_t m0, int64_t n0, int64_t kb, int64_t ke, int64_t m,
                                               int64_t n, typename G::elem* stage_a, typename G::elem* stage_b, int tid, Step&& step) {
    constexpr int S = G::stages;
    using E = typename G::elem;
    const int tiles = int((ke - kb + G::BK - 1) / G::BK); // (ke - kb <= gemm_ring_max_depth)
    // tiles are issued in order, 0, 1, 2, ...: strided views stream (gemm_async_stream)
    constexpr bool streams = gemm_is_strided_view<VA>::value && gemm_is_strided_view<VB>::value;
    constexpr bool AT = gemm_a_kmajor<G>::value;
    using SA = gemm_async_stream<G::threads, G::BM, G::BK, true, E, AT>;
    using SB = std::conditional_t<BT, gemm_async_stream<G::threads, G::BN, G::BK, true, E>,
                                  gemm_async_stream<G::threads, G::BK, G::BN, false, E>>;
    auto stream_a = [&] {
        if constexpr (streams) return SA(va.p, va.sr, m0, kb, m, ke, G::lda, tid);
        else return 0;
    }();
    auto stream_b = [&] {
        if constexpr (streams && BT) return SB(vb.p, vb.sc, n0, kb, n, ke, G::lda, tid);
        else if constexpr (streams) return SB(vb.p, vb.sr, kb, n0, ke, n, G::ldb, tid);
        else return 0;
    }();
    auto issue = [&](int t) {
        const int st = int(t & (S - 1));
        if constexpr (streams) {
            stream_a.issue(stage_a + st * G::a_elems);
            stream_b.issue(stage_b + st * G::b_elems);
        } else {
            const int64_t k0 = kb + t * G::BK;
            gemm_async_tile<G::threads, G::BM, G::BK, AT>(va, m0, k0, m, ke, stage_a + st * G::a_elems, G::lda, tid);
            if constexpr (BT) gemm_async_tile<G::threads, G::BN, G::BK>(gemm_transposed<VB, E>{vb}, n0, k0, n, ke, stage_b + st * G::b_elems, G::lda, tid);
            else gemm_async_tile<G::threads, G::BK, G::BN>(vb, k0, n0, ke, n, stage_b + st * G::b_elems, G::ldb, tid);
        }
    };
#pragma unroll
    for (int t = 0; t < S - 1; ++t) {
        if (t < tiles) issue(t);
        async_commit();
    }
    for (int t = 0; t < tiles; ++t) {
        async_wait<S - 2>();
        block_sync();
        issue(t + S - 1); // past the end: zeros into a stage nobody reads
        async_commit();
        const int st = int(t & (S - 1));
        step(static_cast<const E*>(stage_a + st * G::a_elems), static_cast<const E*>(stage_b + st * G::b_elems));
    }
    async_wait<0>();
    block_sync(); // every warp is done with the stages: the epilogue reuses them
}
#endif

// The main loop a gemm_mma_kernel is built with (its template argument Loop). One kernel with
// both loops, chosen per block at run time, is sized by the larger: the register-staged loop's
// prefetch registers and column states made every ring configuration's kernel heavier than its
// pipelined loop needs (ptxas -v, nvcc 13, sm_90, 2026-11-24: BERT-base's fp32 products on
// gemm_mma_f32 took 124-182 registers, one block per SM, and 96-112 without the staged loop;
// ResNet-50 batch 32's fused ring kernels spilled 72 / 84 bytes, none without it). So the
// launcher picks the loop on the host, from the operands' views, and each kernel has one:
//  - gemm_loop_ring: the pipelined loop (both views 16-byte vectors, A along K; configurations
//    with more than 2 stages, where MXC_ASYNC_COPY). A block whose views are not vectors after
//    all (the host checks at most gemm_ring_checks batches) fills one stage element by element
//    and multiplies it, one k-tile at a time: slow, correct, and light on registers. Built
//    where there are no asynchronous copies (nvcc for sm_75, say), it is the staged kernel.
//  - gemm_loop_staged: the register-staged loop (every view; two of the stages).
//  - gemm_loop_either: both loops in the kernel, chosen per block (the SIMT kernel's tiles but
//    gemm_large: see gemm_kernel).
enum gemm_loop : int { gemm_loop_staged = 0, gemm_loop_ring = 1, gemm_loop_either = 2 };

// Whether the ring can run where this code is built, as the host sees it (no arch macro there:
// nvcc's host pass cannot tell sm_75 from sm_90, and a ring kernel built without asynchronous
// copies is the staged one).
#if defined(MXC_NO_ASYNC_COPY) || defined(__HIP_PLATFORM_AMD__) || (defined(MXC_HIP_EMU) && !defined(MXC_ASYNC_COPY))
inline constexpr bool gemm_host_ring = false;
#else
inline constexpr bool gemm_host_ring = true;
#endif


// The pipelined loop's condition for every batch z < zc (views of more batches: the first
// gemm_ring_checks and the last; the kernel keeps a fallback for the others).
constexpr int64_t gemm_ring_checks = 256;
// b_along_n: B's vectors must run along N too (the SIMT ring; the matrix units' also stage B's
// along K).
template <class SA, class SB> inline bool gemm_ring_views(const SA& sa, const SB& sb, int64_t zc, bool b_along_n = false) {
    auto ok = [&](int64_t z) {
        const auto va = sa.view(z);
        const auto vb = sb.view(z);
        return va.vec && va.fast && vb.vec && (vb.fast || !b_along_n);
    };
    for (int64_t z = 0; z < zc && z < gemm_ring_checks; ++z)
        if (!ok(z)) return false;
    return zc <= gemm_ring_checks || ok(zc - 1);
}

// The SIMT kernel's ring (sm_80+, float and double): gemm_pipelined with configuration Cfg's
// tile, so that k-tiles t + 1 .. t + stages - 1 are in flight as asynchronous copies while
// tile t is multiplied, where the register-staged loop holds one k-tile in registers (and
// took 1175-1277 sm_90 instructions a 32-deep step of 512 FMAs, every orientation's fetch and
// put in it: ViT-B/16's products on the tuned SIMT tiles, which beat the fp32 matrix units on
// its QKV and fc1 products on the H200, 2026-11-26; the ring's loop, 367-385 a 16-deep step
// of 256 for the medium tile). B's stages are k-major (bs[k * ldb + j]) and A's row-major (as[i
// * lda + k], its 16-byte chunks along K: the matrix-unit ring's), rows padded by 16 bytes; 4
// of them where they fit the 48 KiB of static shared memory, else 2 (a copy in flight during
// each multiply, still none in registers). A thread's TM rows of A are read V deep (TM x V
// registers); with 8 x 8 sums a thread on 256 threads (gemm_large: 32 registers for A, where
// the 128 of two blocks an SM hold 64 sums) the ring spilled (52-324 bytes, sm_90, nvcc 13), so
// there A lands k-major instead (a_kmajor: as[k * lda + i], lda = BM + V, each 16-byte chunk
// as V one-element copies, gemm_async_stream's Transposed, 4 copies a thread a k-tile for
// gemm_large) and the step is the staged loop's (gemm_fma_step: per k, a thread's TM values of
// A and TN of B in 16-byte reads). ok: Cfg's tile takes the ring (whole rows of chunks a round
// of threads, at most 31 chunks a thread: gemm_async_stream; two stages in 48 KiB). Only views
// of vectors along K (A) and N (B) take it: a B of vectors along K would be staged transposed,
// where a warp's reads of its columns (16-byte vectors along K, rows 4 apart) fall on two
// banks' groups.
template <class Cfg, class T> struct gemm_simt_ring {
    using elem = T;
    static constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, threads = Cfg::threads, V = gemm_vec_width<T>;
    // A k-major where its rows read V deep spilled: 8 x 8 sums (or more) a thread on more than 128
    // threads (at most 128 registers a thread)
    static constexpr bool a_kmajor = Cfg::TM * Cfg::TN > 32 && threads > 128;
    static constexpr int lda = a_kmajor ? BM + V : BK + V, ldb = BN + V, a_elems = a_kmajor ? BK * lda : BM * lda,
                         b_elems = BK * ldb;
    static constexpr int stage_bytes = (a_elems + b_elems) * int(sizeof(T));
    static constexpr int room = 47 * 1024; // of the 48 KiB of static shared memory (1 KiB for the kernel's others: split-K's flag)
    static constexpr int stages = 4 * stage_bytes <= room ? 4 : 2;
    static constexpr bool ok = std::is_same<T, mxc_compute_t<T>>::value && 2 * stage_bytes <= room &&
                               threads % (BK / V) == 0 && threads % (BN / V) == 0 && BM * BK / V <= 31 * threads &&
                               BK * BN / V <= 31 * threads;
};

// One k-tile of the ring's stages: thread (ty, tx)'s TM x TN sums += its rows of A (as[i * lda +
// k]) x its columns of B (bs[k * ldb + j]). A row's elements are read V deep along K, one
// 16-byte read a row every V k steps; B's as gemm_fma_step reads them (runs of consecutive
// columns: a warp's reads are consecutive vectors of one row; the A reads of the 8 lanes of a
// quarter warp are one row's, a broadcast, where the block has 8 or more thread columns). Per
// k step: TM / V + TN / V reads for TM TN FMAs (4 for 64 with 8 x 8). Each sum adds its
// products in K order, as gemm_fma_step's: both loops give the same results.
template <class R, class Cfg, class C>
__device__ __forceinline__ void gemm_fma_step_rows(const C* as, const C* bs, C (&acc)[Cfg::TM][Cfg::TN], int ty, int tx) {
    using OM = gemm_own<C, Cfg::TM, Cfg::ty_count>;
    using ON = gemm_own<C, Cfg::TN, Cfg::tx_count>;
    constexpr int V = R::V;
#pragma unroll
    for (int kk = 0; kk < Cfg::BK; kk += V) {
        C a[Cfg::TM][V];
#pragma unroll
        for (int i = 0; i < Cfg::TM; ++i) {
            const auto x = vector_load<gemm_vec<C, V>>(as + OM::at(ty, i) * R::lda + kk);
#pragma unroll
            for (int e = 0; e < V; ++e) a[i][e] = x.v[e];
        }
#pragma unroll
        for (int e = 0; e < V; ++e) {
            C b[Cfg::TN];
#pragma unroll
            for (int g = 0; g < ON::runs; ++g) {
                const auto x = vector_load<gemm_vec<C, ON::W>>(bs + (kk + e) * R::ldb + ON::at(tx, g * ON::W));
#pragma unroll
                for (int q = 0; q < ON::W; ++q) b[g * ON::W + q] = x.v[q];
            }
#pragma unroll
            for (int i = 0; i < Cfg::TM; ++i)
#pragma unroll
                for (int j = 0; j < Cfg::TN; ++j) acc[i][j] += a[i][e] * b[j];
        }
    }
}

// The SIMT kernel: a block's BM x BN tile, its k-tiles through the ring (gemm_simt_ring, where
// the tile takes it, the target has asynchronous copies and the block's views are vectors
// along K and N) or the register-staged loop (gemm_simt_staged: every view), one kernel with
// both loops (Loop = gemm_loop_either, chosen per block; the two kernels took ResNet-50 fp32's
// first build from 15 to 24 s, nvcc 13, sm_90, 2 cores: each fused epilogue compiled twice),
// then the epilogue. The tiles whose ring stages A k-major (gemm_large) have one loop a kernel,
// chosen by the launcher as gemm_mma_kernel's (gemm_loop): with both, its 128 registers
// spilled 108-224 bytes, in both loops (sm_90, nvcc 13), and none with either alone (the ring
// kernel, 123-128 registers; blocks whose views are not vectors after all fill a stage element
// by element). At least 2 blocks per SM on NVIDIA (registers up to 64K / (2 x threads)): with
// the thread count alone as the bound, ptxas capped the medium tile's kernels at 64-80
// registers and spilled (see the presets above). Built without asynchronous copies (AMD; nvcc
// for sm_75), only the staged loop.
template <class Cfg, class T> constexpr bool gemm_simt_one_loop = gemm_simt_ring<Cfg, T>::a_kmajor;
// Whether Cfg's tile on sources SA and SB can take the ring at all (their views may be vectors).
template <class Cfg, class T, class SA, class SB>
constexpr bool gemm_simt_ring_sources =
    gemm_simt_ring<Cfg, T>::ok && gemm_may_vec<gemm_view_of<SA>>::value && gemm_may_vec<gemm_view_of<SB>>::value;
template <class Cfg, class T, class SA, class SB, class Out, int Loop = gemm_loop_either>
__global__ void MXC_LAUNCH_BOUNDS_MIN(Cfg::threads, 2)
    gemm_kernel(int64_t m, int64_t n, int64_t k, int64_t z0, int64_t mb0, int64_t zc, int64_t ks, SA sa, SB sb, Out out) {
    grid_dependency_sync();
    using C = mxc_compute_t<T>;
    using R = gemm_simt_ring<Cfg, T>;
#if defined(MXC_ASYNC_COPY)
    constexpr bool ring = Loop != gemm_loop_staged && gemm_simt_ring_sources<Cfg, T, SA, SB>;
#else
    constexpr bool ring = false;
#endif
    constexpr int staged_elems = gemm_staged_elems<Cfg, C>, ring_elems = ring ? R::stages * (R::a_elems + R::b_elems) : 0;
    static_assert(staged_elems * sizeof(C) <= 48 * 1024, "gemm_kernel: two stages must fit in 48 KiB of static shared memory");
    alignas(16) __shared__ C stage[staged_elems > ring_elems ? staged_elems : ring_elems];
    // grid z: batch z of zc, K slice zz / zc (split-K: K range [kb, ke); else the whole of K)
    const int64_t zz = z0 + blockIdx.z, z = zz % zc, kb = zz / zc * ks, ke = kb + ks < k ? kb + ks : k;
    const auto va = sa.view(z);
    const auto vb = sb.view(z);
    const int64_t m0 = (mb0 + blockIdx.y) * Cfg::BM, n0 = int64_t(blockIdx.x) * Cfg::BN;
    const int tid = int(threadIdx.x), ty = tid / Cfg::tx_count, tx = tid % Cfg::tx_count;
    C acc[Cfg::TM][Cfg::TN];
#pragma unroll
    for (int i = 0; i < Cfg::TM; ++i)
#pragma unroll
        for (int j = 0; j < Cfg::TN; ++j) acc[i][j] = C(0);
    bool pipelined = false;
#if defined(MXC_ASYNC_COPY)
    if constexpr (ring) {
        if (va.vec && va.fast && vb.vec && vb.fast && ke - kb <= gemm_ring_max_depth) {
            gemm_pipelined<R, false>(va, vb, m0, n0, kb, ke, m, n, stage, stage + R::stages * R::a_elems, tid, [&](const C* a, const C* b) {
                if constexpr (R::a_kmajor) {
                    static_assert(R::lda == Cfg::BM + gemm_pad<C> && R::ldb == Cfg::BN + gemm_pad<C>, "gemm_kernel: the staged loop's layout");
                    gemm_fma_step<Cfg>(reinterpret_cast<const C(*)[R::lda]>(a), reinterpret_cast<const C(*)[R::ldb]>(b), acc, ty, tx);
                } else {
                    gemm_fma_step_rows<R, Cfg>(a, b, acc, ty, tx);
                }
            });
            pipelined = true;
        } else if constexpr (Loop == gemm_loop_ring) {
            // the fallback (see gemm_loop): stage 0 element by element, in the ring's layout
            static_assert(R::a_kmajor, "gemm_kernel: a ring-only SIMT kernel stages A k-major");
            C* const as = stage;
            C* const bs = stage + R::stages * R::a_elems;
            for (int64_t k0 = kb; k0 < ke; k0 += Cfg::BK) {
                gemm_put_each<Cfg::threads, Cfg::BK, Cfg::BM, false>(gemm_transposed<decltype(va), T>{va}, k0, m0, ke, m, as, R::lda, tid);
                gemm_put_each<Cfg::threads, Cfg::BK, Cfg::BN, true>(vb, k0, n0, ke, n, bs, R::ldb, tid);
                block_sync();
                gemm_fma_step<Cfg>(reinterpret_cast<const C(*)[R::lda]>(as), reinterpret_cast<const C(*)[R::ldb]>(bs), acc, ty, tx);
                block_sync(); // every thread is done with the stage
            }
            pipelined = true;
        }
    }
#endif
    if constexpr (Loop != gemm_loop_ring || !ring)
        if (!pipelined) gemm_simt_staged<Cfg, T>(va, vb, m0, n0, kb, ke, m, n, stage, acc, tid, ty, tx);
    gemm_simt_store<Cfg>(acc, out, zz, mb0 + blockIdx.y, blockIdx.x, m, n, ty, tx);
}

// Launches one configuration over zs = z x slices grid z (slice depth ks; ks = k: no split);
// grids beyond the y / z limits (65535) go in several launches.
template <class Cfg, class T, class SA, class SB, class Out>
inline void gemm_launch_slices(int64_t m, int64_t n, int64_t k, int64_t z, int64_t zs, int64_t ks, const SA& sa, const SB& sb,
                               const Out& out, hipStream_t stream) {
    constexpr int64_t lim = 65535;
    const int64_t gx = (n + Cfg::BN - 1) / Cfg::BN, gy = (m + Cfg::BM - 1) / Cfg::BM;
    const auto kernel = [&] {
        if constexpr (gemm_is_gemv<Cfg>::value) {
            return gemv_kernel<T, SA, SB, Out>;
        } else if constexpr (gemm_simt_one_loop<Cfg, T>) {
            if constexpr (gemm_host_ring && gemm_simt_ring_sources<Cfg, T, SA, SB>)
                if (gemm_ring_views(sa, sb, z, true)) return gemm_kernel<Cfg, T, SA, SB, Out, gemm_loop_ring>;
            return gemm_kernel<Cfg, T, SA, SB, Out, gemm_loop_staged>;
        } else {
            return gemm_kernel<Cfg, T, SA, SB, Out>;
        }
    }();
    for (int64_t z0 = 0; z0 < zs; z0 += lim)
        for (int64_t y0 = 0; y0 < gy; y0 += lim) {
            const dim3 grid(unsigned(gx), unsigned(gy - y0 < lim ? gy - y0 : lim), unsigned(zs - z0 < lim ? zs - z0 : lim));
            hipLaunchKernelGGL(kernel, grid, dim3(Cfg::threads), 0, stream, m, n, k, z0, y0, z, ks, sa, sb, out);
        }
}
template <class Cfg, class T, class SA, class SB, class Out>
inline void gemm_launch(int64_t m, int64_t n, int64_t k, int64_t z, const SA& sa, const SB& sb, const Out& out,
                        hipStream_t stream) {
    gemm_launch_slices<Cfg, T>(m, n, k, z, z, k, sa, sb, out, stream);
}

// gemm_mma_kernel's epilogue where its tile's products come out NaN for infinite operands
// (mma_tile<E>::nan_recheck: 3xTF32): the run v[0, count) of row r's sums from column c, staged at
// x[0, count), with each NaN in it worked out again in fp32, one FMA a K step in K order over
// the block's K slice [kb, ke), from the views. A run without NaNs costs a test a sum; the rest
// is off the main loop and runs only where a NaN is (an infinite or NaN operand, or a sum that
// overflowed: the same NaN again).
template <int RW, class VA, class VB>
__device__ inline void gemm_recheck_nan(const VA& va, const VB& vb, int64_t r, int64_t c, int count, int64_t kb, int64_t ke, float (&v)[RW],
                                        float* x) {
    bool any = false;
#pragma unroll
    for (int q = 0; q < RW; ++q) any |= q < count && v[q] != v[q];
    if (!any) return;
    for (int q = 0; q < count; ++q) {
        if (x[q] == x[q]) continue; // not a NaN
        float sum = 0.0f;
#pragma unroll 1
        for (int64_t kk = kb; kk < ke; ++kk) sum = fmaf(float(va.at(r, kk)), float(vb.at(kk, c + q)), sum);
        x[q] = sum;
    }
#pragma unroll
    for (int q = 0; q < RW; ++q) v[q] = x[q];
}

// The ring kernels of every configuration keep to two blocks per SM (the staged loop's may not:
// gemm_mma_f32's took up to 182 registers; its ring kernels 110-136, capped at 128 none spills).
template <class G, int Loop> constexpr int gemm_mma_min_blocks = Loop == gemm_loop_ring && G::min_blocks < 2 ? 2 : G::min_blocks;

template <class G, class SA, class SB, class Out, int Loop>
__global__ void MXC_LAUNCH_BOUNDS_MIN(G::threads, (gemm_mma_min_blocks<G, Loop>))
    gemm_mma_kernel(int64_t m, int64_t n, int64_t k, int64_t z0, int64_t mb0, int64_t zc, int64_t ks, SA sa, SB sb, Out out) {
    grid_dependency_sync();
    using E = typename G::elem;
    using mt = mma_tile<E>;
    constexpr int FM = G::FM, FNX = G::fn_max;
    // stages: A's (G::stages of them; the register-staged loop uses the first two), then B's;
    // after the main loop, the float tile
    float* smem;
    if constexpr (G::dynamic_smem) {
        smem = dynamic_shared<float>();
    } else {
        alignas(32) __shared__ float fixed[G::smem_bytes / 4];
        smem = fixed;
    }
    E* const stage_a = reinterpret_cast<E*>(smem);
    E* const stage_b = stage_a + G::stages * G::a_elems;
    float* const cs = smem;

    // grid z: batch z of zc, K slice zz / zc (split-K: K range [kb, ke); else the whole of K)
    const int64_t zz = z0 + blockIdx.z, z = zz % zc, kb = zz / zc * ks, ke = kb + ks < k ? kb + ks : k;
    const auto va = sa.view(z);
    const auto vb = sb.view(z);
    const int64_t m0 = (mb0 + blockIdx.y) * G::BM, n0 = int64_t(blockIdx.x) * G::BN;
    const int tid = int(threadIdx.x), ws = mma_warp_size(), warp = tid / ws;
    const int warps_n = G::threads / ws / G::warps_m, fn = G::BN / 16 / warps_n;
    const int wm = warp % G::warps_m, wn = warp / G::warps_m;
    const int row0 = wm * FM * 16, col0 = wn * fn * 16; // this warp's tile in the block tile
    // A warp whose rows or columns all lie past the product's edge has nothing to multiply: it
    // copies its share of each k-tile and meets every barrier, but skips the fragments (ViT-B/16
    // at batch 1: 197 rows, four tiles of 64; the last tile's five rows leave its second warp
    // row, half the block's products, all padding). The test is the same for the whole warp.
    const bool busy = m0 + row0 < m && n0 + col0 < n;

    typename mt::frag_acc acc[FM][FNX];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FNX; ++j)
            if (j < fn) mt::zero(acc[i][j]);

#if defined(MXC_ASYNC_COPY)
    constexpr bool ring = Loop == gemm_loop_ring && G::stages > 2;
#else
    constexpr bool ring = false;
#endif
    if constexpr (ring) {
#if defined(MXC_ASYNC_COPY)
        if (va.vec && va.fast && vb.vec && ke - kb <= gemm_ring_max_depth) {
            if (vb.fast)
                gemm_pipelined<G, false>(va, vb, m0, n0, kb, ke, m, n, stage_a, stage_b, tid,
                                         [&](const E* a, const E* b) {
                                             if (busy) gemm_mma_step<G, false>(a, b, acc, row0, col0, fn);
                                         });
            else
                gemm_pipelined<G, true>(va, vb, m0, n0, kb, ke, m, n, stage_a, stage_b, tid,
                                        [&](const E* a, const E* b) {
                                            if (busy) gemm_mma_step<G, true>(a, b, acc, row0, col0, fn);
                                        });
        } else {
            // the fallback (see gemm_loop): stage 0, element by element
            for (int64_t k0 = kb; k0 < ke; k0 += G::BK) {
                gemm_put_each<G::threads, G::BM, G::BK, true>(va, m0, k0, m, ke, stage_a, G::lda, tid);
                gemm_put_each<G::threads, G::BK, G::BN, true>(vb, k0, n0, ke, n, stage_b, G::ldb, tid);
                block_sync();
                if (busy) gemm_mma_step<G, false>(stage_a, stage_b, acc, row0, col0, fn);
                block_sync(); // every warp is done with the stage (the next k-tile, or the epilogue's float tile)
            }
        }
#endif
    } else {
        E ra[G::BM * G::BK / G::threads], rb[G::BK * G::BN / G::threads];
        // B's column states, if any, in shared memory (held in registers across the multiply they
        // spill the large configuration): column c's at cb[c], read by its threads in each put
        using CB = decltype(gemm_col_of<G::threads, G::BN>(vb, n0, n, tid));
        __shared__ CB cb[gemm_col_state<CB> ? G::BN : 1];
        gemm_fill_cols<G::threads, G::BN>(vb, n0, n, tid, cb);
        // BT: B of vectors along K, staged transposed (as the pipelined loop does) where the
        // configuration's stages can hold it so
        auto staged = [&](auto bt) {
            constexpr bool BT = decltype(bt)::value;
            gemm_mma_fetch<G>(va, vb, m0, n0, kb, m, n, ke, ra, rb, tid);
            gemm_mma_put<G, BT>(va, vb, m0, n0, kb, m, n, ke, ra, rb, stage_a, stage_b, tid, cb);
            block_sync();
            int cur = 0;
            for (int64_t k0 = kb; k0 < ke; k0 += G::BK) {
                const bool next = k0 + G::BK < ke;
                // the next k-tile (zeros past ke: unconditional, fewer live registers), in flight during the mma
                gemm_mma_fetch<G>(va, vb, m0, n0, k0 + G::BK, m, n, ke, ra, rb, tid);
                if (busy) gemm_mma_step<G, BT>(stage_a + cur * G::a_elems, stage_b + cur * G::b_elems, acc, row0, col0, fn);
                if (next)
                    gemm_mma_put<G, BT>(va, vb, m0, n0, k0 + G::BK, m, n, ke, ra, rb, stage_a + (cur ^ 1) * G::a_elems,
                                        stage_b + (cur ^ 1) * G::b_elems, tid, cb);
                block_sync(); // the other stage is written, and every warp is done with this one
                cur ^= 1;
            }
        };
        if constexpr (G::b_transposed) {
            if (vb.vec && !vb.fast) staged(std::true_type{});
            else staged(std::false_type{});
        } else {
            staged(std::false_type{});
        }
    }

    // epilogue, through the float tile: pass p stages fragment rows [p * FMP, (p + 1) * FMP) of
    // every warp (c_rows rows of the block tile), then writes them out
    constexpr int FMP = FM / G::passes;
#pragma unroll
    for (int p = 0; p < G::passes; ++p) {
        if (p > 0) block_sync(); // the previous part is written out
#pragma unroll
        for (int i = 0; i < FMP; ++i)
#pragma unroll
            for (int j = 0; j < FNX; ++j)
                if (j < fn) mt::store(cs + (wm * FMP * 16 + i * 16) * G::ldc + col0 + j * 16, G::ldc, acc[p * FMP + i][j]);
        block_sync();
        // runs of 8 columns of one staged row (two 16-byte shared reads: ldc keeps rows
        // 16-byte aligned), consecutive threads on consecutive runs
        constexpr int RW = 8, runs = G::BN / RW;
        for (int e = tid; e < G::c_rows * runs; e += G::threads) {
            const int s = e / runs, cc = e % runs * RW;
            // staged row s: warp row s / (16 FMP), fragment row p * FMP + (s % (16 FMP)) / 16
            const int64_t r = m0 + (s / (16 * FMP)) * FM * 16 + p * FMP * 16 + s % (16 * FMP), c = n0 + cc;
            if (r < m && c < n) {
                float v[RW];
#pragma unroll
                for (int h = 0; h < RW; h += 4) {
                    const gemm_vec<float, 4> x = vector_load<gemm_vec<float, 4>>(cs + s * G::ldc + cc + h);
#pragma unroll
                    for (int q = 0; q < 4; ++q) v[h + q] = x.v[q];
                }
                const int count = n - c < RW ? int(n - c) : RW;
                if constexpr (mt::nan_recheck) gemm_recheck_nan(va, vb, r, c, count, kb, ke, v, cs + s * G::ldc + cc);
                gemm_store_run(out, zz, r, c, v, count);
            }
        }
    }
    gemm_tile_done<G::BM, G::BN, G::threads>(out, zz, mb0 + blockIdx.y, blockIdx.x);
}

struct gemm_auto;

// Whether Cfg is a matrix-unit configuration (gemm_run then launches gemm_mma_kernel with it).
template <class Cfg> struct gemm_is_mma : std::false_type {};
template <int BM, int BN, int FM, int MinBlocks, int BK, int Stages, class E, int Threads>
struct gemm_is_mma<gemm_mma_config<BM, BN, FM, MinBlocks, BK, Stages, E, Threads>> : std::true_type {};

// Launches configuration G (gemm_mma_large, gemm_mma_large_ring, gemm_mma_small, gemm_mma_f32),
// or the one gemm_mma_pick_large chooses (G = gemm_auto); grids beyond the y / z limits (65535)
// go in several launches. A configuration past 48 KiB asks for its shared memory at launch.
template <class G, class SA, class SB, class Out>
inline void gemm_mma_launch_slices(int64_t m, int64_t n, int64_t k, int64_t z, int64_t zs, int64_t ks, const SA& sa,
                                   const SB& sb, const Out& out, hipStream_t stream) {
    constexpr int64_t lim = 65535;
    const int64_t gx = (n + G::BN - 1) / G::BN, gy = (m + G::BM - 1) / G::BM;
    constexpr int shared = G::dynamic_smem ? G::smem_bytes : 0;
    auto launch = [&](auto loop) {
        constexpr int L = decltype(loop)::value;
        auto kernel = gemm_mma_kernel<G, SA, SB, Out, L>;
        allow_dynamic_shared<gemm_mma_kernel<G, SA, SB, Out, L>>(shared);
        for (int64_t z0 = 0; z0 < zs; z0 += lim)
            for (int64_t y0 = 0; y0 < gy; y0 += lim) {
                const dim3 grid(unsigned(gx), unsigned(gy - y0 < lim ? gy - y0 : lim), unsigned(zs - z0 < lim ? zs - z0 : lim));
                hipLaunchKernelGGL(kernel, grid, dim3(G::threads), shared, stream, m, n, k, z0, y0, z, ks, sa, sb, out);
            }
    };
    if constexpr (G::stages > 2 && gemm_host_ring && gemm_may_vec<gemm_view_of<SA>>::value && gemm_may_vec<gemm_view_of<SB>>::value) {
        if (gemm_ring_views(sa, sb, z)) return launch(std::integral_constant<int, gemm_loop_ring>{});
    }
    launch(std::integral_constant<int, gemm_loop_staged>{});
}
template <class G = gemm_auto, class SA, class SB, class Out>
inline void gemm_mma_launch(int64_t m, int64_t n, int64_t k, int64_t z, const SA& sa, const SB& sb, const Out& out,
                            hipStream_t stream) {
    if constexpr (std::is_same<G, gemm_auto>::value) {
        if (gemm_mma_pick_large(m, n, z)) gemm_mma_launch<gemm_mma_large>(m, n, k, z, sa, sb, out, stream);
        else gemm_mma_launch<gemm_mma_small>(m, n, k, z, sa, sb, out, stream);
    } else {
        gemm_mma_launch_slices<G>(m, n, k, z, z, k, sa, sb, out, stream);
    }
}

// The configuration argument of the launchers (gemm_run, dot, convolution and the fused
// forms): a gemm_config, a gemm_mma_config (of the product's element type), or gemm_auto. mxc always names one: the tuning
// database's tile, else the rule's preset (mxc_gemm_pick, applied by the compiler to the
// shapes it knows; codegen/gemm_choice.cpp), so each generated launch instantiates only the
// kernel it runs. Every shape is known then: the generated source passes each kernel static
// descriptors (symbolic dims are fixed before compiling), so no launch needs a run-time choice.
// gemm_auto applies the same rule at run time and so instantiates every preset (plus both mma
// for half): the default for hand-written calls and tests, never generated.
struct gemm_auto {};

// Split-K (mxc_gemm_splits, templates/common/gemm_choice.hpp): configuration Cfg with K cut
// into Splits slices of mxc_gemm_slice_depth, in one launch (gemm_fixup_out, above).
template <class Cfg, int Splits> struct gemm_split {
    static_assert(Splits >= 2, "gemm_split: at least two slices");
};
template <class Cfg> struct gemm_split_of {
    using config = Cfg;
    static constexpr int splits = 1;
};
template <class Cfg, int Splits> struct gemm_split_of<gemm_split<Cfg, Splits>> {
    using config = Cfg;
    static constexpr int splits = Splits;
};

// The scratch bytes of a split product (what the compiler reserves in the arena).
template <class T> constexpr int64_t gemm_split_scratch_bytes(int64_t m, int64_t n, int64_t k, int64_t z, int splits, int bk) {
    return mxc_gemm_split_scratch_bytes(m, n, k, z, splits, bk, int64_t(sizeof(mxc_compute_t<T>)));
}

// Runs the product with configuration Cfg (see above); a gemm_split<Cfg, S> needs `scratch`
// (gemm_split_scratch_bytes, its first mxc_gemm_split_counter_bytes zero; without it, or with
// more output tiles than counters, the product runs unsplit).
template <class T, class Cfg = gemm_auto, class SA, class SB, class Out>
inline void gemm_run(int64_t m, int64_t n, int64_t k, int64_t z, const SA& sa, const SB& sb, const Out& out,
                     hipStream_t stream, void* scratch = nullptr) {
    if (m <= 0 || n <= 0 || z <= 0) return;
    if constexpr (gemm_split_of<Cfg>::splits > 1) {
        using G = typename gemm_split_of<Cfg>::config;
        using C = mxc_compute_t<T>;
        constexpr int S = gemm_split_of<Cfg>::splits;
        if (scratch == nullptr || k <= 0) {
            gemm_run<T, G>(m, n, k, z, sa, sb, out, stream);
            return;
        }
        const int64_t ks = mxc_gemm_slice_depth(k, S, G::BK), slices = mxc_gemm_slices(k, S, G::BK);
        const int64_t tiles = z * ((m + G::BM - 1) / G::BM) * ((n + G::BN - 1) / G::BN);
        if (slices < 2 || tiles > mxc_gemm_split_tiles) { // one slice: the same sums; more tiles than counters
            gemm_run<T, G>(m, n, k, z, sa, sb, out, stream);
            return;
        }
        const gemm_fixup_out<C, Out> f{reinterpret_cast<C*>(static_cast<char*>(scratch) + mxc_gemm_split_counter_bytes),
                                       static_cast<unsigned*>(scratch), m, n, z, slices, out};
        if constexpr (gemm_is_mma<G>::value) gemm_mma_launch_slices<G>(m, n, k, z, z * slices, ks, sa, sb, f, stream);
        else gemm_launch_slices<G, T>(m, n, k, z, z * slices, ks, sa, sb, f, stream);
    } else if constexpr (gemm_is_mma<Cfg>::value) {
        static_assert(std::is_same<T, typename Cfg::elem>::value, "gemm_mma: the configuration's element type is the product's");
        gemm_mma_launch<Cfg>(m, n, k, z, sa, sb, out, stream);
    } else if constexpr (!std::is_same<Cfg, gemm_auto>::value) {
        gemm_launch<Cfg, T>(m, n, k, z, sa, sb, out, stream);
    } else {
        switch (mxc_gemm_pick(gemm_elem_of<T>, m, n, k, z)) {
        case MXC_GEMM_MMA:
            if constexpr (std::is_same<T, mxc_half>::value) gemm_mma_launch<gemm_mma_large>(m, n, k, z, sa, sb, out, stream);
            break;
        case MXC_GEMM_MMA_SMALL:
            if constexpr (std::is_same<T, mxc_half>::value) gemm_mma_launch<gemm_mma_small>(m, n, k, z, sa, sb, out, stream);
            break;
        case MXC_GEMM_MMA_F32:
        case MXC_GEMM_MMA_F32_DEEP:
        case MXC_GEMM_GEMV: break; // (mxc_gemm_pick never names them: the compiler's choice only)
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
    template <int N, class C> __device__ void put_run(int64_t e0, const C* v, int count) const { gemm_write_run<N>(y + e0, v, count); }
};

} // namespace hip
} // namespace mxc
