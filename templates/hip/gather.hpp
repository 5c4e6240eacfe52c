// gather: one thread per output element; ip = [axis, indices are int64 (1) or int32 (0)]
// (templates/common/gather.hpp).
#pragma once
#include "templates/common/gather.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T> struct gather_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<T>(a)[i] = mxc_gather_at(in_ptr<T>(a, 0), a.in_desc[0], a.in[1], a.in_desc[1], a.out_desc, a.ip, i);
    }
};
template <class T> void gather(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, gather_elem<T>{}); }

} // namespace hip
} // namespace mxc
