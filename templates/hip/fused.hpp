// Fused kernels on the GPU (see templates/cpu/fused.hpp for the ops and the body functors).
// fused_pointwise: one thread per output element. fused_convolution /
// fused_convolution_transpose / fused_dot: the convolution / transposed convolution / dot
// kernels (tiled GEMM, depthwise) with fused_store as the epilogue: the body
// is applied to (the accumulated value, the extra inputs at the element) before the store.
// At most max_inputs inputs (the fusion passes keep to it).
#pragma once
#include "templates/common/fastdiv.hpp"
#include "templates/common/pointwise_program.hpp"
#include "templates/hip/body.hpp"
#include "templates/hip/common.hpp"
#include "templates/hip/convolution.hpp"
#include "templates/hip/convolution_transpose.hpp"
#include "templates/hip/dot.hpp"
#include "templates/hip/vector.hpp"

#include <type_traits>

namespace mxc {
namespace hip {

// The offset of an extra input at output element e, its dims collapsed on the host: dims that
// step through the input evenly merge into runs (stride-0 broadcasts merge too), and an
// element's index in run r is (e / inner[r]) % len[r] by fast division (e < 2^31). A conv's
// per-channel bias is one or two runs, a residual input in the output's layout is `same`
// (offset e). Before, mxc_offset_of divided e by every dim in 64 bits for every extra input of
// every element: ~500 instructions each, more than the multiply-adds of a 1x1 convolution.
struct epi_offset {
    enum kind_t : int32_t { same, runs, general } kind;
    int32_t n;
    mxc_fastdiv inner[3], len[3];
    int64_t stride[3];
    __device__ int64_t operator()(const mxc_desc& d, int64_t e) const {
        if (kind == same) return e;
        if (kind == general) return mxc_offset_of(d, e);
        const uint32_t u = uint32_t(e);
        int64_t off = 0;
#pragma unroll
        for (int r = 0; r < 3; ++r)
            if (r < n) off += int64_t(len[r].mod(inner[r].div(u))) * stride[r];
        return off;
    }
};
// Elements e0 .. e0 + count - 1 (count <= N) of an extra input p (offsets o, view d) into x:
// its own layout (`same`) and a run of run 0 that does not wrap (run 0 is the innermost, inner
// divisor 1 as make_epi_offset builds it) are consecutive offsets off(e0) + i * stride[0]: a
// broadcast (stride 0) is one load, a contiguous run vector loads where aligned; anything
// else (a run that wraps, the general kind) is loaded element by element.
template <int N, class T>
__device__ __forceinline__ void epi_load_run(const epi_offset& o, const mxc_desc& d, const T* p, int64_t e0, T* x, int count) {
    if (o.kind == epi_offset::same) {
        gemm_read_run<N>(p + e0, x, count);
        return;
    }
    if (o.kind == epi_offset::runs) {
        const bool flat = o.n == 0; // every dim of length 1: one element
        if (flat || (o.inner[0].d == 1 && o.len[0].mod(uint32_t(e0)) + uint32_t(count) <= o.len[0].d)) {
            const int64_t base = o(d, e0), st = flat ? 0 : o.stride[0];
            if (st == 0) {
                const T b = p[base];
#pragma unroll
                for (int i = 0; i < N; ++i) x[i] = b;
            } else if (st == 1) {
                gemm_read_run<N>(p + base, x, count);
            } else {
#pragma unroll
                for (int i = 0; i < N; ++i)
                    if (i < count) x[i] = p[base + i * st];
            }
            return;
        }
    }
    // the rare path as a loop (unrolled, the general kind's division loops were copied N times
    // per input: ~40x the epilogue's PTX), through a local copy so that x stays in registers
    T t[N];
#pragma unroll 1
    for (int i = 0; i < count; ++i) t[i] = p[o(d, e0 + i)];
#pragma unroll
    for (int i = 0; i < N; ++i) x[i] = t[i];
}

// d: an extra input's view, with the output's lens (the output is packed, `total` elements).
inline epi_offset make_epi_offset(const mxc_desc& d, int64_t total) {
    epi_offset o{};
    o.kind = epi_offset::general;
    if (total >= (int64_t(1) << 31)) return o;
    int64_t len[MXC_MAX_RANK], stride[MXC_MAX_RANK], inner[MXC_MAX_RANK], below = 1;
    int n = 0;
    for (int i = d.rank - 1; i >= 0; --i) {
        const int64_t l = d.lens[i], st = d.strides[i];
        if (l == 1) continue;
        if (n > 0 && st == len[n - 1] * stride[n - 1]) {
            len[n - 1] *= l; // continues the run below
        } else {
            len[n] = l, stride[n] = st, inner[n] = below;
            ++n;
        }
        below *= l;
    }
    if (n == 1 && stride[0] == 1) {
        o.kind = epi_offset::same;
    } else if (n <= 3) {
        o.kind = epi_offset::runs;
        o.n = n;
        for (int r = 0; r < n; ++r) {
            o.inner[r] = mxc_fastdiv(uint32_t(inner[r]));
            o.len[r] = mxc_fastdiv(uint32_t(len[r]));
            o.stride[r] = stride[r];
        }
    }
    return o;
}

// The epilogue of a fused conv/dot: x[0] = the accumulated value, x[j] = extra input j+1 (input
// j + 1 of the kernel) at output element e. The extra inputs have the output's lens
// (broadcasts are stride-0 views) and may share the output's storage: each element is read
// before it is written. The interpreted body's program starts at a.ip + skip.
// The GEMM kernels call put once per register-tile element (unrolled): the interpreter of a
// program body is called, not inlined, so that it is not copied TM * TN times.
template <class T>
__device__ __attribute__((noinline)) void fused_program_put(const dev_args& a, const epi_offset* offs, int64_t skip, int64_t e,
                                                            mxc_compute_t<T> acc) {
    using C = mxc_compute_t<T>;
    C x[max_inputs];
    x[0] = acc;
    for (int j = 2; j < a.n_in; ++j) x[j - 1] = C(in_ptr<T>(a, j)[offs[j](a.in_desc[j], e)]);
    out_ptr<T>(a)[e] = T(mxc_pw_run(a.ip + skip, a.n_ip - skip, x));
}
template <class T, class F> struct fused_store {
    F f;
    dev_args a;
    int64_t skip;
    epi_offset offs[max_inputs]; // offs[j]: extra input j's (j >= 2)
    __device__ __forceinline__ void put(int64_t e, mxc_compute_t<T> acc) const {
        using C = mxc_compute_t<T>;
        if constexpr (std::is_same<F, program_body>::value) {
            fused_program_put<T>(a, offs, skip, e, acc);
        } else {
            constexpr int n = body_arity<F>::value; // x[0] the accumulator, x[j - 1] extra input j
            C x[max_inputs];
            x[0] = acc;
#pragma unroll
            for (int j = 2; j < n + 1; ++j)
                if (j < a.n_in) x[j - 1] = C(in_ptr<T>(a, j)[offs[j](a.in_desc[j], e)]);
            out_ptr<T>(a)[e] = T(f(x));
        }
    }
    // Elements e0 .. e0 + count - 1 (count <= N): every extra input's run is loaded before any
    // element is stored (an input may share the output's storage), the body applied per
    // element, the results stored as one run (vectors where aligned). The program body, an
    // out-of-line interpreter, keeps put per element.
    template <int N, class V> __device__ __forceinline__ void put_run(int64_t e0, const V* v, int count) const {
        using C = mxc_compute_t<T>;
        if constexpr (std::is_same<F, program_body>::value) {
#pragma unroll
            for (int i = 0; i < N; ++i)
                if (i < count) fused_program_put<T>(a, offs, skip, e0 + i, C(v[i]));
        } else {
            constexpr int n = body_arity<F>::value; // extra inputs 2 .. n
            T in[n > 1 ? n - 1 : 1][N];             // in[j - 2]: extra input j's run
#pragma unroll
            for (int j = 2; j < n + 1; ++j)
                if (j < a.n_in) epi_load_run<N>(offs[j], a.in_desc[j], in_ptr<T>(a, j), e0, in[j - 2], count);
            C y[N];
#pragma unroll
            for (int i = 0; i < N; ++i) {
                C x[max_inputs];
                x[0] = C(v[i]);
#pragma unroll
                for (int j = 2; j < n + 1; ++j)
                    if (j < a.n_in) x[j - 1] = C(in[j - 2][i]);
                y[i] = f(x);
            }
            gemm_write_run<N>(out_ptr<T>(a) + e0, y, count);
        }
    }
};
template <class T, class F> fused_store<T, F> make_fused_store(const F& f, const mxc_kargs& k, int64_t skip) {
    fused_store<T, F> st{f, pack(k), skip, {}};
    const int64_t total = mxc_elements(*k.out_desc);
    for (int j = 2; j < st.a.n_in; ++j) st.offs[j] = make_epi_offset(st.a.in_desc[j], total);
    return st;
}

// fused_pointwise: x[j] = input j.
template <class T, class F> struct fused_elem {
    F f;
    __device__ void operator()(const dev_args& a, int64_t i) const {
        using C = mxc_compute_t<T>;
        C x[max_inputs];
#pragma unroll
        for (int j = 0; j < body_arity<F>::value; ++j)
            if (j < a.n_in) x[j] = C(in_ptr<T>(a, j)[mxc_offset_of(a.in_desc[j], i)]);
        if constexpr (std::is_same<F, program_body>::value) out_ptr<T>(a)[i] = T(mxc_pw_run(a.ip, a.n_ip, x));
        else out_ptr<T>(a)[i] = T(f(x));
    }
};

// Bodies of the vectorised fused_pointwise path (templates/hip/vector.hpp): the generated
// expression, or the program in ip.
template <class F> struct fused_expr_body {
    F f;
    template <class C> __device__ C operator()(const dev_args&, const C* x) const { return f(x); }
};
struct fused_program_body {
    template <class C> __device__ C operator()(const dev_args& a, const C* x) const { return mxc_pw_run(a.ip, a.n_ip, x); }
};

template <class T, class F> void fused_pointwise_expr(const mxc_kargs& k, hipStream_t s, F f) {
    if (!launch_vectorised<T, max_inputs>(k, s, fused_expr_body<F>{f})) launch_per_output(k, s, fused_elem<T, F>{f});
}
template <class T, class Cfg = gemm_auto, mxc_conv_form Form = MXC_CONV_AUTO, class F>
void fused_convolution_expr(const mxc_kargs& k, hipStream_t s, F f) {
    convolution_epilogue<T, Cfg, Form>(k, s, make_fused_store<T>(f, k, 0));
}
template <class T, class Cfg = gemm_auto, class F> void fused_convolution_transpose_expr(const mxc_kargs& k, hipStream_t s, F f) {
    convolution_transpose_epilogue<T, Cfg>(k, s, make_fused_store<T>(f, k, 0));
}
template <class T, class Cfg = gemm_auto, class F> void fused_dot_expr(const mxc_kargs& k, hipStream_t s, F f) {
    dot_epilogue<T, Cfg>(k, s, make_fused_store<T>(f, k, 0));
}

template <class T> void fused_pointwise(const mxc_kargs& k, hipStream_t s) {
    if (!launch_vectorised<T, max_inputs>(k, s, fused_program_body{})) launch_per_output(k, s, fused_elem<T, program_body>{{}});
}
template <class T, class Cfg = gemm_auto, mxc_conv_form Form = MXC_CONV_AUTO>
void fused_convolution(const mxc_kargs& k, hipStream_t s) {
    convolution_epilogue<T, Cfg, Form>(k, s, make_fused_store<T>(program_body{}, k, 1 + 3 * (k.out_desc->rank - 2)));
}
template <class T, class Cfg = gemm_auto> void fused_convolution_transpose(const mxc_kargs& k, hipStream_t s) {
    convolution_transpose_epilogue<T, Cfg>(k, s, make_fused_store<T>(program_body{}, k, 1 + 3 * (k.out_desc->rank - 2)));
}
template <class T, class Cfg = gemm_auto> void fused_dot(const mxc_kargs& k, hipStream_t s) {
    dot_epilogue<T, Cfg>(k, s, make_fused_store<T>(program_body{}, k, 0));
}

} // namespace hip
} // namespace mxc
