// quantize_linear: x, scale (one floating type, ip[0] its dtype index), zero_point (of the
// output type T), all of the output's lens -> packed y of T; the math is mxc_quantize
// (templates/common/quantize.hpp). ip = [dtype index of x and scale, saturate].
#pragma once
#include "templates/common/quantize.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

// S: the type of x and scale; void (the reference tables): the one ip[0] names, at run time.
template <class T, class S = void> void quantize_linear(const mxc_kargs& k) {
    if constexpr (std::is_void<S>::value) {
        mxc_visit_dtype(static_cast<int>(k.ip[0]), [&](auto tag) { quantize_linear<T, decltype(tag)>(k); });
    } else if constexpr (mxc_is_float_elem<S>::value) {
        using C = compute_t<S>;
        T* y = output<T>(k);
        const T* zp = input<T>(k, 2);
        const bool saturate = k.ip[1] != 0;
        const S* x = input<S>(k, 0);
        const S* s = input<S>(k, 1);
        for_each_element<3>(k, [&](int64_t e, const int64_t* off) {
            y[e] = mxc_quantize<T, C>(C(x[off[0]]), C(s[off[1]]), zp[off[2]], saturate);
        });
    }
}

} // namespace cpu
} // namespace mxc
