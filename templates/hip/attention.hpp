// attention (templates/common/attention.hpp for the op) in one kernel, the scores never
// stored. Two kernels; the generated code names which (codegen/gemm_choice.cpp).
//
// attention_kernel, SIMT: a block of 128 threads per (batch, 16 query rows), 8 threads per row.
// The block keeps its 16 rows of q in shared memory and walks the keys in tiles of BK: it stages
// the tile's keys and values in shared memory; each thread computes BK/8 of its row's scores and
// applies the body (scale, mask, ...) to them; the row's 8 threads agree on the tile's maximum
// and the sum of exponentials (shuffles among 8 neighbouring lanes: within a warp of 32 or 64),
// rescale the running sum and outputs when the maximum grows (online softmax: Milakov and
// Gimelshein, 2018; Dao et al., FlashAttention, 2022), and add the tile's exponentials times its
// values to the row's outputs, HD/8 a thread in registers. The outputs are divided by the sum at
// the end. Everything is computed in mxc_compute_t<T> (fp32 for half types). HD is a bound on
// both head sizes (64, 128 or 256; 0: chosen at run time); the generated code names it.
//
// attention_mma_kernel, on the matrix units (templates/hip/mma.hpp; half and float, the heads
// within 64 or 128): a block of 128 threads (four warps of 32, or two wavefronts of 64) per
// (batch, 16 query rows). The block's warps split the keys: in each round the block stages
// one tile of BK keys and values per warp (all threads load, as 16 rows of q once at the
// start; by 16-byte vectors where the heads are contiguous and aligned), then each warp, on
// its own tile:
//  - S = q kt on the matrix units (16 x BK, fp32 accumulators; the head's K steps in up to four
//    partial sums, added at the end) into shared memory;
//  - the body on each score, the tile's maximum per row, P = exp(S - m) in T and the row
//    sums: warpSize / 16 lanes a row, agreeing by shuffles; a row's running maximum m and sum
//    l stay in its lanes' registers;
//  - its output rows O (16 x HD, fp32 in shared memory: the accumulator fragments are opaque,
//    so the online softmax's rescaling by exp(m_old - m) is done there) are rescaled, loaded
//    as accumulators, O += P v on the matrix units, and stored back.
// At the end the warps' (m, l, O) are merged per row (m = the largest, each O and l weighted
// by exp(m_w - m)) and divided out. The products accumulate in fp32; P is rounded to T for the
// second product (half: 11 significant bits) while l sums the fp32 exponentials. Shared memory
// is dynamic (attention_mma_layout_of), sized for the warps of the platform; BK is the larger
// of 32 and 16 that fits attention_mma_max_bytes, none for float heads of 128 (on NVIDIA) or
// heads of 256, which then run attention_kernel. Float on NVIDIA is 3xTF32, whose products of
// an infinite q, key or value element are NaN (mma_tile<float>::nan_recheck; the GEMM works
// such results out again, this kernel does not: a mask's -inf is added to the scores, after
// the product, and P is finite).
#pragma once
#include "templates/common/attention.hpp"
#include "templates/common/pointwise_program.hpp"
#include "templates/common/team.hpp"
#include "templates/hip/body.hpp"
#include "templates/hip/common.hpp"
#include "templates/hip/mma.hpp"

