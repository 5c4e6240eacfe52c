// deform_conv: one thread per output element (templates/common/deform_conv.hpp).
#pragma once
#include "templates/common/deform_conv.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T> struct deform_conv_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        const int mi = a.n_in > 3 ? 3 : 0; // no mask: never read (has_mask = 0)
        out_ptr<T>(a)[i] = mxc_deform_conv_at(in_ptr<T>(a, 0), a.in_desc[0], in_ptr<T>(a, 1), a.in_desc[1], in_ptr<T>(a, 2),
                                              a.in_desc[2], in_ptr<T>(a, mi), a.in_desc[mi], a.out_desc, a.ip, i);
    }
};
template <class T> void deform_conv(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, deform_conv_elem<T>{}); }

} // namespace hip
} // namespace mxc
