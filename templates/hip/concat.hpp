// concat along axis ip[0]: one launch per input, one thread per input element; each launch
// gets its input as in[0] and ip = [axis, offset along the axis] (templates/common/concat.hpp).
#pragma once
#include "templates/common/concat.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T> struct concat_elem {
    __device__ void operator()(const dev_args& a, int64_t e) const {
        mxc_concat_copy(in_ptr<T>(a, 0), a.in_desc[0], out_ptr<T>(a), a.out_desc, a.ip[0], a.ip[1], e);
    }
};
template <class T> void concat(const mxc_kargs& k, hipStream_t s) {
    const int64_t axis = k.ip[0];
    int64_t at = 0;
    for (int i = 0; i < k.n_in; ++i) {
        dev_args a{};
        a.n_in = 1;
        a.in[0] = k.in[i];
        a.in_desc[0] = k.in_desc[i];
        a.out = k.out;
        a.out_desc = *k.out_desc;
        a.n_ip = 2;
        a.ip[0] = axis;
        a.ip[1] = at;
        launch(a, mxc_elements(k.in_desc[i]), s, concat_elem<T>{});
        at += k.in_desc[i].lens[axis];
    }
}

} // namespace hip
} // namespace mxc
