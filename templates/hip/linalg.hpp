// det: one thread per matrix (templates/common/linalg.hpp).
#pragma once
#include "templates/common/linalg.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T> struct det_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<T>(a)[i] = mxc_det_at(in_ptr<T>(a, 0), a.in_desc[0], a.out_desc, i);
    }
};
template <class T> void det(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, det_elem<T>{}); }

} // namespace hip
} // namespace mxc
