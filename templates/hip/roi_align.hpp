// roi_align: one thread per output element (templates/common/roi_align.hpp).
#pragma once
#include "templates/common/roi_align.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T> struct roi_align_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<T>(a)[i] = mxc_roi_align_at(in_ptr<T>(a, 0), a.in_desc[0], in_ptr<T>(a, 1), a.in_desc[1], a.in[2],
                                            a.in_desc[2], a.out_desc, a.ip, a.fp, i);
    }
};
template <class T> void roi_align(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, roi_align_elem<T>{}); }

} // namespace hip
} // namespace mxc
