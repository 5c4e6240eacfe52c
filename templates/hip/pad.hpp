// pad hip kernel: one thread per output element (templates/common/pad.hpp).
#pragma once
#include "templates/common/pad.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T> struct pad_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<T>(a)[i] = mxc_pad_at(in_ptr<T>(a, 0), a.in_desc[0], a.n_in > 1 ? in_ptr<T>(a, 1) : nullptr, a.out_desc,
                                      a.ip, i);
    }
};
template <class T> void pad(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, pad_elem<T>{}); }

} // namespace hip
} // namespace mxc
