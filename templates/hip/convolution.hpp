// convolution: x [N, C, spatial...] * w [M, C/group, k...] -> packed y [N, M, out...], no bias.
// ip = [group, pad_begin[0..s), stride[0..s), dilation[0..s)], s = rank - 2; output position p
// reads input position p * stride - pad_begin + k * dilation (outside: zero), as mxc_conv_at
// (templates/common/convolution.hpp).
// float, half, bfloat16, double with packed weights:
// - depthwise (one input channel per group, 2-d): a direct kernel, conv_dw_kernel: a block
//   computes a TH x TW tile of one output plane, each thread PW outputs along W, reading the
//   input tile (with its halo) from shared memory;
// - otherwise an implicit GEMM per group (grid z) on the tiled engine of
//   templates/hip/gemm.hpp: rows = the group's output channels (A = the weights as a
//   [M/group, C/group * kernel] matrix), columns = N * out positions, K = C/group * kernel;
//   B(kk, j) = the input element that output position j of image j / plane reads for weight
//   element kk, computed on the fly (nothing materialised). A 1x1 / stride-1 / unpadded
//   convolution over packed spatial dims reads B as a plain matrix per image (no im2col).
//   The per-element index math (B's and the output's) runs in 32 bits with multiply-high
//   divisions by host-built divisors when every index fits (conv_geom::small), else in int64.
//   A thread's B column is the same in every k-tile: the GEMM computes its part of the math
//   (image, out position: conv_im2col_view::col) once and per element only the row part
//   (channel, kernel offsets: at_col), 32-bit path and up to 3 spatial dims.
// Other types (and strided weights) compute one output element per thread (mxc_conv_at).
#pragma once
#include "templates/common/convolution.hpp"
#include "templates/common/fastdiv.hpp"
#include "templates/hip/common.hpp"
#include "templates/hip/gemm.hpp"

