// reduce_*: one thread per output element; ip = the reduced axes (templates/common/reduce.hpp).
#pragma once
#include "templates/common/reduce.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T, int Kind> struct reduce_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<T>(a)[i] = T(mxc_reduce_at<T, Kind>(in_ptr<T>(a, 0), a.in_desc[0], a.out_desc, a.ip, a.n_ip, i));
    }
};
template <class T> void reduce_sum(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, reduce_elem<T, mxc_reduce_sum>{}); }
template <class T> void reduce_mean(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, reduce_elem<T, mxc_reduce_mean>{}); }
template <class T> void reduce_max(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, reduce_elem<T, mxc_reduce_max>{}); }
template <class T> void reduce_min(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, reduce_elem<T, mxc_reduce_min>{}); }
template <class T> void reduce_prod(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, reduce_elem<T, mxc_reduce_prod>{}); }

} // namespace hip
} // namespace mxc
