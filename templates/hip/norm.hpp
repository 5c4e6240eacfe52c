// layer_norm / rms_norm (math: templates/common/norm.hpp, mean and variance in the compute
// type): one block per long row, one warp per short row; scale and bias are applied on the
// store.
#pragma once
#include "templates/common/norm.hpp"
#include "templates/hip/block_reduce.hpp"

namespace mxc {
namespace hip {

template <class T, bool Rms> struct norm_row_fn {
    template <class Team> __device__ void operator()(const dev_args& a, int64_t row, const Team& t) const {
        const T* in[3] = {in_ptr<T>(a, 0), a.n_in > 1 ? in_ptr<T>(a, 1) : nullptr, a.n_in > 2 ? in_ptr<T>(a, 2) : nullptr};
        mxc_norm_row<T, Rms>(in, a.in_desc, a.n_in, out_ptr<T>(a), a.out_desc, a.ip[0], a.fp[0], row, t);
    }
};
template <class T, bool Rms> void norm_rows(const mxc_kargs& k, hipStream_t s) {
    using C = mxc_compute_t<T>;
    const int64_t rows = mxc_norm_rows(*k.out_desc, k.ip[0]);
    const team_kind team = choose_team<C>(rows, mxc_norm_row_len(*k.out_desc, k.ip[0]), false);
    launch_rows<C>(pack(k), rows, team, s, norm_row_fn<T, Rms>{});
}
template <class T> void layer_norm(const mxc_kargs& k, hipStream_t s) { norm_rows<T, false>(k, s); }
template <class T> void rms_norm(const mxc_kargs& k, hipStream_t s) { norm_rows<T, true>(k, s); }

} // namespace hip
} // namespace mxc
