// batch_norm_inference: inputs x [N, C, ...], scale, bias, mean, var (each [C]);
// y = (x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + bias[c]; fp = [epsilon].
#pragma once
#include "templates/common/math.hpp"

template <class T>
MXC_HD inline mxc_compute_t<T> mxc_batch_norm_at(const void* const* in, const mxc_desc* d, const mxc_desc& od,
                                                 double epsilon, int64_t o) {
    using C = mxc_compute_t<T>;
    int64_t inner = 1;
    for (int i = 2; i < od.rank; ++i) inner *= od.lens[i];
    const int64_t c = (o / inner) % od.lens[1];
    auto at = [&](int i, int64_t e) { return C(static_cast<const T*>(in[i])[e]); };
    const C x = at(0, mxc_offset_of(d[0], o));
    const C scale = at(1, c * d[1].strides[0]), bias = at(2, c * d[2].strides[0]);
    const C mean = at(3, c * d[3].strides[0]), var = at(4, c * d[4].strides[0]);
    return (x - mean) / mxc_sqrt(C(var + C(epsilon))) * scale + bias;
}
