// softmax / log_softmax along axis ip[0] (math: templates/common/softmax.hpp).
#pragma once
#include "templates/common/softmax.hpp"
#include "templates/cpu/common.hpp"

namespace mxc {
namespace cpu {

template <class T, bool Log> inline void softmax_rows(const mxc_kargs& k) {
    const int64_t rows = mxc_softmax_rows(*k.out_desc, k.ip[0]);
    for (int64_t r = 0; r < rows; ++r)
        mxc_softmax_row<T, Log>(input<T>(k, 0), k.in_desc[0], output<T>(k), *k.out_desc, k.ip[0], r);
}

template <class T> void softmax(const mxc_kargs& k) { softmax_rows<T, false>(k); }
template <class T> void log_softmax(const mxc_kargs& k) { softmax_rows<T, true>(k); }

} // namespace cpu
} // namespace mxc
