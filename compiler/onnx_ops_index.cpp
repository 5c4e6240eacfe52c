// ONNX converters for indexing, scatter and padding ops: TopK, ScatterElements / Scatter,
// ScatterND, GatherND, TensorScatter, ReverseSequence, Pad, CenterCropPad, MaxUnpool and
// Col2Im. Values that decide output shapes (K, pads, shapes) must be build-time constants.
#include "compiler/onnx_node.hpp"
#include "ir/error.hpp"

#include <algorithm>
#include <numeric>

namespace mxc::onnx_detail {
namespace {

using outputs = std::vector<instruction*>;
using ints = std::vector<int64_t>;

instruction* indices_input(node_context& c, std::size_t i) {
    auto* idx = c.input(i);
    if (idx->result.type != dtype::int32_type && idx->result.type != dtype::int64_type)
        c.fail("indices must be int32 or int64, got " + std::string(dtype_name(idx->result.type)));
    return idx;
}

// The reduction attribute (opset 16+; "none" before).
std::string reduction(node_context& c) {
    auto r = c.attr_string("reduction", "none");
    if (r != "none" && r != "add" && r != "mul" && r != "max" && r != "min")
        c.fail("reduction must be none, add, mul, max or min, got '" + r + "'");
    return r;
}

// TopK: indices by the top_k op, values gathered with them. Always sorted (sorted=0 leaves
// the order unspecified).
outputs top_k(node_context& c) {
    auto* x = c.input(0);
    int64_t r = static_cast<int64_t>(x->result.rank());
    if (r == 0) c.fail("input must not be a scalar");
    int64_t axis = c.axis(c.attr_int("axis", -1), r);
    int64_t k = 0;
    if (c.opset < 10) k = c.attr_int("k", -1);
    else {
        auto v = c.const_ints(1, "K");
        if (v.size() != 1) c.fail("K must hold one value, got " + to_string(v));
        k = v[0];
    }
    int64_t n = x->result.lens[static_cast<std::size_t>(axis)];
    if (k < 0 || k > n) c.fail("K = " + std::to_string(k) + " must be 0.." + std::to_string(n) + " (the length of axis " + std::to_string(axis) + ")");
    auto* idx = c.add("top_k", {x}, attrs({{"k", k}, {"axis", axis}, {"largest", c.attr_int("largest", 1) != 0 ? int64_t{1} : int64_t{0}}}));
    return {c.add("gather_elements", {x, idx}, attrs({{"axis", axis}})), idx};
}

outputs scatter_elements(node_context& c) {
    auto* data = c.input(0);
    int64_t r = static_cast<int64_t>(data->result.rank());
    if (r == 0) c.fail("data must not be a scalar");
    return {c.add("scatter_elements", {data, indices_input(c, 1), c.input(2)},
                  attrs({{"axis", c.axis(c.attr_int("axis", 0), r)}, {"reduction", reduction(c)}}))};
}

outputs scatter_nd(node_context& c) {
    return {c.add("scatter_nd", {c.input(0), indices_input(c, 1), c.input(2)}, attrs({{"reduction", reduction(c)}}))};
}

outputs gather_nd(node_context& c) {
    return {c.add("gather_nd", {c.input(0), indices_input(c, 1)}, attrs({{"batch_dims", c.attr_int("batch_dims", 0)}}))};
}

outputs tensor_scatter(node_context& c) {
    auto* past = c.input(0);
    int64_t r = static_cast<int64_t>(past->result.rank());
    if (r < 2) c.fail("past_cache must have rank >= 2, got " + to_string(past->result.lens));
    int64_t axis = c.axis(c.attr_int("axis", -2), r);
    if (axis == 0) c.fail("axis must not be the batch axis 0");
    auto mode = c.attr_string("mode", "linear");
    if (mode != "linear" && mode != "circular") c.fail("mode must be linear or circular, got '" + mode + "'");
    std::vector<instruction*> in = {past, c.input(1)};
    if (c.has_input(2)) in.push_back(c.input(2));
    return {c.add("tensor_scatter", in, attrs({{"axis", axis}, {"circular", int64_t{mode == "circular" ? 1 : 0}}}))};
}

// ReverseSequence: gather_elements along the time axis with index t < len[b] ? len[b] - 1 - t : t.
outputs reverse_sequence(node_context& c) {
    auto* x = c.input(0);
    auto& l = x->result.lens;
    int64_t r = static_cast<int64_t>(l.size());
    if (r < 2) c.fail("input must have rank >= 2, got " + to_string(l));
    int64_t bax = c.axis(c.attr_int("batch_axis", 1), r, "batch_axis"), tax = c.axis(c.attr_int("time_axis", 0), r, "time_axis");
    if (bax == tax) c.fail("batch_axis and time_axis must differ");
    auto* lens = c.input(1);
    if (lens->result.lens != ints{l[static_cast<std::size_t>(bax)]})
        c.fail("sequence_lens " + to_string(lens->result.lens) + " must have one value per batch entry (" + std::to_string(l[static_cast<std::size_t>(bax)]) + ")");
    if (lens->result.type != dtype::int64_type) lens = c.add("convert", {lens}, attrs({{"target_type", std::string("int64_type")}}));
    ints at(static_cast<std::size_t>(r), 1);
    at[static_cast<std::size_t>(bax)] = l[static_cast<std::size_t>(bax)];
    auto* seq = c.broadcast_to(c.reshape(lens, at), l);
    int64_t n = l[static_cast<std::size_t>(tax)];
    ints iota(static_cast<std::size_t>(n)), tl(static_cast<std::size_t>(r), 1);
    std::iota(iota.begin(), iota.end(), 0);
    tl[static_cast<std::size_t>(tax)] = n;
    auto* t = c.broadcast_to(c.lit(literal::from<int64_t>(dtype::int64_type, tl, iota)), l);
    auto* one = c.broadcast_to(c.scalar(dtype::int64_type, 1), l);
    auto* rev = c.add("sub", {c.add("sub", {seq, one}), t});
    auto* idx = c.add("where", {c.add("less", {t, seq}), rev, t});
    return {c.add("gather_elements", {x, idx}, attrs({{"axis", tax}}))};
}

// Pad: pads (begins then ends; per listed axis from opset 18), the constant value as an input.
outputs pad(node_context& c) {
    auto* x = c.input(0);
    int64_t r = static_cast<int64_t>(x->result.rank());
    auto mode = c.attr_string("mode", "constant");
    ints pads;
    instruction* value = nullptr;
    if (c.opset < 11) {
        pads = c.attr_ints(c.opset < 2 ? "paddings" : "pads");
        double v = c.attr_float("value", 0);
        if (v != 0) value = c.scalar(x->result.type, v);
    } else {
        pads = c.const_ints(1, "pads");
        if (c.has_input(2)) value = c.input(2);
        if (c.has_input(3)) {
            auto axes = c.const_ints(3, "axes");
            if (pads.size() != 2 * axes.size()) c.fail("pads " + to_string(pads) + " must have 2 values per axis of " + to_string(axes));
            ints full(static_cast<std::size_t>(2 * r), 0);
            std::vector<bool> seen(static_cast<std::size_t>(r));
            for (std::size_t i = 0; i < axes.size(); ++i) {
                auto a = static_cast<std::size_t>(c.axis(axes[i], r, "axes"));
                if (seen[a]) c.fail("axes " + to_string(axes) + " repeat an axis");
                seen[a] = true;
                full[a] = pads[i];
                full[a + static_cast<std::size_t>(r)] = pads[i + axes.size()];
            }
            pads = full;
        }
    }
    if (static_cast<int64_t>(pads.size()) != 2 * r) c.fail("pads " + to_string(pads) + " must have 2 values per axis of " + to_string(x->result.lens));
    if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
        c.fail("mode must be constant, reflect, edge or wrap, got '" + mode + "'");
    if (value && value->result.type != x->result.type)
        c.fail("constant_value's type " + std::string(dtype_name(value->result.type)) + " differs from the data's " + std::string(dtype_name(x->result.type)));
    if (value && value->result.elements() != 1) c.fail("constant_value must be one value, got " + to_string(value->result.lens));
    std::vector<instruction*> in = {x};
    if (value && mode == "constant") in.push_back(value);
    return {c.add("pad", in, attrs({{"pads", pads}, {"mode", mode}}))};
}

// CenterCropPad: per listed axis, a centred slice where the input is longer than the target,
// centred zero padding where it is shorter.
outputs center_crop_pad(node_context& c) {
    auto* x = c.input(0);
    auto l = x->result.lens;
    int64_t r = static_cast<int64_t>(l.size());
    auto want = c.const_ints(1, "shape");
    ints axes = c.attr_ints("axes");
    if (axes.empty()) {
        axes.resize(static_cast<std::size_t>(r));
        std::iota(axes.begin(), axes.end(), 0);
    }
    if (want.size() != axes.size()) c.fail("shape " + to_string(want) + " must have one value per axis of " + to_string(axes));
    ints starts(static_cast<std::size_t>(r), 0), steps(static_cast<std::size_t>(r), 1), kept = l, pads(static_cast<std::size_t>(2 * r), 0);
    bool crop = false, grow = false;
    for (std::size_t i = 0; i < axes.size(); ++i) {
        auto a = static_cast<std::size_t>(c.axis(axes[i], r, "axes"));
        if (want[i] < 0) c.fail("shape " + to_string(want) + " must not be negative");
        if (want[i] < l[a]) {
            starts[a] = (l[a] - want[i]) / 2;
            kept[a] = want[i];
            crop = true;
        } else if (want[i] > l[a]) {
            pads[a] = (want[i] - l[a]) / 2;
            pads[a + static_cast<std::size_t>(r)] = want[i] - l[a] - pads[a];
            grow = true;
        }
    }
    if (crop) x = c.add("slice", {x}, attrs({{"starts", starts}, {"steps", steps}, {"out_lens", kept}}));
    if (grow) x = c.add("pad", {x}, attrs({{"pads", pads}, {"mode", std::string("constant")}}));
    if (!crop && !grow) x = c.add("contiguous", {x});
    return {x};
}

// MaxUnpool: y (zeros of the shape inferred from kernel_shape, strides and pads, flattened)
// with y[indices[i]] = x[i]; a given output_shape pads it with zeros at the end of each axis.
outputs max_unpool(node_context& c) {
    auto* x = c.input(0);
    auto* idx = indices_input(c, 1);
    auto& l = x->result.lens;
    if (l.size() < 3) c.fail("X must be [N, C, spatial...], got " + to_string(l));
    if (idx->result.lens != l) c.fail("I " + to_string(idx->result.lens) + " must have the lens of X " + to_string(l));
    std::size_t sp = l.size() - 2;
    auto k = c.attr_ints("kernel_shape");
    auto strides = c.attr_ints("strides", ints(sp, 1));
    auto pads = c.attr_ints("pads", ints(2 * sp, 0));
    if (k.size() != sp || strides.size() != sp || pads.size() != 2 * sp)
        c.fail("kernel_shape " + to_string(k) + ", strides " + to_string(strides) + " and pads " + to_string(pads) + " do not match X " + to_string(l));
    ints inferred = {l[0], l[1]};
    for (std::size_t i = 0; i < sp; ++i) {
        for (auto v : {strides[i], k[i], pads[i], pads[i + sp]})
            if (v < 0 || v > (int64_t{1} << 32)) c.fail("kernel_shape " + to_string(k) + ", strides " + to_string(strides) + " and pads " + to_string(pads) + " must be non-negative and below 2^32");
        inferred.push_back(checked_mul(l[i + 2] - 1, strides[i]) + k[i] - pads[i] - pads[i + sp]);
    }
    int64_t total = 1;
    for (auto v : inferred) {
        if (v < 0) c.fail("the output shape " + to_string(inferred) + " from kernel_shape, strides and pads is negative");
        total = checked_mul(total, v);
    }
    auto* zeros = c.broadcast_to(c.scalar(x->result.type, 0), {total});
    auto* y = c.add("scatter_elements", {zeros, c.reshape(idx, {idx->result.elements()}), c.reshape(x, {x->result.elements()})});
    y = c.reshape(y, inferred);
    if (!c.has_input(2)) return {y};
    auto out = c.const_ints(2, "output_shape");
    if (out.size() != l.size()) c.fail("output_shape " + to_string(out) + " must have the rank of X " + to_string(l));
    ints grow(2 * l.size(), 0);
    for (std::size_t i = 0; i < l.size(); ++i) {
        if (out[i] < inferred[i]) c.fail("output_shape " + to_string(out) + " is smaller than the inferred " + to_string(inferred));
        grow[i + l.size()] = out[i] - inferred[i];
    }
    return {out == inferred ? y : c.add("pad", {y}, attrs({{"pads", grow}, {"mode", std::string("constant")}}))};
}

outputs col2im(node_context& c) {
    auto* x = c.input(0);
    auto image = c.const_ints(1, "image_shape"), block = c.const_ints(2, "block_shape");
    std::size_t s = image.size();
    return {c.add("col2im", {x}, attrs({{"image_shape", image}, {"block_shape", block},
                                         {"padding", c.attr_ints("pads", ints(2 * s, 0))},
                                         {"stride", c.attr_ints("strides", ints(s, 1))},
                                         {"dilation", c.attr_ints("dilations", ints(s, 1))}}))};
}

} // namespace

MXC_ONNX_CONVERTERS(index) {
    add_converter("TopK", top_k);
    add_converter("Scatter", scatter_elements, 9, 10);
    add_converter("ScatterElements", scatter_elements, 11);
    add_converter("ScatterND", scatter_nd, 11);
    add_converter("GatherND", gather_nd, 11);
    add_converter("TensorScatter", tensor_scatter, 24);
    add_converter("ReverseSequence", reverse_sequence, 10);
    add_converter("Pad", pad);
    add_converter("CenterCropPad", center_crop_pad, 18);
    add_converter("MaxUnpool", max_unpool, 9);
    add_converter("Col2Im", col2im, 18);
}

} // namespace mxc::onnx_detail
