// layer_norm / rms_norm (math: templates/common/norm.hpp), rows shared out to the thread pool
// in groups of about 4096 elements.
#pragma once
#include "templates/common/norm.hpp"
#include "templates/cpu/common.hpp"
#include "templates/cpu/parallel.hpp"

namespace mxc {
namespace cpu {

template <class T, bool Rms> inline void norm_rows(const mxc_kargs& k) {
    const int64_t axis = k.ip[0], rows = mxc_norm_rows(*k.out_desc, axis);
    if (rows == 0) return;
    const int64_t len = mxc_norm_row_len(*k.out_desc, axis), group = 4096 / len + 1; // rows per work item
    const T* in[3] = {input<T>(k, 0), k.n_in > 1 ? input<T>(k, 1) : nullptr, k.n_in > 2 ? input<T>(k, 2) : nullptr};
    parallel_for((rows + group - 1) / group, [&](int64_t g) {
        const int64_t r1 = (g + 1) * group < rows ? (g + 1) * group : rows;
        for (int64_t r = g * group; r < r1; ++r)
            mxc_norm_row<T, Rms>(in, k.in_desc, k.n_in, output<T>(k), *k.out_desc, axis, k.fp[0], r);
    });
}

template <class T> void layer_norm(const mxc_kargs& k) { norm_rows<T, false>(k); }
template <class T> void rms_norm(const mxc_kargs& k) { norm_rows<T, true>(k); }

} // namespace cpu
} // namespace mxc
