// concat along axis ip[0]: input i lands at offset (sum of the previous inputs' lens[axis])
// along the axis of the packed output.
#pragma once
#include "templates/common/math.hpp"

// Copies element e (row-major) of input x into y, shifted by `at` along `axis`.
template <class T>
MXC_HD inline void mxc_concat_copy(const T* x, const mxc_desc& xd, T* y, const mxc_desc& od, int64_t axis, int64_t at,
                                   int64_t e) {
    int64_t xoff = 0, yoff = 0, ystride = 1;
    for (int d = xd.rank - 1; d >= 0; --d) {
        const int64_t i = e % xd.lens[d];
        e /= xd.lens[d];
        xoff += i * xd.strides[d];
        yoff += (d == axis ? i + at : i) * ystride;
        ystride *= od.lens[d];
    }
    y[yoff] = x[xoff];
}
