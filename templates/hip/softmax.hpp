// softmax / log_softmax along axis ip[0]: one thread per row (templates/common/softmax.hpp).
#pragma once
#include "templates/common/softmax.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T, bool Log> struct softmax_row_fn {
    __device__ void operator()(const dev_args& a, int64_t row) const {
        mxc_softmax_row<T, Log>(in_ptr<T>(a, 0), a.in_desc[0], out_ptr<T>(a), a.out_desc, a.ip[0], row);
    }
};
template <class T> void softmax(const mxc_kargs& k, hipStream_t s) {
    launch(pack(k), mxc_softmax_rows(*k.out_desc, k.ip[0]), s, softmax_row_fn<T, false>{});
}
template <class T> void log_softmax(const mxc_kargs& k, hipStream_t s) {
    launch(pack(k), mxc_softmax_rows(*k.out_desc, k.ip[0]), s, softmax_row_fn<T, true>{});
}

} // namespace hip
} // namespace mxc
