// attention (templates/common/attention.hpp for the op) in one kernel, the scores never
// stored: a block of 128 threads per (batch, 16 query rows), 8 threads per row. The block keeps
// its 16 rows of q in shared memory and walks the keys in tiles of BK: it stages the tile's
// keys and values in shared memory; each thread computes BK/8 of its row's scores and applies
// the body (scale, mask, ...) to them; the row's 8 threads agree on the tile's maximum and the
// sum of exponentials (shuffles among 8 neighbouring lanes: within a warp of 32 or 64), rescale
// the running sum and outputs when the maximum grows (online softmax: Milakov and Gimelshein,
// 2018; Dao et al., FlashAttention, 2022), and add the tile's exponentials times its values to
// the row's outputs, HD/8 a thread in registers. The outputs are divided by the sum at the end.
// Everything is computed in mxc_compute_t<T> (fp32 for half types). HD is a bound on both head
// sizes (64, 128 or 256; 0: chosen at run time); the generated code names it.
#pragma once
#include "templates/common/attention.hpp"
#include "templates/common/pointwise_program.hpp"
#include "templates/common/team.hpp"
#include "templates/hip/body.hpp"
#include "templates/hip/common.hpp"

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

template <class T, class F, int HD, int BK>
__global__ void MXC_LAUNCH_BOUNDS(attention_threads) attention_kernel(dev_args a, mxc_attention_dims dims, int64_t skip, F f) {
    grid_dependency_sync();
    using C = mxc_compute_t<T>;
    constexpr int BQ = attention_rows, G = attention_lanes, KPT = BK / G, CPT = HD / G, NT = attention_threads;
    constexpr int arity = body_arity<F>::value; // x[0] the product, x[1 + e] extra input 3 + e
    __shared__ C qs[BQ][HD + 1];
    __shared__ C ks[BK][HD + 1];
    __shared__ C vs[BK][HD];
    __shared__ C ps[BQ][BK + 1];
    const int tid = static_cast<int>(threadIdx.x), row = tid / G, lane = tid % G, r = dims.rank;
    const int64_t blocks_q = (dims.lq + BQ - 1) / BQ, b = blockIdx.x / blocks_q, i0 = (blockIdx.x % blocks_q) * BQ;
    const int64_t i = i0 + row;
    const bool live = i < dims.lq;
    const mxc_desc &qd = a.in_desc[0], &kd = a.in_desc[1], &vd = a.in_desc[2];
    const T* q = in_ptr<T>(a, 0) + mxc_attention_offset(qd.strides, dims, qd, b);
    const T* kt = in_ptr<T>(a, 1) + mxc_attention_offset(kd.strides, dims, qd, b);
    const T* v = in_ptr<T>(a, 2) + mxc_attention_offset(vd.strides, dims, qd, b);
    const int64_t d = dims.d, dv = dims.dv, lk = dims.lk;
    // the strides the loops step by, read once (indexed by the rank, they would be read from
    // local memory in every iteration)
    const int64_t q_i = qd.strides[r - 2], q_d = qd.strides[r - 1], k_d = kd.strides[r - 2], k_j = kd.strides[r - 1],
                  v_j = vd.strides[r - 2], v_c = vd.strides[r - 1];
    for (int idx = tid; idx < BQ * HD; idx += NT) {
        const int ii = idx / HD, dd = idx % HD;
        qs[ii][dd] = i0 + ii < dims.lq && dd < d ? C(q[(i0 + ii) * q_i + dd * q_d]) : C(0);
    }
    const T* erow[arity > 1 ? arity - 1 : 1] = {}; // this row of each extra input
    int64_t estep[arity > 1 ? arity - 1 : 1] = {};
#pragma unroll
    for (int e = 0; e + 1 < arity; ++e)
        if (3 + e < a.n_in && live) {
            const mxc_desc& ed = a.in_desc[3 + e];
            erow[e] = in_ptr<T>(a, 3 + e) + mxc_attention_offset(ed.strides, dims, qd, b) + i * ed.strides[r - 2];
            estep[e] = ed.strides[r - 1];
        }
    C m = mxc_lowest<C>(), l = C(0), acc[CPT];
#pragma unroll
    for (int c = 0; c < CPT; ++c) acc[c] = C(0);
    for (int64_t j0 = 0; j0 < lk; j0 += BK) {
        block_sync(); // the previous tile's keys, values and exponentials are read (the first: nothing)
        for (int idx = tid; idx < BK * HD; idx += NT) {
            const int jj = idx / HD, dd = idx % HD;
            const int64_t j = j0 + jj;
            ks[jj][dd] = j < lk && dd < d ? C(kt[dd * k_d + j * k_j]) : C(0);
            vs[jj][dd] = j < lk && dd < dv ? C(v[j * v_j + dd * v_c]) : C(0);
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
                C x[arity > 0 ? arity : 1];
                x[0] = s[u];
#pragma unroll
                for (int e = 0; e + 1 < arity; ++e)
                    if (3 + e < a.n_in) x[1 + e] = C(erow[e][j * estep[e]]);
                if constexpr (std::is_same<F, program_body>::value) s[u] = mxc_pw_run(a.ip + skip, a.n_ip - skip, x);
                else s[u] = f(x);
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
    T* y = out_ptr<T>(a) + mxc_attention_offset(dims.out_strides, dims, qd, b) + i * dims.out_strides[r - 2];
    const int64_t y_c = dims.out_strides[r - 1];
    const bool masked = m == mxc_lowest<C>(); // a fully masked row (or no keys): 0, as softmax gives
#pragma unroll
    for (int c = 0; c < CPT; ++c) {
        const int64_t col = lane + c * G;
        if (col < dv) y[col * y_c] = T(masked ? C(0) : C(acc[c] / l));
    }
}

// fits: the heads are within HD. A call whose heads exceed the bound it names (only a
// hand-written one: the generated code names a bound that fits) launches an empty grid, an
// invalid configuration that the run reports (hipGetLastError), instead of reading past the
// shared arrays.
template <class T, int HD, class F>
void attention_launch(const mxc_kargs& k, const mxc_attention_dims& dims, hipStream_t s, F f, bool fits = true) {
    using C = mxc_compute_t<T>;
    constexpr int BK = attention_key_tile<C>(HD);
    if constexpr (BK > 0) {
        const int64_t grid = fits ? dims.batches * ((dims.lq + attention_rows - 1) / attention_rows) : 0;
        hipLaunchKernelGGL((attention_kernel<T, F, HD, BK>), dim3(static_cast<unsigned>(grid)), dim3(attention_threads), 0, s,
                           pack(k), dims, int64_t(1 + k.ip[0]), f);
    }
}

// HD: the bound on the head sizes the generated code names (codegen/gemm_choice.cpp); 0 picks
// it here.
template <class T, int HD = 0, class F> void attention_expr(const mxc_kargs& k, hipStream_t s, F f) {
    const mxc_attention_dims dims = mxc_attention_dims_of(k.in_desc, *k.out_desc, k.ip);
    if (dims.batches == 0 || dims.lq == 0 || dims.dv == 0) return;
    const int64_t head = dims.d > dims.dv ? dims.d : dims.dv;
    if constexpr (HD > 0) {
        attention_launch<T, HD>(k, dims, s, f, head <= HD);
    } else if (head <= 64) {
        attention_launch<T, 64>(k, dims, s, f);
    } else if (head <= 128) {
        attention_launch<T, 128>(k, dims, s, f);
    } else {
        attention_launch<T, 256>(k, dims, s, f);
    }
}
template <class T, int HD = 0> void attention(const mxc_kargs& k, hipStream_t s) { attention_expr<T, HD>(k, s, program_body{}); }

} // namespace hip
} // namespace mxc
