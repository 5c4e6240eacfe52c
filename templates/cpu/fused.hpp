// Fused kernels (passes/fuse_pointwise.cpp, passes/fuse_epilogue.cpp). A body functor f maps
// the input values of one element, x[0..n), to the output value (generated code passes one
// expression per kernel; the reference evaluator passes mxc_pw_program over ip).
//   fused_pointwise:   inputs x0..xn, all with the output's lens; ip = [program]
//   fused_convolution: x, w, then extra inputs; body x0 = the convolution's value, xN = extra
//                      input N (N >= 1); ip = [convolution's ip (1 + 3s values), program]
//   fused_convolution_transpose: the same over convolution_transpose (its ip: 1 + 3s values)
//   fused_dot:         a, b, then extra inputs as above; ip = [program]
#pragma once
#include "templates/common/fastdiv.hpp"
#include "templates/common/pointwise_program.hpp"
#include "templates/cpu/common.hpp"
#include "templates/cpu/convolution.hpp"
#include "templates/cpu/convolution_transpose.hpp"
#include "templates/cpu/dot.hpp"

namespace mxc {
namespace cpu {

constexpr int fused_max_inputs = 16;

// Elements [begin, end) of a fused pointwise kernel; Fixed: the input count when the body
// names it (a loop GCC can vectorise), else -1 (k.n_in).
template <class T, int Fixed, class F>
inline void fused_pointwise_in(const mxc_kargs& k, bool packed, const int64_t* const* strides, const F& f,
                               int64_t begin, int64_t end) {
    using C = compute_t<T>;
    T* y = output<T>(k);
    const int n = Fixed >= 0 ? Fixed : k.n_in;
    if (packed) {
        const T* in[fused_max_inputs];
        for (int i = 0; i < n; ++i) in[i] = input<T>(k, i);
        for (int64_t e = begin; e < end; ++e) {
            C x[fused_max_inputs];
            for (int i = 0; i < n; ++i) x[i] = C(in[i][e]);
            y[e] = T(f(x));
        }
        return;
    }
    for_each_strided<fused_max_inputs>(k.out_desc->lens, k.out_desc->rank, strides, [&](int64_t e, const int64_t* off) {
        C x[fused_max_inputs];
        for (int i = 0; i < n; ++i) x[i] = C(input<T>(k, i)[off[i]]);
        y[e] = T(f(x));
    }, n, begin, end);
}

// The same for a generated body (it names its input count). flatten: as for_each_element's
// pieces (not for the evaluator's interpreted program, which gains nothing from it).
template <class T, int Fixed, class F>
__attribute__((flatten)) void fused_pointwise_flat(const mxc_kargs& k, bool packed, const int64_t* const* strides,
                                                   const F& f, int64_t begin, int64_t end) {
    fused_pointwise_in<T, Fixed>(k, packed, strides, f, begin, end);
}

// The elements are spread over the pool (parallel_ranges).
template <class T, class F> void fused_pointwise_expr(const mxc_kargs& k, F f) {
    constexpr int fixed = mxc_body_inputs<F>::value;
    bool packed = true;
    for (int i = 0; i < k.n_in; ++i) packed = packed && mxc_is_packed(k.in_desc[i]);
    const int64_t* strides[fused_max_inputs];
    for (int i = 0; i < k.n_in; ++i) strides[i] = k.in_desc[i].strides;
    parallel_ranges(elements(*k.out_desc), [&](int64_t begin, int64_t end) {
        if constexpr (fixed >= 0)
            if (fixed == k.n_in) return fused_pointwise_flat<T, fixed>(k, packed, strides, f, begin, end);
        fused_pointwise_in<T, -1>(k, packed, strides, f, begin, end);
    });
}

template <class T> void fused_pointwise(const mxc_kargs& k) { fused_pointwise_expr<T>(k, mxc_pw_program{k.ip, k.n_ip}); }

// The epilogue of a conv/dot: x[0] = the accumulated value, x[j] = extra input j+1 at element e.
// The extra inputs have the output's lens (broadcasts are stride-0 views); their offsets are
// stepped from one element to the next (the kernels call it along runs of e), recomputed
// only after a jump. Stateful: each thread works on its own copy.
template <class T, class F> struct epilogue_of {
    const mxc_kargs& k;
    F f;
    int64_t next = -1;                         // the element the cursor is at
    int64_t idx[MXC_MAX_RANK] = {};            // its index in the output
    int64_t off[fused_max_inputs] = {};        // its offsets in the extra inputs
    compute_t<T> operator()(compute_t<T> acc, int64_t e) {
        const mxc_desc& od = *k.out_desc;
        const int last = od.rank - 1;
        if (e != next) {
            mxc_unravel(od, e, idx);
            for (int j = 2; j < k.n_in; ++j) {
                off[j] = 0;
                for (int d = 0; d <= last; ++d) off[j] += idx[d] * k.in_desc[j].strides[d];
            }
        }
        compute_t<T> x[fused_max_inputs];
        x[0] = acc;
        for (int j = 2; j < k.n_in; ++j) x[j - 1] = compute_t<T>(input<T>(k, j)[off[j]]);
        next = e + 1;
        if (last >= 0) {
            ++idx[last];
            for (int j = 2; j < k.n_in; ++j) off[j] += k.in_desc[j].strides[last];
            for (int d = last; d > 0 && idx[d] == od.lens[d]; --d) {
                idx[d] = 0;
                ++idx[d - 1];
                for (int j = 2; j < k.n_in; ++j) off[j] += k.in_desc[j].strides[d - 1] - od.lens[d] * k.in_desc[j].strides[d];
            }
        }
        return f(x);
    }

    // y[i] = f(acc[i], extra inputs at e + i), i < len. An extra input's offset is linear in
    // the element index within aligned blocks over its innermost dims whose strides continue
    // one another (packed dims, or broadcast ones with stride 0); `span` is the smallest such
    // block of all the inputs: the run is cut at its boundaries and each piece reads every
    // input with one step.
    void run(const compute_t<T>* acc, T* y, int64_t e, int64_t len) {
        init();
        next = -1; // the element-wise cursor starts afresh after a run
        while (len > 0) {
            const int64_t span_end = ((fast ? int64_t(span_div.div(uint32_t(e))) : e / span) + 1) * span;
            const int64_t piece = span_end - e < len ? span_end - e : len;
            const T* in[fused_max_inputs];
            int64_t step[fused_max_inputs], idx0[MXC_MAX_RANK];
            locate(e, idx0, in, step);
            run_any(acc, y, in, step, piece);
            acc += piece;
            y += piece;
            e += piece;
            len -= piece;
        }
    }

    // Rows of a block (a GEMM's output rows: y[r * ldy + i] = f(acc[r * acc_ld + i], ..) for
    // element e + r * ldy + i, i < len, r < rows): where ldy is the stride of one output dim
    // and the rows stay within it and within spans, each input's offset steps by its stride
    // along that dim from one row to the next (one unravel for the block, not one a row).
    void run_rows(const compute_t<T>* acc, int64_t acc_ld, T* y, int64_t ldy, int64_t e, int64_t len, int64_t rows) {
        init();
        const mxc_desc& od = *k.out_desc;
        int d = od.rank - 1;
        int64_t inner = 1;
        while (d >= 0 && inner < ldy) inner *= od.lens[d--];
        int64_t idx0[MXC_MAX_RANK];
        const T* in[fused_max_inputs];
        int64_t step[fused_max_inputs];
        bool rowwise = rows > 1 && d >= 0 && inner == ldy && span % ldy == 0 && e % ldy + len <= ldy;
        if (rowwise) {
            locate(e, idx0, in, step);
            rowwise = idx0[d] + rows <= od.lens[d];
        }
        if (!rowwise) {
            for (int64_t r = 0; r < rows; ++r) run(acc + r * acc_ld, y + r * ldy, e + r * ldy, len);
            return;
        }
        next = -1;
        if (run_rows_fast(acc, acc_ld, y, ldy, len, rows, in, step, d)) return;
        for (int64_t r = 0; r < rows; ++r) {
            run_any(acc + r * acc_ld, y + r * ldy, in, step, len);
            for (int j = 2; j < k.n_in; ++j) in[j] += k.in_desc[j].strides[d];
        }
    }

  private:
    // span, and the divisors, once
    void init() {
        if (span != 0) return;
        const mxc_desc& od = *k.out_desc;
        const int last = od.rank - 1;
        span = elements(od);
        for (int j = 2; j < k.n_in; ++j) {
            const mxc_desc& d = k.in_desc[j];
            int64_t sj = last >= 0 ? od.lens[last] : 1;
            for (int dim = last - 1; dim >= 0 && d.strides[dim] == d.strides[dim + 1] * od.lens[dim + 1]; --dim)
                sj *= od.lens[dim];
            if (sj < span) span = sj;
        }
        if (span < 1) span = 1;
        // indices below 2^31: divisions as multiplies (a run's unravel took four chained
        // 64-bit divisions, about a fifth of MobileNetV2's epilogue time)
        fast = elements(od) < (int64_t(1) << 31);
        if (fast) {
            span_div = mxc_fastdiv(uint32_t(span));
            for (int d = 1; d <= last; ++d) len_div[d] = mxc_fastdiv(uint32_t(od.lens[d] > 0 ? od.lens[d] : 1));
        }
    }
    // idx0: the index of element e; in[j], step[j]: extra input j at it, and its step along the last dim
    void locate(int64_t e, int64_t* idx0, const T** in, int64_t* step) const {
        const mxc_desc& od = *k.out_desc;
        const int last = od.rank - 1;
        for (int d = 0; d < MXC_MAX_RANK; ++d) idx0[d] = 0;
        if (fast) {
            uint32_t rest = uint32_t(e);
            for (int d = last; d > 0; --d) {
                const uint32_t q = len_div[d].div(rest);
                idx0[d] = rest - q * len_div[d].d;
                rest = q;
            }
            if (last >= 0) idx0[0] = rest;
        } else if (last >= 0) {
            mxc_unravel(od, e, idx0);
        }
        for (int j = 2; j < k.n_in; ++j) {
            int64_t o = 0;
            for (int d = 0; d <= last; ++d) o += idx0[d] * k.in_desc[j].strides[d];
            in[j] = input<T>(k, j) + o;
            step[j] = last >= 0 ? k.in_desc[j].strides[last] : 0;
        }
    }
    // The rows of a block in one call of the ISA clone, where the body names its input count
    // (at most 3 extra inputs) and every extra input is of the compute type with unit or zero
    // step along the row (a residual, a per-row bias): no per-row set-up, chunking or dispatch
    // (1x1 64 -> 256 over 56x56, one thread: a fifth of the layer's time was that set-up).
    // The same body on the same values as run_any: the same results.
    bool run_rows_fast(const compute_t<T>* acc, int64_t acc_ld, T* y, int64_t ldy, int64_t len, int64_t rows,
                       const T* const* in, const int64_t* step, int d) {
        constexpr int fixed = mxc_body_inputs<F>::value - 1;
        if constexpr (fixed >= 0 && fixed <= 3 && std::is_same<T, compute_t<T>>::value) {
            if (k.n_in - 2 != fixed) return false;
            unsigned arrays = 0;
            for (int j = 0; j < fixed; ++j) {
                if (step[j + 2] != 0 && step[j + 2] != 1) return false;
                if (step[j + 2] == 1) arrays |= 1u << j;
            }
            rows_job job{acc, acc_ld, y, ldy, len, rows, {}, {}};
            for (int j = 0; j < fixed; ++j) {
                job.src[j] = in[j + 2];
                job.rstep[j] = k.in_desc[j + 2].strides[d];
            }
            rows_loop<fixed>(arrays, job);
            return true;
        } else {
            (void)acc, (void)acc_ld, (void)y, (void)ldy, (void)len, (void)rows, (void)in, (void)step, (void)d;
            return false;
        }
    }
    struct rows_job {
        const compute_t<T>* acc;
        int64_t acc_ld;
        T* y;
        int64_t ldy, len, rows;
        const T* src[3];   // extra input j at the first row's first element
        int64_t rstep[3];  // its step from one row to the next
    };
    template <int J, unsigned Arrays = 0> void rows_loop(unsigned arrays, const rows_job& job) {
        if constexpr (Arrays + 1 < (1u << J)) {
            if (arrays != Arrays) return rows_loop<J, Arrays + 1>(arrays, job);
        }
        const rows_piece<J, Arrays> piece{*this, job};
        isa_clones<rows_piece<J, Arrays>>{piece}(0, job.rows);
    }
    template <int J, unsigned Arrays> struct rows_piece {
        epilogue_of& self;
        const rows_job& job;
        __attribute__((always_inline)) void run(int64_t r0, int64_t r1) const {
            for (int64_t r = r0; r < r1; ++r) {
                const compute_t<T>* src[J > 0 ? J : 1];
                for (int j = 0; j < J; ++j) src[j] = job.src[j] + r * job.rstep[j];
                self.template loop<J, Arrays>(job.acc + r * job.acc_ld, job.y + r * job.ldy, src, job.len);
            }
        }
    };

    // A generated body names its input count (mxc_body_inputs: the accumulator and the extra
    // inputs): only that count's loops are compiled (each has a variant per pattern of arrays
    // and values, and an AVX2 one); a body without it (the evaluator's program) takes the switch.
    void run_any(const compute_t<T>* acc, T* y, const T* const* in, const int64_t* step, int64_t piece) {
        using C = compute_t<T>;
        constexpr int fixed = mxc_body_inputs<F>::value < 0 ? -1 : mxc_body_inputs<F>::value - 1;
        if constexpr (fixed >= 0 && fixed <= 3) {
            if (k.n_in - 2 == fixed) return run_piece<fixed>(acc, y, in + 2, step + 2, piece);
        } else if constexpr (fixed < 0) {
            switch (k.n_in - 2) { // the common counts of extra inputs with a loop GCC vectorises
            case 0: return run_piece<0>(acc, y, in + 2, step + 2, piece);
            case 1: return run_piece<1>(acc, y, in + 2, step + 2, piece);
            case 2: return run_piece<2>(acc, y, in + 2, step + 2, piece);
            case 3: return run_piece<3>(acc, y, in + 2, step + 2, piece);
            default: break;
            }
        }
        C x[fused_max_inputs]; // more extra inputs: element by element
        for (int64_t i = 0; i < piece; ++i) {
            x[0] = acc[i];
            for (int j = 2; j < k.n_in; ++j) x[j - 1] = C(in[j][i * step[j]]);
            y[i] = T(f(x));
        }
    }

  public:
    int64_t span = 0; // elements over which every extra input's offset is linear (0: not yet known)
    bool fast = false; // every element index fits 31 bits: span_div and len_div hold
    mxc_fastdiv span_div{}, len_div[MXC_MAX_RANK] = {};

    // y[i] = f(acc[i], in[0][i * step[0]], ..), i < len, for J extra inputs. An input of step 0
    // (a broadcast: a conv's bias along a row) is one value; one of unit step in the compute type
    // is read in place; the others (strided, or narrower types) have their chunk copied into a
    // contiguous buffer. Then one loop over plain arrays and values, compiled for each pattern
    // of arrays and values (bit j of the mask: input j is an array). An extra input may be y
    // itself, element for element (memory sharing: each element is read before it is written),
    // never shifted: no dependence between iterations (ivdep).
    template <int J>
    void run_piece(const compute_t<T>* acc, T* y, const T* const* in, const int64_t* step, int64_t len) {
        using C = compute_t<T>;
        constexpr int64_t chunk = 256;
        C buf[J > 0 ? J : 1][chunk];
        for (int64_t i0 = 0; i0 < len; i0 += chunk) {
            const int64_t n = len - i0 < chunk ? len - i0 : chunk;
            const C* src[J > 0 ? J : 1];
            unsigned arrays = 0;
            for (int j = 0; j < J; ++j) {
                const T* s = in[j] + i0 * step[j];
                src[j] = buf[j];
                if (step[j] == 0) {
                    buf[j][0] = C(s[0]);
                    continue;
                }
                arrays |= 1u << j;
                if constexpr (std::is_same<T, C>::value)
                    if (step[j] == 1) {
                        src[j] = s;
                        continue;
                    }
                if (step[j] == 1)
                    for (int64_t i = 0; i < n; ++i) buf[j][i] = C(s[i]);
                else
                    for (int64_t i = 0; i < n; ++i) buf[j][i] = C(s[i * step[j]]);
            }
            run_loop<J>(arrays, acc + i0, y + i0, src, n);
        }
    }
    template <int J, unsigned Arrays = 0>
    void run_loop(unsigned arrays, const compute_t<T>* a, T* out, const compute_t<T>* const* src, int64_t n) {
        if constexpr (Arrays + 1 < (1u << J)) {
            if (arrays != Arrays) return run_loop<J, Arrays + 1>(arrays, a, out, src, n);
        }
        const loop_piece<J, Arrays> piece{*this, a, out, src};
        isa_clones<loop_piece<J, Arrays>>{piece}(0, n); // (in the CPU's vectors, the same values)
    }
    template <int J, unsigned Arrays> struct loop_piece {
        epilogue_of& self;
        const compute_t<T>* a;
        T* out;
        const compute_t<T>* const* src;
        __attribute__((always_inline)) void run(int64_t, int64_t n) const { self.template loop<J, Arrays>(a, out, src, n); }
    };
    template <int J, unsigned Arrays>
    __attribute__((always_inline)) void loop(const compute_t<T>* a, T* out, const compute_t<T>* const* src, int64_t n) {
        using C = compute_t<T>;
        C v[J > 0 ? J : 1]; // the values of the broadcast inputs
        for (int j = 0; j < J; ++j) v[j] = src[j][0];
#pragma GCC ivdep
        for (int64_t i = 0; i < n; ++i) {
            C x[J + 1];
            x[0] = a[i];
            for (int j = 0; j < J; ++j) x[j + 1] = (Arrays >> j & 1u) ? src[j][i] : v[j];
            out[i] = T(f(x));
        }
    }
};

template <class T, bool Panels = false, class F> void fused_convolution_expr(const mxc_kargs& k, F f) {
    convolution_epilogue<T, epilogue_of<T, F>, Panels>(k, epilogue_of<T, F>{k, f});
}
template <class T, bool Panels = false> void fused_convolution(const mxc_kargs& k) {
    const int64_t skip = 1 + 3 * (k.out_desc->rank - 2);
    fused_convolution_expr<T, Panels>(k, mxc_pw_program{k.ip + skip, k.n_ip - skip});
}

template <class T, bool Panels = false, class F> void fused_convolution_transpose_expr(const mxc_kargs& k, F f) {
    convolution_transpose_epilogue<T, epilogue_of<T, F>, Panels>(k, epilogue_of<T, F>{k, f});
}
template <class T, bool Panels = false> void fused_convolution_transpose(const mxc_kargs& k) {
    const int64_t skip = 1 + 3 * (k.out_desc->rank - 2);
    fused_convolution_transpose_expr<T, Panels>(k, mxc_pw_program{k.ip + skip, k.n_ip - skip});
}

template <class T, bool Strips = false, class F> void fused_dot_expr(const mxc_kargs& k, F f) {
    dot_epilogue<T, epilogue_of<T, F>, Strips>(k, epilogue_of<T, F>{k, f});
}
template <class T> void fused_dot(const mxc_kargs& k) { fused_dot_expr<T>(k, mxc_pw_program{k.ip, k.n_ip}); }

} // namespace cpu
} // namespace mxc
