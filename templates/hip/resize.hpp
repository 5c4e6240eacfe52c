// resize along one axis: one thread per output element (templates/common/resize.hpp).
#pragma once
#include "templates/common/resize.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T> struct resize_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<T>(a)[i] = mxc_resize_at(in_ptr<T>(a, 0), a.in_desc[0], a.out_desc, a.ip, a.fp, i);
    }
};
template <class T> void resize(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, resize_elem<T>{}); }

} // namespace hip
} // namespace mxc
