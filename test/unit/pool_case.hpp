// Shared by the pooling kernel tests (test_cpu_depthwise_pool.cpp, test_hip_pooling.cpp): the
// descriptors of a case and a pooling case's output shape and parameters (ip).
#pragma once
#include "templates/common/abi.hpp"

#include <cstdint>
#include <vector>

namespace mxc_test {

// lens with row-major strides, each dim's stride `gap` times the packed one at the last dim
// (gap > 1: a strided view of a larger buffer).
inline mxc_desc desc_of(const std::vector<int64_t>& lens, int64_t gap = 1) {
    mxc_desc d{};
    d.rank = int32_t(lens.size());
    int64_t st = gap;
    for (int i = d.rank - 1; i >= 0; --i) {
        d.lens[i] = lens[size_t(i)];
        d.strides[i] = st;
        st *= lens[size_t(i)];
    }
    return d;
}

// 1 + the largest element offset of d: the elements a buffer for it holds.
inline int64_t extent(const mxc_desc& d) {
    int64_t e = 1;
    for (int i = 0; i < d.rank; ++i) e += (d.lens[i] - 1) * d.strides[i];
    return e;
}

struct pool_case {
    std::vector<int64_t> x;
    int64_t mode, include_pad, ceil_mode;
    std::vector<int64_t> pb, pe, stride, len, dil;
    int64_t gap = 1;
};

// The output lens of case c (as ir/ops/pooling.cpp computes them) and its ip
// (templates/common/pooling.hpp).
inline void pool_shape(const pool_case& c, std::vector<int64_t>& out, std::vector<int64_t>& ip) {
    const size_t s = c.x.size() - 2;
    out = {c.x[0], c.x[1]};
    ip = {c.mode, c.include_pad};
    for (size_t d = 0; d < s; ++d) {
        const int64_t span = (c.len[d] - 1) * c.dil[d] + 1, avail = c.x[2 + d] + c.pb[d] + c.pe[d];
        int64_t o = (avail - span + (c.ceil_mode ? c.stride[d] - 1 : 0)) / c.stride[d] + 1;
        if (c.ceil_mode && (o - 1) * c.stride[d] >= c.x[2 + d] + c.pb[d]) --o;
        out.push_back(o);
    }
    for (auto* v : {&c.pb, &c.pe, &c.stride, &c.len, &c.dil}) ip.insert(ip.end(), v->begin(), v->end());
}

} // namespace mxc_test
