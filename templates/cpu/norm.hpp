// layer_norm / rms_norm (math: templates/common/norm.hpp): one row after another.
#pragma once
#include "templates/common/norm.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T, bool Rms> inline void norm_rows(const mxc_kargs& k) {
    const int64_t rows = mxc_norm_rows(*k.out_desc, k.ip[0]);
    const T* in[3] = {input<T>(k, 0), k.n_in > 1 ? input<T>(k, 1) : nullptr, k.n_in > 2 ? input<T>(k, 2) : nullptr};
    for (int64_t r = 0; r < rows; ++r)
        mxc_norm_row<T, Rms>(in, k.in_desc, k.n_in, output<T>(k), *k.out_desc, k.ip[0], k.fp[0], r);
}

template <class T> void layer_norm(const mxc_kargs& k) { norm_rows<T, false>(k); }
template <class T> void rms_norm(const mxc_kargs& k) { norm_rows<T, true>(k); }

} // namespace cpu
} // namespace mxc
