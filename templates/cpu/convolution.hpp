// convolution: x [N, C, spatial...] * w [M, C/group, k...] -> packed y [N, M, out...], no bias.
// ip = [group, pad_begin[0..s), stride[0..s), dilation[0..s)], s = rank - 2; output position p
// reads input position p * stride - pad_begin + k * dilation (outside: zero), as
// mxc_conv_at (templates/common/convolution.hpp), which the hip kernel uses.
// The cpu loop accumulates one output plane per (n, m) in the compute type: for every input
// channel and kernel offset it adds w * x along whole output rows, the innermost loop over
// the last output dim with its valid range computed up front (no bounds checks inside).
#pragma once
#include "templates/common/convolution.hpp"
#include "templates/cpu/common.hpp"

#include <vector>

namespace mxc {
namespace cpu {

// `epi(acc, e)` maps the accumulated value of output element e before the store (fused
// epilogues, templates/cpu/fused.hpp); the plain kernel stores acc as it is.
template <class T, class E> void convolution_epilogue(const mxc_kargs& k, E epi) {
    using C = compute_t<T>;
    const mxc_desc &xd = k.in_desc[0], &wd = k.in_desc[1], &od = *k.out_desc;
    const int r = od.rank, s = r - 2, last = r - 1;
    const int64_t group = k.ip[0];
    const int64_t* pad = k.ip + 1;
    const int64_t* stride = k.ip + 1 + s;
    const int64_t* dil = k.ip + 1 + 2 * s;
    int64_t plane = 1, kn = 1;
    for (int d = 2; d < r; ++d) {
        plane *= od.lens[d];
        kn *= wd.lens[d];
    }
    if (plane == 0 || elements(od) == 0) return;
    const int64_t out_w = od.lens[last], k_w = wd.lens[last], in_w = xd.lens[last];
    const int64_t rows = plane / out_w, krows = kn / k_w;
    const int64_t st_w = stride[s - 1], pad_w = pad[s - 1], dil_w = dil[s - 1], xs_w = xd.strides[last];
    const int64_t cg = wd.lens[1], mg = od.lens[1] / group;
    const T* x = input<T>(k, 0);
    const T* w = input<T>(k, 1);
    T* y = output<T>(k);
    std::vector<C> acc(static_cast<size_t>(plane));
    for (int64_t n = 0; n < od.lens[0]; ++n)
        for (int64_t m = 0; m < od.lens[1]; ++m) {
            for (auto& v : acc) v = C(0);
            const int64_t g = m / mg;
            for (int64_t c = 0; c < cg; ++c) {
                const T* xc = x + n * xd.strides[0] + (g * cg + c) * xd.strides[1];
                const T* wc = w + m * wd.strides[0] + c * wd.strides[1];
                for (int64_t kr = 0; kr < krows; ++kr) {
                    // kernel index over the spatial dims but the last
                    int64_t kidx[MXC_MAX_RANK] = {}, woff = 0, rest = kr;
                    for (int d = s - 2; d >= 0; --d) {
                        kidx[d] = rest % wd.lens[2 + d];
                        rest /= wd.lens[2 + d];
                        woff += kidx[d] * wd.strides[2 + d];
                    }
                    for (int64_t row = 0; row < rows; ++row) {
                        int64_t xoff = 0, rr = row;
                        bool inside = true;
                        for (int d = s - 2; d >= 0 && inside; --d) {
                            const int64_t o = rr % od.lens[2 + d];
                            rr /= od.lens[2 + d];
                            const int64_t pos = o * stride[d] - pad[d] + kidx[d] * dil[d];
                            inside = pos >= 0 && pos < xd.lens[2 + d];
                            xoff += pos * xd.strides[2 + d];
                        }
                        if (!inside) continue;
                        C* arow = acc.data() + row * out_w;
                        for (int64_t kw = 0; kw < k_w; ++kw) {
                            const C wv = C(wc[woff + kw * wd.strides[last]]);
                            // valid output range: 0 <= ow * st - pad + kw * dil < in_w
                            const int64_t lo_num = pad_w - kw * dil_w, hi_num = in_w - 1 + pad_w - kw * dil_w;
                            if (hi_num < 0) continue;
                            const int64_t lo = lo_num <= 0 ? 0 : (lo_num + st_w - 1) / st_w;
                            const int64_t hi = hi_num / st_w + 1 < out_w ? hi_num / st_w + 1 : out_w;
                            const T* xr = xc + xoff + (lo * st_w - pad_w + kw * dil_w) * xs_w;
                            const int64_t step = st_w * xs_w;
                            for (int64_t ow = lo; ow < hi; ++ow) arow[ow] += wv * C(xr[(ow - lo) * step]);
                        }
                    }
                }
            }
            T* yp = y + (n * od.lens[1] + m) * plane;
            for (int64_t i = 0; i < plane; ++i) yp[i] = T(epi(acc[static_cast<size_t>(i)], (n * od.lens[1] + m) * plane + i));
        }
}

template <class T> void convolution(const mxc_kargs& k) {
    convolution_epilogue<T>(k, [](compute_t<T> v, int64_t) { return v; });
}

} // namespace cpu
} // namespace mxc
