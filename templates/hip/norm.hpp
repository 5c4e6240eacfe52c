// layer_norm / rms_norm: one thread per row (math: templates/common/norm.hpp).
#pragma once
#include "templates/common/norm.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T, bool Rms> struct norm_row_fn {
    __device__ void operator()(const dev_args& a, int64_t row) const {
        const T* in[3] = {in_ptr<T>(a, 0), a.n_in > 1 ? in_ptr<T>(a, 1) : nullptr, a.n_in > 2 ? in_ptr<T>(a, 2) : nullptr};
        mxc_norm_row<T, Rms>(in, a.in_desc, a.n_in, out_ptr<T>(a), a.out_desc, a.ip[0], a.fp[0], row);
    }
};
template <class T> void layer_norm(const mxc_kargs& k, hipStream_t s) {
    launch(pack(k), mxc_norm_rows(*k.out_desc, k.ip[0]), s, norm_row_fn<T, false>{});
}
template <class T> void rms_norm(const mxc_kargs& k, hipStream_t s) {
    launch(pack(k), mxc_norm_rows(*k.out_desc, k.ip[0]), s, norm_row_fn<T, true>{});
}

} // namespace hip
} // namespace mxc