namespace mxc {
namespace hip {

// What the implicit GEMM needs of the convolution (host-built, passed by value).
// small: every index fits in 31 bits (x, w and y span, and y has, fewer than 2^31 elements;
// the positions p * stride + k * dilation + pad stay below 2^31): the per-element index math
// then runs in 32 bits with the host-built fast divisions (templates/common/fastdiv.hpp, a
// multiply-high instead of a ~70-instruction 64-bit division); otherwise in int64 with plain
// divisions. Both give the same integers.
struct conv_geom {
    int32_t s;                                 // spatial rank
    int32_t small;                             // 32-bit index math (the *_d divisors are set)
    int64_t cg, mg, mtot, kn, plane;           // channels per group in / out, all out channels, kernel and out sizes
    int64_t xs0, xs1;                          // x strides of N and C
    int64_t xlen[MXC_MAX_RANK], xs[MXC_MAX_RANK], klen[MXC_MAX_RANK], olen[MXC_MAX_RANK];
    int64_t pad[MXC_MAX_RANK], stride[MXC_MAX_RANK], dil[MXC_MAX_RANK];
    int32_t transposed;                        // convolution_transpose: out o reads in (o + pad - k * dil) / stride
    mxc_fastdiv kn_d, plane_d, klen_d[MXC_MAX_RANK - 2], olen_d[MXC_MAX_RANK - 2], stride_d[MXC_MAX_RANK - 2];
};

inline conv_geom make_conv_geom(const mxc_kargs& k) {
    const mxc_desc &xd = k.in_desc[0], &wd = k.in_desc[1], &od = *k.out_desc;
    conv_geom g{};
    g.s = od.rank - 2;
    const int64_t group = k.ip[0];
    g.cg = wd.lens[1];
    g.mtot = od.lens[1];
    g.mg = g.mtot / group;
    g.kn = g.plane = 1;
    g.xs0 = xd.strides[0];
    g.xs1 = xd.strides[1];
    const bool small = mxc_conv_index_32(xd, wd, od, k.ip); // the shared rule (templates/common/gemm_choice.hpp)
    // the dims past s are identities (length 1, x stride 0, convolution stride 1, no padding or
    // dilation), so that index math written for more dims gives the same offsets without
    // testing s (conv_im2col_view's row states)
    for (int d = g.s; d < MXC_MAX_RANK; ++d) g.xlen[d] = g.klen[d] = g.olen[d] = g.stride[d] = 1;
    for (int d = 0; d < g.s; ++d) {
        g.xlen[d] = xd.lens[2 + d];
        g.xs[d] = xd.strides[2 + d];
        g.klen[d] = wd.lens[2 + d];
        g.olen[d] = od.lens[2 + d];
        g.pad[d] = k.ip[1 + d];
        g.stride[d] = k.ip[1 + g.s + d];
        g.dil[d] = k.ip[1 + 2 * g.s + d];
        g.kn *= g.klen[d];
        g.plane *= g.olen[d];
    }
    g.small = small;
    if (small) { // every divisor below is at least 1 and below 2^31 (it bounds an index)
        g.kn_d = mxc_fastdiv(uint32_t(g.kn));
        g.plane_d = mxc_fastdiv(uint32_t(g.plane));
        for (int d = 0; d < MXC_MAX_RANK - 2; ++d) {
            g.klen_d[d] = mxc_fastdiv(uint32_t(g.klen[d]));
            g.olen_d[d] = mxc_fastdiv(uint32_t(g.olen[d]));
            g.stride_d[d] = mxc_fastdiv(uint32_t(g.stride[d]));
        }
    }
    return g;
}

// Which index math a view or store compiles (its Index parameter): conv_index_32 (32 bits, the
// fast divisions: the GEMM forms), conv_index_64 (int64: the _WIDE forms), conv_index_any (both,
// chosen by conv_geom::small at run time: convolution_transpose). Only what a form needs is
// instantiated.
enum conv_index { conv_index_any, conv_index_32, conv_index_64 };
template <int Index> __device__ __forceinline__ bool conv_small(int32_t small) {
    if constexpr (Index == conv_index_32) return true;
    else if constexpr (Index == conv_index_64) return false;
    else return small != 0;
}

// n / d in the index type of a path: the fast division (32-bit path), the plain one (int64).
__device__ inline uint32_t conv_quot(uint32_t n, const mxc_fastdiv& f, int64_t) { return f.div(n); }
__device__ inline int64_t conv_quot(int64_t n, const mxc_fastdiv&, int64_t d) { return n / d; }

// A of group z: rows of the packed weights, [mg, cg * kn] with row stride cg * kn.
template <class T> struct conv_w_source {
    const T* w;
    int64_t mg, row;
    MXC_HD gemm_strided_view<T> view(int64_t z) const { return make_strided_view(w + z * mg * row, row, 1); }
};

// B of group z, the implicit im2col matrix: B(kk, j) with kk = (channel, kernel offset),
// j = (image, out position).
template <class T, int Index> struct conv_im2col_view {
    const T* x; // at the group's first channel
    conv_geom g;
    int fast = 1;
    static constexpr bool vec = false; // never vectors (gemm.hpp: gemm_may_vec builds no ring kernel)
    // forced inline (both paths): a call would keep the view, g included, in scratch memory
    // (clang, gfx90a: 784 bytes per lane)
    __device__ __forceinline__ T at(int64_t kk, int64_t j) const {
        if constexpr (Index == conv_index_32) return load<uint32_t, int32_t>(uint32_t(kk), uint32_t(j));
        else if constexpr (Index == conv_index_64) return load<int64_t, int64_t>(kk, j);
        else return g.small ? load<uint32_t, int32_t>(uint32_t(kk), uint32_t(j)) : load<int64_t, int64_t>(kk, j);
    }
    // U: the type of the indices and quotients (uint32_t or int64_t), S: of positions and
    // offsets (int32_t or int64_t).
    template <class U, class S> __device__ __forceinline__ T load(U kk, U j) const {
        const U c = conv_quot(kk, g.kn_d, g.kn), n = conv_quot(j, g.plane_d, g.plane);
        U rest = kk - c * U(g.kn), p = j - n * U(g.plane);
        S off = S(n) * S(g.xs0) + S(c) * S(g.xs1);
        // unrolled over the largest rank, so that g's arrays are indexed by constants (no
        // local-memory copy of g)
#pragma unroll
        for (int d = MXC_MAX_RANK - 3; d >= 0; --d) {
            if (d >= g.s) continue;
            const U kq = conv_quot(rest, g.klen_d[d], g.klen[d]), oq = conv_quot(p, g.olen_d[d], g.olen[d]);
            const S kd = S(rest - kq * U(g.klen[d])), od = S(p - oq * U(g.olen[d]));
            rest = kq;
            p = oq;
            S pos = od * S(g.stride[d]) - S(g.pad[d]) + kd * S(g.dil[d]);
            if (g.transposed) {
                const S t = od + S(g.pad[d]) - kd * S(g.dil[d]);
                const S q = t >= 0 ? S(conv_quot(U(t), g.stride_d[d], g.stride[d])) : S(-1);
                pos = q >= 0 && q * S(g.stride[d]) == t ? q : S(-1);
            }
            if (pos < 0 || pos >= S(g.xlen[d])) return T(0.0f);
            off += pos * S(g.xs[d]);
        }
        return x[off];
    }
    __device__ const T* ptr(int64_t, int64_t) const { return x; } // never used: vec is false

    // The per-column state (gemm.hpp's optional view contract): a thread whose B column j stays
    // the same over the k loop computes the column part of the index math (image, out
    // position) once, then per element only the row part (channel, kernel offsets). 32-bit
    // path and up to col_dims spatial dims only (cols()); the state's positions per dim are
    //   od * stride - pad   (transposed: od + pad)
    // and at_col adds kd * dil (subtracts it) as load does: the same integers, the same element.
    // A column past the matrix (j >= cn) gets a dim-0 position no kernel offset brings in range:
    // INT32_MIN + kd * dil < 0 (kd * dil < 2^31, conv_geom::small), transposed -1 - kd * dil < 0.
    static constexpr int col_dims = 3;
    struct col_state {
        int32_t base;          // image offset n * xs0
        int32_t pos[col_dims]; // per spatial dim (d < g.s)
    };
    __device__ bool cols() const { return conv_small<Index>(g.small) && g.s <= col_dims; }
    __device__ __forceinline__ col_state col(int64_t j, int64_t cn) const {
        col_state st{};
        const bool in = j < cn;
        uint32_t p = in ? uint32_t(j) : 0u;
        const uint32_t n = g.plane_d.div(p);
        p -= n * uint32_t(g.plane);
        st.base = int32_t(n) * int32_t(g.xs0);
#pragma unroll
        for (int d = col_dims - 1; d >= 0; --d) {
            if (d >= g.s) continue;
            // dim 0 takes what remains (p < olen[0] there): no division
            const uint32_t oq = d > 0 ? g.olen_d[d].div(p) : 0u;
            const int32_t od = int32_t(p - oq * uint32_t(g.olen[d]));
            p = oq;
            st.pos[d] = g.transposed ? od + int32_t(g.pad[d]) : od * int32_t(g.stride[d]) - int32_t(g.pad[d]);
        }
        if (!in) st.pos[0] = g.transposed ? -1 : INT32_MIN;
        return st;
    }
    // B(kk, j) for st = col(j, cn): at(kk, j) when j < cn, else zero (cols() only). Branch-free
    // (one predicated load), so that unrolled calls keep several loads in flight.
    __device__ __forceinline__ T at_col(int64_t kk, const col_state& st) const {
        const uint32_t c = g.kn_d.div(uint32_t(kk));
        uint32_t rest = uint32_t(kk) - c * uint32_t(g.kn);
        // the offset in unsigned (wrapping) arithmetic: for an element outside x (padding, a
        // column past the matrix) pos * xs may leave 32 bits, and that offset is never used
        uint32_t off = uint32_t(st.base) + c * uint32_t(g.xs1);
        bool in = true;
#pragma unroll
        for (int d = col_dims - 1; d >= 0; --d) {
            if (d >= g.s) continue;
            const uint32_t kq = d > 0 ? g.klen_d[d].div(rest) : 0u; // rest < klen[0] at dim 0
            const int32_t kd = int32_t(rest - kq * uint32_t(g.klen[d]));
            rest = kq;
            int32_t pos;
            if (g.transposed) {
                const int32_t t = st.pos[d] - kd * int32_t(g.dil[d]);
                const int32_t q = t >= 0 ? int32_t(g.stride_d[d].div(uint32_t(t))) : -1;
                pos = q >= 0 && q * int32_t(g.stride[d]) == t ? q : -1;
            } else {
                pos = st.pos[d] + kd * int32_t(g.dil[d]);
            }
            in = in && uint32_t(pos) < uint32_t(g.xlen[d]); // 0 <= pos < xlen
            off += uint32_t(pos) * uint32_t(g.xs[d]);
        }
        return in ? x[int32_t(off)] : T(0.0f);
    }
    // The per-row state (gemm.hpp's optional view contract, with cols()): row kk's channel
    // offset c * xs1 and kernel offsets kd * dil per spatial dim, so that at_rc adds them to a
    // column's state as at_col does, without at_col's two divisions an element, for 1-d and 2-d
    // convolutions (row_dims: both dims always computed, a 1-d one's second is make_conv_geom's
    // identity; no test of s an element). Not for a transposed convolution (its positions are
    // quotients by the stride, per element).
    static constexpr int row_dims = 2;
    struct row_state {
        uint32_t off;
        int32_t delta[row_dims];
    };
    __device__ bool rows() const { return cols() && !g.transposed && g.s <= row_dims; }
    __device__ __forceinline__ row_state row(int64_t kk) const {
        row_state rs;
        const uint32_t c = g.kn_d.div(uint32_t(kk));
        uint32_t rest = uint32_t(kk) - c * uint32_t(g.kn);
        rs.off = c * uint32_t(g.xs1);
#pragma unroll
        for (int d = row_dims - 1; d >= 0; --d) {
            const uint32_t kq = d > 0 ? g.klen_d[d].div(rest) : 0u;
            rs.delta[d] = int32_t(rest - kq * uint32_t(g.klen[d])) * int32_t(g.dil[d]);
            rest = kq;
        }
        return rs;
    }
    __device__ __forceinline__ T at_rc(const row_state& rs, const col_state& st) const {
        uint32_t off = uint32_t(st.base) + rs.off; // wrapping, as at_col's
        bool out = false;
#pragma unroll
        for (int d = row_dims - 1; d >= 0; --d) {
            const int32_t pos = st.pos[d] + rs.delta[d];
            out |= uint32_t(pos) >= uint32_t(g.xlen[d]);
            off += uint32_t(pos) * uint32_t(g.xs[d]);
        }
        return out ? T(0.0f) : x[int32_t(off)];
    }
};
template <class T, int Index> struct conv_im2col_source {
    const T* x;
    conv_geom g;
    MXC_HD conv_im2col_view<T, Index> view(int64_t z) const { return {x + z * g.cg * g.xs1, g}; }
};

// A of group z of a convolution_transpose: A(i, (c, k)) = w[g * cg + c, i, k] (packed w).
template <class T, int Index> struct conv_tw_view {
    const T* p;
    int64_t ws0, ws1, kn;
    mxc_fastdiv kn_d;
    int32_t small; // conv_geom::small
    int fast = 1;
    static constexpr bool vec = false; // never vectors (gemm.hpp: gemm_may_vec builds no ring kernel)
    __device__ T at(int64_t i, int64_t kk) const {
        if (conv_small<Index>(small)) {
            const uint32_t c = kn_d.div(uint32_t(kk));
            return p[int32_t(c * uint32_t(ws0) + uint32_t(i) * uint32_t(ws1) + (uint32_t(kk) - c * uint32_t(kn)))];
        }
        const int64_t c = kk / kn;
        return p[c * ws0 + i * ws1 + (kk - c * kn)];
    }
    __device__ const T* ptr(int64_t, int64_t) const { return p; } // never used: vec is false
};
template <class T, int Index> struct conv_tw_source {
    const T* w;
    int64_t cg, ws0, ws1, kn;
    mxc_fastdiv kn_d;
    int32_t small;
    MXC_HD conv_tw_view<T, Index> view(int64_t z) const { return {w + z * cg * ws0, ws0, ws1, kn, kn_d, small}; }
};

// B of group z for a 1x1 / stride-1 / unpadded convolution with packed spatial dims:
// B(c, j) = x[image j / plane, channel c, position j % plane].
template <class T, int Index> struct conv_1x1_view {
    const T* x;
    int64_t xs0, xs1, plane;
    mxc_fastdiv plane_d;
    int32_t small; // conv_geom::small
    int fast;
    bool vec;
    __device__ T at(int64_t c, int64_t j) const { return *ptr(c, j); }
    __device__ const T* ptr(int64_t c, int64_t j) const {
        if (conv_small<Index>(small)) {
            const uint32_t n = plane_d.div(uint32_t(j));
            return x + int32_t(n * uint32_t(xs0) + uint32_t(c) * uint32_t(xs1) + (uint32_t(j) - n * uint32_t(plane)));
        }
        const int64_t n = j / plane;
        return x + n * xs0 + c * xs1 + (j - n * plane);
    }
    // The per-column state (gemm.hpp's optional view contract), for the element-wise case (a
    // plane that is not a multiple of the vector width: 14x14, 7x7): column j's image and
    // position offset n * xs0 + j % plane once, then element (c, j) is one multiply-add away;
    // -1 past the matrix (its elements are zero). 32-bit path only.
    struct col_state {
        int32_t base;
    };
    __device__ bool cols() const { return conv_small<Index>(small); }
    __device__ __forceinline__ col_state col(int64_t j, int64_t cn) const {
        if (j >= cn) return {-1};
        const uint32_t n = plane_d.div(uint32_t(j));
        return {int32_t(n * uint32_t(xs0) + (uint32_t(j) - n * uint32_t(plane)))};
    }
    __device__ __forceinline__ T at_col(int64_t c, const col_state& st) const {
        return st.base >= 0 ? x[int32_t(uint32_t(st.base) + uint32_t(c) * uint32_t(xs1))] : T(0.0f);
    }
};
template <class T, int Index> struct conv_1x1_source {
    const T* x;
    int64_t cg, xs0, xs1, plane;
    mxc_fastdiv plane_d;
    int32_t small;
    MXC_HD conv_1x1_view<T, Index> view(int64_t z) const {
        constexpr int V = gemm_vec_width<T>;
        const T* p = x + z * cg * xs1;
        const bool vec = aligned_16(p) && plane % V == 0 && xs0 % V == 0 && xs1 % V == 0;
        return {p, xs0, xs1, plane, plane_d, small, 1, vec};
    }
};

// Output (group z, channel i of the group, column j = image * plane + position).
template <class E, int Index> struct conv_out {
    E epi;
    int64_t mg, mtot, plane;
    mxc_fastdiv plane_d;
    int32_t small; // conv_geom::small
    template <class C> __device__ void store(int64_t z, int64_t i, int64_t j, C acc) const {
        if (conv_small<Index>(small)) {
            const uint32_t n = plane_d.div(uint32_t(j)), ch = uint32_t(z) * uint32_t(mg) + uint32_t(i);
            epi.put(int64_t((n * uint32_t(mtot) + ch) * uint32_t(plane) + (uint32_t(j) - n * uint32_t(plane))), acc);
            return;
        }
        const int64_t n = j / plane;
        epi.put((n * mtot + z * mg + i) * plane + (j - n * plane), acc);
    }
    // Columns j .. j + count - 1: consecutive output elements while they stay in one image's
    // plane (the base computed once), else element by element (a run across images).
    template <int N, class C> __device__ __forceinline__ void store_run(int64_t z, int64_t i, int64_t j, const C* v, int count) const {
        if (conv_small<Index>(small)) {
            const uint32_t n = plane_d.div(uint32_t(j)), pos = uint32_t(j) - n * uint32_t(plane);
            if (pos + uint32_t(count) <= uint32_t(plane)) {
                const uint32_t ch = uint32_t(z) * uint32_t(mg) + uint32_t(i);
                epi_put_run<N>(epi, int64_t((n * uint32_t(mtot) + ch) * uint32_t(plane) + pos), v, count);
                return;
            }
        } else {
            const int64_t n = j / plane, pos = j - n * plane;
            if (pos + count <= plane) {
                epi_put_run<N>(epi, (n * mtot + z * mg + i) * plane + pos, v, count);
                return;
            }
        }
        // across images (rare): one copy of the per-element store in a loop, v through a local
        // copy (indexed by the loop, v itself would leave the registers)
        C w[N];
#pragma unroll
        for (int q = 0; q < N; ++q) w[q] = v[q];
#pragma unroll 1
        for (int q = 0; q < count; ++q) store(z, i, j + q, w[q]);
    }
};

// The channels-last form (MXC_CONV_GEMM_NHWC, templates/common/gemm_choice.hpp).
// transpose_kernel: out[b][c][r] = in[b][r][c] for the matrices b of a batch, in 32 x 32 tiles
// through shared memory (both sides coalesced; a padded row keeps the column reads off one
// bank). x [N, C, H*W] -> [N, H*W, C]; w [M, C, kernel] -> [M, kernel, C].
template <class T> __global__ void __launch_bounds__(256) transpose_kernel(const T* in, T* out, int64_t rows, int64_t cols, int64_t b0) {
    __shared__ T tile[32][33];
    grid_dependency_sync();
    const int64_t b = b0 + blockIdx.z, r0 = int64_t(blockIdx.y) * 32, c0 = int64_t(blockIdx.x) * 32;
    in += b * rows * cols;
    out += b * rows * cols;
    const int tx = int(threadIdx.x), ty = int(threadIdx.y);
    for (int i = ty; i < 32; i += 8)
        if (r0 + i < rows && c0 + tx < cols) tile[i][tx] = in[(r0 + i) * cols + c0 + tx];
    block_sync();
    for (int i = ty; i < 32; i += 8)
        if (c0 + i < cols && r0 + tx < rows) out[(c0 + i) * rows + r0 + tx] = tile[tx][i];
}
template <class T> inline void transpose_launch(const T* in, T* out, int64_t batch, int64_t rows, int64_t cols, hipStream_t stream) {
    constexpr int64_t lim = 65535;
    const int64_t gx = (cols + 31) / 32, gy = (rows + 31) / 32;
    for (int64_t b0 = 0; b0 < batch; b0 += lim)
        hipLaunchKernelGGL(transpose_kernel<T>, dim3(unsigned(gx), unsigned(gy), unsigned(batch - b0 < lim ? batch - b0 : lim)),
                           dim3(32, 8), 0, stream, in, out, rows, cols, b0);
}

// B of the channels-last form: B(kk, j) with kk = (ky * kw + kx) * C + channel (channels
// fastest, as the packed weights' columns) and j = (image, oy, ox), read from x in NHWC: a
// vector view along K (fast 0) whose 8-channel vectors are whole input positions, or zeros
// in the padding (src null). 32-bit index math (the form requires it).
template <class T> struct conv_nhwc_view {
    const T* x; // [N, H, W, C]
    int32_t c, h, w, ow, kw, plane, sh, sw, ph, pw, dh, dw;
    mxc_fastdiv c_d, kw_d, ow_d, plane_d;
    bool vec;
    static constexpr int fast = 0; // (a constant: the kernels compile only the K-fast paths)
    __device__ __forceinline__ const T* src(int64_t kk, int64_t j) const {
        const uint32_t q = c_d.div(uint32_t(kk)), ch = uint32_t(kk) - q * uint32_t(c);
        const uint32_t ky = kw_d.div(q), kx = q - ky * uint32_t(kw);
        const uint32_t n = plane_d.div(uint32_t(j)), pos = uint32_t(j) - n * uint32_t(plane);
        const uint32_t oy = ow_d.div(pos), ox = pos - oy * uint32_t(ow);
        const int32_t iy = int32_t(oy) * sh - ph + int32_t(ky) * dh, ix = int32_t(ox) * sw - pw + int32_t(kx) * dw;
        if (uint32_t(iy) >= uint32_t(h) || uint32_t(ix) >= uint32_t(w)) return nullptr;
        return x + int32_t(((n * uint32_t(h) + uint32_t(iy)) * uint32_t(w) + uint32_t(ix)) * uint32_t(c) + ch);
    }
    __device__ const T* ptr(int64_t kk, int64_t j) const {
        const T* p = src(kk, j);
        return p ? p : x;
    }
    __device__ T at(int64_t kk, int64_t j) const {
        const T* p = src(kk, j);
        return p ? *p : T(0.0f);
    }
};
template <class T> struct conv_nhwc_source {
    conv_nhwc_view<T> v;
    MXC_HD conv_nhwc_view<T> view(int64_t) const { return v; }
};

// The depthwise kernel: block tiles of TH x TW outputs of one (image, channel) plane, PW per
// thread (threads = TH * TW / PW), the input tile in shared memory when it fits (else read
// from global memory). Estimates (no device here): dw_wide 8x64, 4 per thread, 128 threads,
// 16 KiB shared (float), ~30 VGPRs: sm_90 up to 14 blocks per SM (shared bound at 228 KiB),
// gfx90a 4 per CU (64 KiB LDS); dw_narrow 8x16, 2 per thread, 64 threads, same shared tile.
template <int TH_, int TW_, int PW_> struct dw_config {
    static constexpr int TH = TH_, TW = TW_, PW = PW_, tx_count = TW / PW, threads = TH * tx_count;
    static constexpr int tile_cap = 4096; // input tile elements in shared memory
};
using dw_wide = dw_config<8, 64, 4>;
using dw_narrow = dw_config<8, 16, 2>;

struct dw_geom {
    int64_t m, mult, ih, iw, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw;
    int64_t xs0, xs1, xs2, xs3, ws0, ws2, ws3;
};

template <class Cfg, class T, class E>
__global__ void MXC_LAUNCH_BOUNDS(Cfg::threads)
    conv_dw_kernel(dw_geom g, mxc_fastdiv tw_d, const T* x, const T* w, int64_t z0, E epi) {
    grid_dependency_sync();
    using C = mxc_compute_t<T>;
    __shared__ C tile[Cfg::tile_cap];
    const int64_t z = z0 + blockIdx.z, n = z / g.m, m = z % g.m;
    const int64_t oy0 = int64_t(blockIdx.y) * Cfg::TH, ox0 = int64_t(blockIdx.x) * Cfg::TW;
    const int64_t iy0 = oy0 * g.sh - g.ph, ix0 = ox0 * g.sw - g.pw;
    const int64_t th = (Cfg::TH - 1) * g.sh + (g.kh - 1) * g.dh + 1, tw = (Cfg::TW - 1) * g.sw + (g.kw - 1) * g.dw + 1;
    const T* xc = x + n * g.xs0 + (m / g.mult) * g.xs1;
    const T* wm = w + m * g.ws0;
    const int tid = int(threadIdx.x), ty = tid / Cfg::tx_count, tx = tid % Cfg::tx_count;
    C acc[Cfg::PW];
#pragma unroll
    for (int q = 0; q < Cfg::PW; ++q) acc[q] = C(0);
    if (th * tw <= Cfg::tile_cap) { // the same for every block; tw_d divides by tw
        for (int e = tid; e < int(th * tw); e += Cfg::threads) {
            const int ey = int(tw_d.div(uint32_t(e)));
            const int64_t iy = iy0 + ey, ix = ix0 + (e - ey * int(tw));
            tile[e] = iy >= 0 && iy < g.ih && ix >= 0 && ix < g.iw ? C(xc[iy * g.xs2 + ix * g.xs3]) : C(0);
        }
        block_sync();
        for (int64_t ky = 0; ky < g.kh; ++ky) {
            const C* row = tile + (ty * g.sh + ky * g.dh) * tw;
            for (int64_t kx = 0; kx < g.kw; ++kx) {
                const C wv = C(wm[ky * g.ws2 + kx * g.ws3]);
#pragma unroll
                for (int q = 0; q < Cfg::PW; ++q) acc[q] += wv * row[(tx + q * Cfg::tx_count) * g.sw + kx * g.dw];
            }
        }
    } else {
        for (int64_t ky = 0; ky < g.kh; ++ky) {
            const int64_t iy = iy0 + ty * g.sh + ky * g.dh;
            if (iy < 0 || iy >= g.ih) continue;
            for (int64_t kx = 0; kx < g.kw; ++kx) {
                const C wv = C(wm[ky * g.ws2 + kx * g.ws3]);
#pragma unroll
                for (int q = 0; q < Cfg::PW; ++q) {
                    const int64_t ix = ix0 + (tx + q * Cfg::tx_count) * g.sw + kx * g.dw;
                    if (ix >= 0 && ix < g.iw) acc[q] += wv * C(xc[iy * g.xs2 + ix * g.xs3]);
                }
            }
        }
    }
    const int64_t oy = oy0 + ty;
    if (oy >= g.oh) return;
#pragma unroll
    for (int q = 0; q < Cfg::PW; ++q) {
        const int64_t ox = ox0 + tx + q * Cfg::tx_count;
        if (ox < g.ow) epi.put(((n * g.m + m) * g.oh + oy) * g.ow + ox, acc[q]);
    }
}

template <class Cfg, class T, class E>
inline void conv_dw_launch(const dw_geom& g, int64_t images, const T* x, const T* w, const E& epi, hipStream_t stream) {
    constexpr int64_t lim = 65535;
    const int64_t gx = (g.ow + Cfg::TW - 1) / Cfg::TW, gy = (g.oh + Cfg::TH - 1) / Cfg::TH, z = images * g.m;
    const int64_t th = (Cfg::TH - 1) * g.sh + (g.kh - 1) * g.dh + 1, tw = (Cfg::TW - 1) * g.sw + (g.kw - 1) * g.dw + 1;
    const mxc_fastdiv tw_d(th * tw <= Cfg::tile_cap ? uint32_t(tw) : 1u); // used only for a tile in shared memory
    auto kernel = conv_dw_kernel<Cfg, T, E>;
    for (int64_t z0 = 0; z0 < z; z0 += lim)
        hipLaunchKernelGGL(kernel, dim3(unsigned(gx), unsigned(gy), unsigned(z - z0 < lim ? z - z0 : lim)),
                           dim3(Cfg::threads), 0, stream, g, tw_d, x, w, z0, epi);
}

template <class T, class E> struct convolution_elem {
    E epi;
    __device__ void operator()(const dev_args& a, int64_t i) const {
        epi.put(i, mxc_conv_at(in_ptr<T>(a, 0), a.in_desc[0], in_ptr<T>(a, 1), a.in_desc[1], a.out_desc, a.ip, i));
    }
};

template <class Cfg> struct is_dw_config : std::false_type {};
template <int TH, int TW, int PW> struct is_dw_config<dw_config<TH, TW, PW>> : std::true_type {};

// The depthwise form: tile Cfg (dw_wide, dw_narrow), or the rule's (mxc_conv_dw_wide) when Cfg
// is not a dw_config.
template <class T, class Cfg, class E> void conv_depthwise(const mxc_kargs& k, hipStream_t s, const E& epi) {
    const mxc_desc &xd = k.in_desc[0], &wd = k.in_desc[1];
    const conv_geom g = make_conv_geom(k);
    const dw_geom dg{g.mtot, g.mg, g.xlen[0], g.xlen[1], g.olen[0], g.olen[1], g.klen[0], g.klen[1],
                     g.stride[0], g.stride[1], g.pad[0], g.pad[1], g.dil[0], g.dil[1],
                     xd.strides[0], xd.strides[1], xd.strides[2], xd.strides[3],
                     wd.strides[0], wd.strides[2], wd.strides[3]};
    const T* x = static_cast<const T*>(k.in[0]);
    const T* w = static_cast<const T*>(k.in[1]);
    const int64_t images = k.out_desc->lens[0];
    if constexpr (is_dw_config<Cfg>::value) conv_dw_launch<Cfg>(dg, images, x, w, epi, s);
    else if (mxc_conv_dw_wide(dg.ow)) conv_dw_launch<dw_wide>(dg, images, x, w, epi, s);
    else conv_dw_launch<dw_narrow>(dg, images, x, w, epi, s);
}

// The GEMM forms: the 1x1 GEMM (Pointwise) or the implicit im2col, GEMM configuration Cfg.
// Index: conv_index_32 or conv_index_64 (the _WIDE forms).
template <class T, class Cfg, bool Pointwise, int Index, class E> void conv_gemm(const mxc_kargs& k, hipStream_t s, const E& epi) {
    const conv_geom g = make_conv_geom(k);
    const int64_t group = k.ip[0], cols = k.out_desc->lens[0] * g.plane;
    const T* x = static_cast<const T*>(k.in[0]);
    const conv_w_source<T> a{static_cast<const T*>(k.in[1]), g.mg, g.cg * g.kn};
    const conv_out<E, Index> out{epi, g.mg, g.mtot, g.plane, g.plane_d, g.small};
    if constexpr (Pointwise)
        gemm_run<T, Cfg>(g.mg, cols, g.cg, group, a, conv_1x1_source<T, Index>{x, g.cg, g.xs0, g.xs1, g.plane, g.plane_d, g.small}, out, s, k.scratch);
    else
        gemm_run<T, Cfg>(g.mg, cols, g.cg * g.kn, group, a, conv_im2col_source<T, Index>{x, g}, out, s, k.scratch);
}

// The channels-last form: x transposed into the scratch (after split-K's part), w too unless it
// is channels-last already (mxc_conv_w_channels_last), then the GEMM over them with the NCHW
// output of the other forms.
template <class T, class Cfg, class E> void conv_gemm_nhwc(const mxc_kargs& k, hipStream_t s, const E& epi) {
    const mxc_desc &xd = k.in_desc[0], &wd = k.in_desc[1], &od = *k.out_desc;
    const conv_geom g = make_conv_geom(k);
    const int64_t images = od.lens[0], cols = images * g.plane, kdim = g.cg * g.kn;
    int64_t split = 0;
    if constexpr (gemm_split_of<Cfg>::splits > 1)
        split = gemm_split_scratch_bytes<T>(g.mg, cols, kdim, 1, gemm_split_of<Cfg>::splits, gemm_split_of<Cfg>::config::BK);
    char* const scratch = static_cast<char*>(k.scratch);
    T* const xt = reinterpret_cast<T*>(scratch + mxc_conv_nhwc_offset(split));
    transpose_launch(static_cast<const T*>(k.in[0]), xt, images, g.cg, g.xlen[0] * g.xlen[1], s);
    const T* wt = static_cast<const T*>(k.in[1]); // [M, kernel, C] already (constant weights, 1x1)
    if (!mxc_conv_w_channels_last(wd)) {
        T* const to = reinterpret_cast<T*>(scratch + mxc_conv_nhwc_w_offset(xd, split, int64_t(sizeof(T))));
        transpose_launch(wt, to, wd.lens[0], g.cg, g.kn, s);
        wt = to;
    }
    conv_nhwc_view<T> v{xt, int32_t(g.cg), int32_t(g.xlen[0]), int32_t(g.xlen[1]), int32_t(g.olen[1]), int32_t(g.klen[1]),
                        int32_t(g.plane), int32_t(g.stride[0]), int32_t(g.stride[1]), int32_t(g.pad[0]), int32_t(g.pad[1]),
                        int32_t(g.dil[0]), int32_t(g.dil[1]), mxc_fastdiv(uint32_t(g.cg)), mxc_fastdiv(uint32_t(g.klen[1])),
                        mxc_fastdiv(uint32_t(g.olen[1])), mxc_fastdiv(uint32_t(g.plane)), g.cg % gemm_vec_width<T> == 0};
    const conv_w_source<T> a{wt, g.mg, kdim};
    const conv_out<E, conv_index_32> out{epi, g.mg, g.mtot, g.plane, g.plane_d, g.small};
    gemm_run<T, Cfg>(g.mg, cols, kdim, 1, a, conv_nhwc_source<T>{v}, out, s, split > 0 ? k.scratch : nullptr);
}

// The convolution with epilogue epi (plain_store, or a fused body: templates/hip/fused.hpp),
// in form Form with configuration Cfg, as mxc names them (codegen/gemm_choice.cpp, the rule of
// templates/common/gemm_choice.hpp):
//   MXC_CONV_DEPTHWISE             Cfg = dw_wide or dw_narrow
//   MXC_CONV_GEMM_1X1, _IM2COL     Cfg = a gemm_config or a gemm_mma_config (see gemm_run);
//   and their _WIDE forms          32-bit index math, or int64 (_WIDE) past 31 bits
//   MXC_CONV_GEMM_NHWC             Cfg as the GEMM forms: half, k.scratch as
//                                  mxc_conv_nhwc_bytes (see conv_gemm_nhwc)
//   MXC_CONV_PER_OUTPUT            Cfg unused (mxc writes void)
//   MXC_CONV_AUTO (the default)    the form mxc_conv_pick gives at run time, every form and
//                                  (with gemm_auto) every preset instantiated: hand-written
//                                  calls and tests only.
// A fixed form is checked at run time against the descriptors (mxc_conv_pick, a few integer
// tests on the host); where they disagree (a hand-written call with other strides) the
// per-output kernel runs, so the result is right either way. mxc derives the form from the
// very descriptors it passes, so generated code always runs the form it names; only the
// per-output kernel is instantiated besides it.
template <class T, class Cfg, mxc_conv_form Form, class E>
void convolution_epilogue(const mxc_kargs& k, hipStream_t s, const E& epi) {
    const mxc_desc &xd = k.in_desc[0], &wd = k.in_desc[1], &od = *k.out_desc;
    if (mxc_elements(od) == 0) return;
    if constexpr (gemm_supported<T> && Form != MXC_CONV_PER_OUTPUT) {
        const mxc_conv_form form = mxc_conv_pick(xd, wd, od, k.ip);
        if constexpr (Form == MXC_CONV_GEMM_NHWC) {
            if constexpr (std::is_same<T, mxc_half>::value)
                if (k.scratch != nullptr && mxc_conv_channels_last(xd, wd, od, k.ip)) return conv_gemm_nhwc<T, Cfg>(k, s, epi);
        } else if constexpr (Form == MXC_CONV_AUTO) {
            switch (form) {
            case MXC_CONV_DEPTHWISE: return conv_depthwise<T, Cfg>(k, s, epi);
            case MXC_CONV_GEMM_1X1: return conv_gemm<T, Cfg, true, conv_index_32>(k, s, epi);
            case MXC_CONV_GEMM_IM2COL: return conv_gemm<T, Cfg, false, conv_index_32>(k, s, epi);
            case MXC_CONV_GEMM_1X1_WIDE: return conv_gemm<T, Cfg, true, conv_index_64>(k, s, epi);
            case MXC_CONV_GEMM_IM2COL_WIDE: return conv_gemm<T, Cfg, false, conv_index_64>(k, s, epi);
            default: break;
            }
        } else if (form == Form) {
            constexpr bool wide = Form == MXC_CONV_GEMM_1X1_WIDE || Form == MXC_CONV_GEMM_IM2COL_WIDE;
            constexpr bool pointwise = Form == MXC_CONV_GEMM_1X1 || Form == MXC_CONV_GEMM_1X1_WIDE;
            if constexpr (Form == MXC_CONV_DEPTHWISE) return conv_depthwise<T, Cfg>(k, s, epi);
            else return conv_gemm<T, Cfg, pointwise, wide ? conv_index_64 : conv_index_32>(k, s, epi);
        }
    }
    launch_per_output(k, s, convolution_elem<T, E>{epi});
}

// Cfg, Form: see convolution_epilogue.
template <class T, class Cfg = gemm_auto, mxc_conv_form Form = MXC_CONV_AUTO> void convolution(const mxc_kargs& k, hipStream_t s) {
    convolution_epilogue<T, Cfg, Form>(k, s, plain_store<T>{static_cast<T*>(k.out)});
}

} // namespace hip
} // namespace mxc
