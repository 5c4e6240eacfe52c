// The host emulator's versions of the two vendor matrix-unit APIs that templates/hip/mma.hpp
// uses, so that CI runs both of its vendor paths (and their lane mappings) without a GPU.
// Included at the end of the emulator's hip/hip_runtime.h: it uses the emulator's warp
// operations (__shfl, __syncwarp, __lane_id) and its failure report (mxc_emu::fail_block).
//
// Which path templates/hip/mma.hpp compiles is chosen with -DMXC_EMU_MMA=wmma or
// -DMXC_EMU_MMA=mfma (default: its generic per-lane path). The MFMA path needs 64-lane
// wavefronts: run with MXC_EMU_WARP=64.
//
// - nvcuda::wmma (NVIDIA's <mma.h> API, 16x16x16 half): fragments are opaque on a GPU, so here
//   every lane holds the whole tile; load_matrix_sync, mma_sync and store_matrix_sync are
//   warp-collective (every lane of the warp must call them, with the same pointer and stride:
//   checked), and the documented preconditions are checked: the pointer 256-bit (32-byte)
//   aligned, ldm a multiple of 16 bytes. A store writes each element from one lane only, so
//   reading another lane's elements without a barrier is not hidden.
// - mma.sync m16n8k8 TF32 (mxc_emu::mma_m16n8k8_tf32, templates/hip/mma.hpp's fp32 products):
//   the PTX lane layout; only the top 19 bits of each operand are used, as the hardware does,
//   so that an operand not rounded to TF32 first loses its low bits.
// - __builtin_amdgcn_mfma_f32_16x16x16f16 and _16x16x4f32: the exact lane layout of the AMD instruction
//   (see templates/hip/mma.hpp), the operands gathered from the other lanes with __shfl.
#pragma once

#if defined(MXC_EMU_MMA)
#define MXC_EMU_MMA_ID_wmma 1
#define MXC_EMU_MMA_ID_mfma 2
#define MXC_EMU_MMA_CAT2(a, b) a##b
#define MXC_EMU_MMA_CAT(a, b) MXC_EMU_MMA_CAT2(a, b)
#if MXC_EMU_MMA_CAT(MXC_EMU_MMA_ID_, MXC_EMU_MMA) == 1
#define MXC_EMU_MMA_WMMA 1
#elif MXC_EMU_MMA_CAT(MXC_EMU_MMA_ID_, MXC_EMU_MMA) == 2
#define MXC_EMU_MMA_MFMA 1
#else
#error "MXC_EMU_MMA must be wmma or mfma"
#endif
#endif

namespace mxc_emu {

// Fails the block unless every lane of the warp passes the same (p, ld) to the warp-collective
// `what`, p is 32-byte aligned and ld * elem_bytes a multiple of 16 (CUDA's wmma rules).
inline void check_wmma_args(const char* what, const void* p, unsigned ld, size_t elem_bytes) {
    struct args {
        const void* p;
        uint64_t ld;
    } mine{p, ld};
    args first = __shfl(mine, 0);
    if (first.p != mine.p || first.ld != mine.ld)
        fail_block("%s: lane %d passes another pointer or stride than lane 0 (warp-collective)", what,
                   static_cast<int>(__lane_id()));
    if (reinterpret_cast<uintptr_t>(p) % 32) fail_block("%s: the pointer is not 256-bit aligned", what);
    if (ld * elem_bytes % 16)
        fail_block("%s: ldm %u is not a multiple of 16 bytes", what, ld);
}

} // namespace mxc_emu

