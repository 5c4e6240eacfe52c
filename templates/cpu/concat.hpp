// concat: inputs joined along axis ip[0] into the packed output (math: templates/common/concat.hpp).
#pragma once
#include "templates/common/concat.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T> void concat(const mxc_kargs& k) {
    const int64_t axis = k.ip[0];
    int64_t at = 0;
    for (int i = 0; i < k.n_in; ++i) {
        const int64_t n = elements(k.in_desc[i]);
        for (int64_t e = 0; e < n; ++e) mxc_concat_copy(input<T>(k, i), k.in_desc[i], output<T>(k), *k.out_desc, axis, at, e);
        at += k.in_desc[i].lens[axis];
    }
}

} // namespace cpu
} // namespace mxc
