// pooling: one thread per output element; ip as in templates/common/pooling.hpp.
// 2-d pooling of a packed output (the common case: a CNN's max pool) computes its output
// position with 32-bit fast divisions and walks the window row by row (mxc_pool2d_window, the
// math mxc_pool_at shares); any other rank or layout, mxc_pool_at's general loop (int64
// unravel and a division per window element and dim: ~20x slower on the H200 for ResNet-50's
// 3x3 max pool, 2026-11-23 profiles: 0.52 ms at batch 32 for 26 MB of output).
#pragma once
#include "templates/common/fastdiv.hpp"
#include "templates/common/pooling.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

template <class T> struct pooling_elem {
    __device__ void operator()(const dev_args& a, int64_t i) const {
        out_ptr<T>(a)[i] = T(mxc_pool_at(in_ptr<T>(a, 0), a.in_desc[0], a.out_desc, a.ip, i));
    }
};

// Output i = ((n * C + c) * OH + oy) * OW + ox of a packed output with fewer than 2^31 elements.
template <class T> struct pooling2d_elem {
    mxc_pool2d p;
    mxc_fastdiv ow_d, oh_d, c_d;
    int64_t xs0, xs1;
    __device__ void operator()(const dev_args& a, int64_t i) const {
        const uint32_t o = uint32_t(i), row = ow_d.div(o), ox = o - row * ow_d.d;
        const uint32_t nc = oh_d.div(row), oy = row - nc * oh_d.d, n = c_d.div(nc), c = nc - n * c_d.d;
        const T* base = in_ptr<T>(a, 0) + int64_t(n) * xs0 + int64_t(c) * xs1;
        out_ptr<T>(a)[i] = T(mxc_pool2d_window(base, p, int64_t(oy), int64_t(ox)));
    }
};

// Whether the 2-d kernel takes the pooling of x (xd) into od.
MXC_HD inline bool pooling2d_fits(const mxc_desc& xd, const mxc_desc& od) {
    constexpr int64_t lim = int64_t(1) << 31;
    return od.rank == 4 && xd.rank == 4 && mxc_is_packed(od) && mxc_elements(od) < lim && od.lens[1] > 0 &&
           od.lens[2] > 0 && od.lens[3] > 0 && od.lens[1] < lim && od.lens[2] < lim && od.lens[3] < lim;
}

template <class T> void pooling(const mxc_kargs& k, hipStream_t s) {
    const mxc_desc &xd = k.in_desc[0], &od = *k.out_desc;
    if (pooling2d_fits(xd, od)) {
        const pooling2d_elem<T> f{mxc_pool2d_of(xd, k.ip), mxc_fastdiv(uint32_t(od.lens[3])), mxc_fastdiv(uint32_t(od.lens[2])),
                                  mxc_fastdiv(uint32_t(od.lens[1])), xd.strides[0], xd.strides[1]};
        return launch_per_output(k, s, f);
    }
    launch_per_output(k, s, pooling_elem<T>{});
}

} // namespace hip
} // namespace mxc
