// quantize_linear: x, scale (one floating type, ip[0] its dtype index), zero_point (of the
// output type T), all of the output's lens -> packed y of T; the math is mxc_quantize
// (templates/common/quantize.hpp). ip = [dtype index of x and scale, saturate].
#pragma once
#include "templates/common/quantize.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T> void quantize_linear(const mxc_kargs& k) {
    T* y = output<T>(k);
    const T* zp = input<T>(k, 2);
    const bool saturate = k.ip[1] != 0;
    mxc_visit_dtype(static_cast<int>(k.ip[0]), [&](auto tag) {
        using S = decltype(tag);
        if constexpr (mxc_is_float_elem<S>::value) {
            using C = compute_t<S>;
            const S* x = input<S>(k, 0);
            const S* s = input<S>(k, 1);
            for_each_element<3>(k, [&](int64_t e, const int64_t* off) {
                y[e] = mxc_quantize<T, C>(C(x[off[0]]), C(s[off[1]]), zp[off[2]], saturate);
            });
        }
    });
}

} // namespace cpu
} // namespace mxc
