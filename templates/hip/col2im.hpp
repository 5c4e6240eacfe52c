// col2im hip kernel: one thread per output element, gathering its blocks
// (templates/common/col2im.hpp).
#pragma once
#include "templates/common/col2im.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T> struct col2im_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<T>(a)[i] = mxc_col2im_at(in_ptr<T>(a, 0), a.in_desc[0], a.out_desc, a.ip, i);
    }
};
template <class T> void col2im(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, col2im_elem<T>{}); }

} // namespace hip
} // namespace mxc
