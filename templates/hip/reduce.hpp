// reduce_*: ip = the reduced axes (math: templates/common/reduce.hpp). One team per output
// element: a block when many elements are reduced into each output, a warp for fewer, one
// thread for few (or when the reduced elements are strided and there are enough outputs to
// fill the device: neighbouring threads then read neighbouring elements). Global average /
// max pooling are reduce_mean / reduce_max over the spatial axes (compiler/onnx_ops.cpp).
#pragma once
#include "templates/common/reduce.hpp"
#include "templates/hip/block_reduce.hpp"

namespace mxc {
namespace hip {

template <class T, int Kind> struct reduce_fn {
    template <class Team> __device__ void operator()(const dev_args& a, int64_t o, const Team& t) const {
        const mxc_compute_t<T> v = mxc_reduce_at<T, Kind>(in_ptr<T>(a, 0), a.in_desc[0], a.out_desc, a.ip, a.n_ip, o, t);
        if (t.rank == 0) out_ptr<T>(a)[o] = T(v);
    }
};
template <class T, int Kind> void reduce(const mxc_kargs& k, hipStream_t s) {
    using C = mxc_compute_t<T>;
    const int64_t outputs = mxc_elements(*k.out_desc), n = mxc_reduce_count(k.in_desc[0], k.ip, k.n_ip);
    const bool strided = mxc_reduce_flat_stride(k.in_desc[0], k.ip, k.n_ip) != 1;
    launch_rows<C>(pack(k), outputs, choose_team<C>(outputs, n, strided), s, reduce_fn<T, Kind>{});
}
template <class T> void reduce_sum(const mxc_kargs& k, hipStream_t s) { reduce<T, mxc_reduce_sum>(k, s); }
template <class T> void reduce_mean(const mxc_kargs& k, hipStream_t s) { reduce<T, mxc_reduce_mean>(k, s); }
template <class T> void reduce_max(const mxc_kargs& k, hipStream_t s) { reduce<T, mxc_reduce_max>(k, s); }
template <class T> void reduce_min(const mxc_kargs& k, hipStream_t s) { reduce<T, mxc_reduce_min>(k, s); }
template <class T> void reduce_prod(const mxc_kargs& k, hipStream_t s) { reduce<T, mxc_reduce_prod>(k, s); }

} // namespace hip
} // namespace mxc