namespace nvcuda {
namespace wmma {

struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

template <class Use, int m, int n, int k> struct tile_shape;
template <> struct tile_shape<matrix_a, 16, 16, 16> { static constexpr int rows = 16, cols = 16; };
template <> struct tile_shape<matrix_b, 16, 16, 16> { static constexpr int rows = 16, cols = 16; };
template <> struct tile_shape<accumulator, 16, 16, 16> { static constexpr int rows = 16, cols = 16; };

// The whole rows x cols tile, row-major, in every lane.
template <class Use, int m, int n, int k, class T, class Layout = void> struct fragment {
    static constexpr int rows = tile_shape<Use, m, n, k>::rows, cols = tile_shape<Use, m, n, k>::cols;
    static constexpr int num_elements = rows * cols;
    T x[num_elements];
};


template <class U, int m, int n, int k, class T, class L> inline void fill_fragment(fragment<U, m, n, k, T, L>& f, const T& v) {
    for (auto& e : f.x) e = v;
}

template <class Tile, class T> inline void load_tile(Tile& f, const T* p, unsigned ld, bool col_major) {
    for (int r = 0; r < Tile::rows; ++r)
        for (int c = 0; c < Tile::cols; ++c) f.x[r * Tile::cols + c] = col_major ? p[c * ld + r] : p[r * ld + c];
}

// Multiplicands (the layout is part of the type).
template <class U, int m, int n, int k, class T, class L>
inline void load_matrix_sync(fragment<U, m, n, k, T, L>& f, const T* p, unsigned ldm) {
    static_assert(!std::is_same<U, accumulator>::value, "an accumulator load takes a layout_t");
    mxc_emu::check_wmma_args("wmma::load_matrix_sync", p, ldm, sizeof(*p));
    load_tile(f, p, ldm, std::is_same<L, col_major>::value);
}
// Accumulators.
template <int m, int n, int k, class T>
inline void load_matrix_sync(fragment<accumulator, m, n, k, T, void>& f, const T* p, unsigned ldm, layout_t layout) {
    mxc_emu::check_wmma_args("wmma::load_matrix_sync", p, ldm, sizeof(T));
    load_tile(f, p, ldm, layout == mem_col_major);
}
template <int m, int n, int k, class T>
inline void store_matrix_sync(T* p, const fragment<accumulator, m, n, k, T, void>& f, unsigned ldm, layout_t layout) {
    using tile = fragment<accumulator, m, n, k, T, void>;
    mxc_emu::check_wmma_args("wmma::store_matrix_sync", p, ldm, sizeof(T));
    const int w = warpSize;
    for (int i = static_cast<int>(__lane_id()); i < tile::num_elements; i += w) {
        const int r = i / tile::cols, c = i % tile::cols;
        (layout == mem_col_major ? p[c * ldm + r] : p[r * ldm + c]) = f.x[i];
    }
}

// x rounded toward zero to float.
inline float round_toward_zero(double x) {
    float f = static_cast<float>(x);
    if (fabs(static_cast<double>(f)) > fabs(x)) f = nextafterf(f, 0.0f);
    return f;
}

// d = a * b + c. An element's k products (exact: 11 x 11 significant bits at most) and c are
// summed, then rounded toward zero to fp32: the hardware's sums truncate (Fasi, Higham,
// Mikaitis and Pranesh, "Numerical behavior of NVIDIA tensor cores", PeerJ CS 2021: no
// rounding of the aligned addends, the result normalised toward zero), which biases a long
// chain of accumulations toward zero, where an FMA loop's rounding errors cancel. Here the sum
// is exact (double) before its one truncation: the bias of the chain, not every bit of it.
// (d may be c.)
template <int m, int n, int k, class TA, class LA, class TB, class LB, class TC>
inline void mma_sync(fragment<accumulator, m, n, k, TC, void>& d, const fragment<matrix_a, m, n, k, TA, LA>& a,
                     const fragment<matrix_b, m, n, k, TB, LB>& b, const fragment<accumulator, m, n, k, TC, void>& c) {
    __syncwarp(); // warp-collective: every lane takes part
    float r[m * n];
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            double s = static_cast<double>(static_cast<float>(c.x[i * n + j]));
            for (int q = 0; q < k; ++q)
                s += static_cast<double>(static_cast<float>(a.x[i * k + q])) * static_cast<double>(static_cast<float>(b.x[q * n + j]));
            r[i * n + j] = round_toward_zero(s);
        }
    for (int i = 0; i < m * n; ++i) d.x[i] = static_cast<TC>(r[i]);
}

} // namespace wmma
} // namespace nvcuda

