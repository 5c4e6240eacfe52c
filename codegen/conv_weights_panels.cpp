// store_conv_weights_as_panels (codegen/conv_weights_panels.hpp).
#include "codegen/conv_weights_panels.hpp"
#include "codegen/weights_blob.hpp"
#include "ir/dtype.hpp"
#include "ir/eval.hpp"
#include "templates/cpu/convolution.hpp"
#include "templates/cpu/convolution_transpose.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace mxc {

namespace {
// (groups, rows per group, depth) of the kernel's weights if it is a candidate, else zeros;
// transposed: a transposed convolution's, whose rows (output channel, kernel offset) run along
// the weights' rows and depth (input channels) across them
struct dims {
    int64_t groups = 0, rows = 0, depth = 0;
    bool transposed = false;
    bool strips = false; // the pixel-rows form (cpu::conv_rows_form): depth x rows as strips of nr rows
    bool operator==(const dims& o) const {
        return groups == o.groups && rows == o.rows && depth == o.depth && transposed == o.transposed &&
               strips == o.strips;
    }
};
// A transposed convolution: weights [C, M / group, k...] (C = group x depth), rows M / group x
// the kernel's elements, where the GEMM form runs (conv_transpose_gemm_form).
dims transposed_candidate(const kernel_call& k) {
    const shape &x = k.in_shapes[0], &w = k.in_shapes[1], &out = k.out_shape;
    const std::size_t r = out.lens.size();
    if (r < 3 || w.lens.size() != r || x.lens.size() != r || k.params.ip.empty() || k.params.ip[0] < 1) return {};
    const int64_t group = k.params.ip[0];
    if (w.lens[0] % group != 0 || !cpu::conv_transpose_gemm_form(make_desc(x), make_desc(w))) return {};
    int64_t rows = w.lens[1];
    for (std::size_t d = 2; d < r; ++d) rows *= w.lens[d];
    return {group, rows, w.lens[0] / group, true};
}
dims candidate(const kernel_call& k) {
    const bool transposed = k.kernel == "convolution_transpose" || k.kernel == "fused_convolution_transpose";
    if (k.kernel != "convolution" && k.kernel != "fused_convolution" && !transposed) return {};
    if (k.type != dtype::float_type) return {};
    if (k.in.size() < 2 || k.in_shapes.size() < 2 || k.in[1].kind != location::weights) return {};
    if (k.in_shapes[1].type != k.type) return {};
    if (transposed) return transposed_candidate(k);
    const shape &w = k.in_shapes[1], &out = k.out_shape;
    const std::size_t r = out.lens.size();
    if (r < 3 || w.lens.size() != r || w.type != k.type || k.params.ip.size() < 1 + 3 * (r - 2)) return {};
    const int64_t depth = cpu::conv_gemm_depth(make_desc(w), make_desc(out), k.params.ip.data());
    if (depth == 0 || w.lens[0] % k.params.ip[0] != 0) return {};
    // With the weights in panels the GEMM has no gemm_tail (it reads A's rows in place): a last
    // strip of a few columns runs whole. Not where that wastes more than a twelfth of the
    // strips' work (a 7x7 plane, 49 columns: 15 of 64; 2026-11-24, ResNet-50's 512-channel 3x3
    // over 7x7 took 3.3 ms so, 2.6 with the weights as they are; over 14x14, 12 of 208: 2.3 ms
    // with the panels, 2.6 without). The shifted form (conv_shift_form) never takes gemm_tail.
    const int nr = cpu::gemm_shape<float>::nr;
    int64_t plane = 1;
    for (std::size_t d = 2; d < r; ++d) plane *= out.lens[d];
    cpu::conv_shift_geometry g;
    const mxc_desc xd = make_desc(k.in_shapes[0]), wd = make_desc(w), od = make_desc(out);
    cpu::conv_rows_copy_geometry rg;
    if (cpu::conv_rows_form(xd, wd, od, k.params.ip.data()) || cpu::conv_rows_pointwise(xd, wd, od, k.params.ip.data()) ||
        cpu::conv_rows_strided(xd, wd, od, k.params.ip.data(), rg))
        return {1, w.lens[0], depth, false, true};
    if (cpu::conv_shift_form(make_desc(k.in_shapes[0]), make_desc(w), make_desc(out), k.params.ip.data(), g))
        return {k.params.ip[0], w.lens[0] / k.params.ip[0], depth};
    const int64_t part = plane % nr;
    if (part != 0 && part <= cpu::gemm_tail_max && (nr - part) * 12 > (plane + nr - 1) / nr * nr) return {};
    return {k.params.ip[0], w.lens[0] / k.params.ip[0], depth};
}

// w (groups x rows rows of depth elements, es bytes each; transposed: groups x depth rows of
// `rows` elements) as panels, group by group; d.strips: one group's rows as the columns of
// depth x rows strips
std::string to_panels(const char* w, const dims& d, std::size_t es) {
    const int64_t per_group = d.rows * d.depth;
    std::string out(static_cast<std::size_t>(d.groups * per_group) * es, '\0');
    if (d.strips) {
        for (int64_t i = 0; i < d.rows; ++i)
            for (int64_t kk = 0; kk < d.depth; ++kk)
                std::memcpy(&out[static_cast<std::size_t>(cpu::gemm_strip_index(kk, i, d.depth, cpu::gemm_shape<float>::nr)) * es],
                            w + static_cast<std::size_t>(i * d.depth + kk) * es, es);
        return out;
    }
    for (int64_t g = 0; g < d.groups; ++g)
        for (int64_t i = 0; i < d.rows; ++i)
            for (int64_t kk = 0; kk < d.depth; ++kk)
                std::memcpy(&out[static_cast<std::size_t>(g * per_group + cpu::gemm_panel_index(i, kk, d.depth, d.rows)) * es],
                            w + static_cast<std::size_t>(g * per_group + (d.transposed ? kk * d.rows + i : i * d.depth + kk)) * es, es);
    return out;
}
} // namespace

int store_conv_weights_as_panels(lowered_module& l, int* as_strips) {
    return relayout_weights<dims>(
        l, candidate,
        [&](const kernel_call& k, const dims& d, const char* w) {
            if (d.strips && as_strips) ++*as_strips;
            return to_panels(w, d, dtype_size(k.type));
        },
        [](kernel_call& k, int64_t at) {
            k.in[1].offset = at;
            k.a_panels = true;
        });
}

} // namespace mxc
