// batch_norm_inference: one thread per output element; fp = [epsilon]
// (templates/common/batch_norm.hpp).
#pragma once
#include "templates/common/batch_norm.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T> struct batch_norm_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<T>(a)[i] = T(mxc_batch_norm_at<T>(a.in, a.in_desc, a.out_desc, a.fp[0], i));
    }
};
template <class T> void batch_norm_inference(const mxc_kargs& k, hipStream_t s) {
    launch_per_output(k, s, batch_norm_elem<T>{});
}

} // namespace hip
} // namespace mxc
