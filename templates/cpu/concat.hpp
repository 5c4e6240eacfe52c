// concat: inputs joined along axis ip[0] into the packed output (math: templates/common/concat.hpp).
#pragma once
#include "templates/common/concat.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

// Each input is walked in row-major order with its offset and the output's stepped together
// (the same placement as mxc_concat_copy, without a division per element).
template <class T> void concat(const mxc_kargs& k) {
    const mxc_desc& od = *k.out_desc;
    const int64_t axis = k.ip[0];
    int64_t ostrides[MXC_MAX_RANK], packed = 1;
    for (int d = od.rank - 1; d >= 0; --d) {
        ostrides[d] = packed;
        packed *= od.lens[d];
    }
    int64_t at = 0;
    for (int i = 0; i < k.n_in; ++i) {
        const mxc_desc& xd = k.in_desc[i];
        const T* x = input<T>(k, i);
        T* y = output<T>(k) + at * ostrides[axis];
        const int64_t* strides[2] = {xd.strides, ostrides};
        for_each_strided<2>(xd.lens, xd.rank, strides, [&](int64_t, const int64_t* off) { y[off[1]] = x[off[0]]; });
        at += xd.lens[axis];
    }
}

} // namespace cpu
} // namespace mxc