namespace mxc {
namespace hip {

constexpr int attention_rows = 16, attention_lanes = 8, attention_threads = attention_rows * attention_lanes;

// The shared bytes of a configuration: q rows and key rows padded by one (no bank conflicts
// when the 8 lanes of a row read 8 key rows), the tile's values and exponentials.
template <class C> constexpr int attention_shared_bytes(int hd, int bk) {
    return int(sizeof(C)) * (attention_rows * (hd + 1) + bk * (hd + 1) + bk * hd + attention_rows * (bk + 1));
}
// The key tile: the largest of 32, 16, 8 whose staging fits 46 KiB of static shared memory
// (0: none does; double with HD 256, which the op rejects).
template <class C> constexpr int attention_key_tile(int hd) {
    return attention_shared_bytes<C>(hd, 32) <= 46 * 1024   ? 32
           : attention_shared_bytes<C>(hd, 16) <= 46 * 1024 ? 16
           : attention_shared_bytes<C>(hd, 8) <= 46 * 1024  ? 8
                                                            : 0;
}

// Both kernels' view of batch b: the three operands' bases and the strides their loops step by,
// read once (indexed by the rank, they would be read from local memory in every iteration).
template <class T> struct attention_operands {
    const T *q, *kt, *v;
    int64_t q_i, q_d, k_d, k_j, v_j, v_c;
    __device__ __forceinline__ attention_operands(const dev_args& a, const mxc_attention_dims& dims, int64_t b) {
        const int r = dims.rank;
        const mxc_desc &qd = a.in_desc[0], &kd = a.in_desc[1], &vd = a.in_desc[2];
        q = in_ptr<T>(a, 0) + mxc_attention_offset(qd.strides, dims, qd, b);
        kt = in_ptr<T>(a, 1) + mxc_attention_offset(kd.strides, dims, qd, b);
        v = in_ptr<T>(a, 2) + mxc_attention_offset(vd.strides, dims, qd, b);
        q_i = qd.strides[r - 2], q_d = qd.strides[r - 1], k_d = kd.strides[r - 2], k_j = kd.strides[r - 1];
        v_j = vd.strides[r - 2], v_c = vd.strides[r - 1];
    }
};

// The body of the scores (scale, mask, ...: F, or the program in ip after `skip` values) on
// query row i of batch b: x[0] the product, x[1 + e] extra input 3 + e at the key. A row past
// the queries (live false) reads no extra input.
template <class T, class F> struct attention_body {
    using C = mxc_compute_t<T>;
    static constexpr int arity = body_arity<F>::value;
    const T* row[arity > 1 ? arity - 1 : 1] = {}; // this row of each extra input
    int64_t step[arity > 1 ? arity - 1 : 1] = {};
    __device__ __forceinline__ attention_body(const dev_args& a, const mxc_attention_dims& dims, int64_t b, int64_t i, bool live) {
#pragma unroll
        for (int e = 0; e + 1 < arity; ++e)
            if (3 + e < a.n_in && live) {
                const mxc_desc& ed = a.in_desc[3 + e];
                row[e] = in_ptr<T>(a, 3 + e) + mxc_attention_offset(ed.strides, dims, a.in_desc[0], b) + i * ed.strides[dims.rank - 2];
                step[e] = ed.strides[dims.rank - 1];
            }
    }
    // the body of product s at key j
    __device__ __forceinline__ C operator()(const dev_args& a, int64_t skip, const F& f, C s, int64_t j) const {
        C x[arity > 0 ? arity : 1];
        x[0] = s;
#pragma unroll
        for (int e = 0; e + 1 < arity; ++e)
            if (3 + e < a.n_in) x[1 + e] = C(row[e][j * step[e]]);
        if constexpr (std::is_same<F, program_body>::value) return mxc_pw_run(a.ip + skip, a.n_ip - skip, x);
        else return f(x);
    }
};

template <class T, class F, int HD, int BK>
__global__ void MXC_LAUNCH_BOUNDS(attention_threads) attention_kernel(dev_args a, mxc_attention_dims dims, int64_t skip, F f) {
    grid_dependency_sync();
    using C = mxc_compute_t<T>;
    constexpr int BQ = attention_rows, G = attention_lanes, KPT = BK / G, CPT = HD / G, NT = attention_threads;
    __shared__ C qs[BQ][HD + 1];
    __shared__ C ks[BK][HD + 1];
    __shared__ C vs[BK][HD];
    __shared__ C ps[BQ][BK + 1];
    const int tid = static_cast<int>(threadIdx.x), row = tid / G, lane = tid % G, r = dims.rank;
    const int64_t blocks_q = (dims.lq + BQ - 1) / BQ, b = blockIdx.x / blocks_q, i0 = (blockIdx.x % blocks_q) * BQ;
    const int64_t i = i0 + row;
    const bool live = i < dims.lq;
    const attention_operands<T> o(a, dims, b);
    const int64_t d = dims.d, dv = dims.dv, lk = dims.lk;
    for (int idx = tid; idx < BQ * HD; idx += NT) {
        const int ii = idx / HD, dd = idx % HD;
        qs[ii][dd] = i0 + ii < dims.lq && dd < d ? C(o.q[(i0 + ii) * o.q_i + dd * o.q_d]) : C(0);
    }
    const attention_body<T, F> body(a, dims, b, i, live);
    C m = mxc_lowest<C>(), l = C(0), acc[CPT];
#pragma unroll
    for (int c = 0; c < CPT; ++c) acc[c] = C(0);
    for (int64_t j0 = 0; j0 < lk; j0 += BK) {
        block_sync(); // the previous tile's keys, values and exponentials are read (the first: nothing)
        for (int idx = tid; idx < BK * HD; idx += NT) {
            const int jj = idx / HD, dd = idx % HD;
            const int64_t j = j0 + jj;
            ks[jj][dd] = j < lk && dd < d ? C(o.kt[dd * o.k_d + j * o.k_j]) : C(0);
            vs[jj][dd] = j < lk && dd < dv ? C(o.v[j * o.v_j + dd * o.v_c]) : C(0);
        }
        block_sync();
        C s[KPT];
#pragma unroll
        for (int u = 0; u < KPT; ++u) s[u] = C(0);
        for (int dd = 0; dd < d; ++dd) {
            const C qv = qs[row][dd];
#pragma unroll
            for (int u = 0; u < KPT; ++u) s[u] += qv * ks[lane + u * G][dd];
        }
        C tile_max = mxc_lowest<C>();
#pragma unroll
        for (int u = 0; u < KPT; ++u) {
            const int64_t j = j0 + lane + u * G;
            if (live && j < lk) {
                s[u] = body(a, skip, f, s[u], j);
            } else {
                s[u] = mxc_lowest<C>();
            }
            tile_max = mxc_op_max_nan{}(tile_max, s[u]);
        }
#pragma unroll
        for (int o = 1; o < G; o <<= 1) tile_max = mxc_op_max_nan{}(tile_max, shfl_xor(tile_max, o));
        const C m_new = mxc_op_max_nan{}(m, tile_max);
        C scale = C(1), tile_sum = C(0);
        if (m_new == mxc_lowest<C>()) { // every score so far is -inf: nothing to add yet
#pragma unroll
            for (int u = 0; u < KPT; ++u) s[u] = C(0);
        } else {
            scale = mxc_exp(C(m - m_new)); // m = -inf: 0 (acc and l are 0 then)
#pragma unroll
            for (int u = 0; u < KPT; ++u) {
                s[u] = mxc_exp(C(s[u] - m_new));
                tile_sum += s[u];
            }
        }
#pragma unroll
        for (int o = 1; o < G; o <<= 1) tile_sum += shfl_xor(tile_sum, o);
        m = m_new;
        l = l * scale + tile_sum;
#pragma unroll
        for (int u = 0; u < KPT; ++u) ps[row][lane + u * G] = s[u];
        block_sync();
#pragma unroll
        for (int c = 0; c < CPT; ++c) acc[c] *= scale;
#pragma unroll 8
        for (int jj = 0; jj < BK; ++jj) {
            const C p = ps[row][jj];
#pragma unroll
            for (int c = 0; c < CPT; ++c) acc[c] += p * vs[jj][lane + c * G];
        }
    }
    if (!live) return;
    T* y = out_ptr<T>(a) + mxc_attention_offset(dims.out_strides, dims, a.in_desc[0], b) + i * dims.out_strides[r - 2];
    const int64_t y_c = dims.out_strides[r - 1];
    const bool masked = m == mxc_lowest<C>(); // a fully masked row (or no keys): 0, as softmax gives
#pragma unroll
    for (int c = 0; c < CPT; ++c) {
        const int64_t col = lane + c * G;
        if (col < dv) y[col * y_c] = T(masked ? C(0) : C(acc[c] / l));
    }
}

// The matrix-unit kernel's configuration (see the top of the file). A block of 128 threads:
// four warps of 32, or two wavefronts of 64 (AMD CDNA), each on its own key tile of a round.
// (Until 2026-11-28 two warps, 64 threads: a round took two tiles, and at batch 1 (ViT-B/16:
// 156 blocks on the H200's 132 SMs) half of an SM's four schedulers had none of its warps.)
constexpr int attention_mma_threads = 128;
// The warps the shared memory is sized for, as the host sees the platform: AMD's matrix units
// are on CDNA, wavefronts of 64 (the kernel checks that where it is built for AMD).
#if defined(__HIP_PLATFORM_AMD__)
constexpr int attention_mma_warps = attention_mma_threads / 64;
#else
constexpr int attention_mma_warps = attention_mma_threads / 32;
#endif
template <class T> constexpr int attention_mma_pad = int(16 / sizeof(T)); // rows padded by 16 bytes
// The values' rows (a row-major B of P V) in float by 32: a TF32 B fragment's 32-bit loads hit
// two lanes a bank with rows of 4 (mod 32) floats, none with 8 (gemm_mma_config's ldb). So
// too O's float rows (HD + 8): its accumulator fragments are loaded and stored every key tile.
template <class T> constexpr int attention_mma_pad_v = int(sizeof(T) == 4 ? 32 / sizeof(T) : 16 / sizeof(T));
// The kernel's dynamic shared memory for T's heads of HD with key tiles of BK, array by array
// (each 32-byte aligned: fragments start on 32 bytes), in this order: q [16][LD], then per warp
// keys [BK][LD] and values [BK][LDV], P [16][LDP], in T; S [16][LDS], O [16][LDO] in float; the rows'
// scale, maximum and sum [16] each.
struct attention_mma_layout {
    int q, k, v, p, s, o, scale, m, l, bytes;
};
MXC_HD constexpr int attention_mma_align(int x) { return (x + 31) / 32 * 32; }
template <class T> MXC_HD constexpr attention_mma_layout attention_mma_layout_of(int hd, int bk) {
    const int e = int(sizeof(T)), w = attention_mma_warps, ld = hd + attention_mma_pad<T>, ldv = hd + attention_mma_pad_v<T>,
              ldp = bk + attention_mma_pad<T>;
    const int rows = attention_rows;
    attention_mma_layout l{};
    l.q = 0;
    l.k = l.q + attention_mma_align(e * rows * ld);
    l.v = l.k + attention_mma_align(e * w * bk * ld);
    l.p = l.v + attention_mma_align(e * w * bk * ldv);
    l.s = l.p + attention_mma_align(e * w * rows * ldp);
    l.o = l.s + attention_mma_align(4 * w * rows * (bk + 4));
    l.scale = l.o + attention_mma_align(4 * w * rows * (hd + 8));
    l.m = l.scale + attention_mma_align(4 * w * rows);
    l.l = l.m + attention_mma_align(4 * w * rows);
    l.bytes = l.l + attention_mma_align(4 * w * rows);
    return l;
}
// The most shared memory a block of it takes: AMD, 48 KiB (gfx90a has 64 for a workgroup);
// NVIDIA's matrix units (sm_80 on) allow 99 KiB or more (dynamic, past 48 KiB).
#if defined(__HIP_PLATFORM_AMD__)
constexpr int attention_mma_max_bytes = 48 * 1024;
#else
constexpr int attention_mma_max_bytes = 96 * 1024;
#endif
// The key tile of T's heads of HD: the larger of 32 and 16 that fits (0: none does, or T has no
// matrix-unit tile). sm_90: half heads of 64 take 32 (71 KiB), of 128 16 (81 KiB); float heads
// of 64 16 (68 KiB), of 128 none.
template <class T> constexpr int attention_mma_key_tile(int hd) {
    if constexpr (!std::is_same<T, mxc_half>::value && !std::is_same<T, float>::value) return 0;
    return hd > 128 || hd % 16 != 0                                               ? 0
           : attention_mma_layout_of<T>(hd, 32).bytes <= attention_mma_max_bytes ? 32
           : attention_mma_layout_of<T>(hd, 16).bytes <= attention_mma_max_bytes ? 16
                                                                                   : 0;
}

// 16 bytes: the vector the matrix-unit kernel stages q, the keys and the values by, copied from
// global to shared memory as they are, so held as four 32-bit words whatever T is. (As eight
// halves, zeroing a chunk and replacing it by a load took a byte permute per half: nvcc 13
// gave the half kernel's round 305 PRMT instructions, sm_90.)
struct alignas(16) attention_chunk { uint32_t w[4]; };

// Whether the kernel may stage by such vectors: every head contiguous (its dim's stride 1, its
// size a whole number of vectors), every other stride a whole number too, the bases aligned.
template <class T> inline bool attention_vectors(const mxc_kargs& k, const mxc_attention_dims& dims) {
    constexpr int64_t V = 16 / sizeof(T);
    if (dims.d % V != 0 || dims.dv % V != 0) return false;
    for (int i = 0; i < 3; ++i) {
        const mxc_desc& x = k.in_desc[i];
        const int fast = i == 1 ? x.rank - 2 : x.rank - 1; // kt [..., D, Lk]: along D
        if (!aligned_16(k.in[i]) || x.strides[fast] != 1) return false;
        for (int dim = 0; dim < x.rank; ++dim)
            if (dim != fast && x.strides[dim] % V != 0) return false;
    }
    return true;
}

template <class T, class F, int HD, int BK>
__global__ void MXC_LAUNCH_BOUNDS(attention_mma_threads)
    attention_mma_kernel(dev_args a, mxc_attention_dims dims, int64_t skip, bool vec, F f) {
    grid_dependency_sync();
    using mt = mma_tile<T>;
    using C = float; // the accumulators' type
    constexpr int BQ = attention_rows, NT = attention_mma_threads, PAD = attention_mma_pad<T>;
    constexpr int LD = HD + PAD, LDV = HD + attention_mma_pad_v<T>, LDP = BK + PAD, LDS = BK + 4, LDO = HD + 8; // rows of 16-byte multiples: fragments stay 32-byte aligned
    constexpr int PS = HD / mt::K >= 8 ? 4 : HD / mt::K >= 4 ? 2 : 1; // partial sums of a score fragment
    static_assert(BK % 16 == 0 && HD % 16 == 0, "attention_mma_kernel: whole fragments");
#if defined(__AMDGCN_WAVEFRONT_SIZE)
    static_assert(NT / __AMDGCN_WAVEFRONT_SIZE <= attention_mma_warps, "attention_mma_kernel: the shared memory is sized for wavefronts of 64");
#endif
    constexpr attention_mma_layout L = attention_mma_layout_of<T>(HD, BK);
    unsigned char* const sm = dynamic_shared<unsigned char>();
    T(*const qs)[LD] = reinterpret_cast<T(*)[LD]>(sm + L.q);
    T(*const ks)[BK][LD] = reinterpret_cast<T(*)[BK][LD]>(sm + L.k);
    T(*const vs)[BK][LDV] = reinterpret_cast<T(*)[BK][LDV]>(sm + L.v);
    T(*const ps)[BQ][LDP] = reinterpret_cast<T(*)[BQ][LDP]>(sm + L.p);
    C(*const ss)[BQ][LDS] = reinterpret_cast<C(*)[BQ][LDS]>(sm + L.s);
    C(*const os)[BQ][LDO] = reinterpret_cast<C(*)[BQ][LDO]>(sm + L.o);
    C(*const row_scale)[BQ] = reinterpret_cast<C(*)[BQ]>(sm + L.scale);
    C(*const row_m)[BQ] = reinterpret_cast<C(*)[BQ]>(sm + L.m);
    C(*const row_l)[BQ] = reinterpret_cast<C(*)[BQ]>(sm + L.l);
    const int tid = static_cast<int>(threadIdx.x), ws = mma_warp_size(), nw = NT / ws, warp = tid / ws, lane = tid % ws;
    const int row = lane % BQ, sub = lane / BQ, G = ws / BQ; // the softmax's lanes: G a row
    const int64_t blocks_q = (dims.lq + BQ - 1) / BQ, b = blockIdx.x / blocks_q, i0 = (blockIdx.x % blocks_q) * BQ;
    const int64_t i = i0 + row;
    const bool live = i < dims.lq;
    const attention_operands<T> o(a, dims, b);
    const int64_t d = dims.d, dv = dims.dv, lk = dims.lk;
    using chunk = attention_chunk;
    constexpr int V = 16 / sizeof(T), CH = HD / V; // a row's vectors
    if (vec) {
        for (int idx = tid; idx < BQ * CH; idx += NT) {
            const int ii = idx / CH, dd = idx % CH * V;
            chunk x{};
            if (i0 + ii < dims.lq && dd < d) x = vector_load<chunk>(o.q + (i0 + ii) * o.q_i + dd);
            vector_store(&qs[ii][dd], x);
        }
    } else {
        for (int idx = tid; idx < BQ * HD; idx += NT) {
            const int ii = idx / HD, dd = idx % HD;
            qs[ii][dd] = i0 + ii < dims.lq && dd < d ? o.q[(i0 + ii) * o.q_i + dd * o.q_d] : T(0.0f);
        }
    }
    for (int idx = lane; idx < BQ * HD; idx += ws) os[warp][idx / HD][idx % HD] = C(0);
    // q's fragments, loaded once where they take at most 32 registers a lane (half heads: every
    // round's scores multiply the same 16 rows); float's TF32 pairs would take 64 and are loaded
    // again each round (with them kept, ptxas gave the float kernel 244-255 registers where it
    // had 165-168: two blocks an SM where three fit, for 15% fewer instructions a round)
    constexpr bool keep_q = sizeof(typename mt::frag_a) * (HD / mt::K) <= 128;
    typename mt::frag_a qa[keep_q ? HD / mt::K : 1];
    if constexpr (keep_q) {
        block_sync(); // q is stored
#pragma unroll
        for (int k0 = 0; k0 < HD; k0 += mt::K) mt::load_a(qa[k0 / mt::K], &qs[0][k0], LD);
    }
    const attention_body<T, F> body(a, dims, b, i, live); // this lane's row
    C m = mxc_lowest<C>(), l = C(0); // the row's running maximum and sum (this warp's keys)
    for (int64_t r0 = 0; r0 < lk; r0 += int64_t(nw) * BK) {
        block_sync(); // the previous round's keys and values are read (the first: q and O written)
        if (vec) {
            // a thread's chunks of the round, every load issued before the first store (a
            // load stored at once to shared memory waits for its data: one memory latency a
            // chunk in a row). The round's nw * BK keys are rows rr = tid / CH + u * RS of one
            // array (warp w's tile is rows w BK ..), column dd the same for every u: one
            // pointer a thread and a stride, where each chunk worked out its warp, key and
            // 64-bit address (sm_90: 170 of the float round's 1900 instructions, 109 of the
            // half one's 1369)
            static_assert(NT % CH == 0, "attention_mma_kernel: a pass of whole rows");
            constexpr int RS = NT / CH, KV = (attention_mma_warps * BK + RS - 1) / RS;
            const int r_t = tid / CH, dd = tid % CH * V;
            const int64_t left = lk - r0;
            const int avail = left < nw * BK ? int(left) : nw * BK; // the round's keys
            const T* kp = o.kt + (r0 + r_t) * o.k_j + dd;
            const T* vp = o.v + (r0 + r_t) * o.v_j + dd;
            const int64_t kstep = RS * o.k_j, vstep = RS * o.v_j;
            chunk kx[KV], vx[KV];
#pragma unroll
            for (int u = 0; u < KV; ++u) {
                const bool in = r_t + u * RS < avail;
                kx[u] = in && dd < d ? vector_load<chunk>(kp) : chunk{};
                vx[u] = in && dd < dv ? vector_load<chunk>(vp) : chunk{};
                kp += kstep;
                vp += vstep;
            }
            T* const k_rows = &ks[0][0][0];
            T* const v_rows = &vs[0][0][0];
#pragma unroll
            for (int u = 0; u < KV; ++u) {
                const int rr = r_t + u * RS;
                if (rr >= nw * BK) break;
                vector_store(k_rows + rr * LD + dd, kx[u]);
                vector_store(v_rows + rr * LDV + dd, vx[u]);
            }
        } else {
            for (int idx = tid; idx < nw * BK * HD; idx += NT) {
                const int w = idx / (BK * HD), jj = idx / HD % BK, dd = idx % HD;
                const int64_t j = r0 + w * BK + jj;
                ks[w][jj][dd] = j < lk && dd < d ? o.kt[dd * o.k_d + j * o.k_j] : T(0.0f);
                vs[w][jj][dd] = j < lk && dd < dv ? o.v[j * o.v_j + dd * o.v_c] : T(0.0f);
            }
        }
        block_sync();
        const int64_t j0 = r0 + int64_t(warp) * BK; // this warp's keys
#pragma unroll
        for (int n0 = 0; n0 < BK; n0 += 16) { // S = q kt, 16 keys a fragment
            // the head's K steps in PS partial sums, added at the end: one accumulator took
            // them as one chain of dependent products (float heads of 64: 24, three a step)
            typename mt::frag_acc acc[PS];
#pragma unroll
            for (int p = 0; p < PS; ++p) mt::zero(acc[p]);
#pragma unroll
            for (int k0 = 0; k0 < HD; k0 += mt::K) {
                typename mt::frag_bt fb;
                mt::load_bt(fb, &ks[warp][n0][k0], LD);
                if constexpr (keep_q) {
                    mt::mma(acc[k0 / mt::K % PS], qa[k0 / mt::K], fb);
                } else {
                    typename mt::frag_a fa;
                    mt::load_a(fa, &qs[0][k0], LD);
                    mt::mma(acc[k0 / mt::K % PS], fa, fb);
                }
            }
#pragma unroll
            for (int p = 1; p < PS; ++p) mt::add(acc[0], acc[p]);
            mt::store(&ss[warp][0][n0], LDS, acc[0]);
        }
        block_sync(); // the scores are stored (by other lanes)
        // this lane's scores of its row (keys sub, sub + G, ...: G = 2 lanes a row on warps of
        // 32, 4 on wavefronts of 64) in registers, the loop unrolled so that the body's reads of
        // extra inputs (a mask, a scale) are in flight together
        constexpr int SL = BK / 2;
        C sv[SL];
        C tile_max = mxc_lowest<C>();
#pragma unroll
        for (int u = 0; u < SL; ++u) {
            const int jj = sub + u * G;
            const int64_t j = j0 + jj;
            sv[u] = jj < BK && live && j < lk ? body(a, skip, f, ss[warp][row][jj], j) : mxc_lowest<C>();
            tile_max = mxc_op_max_nan{}(tile_max, sv[u]);
        }
        for (int o = BQ; o < ws; o <<= 1) tile_max = mxc_op_max_nan{}(tile_max, shfl_xor(tile_max, o));
        const C m_new = mxc_op_max_nan{}(m, tile_max);
        C scale = C(1), tile_sum = C(0);
        if (m_new == mxc_lowest<C>()) { // every score so far is -inf: nothing to add yet
            for (int jj = sub; jj < BK; jj += G) ps[warp][row][jj] = T(0.0f);
        } else {
            scale = mxc_exp(C(m - m_new)); // m = -inf: 0 (O and l are 0 then)
#pragma unroll
            for (int u = 0; u < SL; ++u) {
                const int jj = sub + u * G;
                if (jj >= BK) continue;
                const C p = mxc_exp(C(sv[u] - m_new));
                tile_sum += p;
                ps[warp][row][jj] = T(p);
            }
        }
        for (int o = BQ; o < ws; o <<= 1) tile_sum += shfl_xor(tile_sum, o);
        m = m_new;
        l = l * scale + tile_sum;
        if (sub == 0) row_scale[warp][row] = scale;
        block_sync(); // P and the rows' scales are stored
        // P's fragments, once for every output fragment (they were loaded, and split, HD / 16
        // times), before the rescaling so that their loads overlap it
        typename mt::frag_a pa[BK / mt::K];
#pragma unroll
        for (int k0 = 0; k0 < BK; k0 += mt::K) mt::load_a(pa[k0 / mt::K], &ps[warp][0][k0], LDP);
        // O's rows times their scales, four floats a shared read and write (one float a
        // time took about 200 of a float round's 1876 sm_90 instructions)
        static_assert(HD % 4 == 0 && LDO % 4 == 0, "attention_mma_kernel: O's rows in 16-byte chunks");
#pragma unroll
        for (int base = 0; base < BQ * HD / 4; base += ws) { // (a count the compiler knows where ws is 32)
            const int idx = base + lane, r = idx / (HD / 4), c = idx % (HD / 4) * 4;
            if (idx >= BQ * HD / 4) break;
            const C sc = row_scale[warp][r];
            struct alignas(16) quad { C v[4]; };
            quad x = vector_load<quad>(&os[warp][r][c]);
#pragma unroll
            for (int e = 0; e < 4; ++e) x.v[e] *= sc;
            vector_store(&os[warp][r][c], x);
        }
        block_sync(); // O is rescaled (by other lanes)
#pragma unroll
        for (int n0 = 0; n0 < HD; n0 += 16) { // O += P v, 16 output columns a fragment
            // float: the tile's products into fresh accumulators, added to O with rounding
            // (the matrix unit's sums truncate: mma_tile<float>::rz_sums; O's chain runs
            // through every key tile)
            constexpr bool fresh = mt::rz_sums && std::is_same<T, float>::value;
            typename mt::frag_acc acc;
            if constexpr (fresh) mt::zero(acc);
            else mt::load_acc(acc, &os[warp][0][n0], LDO);
#pragma unroll
            for (int k0 = 0; k0 < BK; k0 += mt::K) {
                typename mt::frag_b fb;
                mt::load_b(fb, &vs[warp][k0][n0], LDV);
                mt::mma(acc, pa[k0 / mt::K], fb);
            }
            if constexpr (fresh) {
                typename mt::frag_acc o;
                mt::load_acc(o, &os[warp][0][n0], LDO);
                mt::add(o, acc);
                mt::store(&os[warp][0][n0], LDO, o);
            } else {
                mt::store(&os[warp][0][n0], LDO, acc);
            }
        }
    }
    if (sub == 0) {
        row_m[warp][row] = m;
        row_l[warp][row] = l;
    }
    block_sync(); // every warp's O, m and l are stored
    T* y = out_ptr<T>(a) + mxc_attention_offset(dims.out_strides, dims, a.in_desc[0], b);
    const int64_t y_i = dims.out_strides[dims.rank - 2], y_c = dims.out_strides[dims.rank - 1];
    for (int idx = tid; idx < BQ * HD; idx += NT) {
        const int rr = idx / HD, c = idx % HD;
        if (i0 + rr >= dims.lq || c >= dv) continue;
        C mx = mxc_lowest<C>();
        for (int w = 0; w < nw; ++w) mx = mxc_op_max_nan{}(mx, row_m[w][rr]);
        C sum = C(0), out = C(0);
        if (mx != mxc_lowest<C>()) // else a fully masked row (or no keys): 0, as softmax gives
            for (int w = 0; w < nw; ++w)
                if (row_m[w][rr] != mxc_lowest<C>()) { // a warp that saw only -inf adds nothing
                    const C e = mxc_exp(C(row_m[w][rr] - mx));
                    sum += row_l[w][rr] * e;
                    out += os[w][rr][c] * e;
                }
        y[(i0 + rr) * y_i + c * y_c] = T(mx == mxc_lowest<C>() ? C(0) : C(out / sum));
    }
}

// fits: the heads are within HD. A call whose heads exceed the bound it names (only a
// hand-written one: the generated code names a bound that fits) launches an empty grid, an
// invalid configuration that the run reports (hipGetLastError), instead of reading past the
// shared arrays. MMA: attention_mma_kernel where it has a key tile for T and HD.
template <class T, int HD, bool MMA, class F>
void attention_launch(const mxc_kargs& k, const mxc_attention_dims& dims, hipStream_t s, F f, bool fits = true) {
    using C = mxc_compute_t<T>;
    const int64_t grid = fits ? dims.batches * ((dims.lq + attention_rows - 1) / attention_rows) : 0;
    constexpr int BK_MMA = attention_mma_key_tile<T>(HD);
    constexpr int BK = attention_key_tile<C>(HD);
    if constexpr (MMA && BK_MMA > 0) {
        constexpr int bytes = attention_mma_layout_of<T>(HD, BK_MMA).bytes;
        allow_dynamic_shared<attention_mma_kernel<T, F, HD, BK_MMA>>(bytes);
        hipLaunchKernelGGL((attention_mma_kernel<T, F, HD, BK_MMA>), dim3(static_cast<unsigned>(grid)), dim3(attention_mma_threads), bytes,
                           s, pack(k), dims, int64_t(1 + k.ip[0]), attention_vectors<T>(k, dims), f);
    } else if constexpr (BK > 0) {
        hipLaunchKernelGGL((attention_kernel<T, F, HD, BK>), dim3(static_cast<unsigned>(grid)), dim3(attention_threads), 0, s,
                           pack(k), dims, int64_t(1 + k.ip[0]), f);
    }
}

// HD: the bound on the head sizes the generated code names (codegen/gemm_choice.cpp); 0 picks
// it here. MMA: the matrix-unit kernel where it takes the heads (the generated code names it
// where the target has the units).
template <class T, int HD = 0, bool MMA = false, class F> void attention_expr(const mxc_kargs& k, hipStream_t s, F f) {
    const mxc_attention_dims dims = mxc_attention_dims_of(k.in_desc, *k.out_desc, k.ip);
    if (dims.batches == 0 || dims.lq == 0 || dims.dv == 0) return;
    const int64_t head = dims.d > dims.dv ? dims.d : dims.dv;
    if constexpr (HD > 0) {
        attention_launch<T, HD, MMA>(k, dims, s, f, head <= HD);
    } else if (head <= 64) {
        attention_launch<T, 64, MMA>(k, dims, s, f);
    } else if (head <= 128) {
        attention_launch<T, 128, MMA>(k, dims, s, f);
    } else {
        attention_launch<T, 256, MMA>(k, dims, s, f);
    }
}
template <class T, int HD = 0, bool MMA = false> void attention(const mxc_kargs& k, hipStream_t s) {
    attention_expr<T, HD, MMA>(k, s, program_body{});
}

} // namespace hip
} // namespace mxc
