// softmax / log_softmax along axis ip[0] (math: templates/common/softmax.hpp, max and sum in
// the compute type). One block per long row, one warp per short row; rows along a strided
// axis (axis not last, or a strided input view) with enough rows to fill the device: one
// thread per row, so that neighbouring threads read neighbouring elements.
#pragma once
#include "templates/common/softmax.hpp"
#include "templates/hip/block_reduce.hpp"

namespace mxc {
namespace hip {

template <class T, bool Log> struct softmax_row_fn {
    template <class Team> __device__ void operator()(const dev_args& a, int64_t row, const Team& t) const {
        mxc_softmax_row<T, Log>(in_ptr<T>(a, 0), a.in_desc[0], out_ptr<T>(a), a.out_desc, a.ip[0], row, t);
    }
};
template <class T, bool Log> void softmax_rows(const mxc_kargs& k, hipStream_t s) {
    using C = mxc_compute_t<T>;
    const int64_t axis = k.ip[0], rows = mxc_softmax_rows(*k.out_desc, axis);
    const bool strided = mxc_softmax_inner(*k.out_desc, axis) != 1 || k.in_desc[0].strides[axis] != 1;
    const team_kind team = choose_team<C>(rows, k.out_desc->lens[axis], strided);
    launch_rows<C>(pack(k), rows, team, s, softmax_row_fn<T, Log>{});
}
template <class T> void softmax(const mxc_kargs& k, hipStream_t s) { softmax_rows<T, false>(k, s); }
template <class T> void log_softmax(const mxc_kargs& k, hipStream_t s) { softmax_rows<T, true>(k, s); }

} // namespace hip
} // namespace mxc
