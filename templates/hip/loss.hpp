// class_select: one thread per output element; ip = [ignore_index, has_ignore, target is
// int64] (templates/common/loss.hpp).
#pragma once
#include "templates/common/loss.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T> struct class_select_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<T>(a)[i] = mxc_class_select_at(in_ptr<T>(a, 0), a.in_desc[0], a.in[1], a.in_desc[1], a.out_desc, a.ip, i);
    }
};
template <class T> void class_select(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, class_select_elem<T>{}); }

} // namespace hip
} // namespace mxc
