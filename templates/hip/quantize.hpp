// quantize_linear: one thread per output element; ip = [dtype index of x and scale, saturate]
// (math: templates/common/quantize.hpp).
#pragma once
#include "templates/common/quantize.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T, class S> struct quantize_linear_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        using C = mxc_compute_t<S>;
        const C x = C(in_ptr<S>(a, 0)[mxc_offset_of(a.in_desc[0], i)]);
        const C s = C(in_ptr<S>(a, 1)[mxc_offset_of(a.in_desc[1], i)]);
        out_ptr<T>(a)[i] = mxc_quantize<T, C>(x, s, in_ptr<T>(a, 2)[mxc_offset_of(a.in_desc[2], i)],
                                                a.ip[1] != 0);
    }
};
// S: the type of x and scale; void: the one ip[0] names, dispatched on the host.
template <class T, class S = void> void quantize_linear(const mxc_kargs& k, hipStream_t s) {
    if constexpr (std::is_void<S>::value)
        mxc_visit_dtype(static_cast<int>(k.ip[0]), [&](auto tag) { quantize_linear<T, decltype(tag)>(k, s); });
    else if constexpr (mxc_is_float_elem<S>::value)
        launch_per_output(k, s, quantize_linear_elem<T, S>{});
}

} // namespace hip
} // namespace mxc
