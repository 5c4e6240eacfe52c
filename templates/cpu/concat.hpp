// concat: inputs joined along axis ip[0] into the packed output (math: templates/common/concat.hpp).
#pragma once
#include "templates/common/concat.hpp"
#include "templates/cpu/common.hpp"

#include <string.h>

namespace mxc {
namespace cpu {

// Each input is copied into its slice of the output, its elements spread over the pool in
// ranges (parallel_ranges): a packed input as runs of whole rows of its slice (memcpy: YOLO's
// heads, 2 MB, 0.30 -> 0.1 ms), any other walked in row-major order with its offset and the
// output's stepped together (the same placement as mxc_concat_copy, without a division per
// element).
template <class T> void concat(const mxc_kargs& k) {
    const mxc_desc& od = *k.out_desc;
    const int64_t axis = k.ip[0];
    int64_t ostrides[MXC_MAX_RANK], packed = 1;
    for (int d = od.rank - 1; d >= 0; --d) {
        ostrides[d] = packed;
        packed *= od.lens[d];
    }
    const int64_t out_block = od.lens[axis] * ostrides[axis]; // the output's elements per index of the dims before axis
    int64_t at = 0;
    for (int i = 0; i < k.n_in; ++i) {
        const mxc_desc& xd = k.in_desc[i];
        const T* x = input<T>(k, i);
        T* y = output<T>(k) + at * ostrides[axis];
        at += xd.lens[axis];
        if (mxc_is_packed(xd)) {
            const int64_t inner = xd.lens[axis] * ostrides[axis]; // the input's elements per index before axis
            if (inner == 0) continue;
            parallel_ranges(elements(xd), [&](int64_t b, int64_t e) {
                while (b < e) {
                    const int64_t o = b / inner, in = b - o * inner, len = inner - in < e - b ? inner - in : e - b;
                    memcpy(static_cast<void*>(y + o * out_block + in), x + b, sizeof(T) * size_t(len));
                    b += len;
                }
            });
            continue;
        }
        const int64_t* strides[2] = {xd.strides, ostrides};
        parallel_ranges(elements(xd), [&](int64_t b, int64_t e) {
            for_each_strided<2>(xd.lens, xd.rank, strides, [&](int64_t, const int64_t* off) { y[off[1]] = x[off[0]]; }, 2, b, e);
        });
    }
}

} // namespace cpu
} // namespace mxc
