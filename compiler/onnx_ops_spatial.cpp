// ONNX converters for spatial ops: Resize / Upsample (one `resize` per resized axis),
// LpPool (an average pooling of |x|^p), GridSample and ConvTranspose.
#include "compiler/onnx_node.hpp"
#include "ir/error.hpp"

#include <algorithm>
#include <cmath>

namespace mxc::onnx_detail {
namespace {

using outputs = std::vector<instruction*>;
using ints = std::vector<int64_t>;

instruction* splat(node_context& c, instruction* like, double v) {
    return c.broadcast_to(c.scalar(like->result.type, v), like->result.lens);
}

// The values of optional input i, or nothing when it is absent or empty.
std::vector<double> optional_values(node_context& c, std::size_t i, const std::string& what) {
    if (!c.has_input(i)) return {};
    return c.const_input(i, what).to_doubles();
}

outputs resize(node_context& c) {
    auto* x = c.input(0);
    auto in = x->result.lens;
    auto r = static_cast<int64_t>(in.size());
    bool legacy = c.opset < 11; // Upsample and Resize-10: X, scales; asymmetric coordinates
    std::vector<double> scales, sizes, roi;
    if (c.node.op_type() == "Upsample" && c.opset < 9) {
        auto* a = c.attr("scales");
        if (!a) c.fail("attribute 'scales' is required");
        scales.assign(a->floats().begin(), a->floats().end());
    } else if (legacy) {
        scales = optional_values(c, 1, "scales");
    } else {
        roi = optional_values(c, 1, "roi");
        scales = optional_values(c, 2, "scales");
        sizes = optional_values(c, 3, "sizes");
    }
    ints axes;
    if (c.has_attr("axes")) {
        for (auto a : c.attr_ints("axes")) axes.push_back(c.axis(a, r));
        auto sorted = axes;
        std::sort(sorted.begin(), sorted.end());
        if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) c.fail("axes repeat an axis");
    } else {
        for (int64_t a = 0; a < r; ++a) axes.push_back(a);
    }
    auto n = axes.size();
    if (scales.empty() == sizes.empty()) c.fail("exactly one of scales and sizes must be given");
    std::vector<double> scale(n);
    ints out(n);
    if (!scales.empty()) {
        if (scales.size() != n) c.fail("scales has " + std::to_string(scales.size()) + " values, expected " + std::to_string(n));
        for (std::size_t i = 0; i < n; ++i) {
            if (!(scales[i] > 0)) c.fail("scales must be positive");
            scale[i] = scales[i];
            out[i] = static_cast<int64_t>(std::floor(static_cast<double>(in[static_cast<std::size_t>(axes[i])]) * scales[i]));
        }
    } else {
        if (sizes.size() != n) c.fail("sizes has " + std::to_string(sizes.size()) + " values, expected " + std::to_string(n));
        auto policy = c.attr_string("keep_aspect_ratio_policy", "stretch");
        if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
            c.fail("unknown keep_aspect_ratio_policy '" + policy + "'");
        double keep = policy == "not_larger" ? INFINITY : 0.0;
        for (std::size_t i = 0; i < n; ++i) {
            double s = sizes[i] / static_cast<double>(in[static_cast<std::size_t>(axes[i])]);
            keep = policy == "not_larger" ? std::min(keep, s) : std::max(keep, s);
        }
        for (std::size_t i = 0; i < n; ++i) {
            double len = static_cast<double>(in[static_cast<std::size_t>(axes[i])]);
            if (policy == "stretch") {
                out[i] = static_cast<int64_t>(sizes[i]);
                scale[i] = sizes[i] / len;
            } else {
                out[i] = static_cast<int64_t>(std::floor(keep * len + 0.5));
                scale[i] = keep;
            }
            if (out[i] <= 0 || !(scale[i] > 0)) c.fail("sizes must be positive");
        }
    }
    auto mode = c.attr_string("mode", "nearest");
    if (mode == "bilinear" || mode == "trilinear") mode = "linear";
    if (mode != "nearest" && mode != "linear" && mode != "cubic") c.fail("unknown mode '" + mode + "'");
    if (legacy && mode == "cubic") c.fail("mode 'cubic' needs opset 11");
    auto coord = legacy ? std::string("asymmetric") : c.attr_string("coordinate_transformation_mode", "half_pixel");
    auto nearest = legacy ? std::string("floor") : c.attr_string("nearest_mode", "round_prefer_floor");
    bool crop = coord == "tf_crop_and_resize";
    if (crop && roi.size() != 2 * n && roi.size() != static_cast<std::size_t>(2 * r))
        c.fail("tf_crop_and_resize needs roi with " + std::to_string(2 * n) + " values, got " + std::to_string(roi.size()));
    // Nearest upsampling by whole numbers repeats every element k times: views (unsqueeze
    // after each dim, broadcast to k) and one packed copy, when the rounding picks exactly that.
    bool half = coord == "half_pixel" || coord == "pytorch_half_pixel";
    bool repeats = mode == "nearest" && ((half && (nearest == "round_prefer_floor" || nearest == "round_prefer_ceil")) ||
                                         (coord == "asymmetric" && nearest == "floor"));
    ints factor(in.size(), 1);
    for (std::size_t i = 0; i < n && repeats; ++i) {
        auto a = static_cast<std::size_t>(axes[i]);
        repeats = scale[i] >= 1 && scale[i] == std::floor(scale[i]) && out[i] == in[a] * static_cast<int64_t>(scale[i]);
        factor[a] = static_cast<int64_t>(scale[i]);
    }
    if (repeats) {
        ints after, wide, dims;
        for (std::size_t i = 0; i < in.size(); ++i) {
            after.push_back(static_cast<int64_t>(2 * i + 1));
            wide.push_back(in[i]);
            wide.push_back(factor[i]);
            dims.push_back(in[i] * factor[i]);
        }
        auto* u = c.add("unsqueeze", {x}, attrs({{"axes", after}}));
        return {c.reshape(c.broadcast_to(u, wide), dims)};
    }
    auto* y = x;
    for (std::size_t i = 0; i < n; ++i) {
        auto a = static_cast<std::size_t>(axes[i]);
        std::vector<double> axis_roi{0.0, 1.0};
        if (crop) {
            std::size_t half = roi.size() / 2, k = roi.size() == 2 * n ? i : a;
            axis_roi = {roi[k], roi[k + half]};
        }
        if (!crop && out[i] == in[a] && scale[i] == 1.0) continue; // the identity
        y = c.add("resize", {y}, attrs({{"axis", axes[i]},
                                        {"length", out[i]},
                                        {"mode", mode},
                                        {"coordinate_transformation_mode", coord},
                                        {"nearest_mode", nearest},
                                        {"cubic_coeff_a", c.attr_float("cubic_coeff_a", -0.75)},
                                        {"exclude_outside", c.attr_int("exclude_outside", 0)},
                                        {"antialias", c.attr_int("antialias", 0)},
                                        {"scale", scale[i]},
                                        {"roi", axis_roi},
                                        {"extrapolation_value", c.attr_float("extrapolation_value", 0.0)}}));
    }
    return {y};
}

ints spatial(node_context& c, const std::string& name, std::size_t sp, int64_t dflt) {
    auto v = c.attr_ints(name, ints(sp, dflt));
    if (v.size() != sp) c.fail("'" + name + "' has " + std::to_string(v.size()) + " values, expected " + std::to_string(sp));
    return v;
}

// (sum over the window of |x|^p)^(1/p): an average pooling counting the padding, times the
// window size.
outputs lp_pool(node_context& c) {
    auto* x = c.input(0);
    auto l = x->result.lens;
    if (l.size() < 3) c.fail("X must have rank >= 3, got " + to_string(l));
    std::size_t sp = l.size() - 2;
    if (!c.has_attr("kernel_shape")) c.fail("attribute 'kernel_shape' is required");
    auto k = spatial(c, "kernel_shape", sp, 1);
    auto strides = spatial(c, "strides", sp, 1);
    auto dil = spatial(c, "dilations", sp, 1);
    for (auto v : {k, strides, dil})
        for (auto e : v)
            if (e < 1) c.fail("kernel_shape, strides and dilations must be positive");
    ints pads(2 * sp, 0);
    auto pad_mode = c.attr_string("auto_pad", "NOTSET");
    if (pad_mode == "NOTSET") {
        pads = spatial(c, "pads", 2 * sp, 0);
    } else if (pad_mode == "SAME_UPPER" || pad_mode == "SAME_LOWER") {
        for (std::size_t i = 0; i < sp; ++i) {
            int64_t o = (l[i + 2] + strides[i] - 1) / strides[i];
            int64_t total = std::max<int64_t>(0, (o - 1) * strides[i] + (k[i] - 1) * dil[i] + 1 - l[i + 2]);
            pads[i] = pad_mode == "SAME_UPPER" ? total / 2 : total - total / 2;
            pads[i + sp] = total - pads[i];
        }
    } else if (pad_mode != "VALID") {
        c.fail("unknown auto_pad '" + pad_mode + "'");
    }
    int64_t p = c.attr_int("p", 2);
    if (p < 1) c.fail("p must be positive, got " + std::to_string(p));
    auto* v = p == 1 ? c.add("abs", {x}) : p == 2 ? c.add("mul", {x, x}) : c.add("pow", {c.add("abs", {x}), splat(c, x, static_cast<double>(p))});
    auto* avg = c.add("pooling", {v}, attrs({{"mode", std::string("average")},
                                             {"padding", pads},
                                             {"stride", strides},
                                             {"lengths", k},
                                             {"dilation", dil},
                                             {"ceil_mode", c.attr_int("ceil_mode", 0)},
                                             {"count_include_pad", int64_t{1}}}));
    int64_t window = 1;
    for (auto e : k) window *= e;
    auto* sum = c.add("mul", {avg, splat(c, avg, static_cast<double>(window))});
    if (p == 1) return {sum};
    if (p == 2) return {c.add("sqrt", {sum})};
    return {c.add("pow", {sum, splat(c, sum, 1.0 / static_cast<double>(p))})};
}

outputs grid_sample(node_context& c) {
    auto* x = c.input(0);
    auto* g = c.input(1);
    auto mode = c.attr_string("mode", c.opset < 20 ? "bilinear" : "linear");
    int64_t m = mode == "nearest" ? 0 : (mode == "linear" || mode == "bilinear") ? 1 : (mode == "cubic" || mode == "bicubic") ? 2 : -1;
    if (m < 0) c.fail("unknown mode '" + mode + "'");
    auto pad = c.attr_string("padding_mode", "zeros");
    int64_t p = pad == "zeros" ? 0 : pad == "border" ? 1 : pad == "reflection" ? 2 : -1;
    if (p < 0) c.fail("unknown padding_mode '" + pad + "'");
    if (g->result.type != x->result.type)
        g = c.add("convert", {g}, attrs({{"target_type", std::string(dtype_name(x->result.type))}}));
    return {c.add("grid_sample", {x, g}, attrs({{"mode", m}, {"padding_mode", p}, {"align_corners", c.attr_int("align_corners", 0)}}))};
}

outputs conv_transpose(node_context& c) {
    auto* x = c.input(0);
    auto* w = c.input(1);
    auto l = x->result.lens;
    if (l.size() < 3 || w->result.rank() != l.size())
        c.fail("X " + to_string(l) + " and W " + to_string(w->result.lens) + " must have the same rank >= 3");
    std::size_t sp = l.size() - 2;
    ints k(w->result.lens.begin() + 2, w->result.lens.end());
    auto strides = spatial(c, "strides", sp, 1);
    auto dil = spatial(c, "dilations", sp, 1);
    auto out_pad = spatial(c, "output_padding", sp, 0);
    for (auto v : {strides, dil})
        for (auto e : v)
            if (e < 1) c.fail("strides and dilations must be positive");
    auto pad_mode = c.attr_string("auto_pad", "NOTSET");
    ints pads = pad_mode == "NOTSET" ? spatial(c, "pads", 2 * sp, 0) : ints(2 * sp, 0);
    ints out(sp);
    auto full = [&](std::size_t i) { return strides[i] * (l[i + 2] - 1) + out_pad[i] + (k[i] - 1) * dil[i] + 1; };
    bool given = c.has_attr("output_shape");
    if (given || pad_mode == "SAME_UPPER" || pad_mode == "SAME_LOWER") {
        ints want(sp);
        if (given) {
            auto os = c.attr_ints("output_shape");
            if (os.size() == sp + 2) os.erase(os.begin(), os.begin() + 2);
            if (os.size() != sp) c.fail("output_shape must have one value per spatial dim");
            want = os;
        } else {
            for (std::size_t i = 0; i < sp; ++i) want[i] = l[i + 2] * strides[i];
        }
        for (std::size_t i = 0; i < sp; ++i) {
            int64_t total = full(i) - want[i];
            bool upper = pad_mode != "SAME_LOWER";
            pads[i] = upper ? total / 2 : total - total / 2;
            pads[i + sp] = total - pads[i];
            out[i] = want[i];
        }
    } else if (pad_mode != "NOTSET" && pad_mode != "VALID") {
        c.fail("unknown auto_pad '" + pad_mode + "'");
    }
    // An output larger than the full result (negative total padding) grows output_padding.
    for (std::size_t i = 0; i < sp; ++i) {
        int64_t total = pads[i] + pads[i + sp];
        if (total < 0) {
            out_pad[i] -= total;
            pads[i] = pads[i + sp] = 0;
        }
    }
    auto* y = c.add("convolution_transpose", {x, w}, attrs({{"padding", pads},
                                                           {"stride", strides},
                                                           {"dilation", dil},
                                                           {"output_padding", out_pad},
                                                           {"group", c.attr_int("group", 1)}}));
    if (given || pad_mode == "SAME_UPPER" || pad_mode == "SAME_LOWER")
        if (ints(y->result.lens.begin() + 2, y->result.lens.end()) != out) c.fail("internal: output_shape not met");
    if (c.has_input(2)) {
        auto* b = c.input(2);
        int64_t m = y->result.lens[1];
        if (b->result.lens != ints{m}) c.fail("bias B " + to_string(b->result.lens) + " must be {" + std::to_string(m) + "}");
        ints axes;
        for (std::size_t i = 0; i < sp; ++i) axes.push_back(static_cast<int64_t>(i) + 1);
        auto* b4 = c.add("unsqueeze", {b}, attrs({{"axes", axes}}));
        y = c.add("add", {y, c.broadcast_to(b4, y->result.lens)});
    }
    return {y};
}

} // namespace

MXC_ONNX_CONVERTERS(spatial) {
    add_converter("ConvTranspose", conv_transpose);
    add_converter("GridSample", grid_sample, 16);
    add_converter("Resize", resize, 10);
    add_converter("Upsample", resize, 7, 9);
    add_converter("LpPool", lp_pool, 2);
}

} // namespace mxc::onnx_detail