namespace mxc_emu {
// mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 on a warp of 32, d += a b, with the lane
// layout templates/hip/mma.hpp gives (mma_m16n8k8_tf32: lane l, g = l / 4, t = l % 4, holds
// A[g][t], A[g + 8][t], A[g][t + 4], A[g + 8][t + 4], B[t][g], B[t + 4][g] and D[g][2t],
// D[g][2t + 1], D[g + 8][2t], D[g + 8][2t + 1]). The lanes put their operands in their warp's
// slot of a scratch (the block's fibers share an OS thread), meet (__syncwarp), each sums its
// four outputs from the whole tile, and meet again before the slot can be reused. As mma_sync
// above: the operands' top 19 bits, each output's 8 products and c summed exactly, then rounded
// toward zero.
inline void mma_m16n8k8_tf32(float (&d)[4], const float (&a)[4], const float (&b)[2]) {
    if (warpSize != 32)
        fail_block("mma.m16n8k8 needs warps of 32 lanes (MXC_EMU_WARP=32), warpSize is %d", static_cast<int>(warpSize));
    struct slot {
        float a[32][4], b[32][2];
    };
    thread_local slot slots[max_threads / 32];
    const unsigned tid = sched().cur->tid, l = tid % 32;
    slot& s = slots[tid / 32];
    for (int i = 0; i < 4; ++i) s.a[l][i] = a[i];
    for (int i = 0; i < 2; ++i) s.b[l][i] = b[i];
    __syncwarp();
    // A[r][k] and B[k][c] from the lanes holding them
    // What the matrix unit reads of a TF32 operand: its top 19 bits.
    auto tf32 = [](float v) {
        uint32_t u;
        memcpy(&u, &v, 4);
        u &= 0xffffe000u;
        memcpy(&v, &u, 4);
        return v;
    };
    auto at = [&](int r, int k) { return tf32(s.a[(r % 8) * 4 + k % 4][(r / 8) + 2 * (k / 4)]); };
    auto bt = [&](int k, int c) { return tf32(s.b[c * 4 + k % 4][k / 4]); };
    const int g = static_cast<int>(l) / 4, t = static_cast<int>(l) % 4;
    float r[4];
    for (int i = 0; i < 4; ++i) {
        const int row = g + 8 * (i / 2), col = 2 * t + i % 2;
        double sum = static_cast<double>(d[i]);
        for (int k = 0; k < 8; ++k) sum += static_cast<double>(at(row, k)) * static_cast<double>(bt(k, col));
        r[i] = nvcuda::wmma::round_toward_zero(sum);
    }
    __syncwarp(); // every lane has read the slot
    for (int i = 0; i < 4; ++i) d[i] = r[i];
}

// Fails the block unless the wavefront has 64 lanes and the broadcast controls are 0 (not emulated).
inline void check_mfma_args(const char* what, int cbsz, int abid, int blgp) {
    if (warpSize != 64)
        fail_block("%s needs 64-lane wavefronts (MXC_EMU_WARP=64), warpSize is %d", what, static_cast<int>(warpSize));
    if (cbsz || abid || blgp) fail_block("%s: cbsz/abid/blgp are not emulated", what);
}
typedef _Float16 mfma_half4 __attribute__((__vector_size__(4 * sizeof(_Float16))));
typedef float mfma_float4 __attribute__((__vector_size__(4 * sizeof(float))));
} // namespace mxc_emu

// v_mfma_f32_16x16x16f16 on a 64-lane wavefront: D = A * B + C with A, B 16x16 fp16 and C, D
// 16x16 fp32. Lane l holds A[l % 16][4 * (l / 16) + i], B[4 * (l / 16) + i][l % 16] and
// C, D[4 * (l / 16) + i][l % 16], i = 0..3. Each lane gathers its 4 rows of A and its column
// of B from the lanes holding them, and sums in fp32 in k order.
inline mxc_emu::mfma_float4 __builtin_amdgcn_mfma_f32_16x16x16f16(mxc_emu::mfma_half4 a, mxc_emu::mfma_half4 b,
                                                                  mxc_emu::mfma_float4 c, int cbsz, int abid, int blgp) {
    mxc_emu::check_mfma_args("__builtin_amdgcn_mfma_f32_16x16x16f16", cbsz, abid, blgp);
    const int l = static_cast<int>(__lane_id()), col = l % 16, row0 = 4 * (l / 16);
    float bcol[16];
    for (int g = 0; g < 4; ++g) {
        mxc_emu::mfma_half4 v = __shfl(b, col + 16 * g); // B[4g + i][col]
        for (int i = 0; i < 4; ++i) bcol[4 * g + i] = static_cast<float>(v[i]);
    }
    mxc_emu::mfma_float4 d;
    for (int i = 0; i < 4; ++i) {
        float s = c[i];
        for (int g = 0; g < 4; ++g) {
            mxc_emu::mfma_half4 v = __shfl(a, row0 + i + 16 * g); // A[row0 + i][4g + e]
            for (int e = 0; e < 4; ++e) s = fmaf(static_cast<float>(v[e]), bcol[4 * g + e], s);
        }
        d[i] = s;
    }
    return d;
}

// v_mfma_f32_16x16x4f32 on a 64-lane wavefront: D = A * B + C with A 16x4, B 4x16 fp32 and C, D
// 16x16 fp32. Lane l holds A[l % 16][l / 16], B[l / 16][l % 16] and C, D[4 * (l / 16) + i][l % 16].
inline mxc_emu::mfma_float4 __builtin_amdgcn_mfma_f32_16x16x4f32(float a, float b, mxc_emu::mfma_float4 c, int cbsz, int abid,
                                                                 int blgp) {
    mxc_emu::check_mfma_args("__builtin_amdgcn_mfma_f32_16x16x4f32", cbsz, abid, blgp);
    const int l = static_cast<int>(__lane_id()), col = l % 16, row0 = 4 * (l / 16);
    float bcol[4];
    for (int q = 0; q < 4; ++q) bcol[q] = __shfl(b, col + 16 * q); // B[q][col]
    mxc_emu::mfma_float4 d;
    for (int i = 0; i < 4; ++i) {
        float s = c[i];
        for (int q = 0; q < 4; ++q) s = fmaf(__shfl(a, row0 + i + 16 * q), bcol[q], s); // A[row0 + i][q]
        d[i] = s;
    }
    return d;
}
