// top_k hip kernel: one thread per element of x, which counts the elements of its slice that
// rank before it and, when that rank is below k, writes its index there
// (templates/common/topk.hpp; ranks are distinct, so every output slot has one writer).
#pragma once
#include "templates/common/topk.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T> struct top_k_elem {
    __device__ void operator()(const dev_args& a, int64_t e) const {
        int64_t idx[MXC_MAX_RANK];
        const int axis = static_cast<int>(a.ip[0]);
        const int64_t rank = mxc_topk_rank(in_ptr<T>(a, 0), a.in_desc[0], a.ip, e, idx);
        if (rank >= a.out_desc.lens[axis]) return;
        const int64_t me = idx[axis];
        idx[axis] = rank;
        int64_t o = 0;
        for (int d = 0; d < a.out_desc.rank; ++d) o = o * a.out_desc.lens[d] + idx[d];
        out_ptr<int64_t>(a)[o] = me;
    }
};
template <class T> void top_k(const mxc_kargs& k, hipStream_t s) { launch(pack(k), mxc_elements(k.in_desc[0]), s, top_k_elem<T>{}); }

} // namespace hip
} // namespace mxc
