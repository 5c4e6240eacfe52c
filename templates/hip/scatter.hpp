// scatter_elements, scatter_nd, gather_nd and tensor_scatter hip kernels: one thread per
// output element; each scatter thread applies the updates that land on its element in order,
// so reductions and duplicate indices are exact without atomics (templates/common/scatter.hpp).
#pragma once
#include "templates/common/scatter.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T> struct scatter_elements_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<T>(a)[i] = mxc_scatter_elements_at(in_ptr<T>(a, 0), a.in_desc[0], a.in[1], a.in_desc[1], in_ptr<T>(a, 2),
                                                   a.in_desc[2], a.ip, i);
    }
};
template <class T> void scatter_elements(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, scatter_elements_elem<T>{}); }

template <class T> struct scatter_nd_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<T>(a)[i] =
            mxc_scatter_nd_at(in_ptr<T>(a, 0), a.in_desc[0], a.in[1], a.in_desc[1], in_ptr<T>(a, 2), a.in_desc[2], a.ip, i);
    }
};
template <class T> void scatter_nd(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, scatter_nd_elem<T>{}); }

template <class T> struct gather_nd_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<T>(a)[i] = mxc_gather_nd_at(in_ptr<T>(a, 0), a.in_desc[0], a.in[1], a.in_desc[1], a.out_desc, a.ip, i);
    }
};
template <class T> void gather_nd(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, gather_nd_elem<T>{}); }

template <class T> struct tensor_scatter_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        const bool w = a.n_in > 2;
        out_ptr<T>(a)[i] = mxc_tensor_scatter_at(in_ptr<T>(a, 0), a.in_desc[0], in_ptr<T>(a, 1), a.in_desc[1],
                                                 w ? in_ptr<int64_t>(a, 2) : nullptr, a.in_desc[w ? 2 : 0], a.ip, i);
    }
};
template <class T> void tensor_scatter(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, tensor_scatter_elem<T>{}); }

} // namespace hip
} // namespace mxc
