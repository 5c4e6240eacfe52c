// arg_max / arg_min (-> int64), cumulative and gather_elements hip kernels: one thread per
// output element of the math in templates/common/tensor_ops.hpp (parameters documented there).
#pragma once
#include "templates/common/tensor_ops.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T, bool Max> struct arg_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<int64_t>(a)[i] = mxc_arg_at(in_ptr<T>(a, 0), a.in_desc[0], a.out_desc, a.ip, i, Max);
    }
};
template <class T> void arg_max(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, arg_elem<T, true>{}); }
template <class T> void arg_min(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, arg_elem<T, false>{}); }

template <class T> struct cumulative_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<T>(a)[i] = mxc_cumulative_at(in_ptr<T>(a, 0), a.in_desc[0], a.out_desc, a.ip, i);
    }
};
template <class T> void cumulative(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, cumulative_elem<T>{}); }

template <class T> struct gather_elements_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<T>(a)[i] = mxc_gather_elements_at(in_ptr<T>(a, 0), a.in_desc[0], a.in[1], a.in_desc[1], a.out_desc, a.ip, i);
    }
};
template <class T> void gather_elements(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, gather_elements_elem<T>{}); }

} // namespace hip
} // namespace mxc
