// dot: a [..., M, K] x b [..., K, N] -> packed [..., M, N]; inputs may be strided (e.g.
// transposed, broadcast) views. No parameters. float, half, bfloat16 and double go through
// the tiled GEMM (templates/hip/gemm.hpp; grid z = the batch); other types compute one
// output element per thread (mxc_dot_at, templates/common/dot.hpp).
#pragma once
#include "templates/common/dot.hpp"
#include "templates/hip/common.hpp"
#include "templates/hip/gemm.hpp"

namespace mxc {
namespace hip {

// Operand `which` (0: a, 1: b) of batch z as a strided matrix.
template <class T> struct dot_source {
    const T* p;
    mxc_desc d;
    MXC_HD gemm_strided_view<T> view(int64_t z) const {
        const int r = d.rank;
        return make_strided_view(p + gemm_batch_offset(d, z), d.strides[r - 2], d.strides[r - 1]);
    }
};

// Batch z's matrix at p + z * zs, rows of stride sr, columns of stride sc (a folded product's
// operands, templates/common/dot.hpp mxc_dot_fold_of).
template <class T> struct batch_strided_source {
    const T* p;
    int64_t zs, sr, sc;
    MXC_HD gemm_strided_view<T> view(int64_t z) const { return make_strided_view(p + z * zs, sr, sc); }
};

// Output (z, i, j) of a folded product is element z * zs + i * rs + j; epi writes it.
template <class E> struct dot_out_strided {
    E epi;
    int64_t zs, rs;
    template <class C> __device__ void store(int64_t z, int64_t i, int64_t j, C acc) const { epi.put(z * zs + i * rs + j, acc); }
    template <int N, class C> __device__ __forceinline__ void store_run(int64_t z, int64_t i, int64_t j, const C* v, int count) const {
        epi_put_run<N>(epi, z * zs + i * rs + j, v, count);
    }
};

// Output (z, i, j) is element (z * M + i) * N + j; epi writes it.
template <class E> struct dot_out {
    E epi;
    int64_t m, n;
    template <class C> __device__ void store(int64_t z, int64_t i, int64_t j, C acc) const {
        epi.put((z * m + i) * n + j, acc);
    }
    template <int N, class C> __device__ __forceinline__ void store_run(int64_t z, int64_t i, int64_t j, const C* v, int count) const {
        epi_put_run<N>(epi, (z * m + i) * n + j, v, count);
    }
};

template <class T, class E> struct dot_elem {
    E epi;
    __device__ void operator()(const dev_args& a, int64_t i) const {
        epi.put(i, mxc_dot_at(in_ptr<T>(a, 0), a.in_desc[0], in_ptr<T>(a, 1), a.in_desc[1], a.out_desc, i));
    }
};

// The product with epilogue epi (plain_store, or a fused body: templates/hip/fused.hpp).
template <class T, class Cfg, class E> void dot_epilogue(const mxc_kargs& k, hipStream_t s, const E& epi) {
    const mxc_desc &ad = k.in_desc[0], &bd = k.in_desc[1], &od = *k.out_desc;
    const int r = od.rank;
    const int64_t m = od.lens[r - 2], n = od.lens[r - 1], kd = ad.lens[r - 1];
    if (m == 0 || n == 0) return;
    if constexpr (gemm_supported<T>) {
        const int64_t batches = mxc_elements(od) / (m * n);
        const mxc_dot_fold f = mxc_dot_fold_of(ad, bd, od);
        if (f.ok) { // the batches along which b is shared become rows
            gemm_run<T, Cfg>(f.rows, n, kd, f.batches, batch_strided_source<T>{static_cast<const T*>(k.in[0]), f.a_zs, f.a_rs, ad.strides[r - 1]},
                             batch_strided_source<T>{static_cast<const T*>(k.in[1]), f.b_zs, bd.strides[r - 2], bd.strides[r - 1]},
                             dot_out_strided<E>{epi, f.o_zs, f.o_rs}, s, k.scratch);
            return;
        }
        gemm_run<T, Cfg>(m, n, kd, batches, dot_source<T>{static_cast<const T*>(k.in[0]), ad},
                    dot_source<T>{static_cast<const T*>(k.in[1]), bd}, dot_out<E>{epi, m, n}, s, k.scratch);
    } else {
        launch_per_output(k, s, dot_elem<T, E>{epi});
    }
}

// Cfg: a gemm_config or a gemm_mma_config (half), as mxc names it (the tuning database's tile, else the
// rule's preset), or gemm_auto (the rule at run time, every preset instantiated; see gemm_run).
template <class T, class Cfg = gemm_auto> void dot(const mxc_kargs& k, hipStream_t s) {
    dot_epilogue<T, Cfg>(k, s, plain_store<T>{static_cast<T*>(k.out)});
}

} // namespace hip
} // namespace mxc
