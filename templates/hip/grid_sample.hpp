// grid_sample: one thread per output element (templates/common/grid_sample.hpp).
#pragma once
#include "templates/common/grid_sample.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T> struct grid_sample_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<T>(a)[i] = mxc_grid_sample_at(in_ptr<T>(a, 0), a.in_desc[0], in_ptr<T>(a, 1), a.in_desc[1], a.out_desc, a.ip, i);
    }
};
template <class T> void grid_sample(const mxc_kargs& k, hipStream_t s) { launch_per_output(k, s, grid_sample_elem<T>{}); }

} // namespace hip
} // namespace mxc
