// ONNX converters for tensor-manipulation ops that lower to views and existing IR ops:
// Slice, Split (strided views), Tile (broadcast + copy), Trilu (where with a constant mask),
// DepthToSpace / SpaceToDepth (reshape, transpose, reshape) and OneHot (equal + where).
#include "compiler/onnx_node.hpp"
#include "ir/error.hpp"
#include "templates/common/abi.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace mxc::onnx_detail {
namespace {

using outputs = std::vector<instruction*>;
using ints = std::vector<int64_t>;

struct axis_slice {
    int64_t start = 0, step = 1, len = 0;
};

// ONNX Slice semantics for one axis of length dim: negative values count from the end, then
// clamp (for negative steps into [-1, dim - 1]).
axis_slice resolve(int64_t start, int64_t end, int64_t step, int64_t dim) {
    auto wrap = [dim](int64_t v) { return v < 0 ? (v < std::numeric_limits<int64_t>::min() + dim ? -1 : v + dim) : v; };
    start = wrap(start);
    end = wrap(end);
    axis_slice r;
    r.step = step;
    if (step > 0) {
        start = std::clamp<int64_t>(start, 0, dim);
        end = std::clamp<int64_t>(end, 0, dim);
        r.len = end > start ? (end - start + step - 1) / step : 0;
    } else {
        start = std::clamp<int64_t>(start, -1, dim - 1);
        end = std::clamp<int64_t>(end, -1, dim - 1);
        r.len = start > end ? (start - end + (-step) - 1) / (-step) : 0;
    }
    r.start = r.len > 0 ? start : 0;
    return r;
}

// A slice view of x given per-axis (start, step, len); identity slices are dropped.
instruction* slice_view(node_context& c, instruction* x, const std::vector<axis_slice>& s) {
    ints starts, steps, lens;
    bool identity = true;
    for (std::size_t i = 0; i < s.size(); ++i) {
        starts.push_back(s[i].start);
        steps.push_back(s[i].step);
        lens.push_back(s[i].len);
        identity = identity && s[i].start == 0 && s[i].step == 1 && s[i].len == x->result.lens[i];
    }
    if (identity) return x;
    return c.add("slice", {x}, attrs({{"starts", starts}, {"steps", steps}, {"out_lens", lens}}));
}

std::vector<axis_slice> whole(const instruction* x) {
    std::vector<axis_slice> s;
    for (auto l : x->result.lens) s.push_back({0, 1, l});
    return s;
}

outputs slice(node_context& c) {
    auto* x = c.input(0);
    int64_t r = static_cast<int64_t>(x->result.rank());
    ints starts, ends, axes, steps;
    if (c.opset < 10) {
        starts = c.attr_ints("starts");
        ends = c.attr_ints("ends");
        axes = c.attr_ints("axes");
    } else {
        starts = c.const_ints(1, "starts");
        ends = c.const_ints(2, "ends");
        if (c.has_input(3)) axes = c.const_ints(3, "axes");
        if (c.has_input(4)) steps = c.const_ints(4, "steps");
    }
    if (axes.empty())
        for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
        c.fail("starts " + to_string(starts) + ", ends " + to_string(ends) + ", axes " + to_string(axes) + " and steps " +
               to_string(steps) + " must have the same length");
    auto s = whole(x);
    std::vector<bool> seen(static_cast<std::size_t>(r));
    for (std::size_t i = 0; i < starts.size(); ++i) {
        auto a = static_cast<std::size_t>(c.axis(axes[i], r));
        if (seen[a]) c.fail("axes " + to_string(axes) + " repeat an axis");
        seen[a] = true;
        if (steps[i] == 0) c.fail("steps must not be 0");
        s[a] = resolve(starts[i], ends[i], steps[i], x->result.lens[a]);
    }
    return {slice_view(c, x, s)};
}

outputs split(node_context& c) {
    auto* x = c.input(0);
    int64_t r = static_cast<int64_t>(x->result.rank());
    auto axis = static_cast<std::size_t>(c.axis(c.attr_int("axis", 0), r));
    int64_t dim = x->result.lens[axis];
    auto n = static_cast<int64_t>(c.node.output_size());
    ints sizes;
    if (c.opset >= 13 && c.has_input(1)) sizes = c.const_ints(1, "split");
    else if (c.opset < 13 && c.has_attr("split")) sizes = c.attr_ints("split");
    else if (c.opset < 2 && c.has_input(1)) sizes = c.const_ints(1, "split");
    else if (c.opset >= 18 && c.has_attr("num_outputs")) {
        int64_t k = c.attr_int("num_outputs", 1);
        if (k < 1) c.fail("num_outputs must be positive, got " + std::to_string(k));
        int64_t chunk = (dim + k - 1) / k;
        for (int64_t i = 0; i < k; ++i) sizes.push_back(std::clamp<int64_t>(dim - i * chunk, 0, chunk));
    } else {
        if (dim % n != 0) c.fail("axis length " + std::to_string(dim) + " does not split into " + std::to_string(n) + " equal parts");
        sizes.assign(static_cast<std::size_t>(n), dim / n);
    }
    if (static_cast<int64_t>(sizes.size()) != n)
        c.fail("split " + to_string(sizes) + " has " + std::to_string(sizes.size()) + " parts for " + std::to_string(n) + " outputs");
    if (std::accumulate(sizes.begin(), sizes.end(), int64_t{0}) != dim || std::any_of(sizes.begin(), sizes.end(), [](int64_t v) { return v < 0; }))
        c.fail("split " + to_string(sizes) + " does not add up to the axis length " + std::to_string(dim));
    outputs ys;
    int64_t at = 0;
    for (auto len : sizes) {
        auto s = whole(x);
        s[axis] = {len > 0 ? at : 0, 1, len};
        ys.push_back(slice_view(c, x, s));
        at += len;
    }
    return ys;
}

// Tile: view x as [1, d0, 1, d1, ...], broadcast to [r0, d0, r1, d1, ...], copy, reshape.
outputs tile(node_context& c) {
    auto* x = c.input(0);
    ints reps = c.const_ints(1, "repeats");
    auto& l = x->result.lens;
    if (reps.size() != l.size()) c.fail("repeats " + to_string(reps) + " must have one value per axis of " + to_string(l));
    ints axes, wide, out;
    for (std::size_t i = 0; i < l.size(); ++i) {
        if (reps[i] < 0) c.fail("repeats " + to_string(reps) + " must not be negative");
        axes.push_back(static_cast<int64_t>(2 * i));
        wide.push_back(reps[i]);
        wide.push_back(l[i]);
        out.push_back(checked_mul(reps[i], l[i]));
    }
    if (l.empty()) return {x};
    auto* u = c.add("unsqueeze", {x}, attrs({{"axes", axes}}));
    return {c.reshape(c.broadcast_to(u, wide), out)};
}

// Trilu: x where the (constant) triangle mask holds, else 0.
outputs trilu(node_context& c) {
    auto* x = c.input(0);
    auto& l = x->result.lens;
    if (l.size() < 2) c.fail("input must have rank >= 2, got " + to_string(l));
    int64_t k = 0;
    if (c.has_input(1)) {
        auto v = c.const_ints(1, "k");
        if (v.size() != 1) c.fail("k must be a scalar");
        k = v[0];
    }
    bool upper = c.attr_int("upper", 1) != 0;
    int64_t rows = l[l.size() - 2], cols = l.back();
    std::vector<char> mask(static_cast<std::size_t>(rows * cols));
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) mask[static_cast<std::size_t>(i * cols + j)] = upper ? j - i >= k : j - i <= k;
    auto* m = c.broadcast_to(c.lit(literal(shape(dtype::bool_type, {rows, cols}), std::move(mask))), l);
    auto* zero = c.broadcast_to(c.scalar(x->result.type, 0), l);
    return {c.add("where", {m, x, zero})};
}

instruction* permute(node_context& c, instruction* x, ints perm) {
    return c.add("transpose", {x}, attrs({{"permutation", std::move(perm)}}));
}

instruction* rank4(node_context& c) {
    auto* x = c.input(0);
    if (x->result.rank() != 4) c.fail("input must be 4-D [N, C, H, W], got " + to_string(x->result.lens));
    return x;
}

outputs depth_to_space(node_context& c) {
    auto* x = rank4(c);
    int64_t bs = c.attr_int("blocksize", 0);
    auto l = x->result.lens;
    if (bs < 1 || l[1] % (bs * bs) != 0) c.fail("blocksize " + std::to_string(bs) + " must be positive with blocksize^2 dividing C = " + std::to_string(l[1]));
    int64_t n = l[0], ch = l[1] / (bs * bs), h = l[2], w = l[3];
    bool crd = c.attr_string("mode", "DCR") == "CRD";
    auto* t = crd ? permute(c, c.reshape(x, {n, ch, bs, bs, h, w}), {0, 1, 4, 2, 5, 3})
                  : permute(c, c.reshape(x, {n, bs, bs, ch, h, w}), {0, 3, 4, 1, 5, 2});
    return {c.reshape(t, {n, ch, h * bs, w * bs})};
}

outputs space_to_depth(node_context& c) {
    auto* x = rank4(c);
    int64_t bs = c.attr_int("blocksize", 0);
    auto l = x->result.lens;
    if (bs < 1 || l[2] % bs != 0 || l[3] % bs != 0) c.fail("blocksize " + std::to_string(bs) + " must be positive and divide H and W of " + to_string(l));
    int64_t n = l[0], ch = l[1], h = l[2] / bs, w = l[3] / bs;
    auto* t = permute(c, c.reshape(x, {n, ch, h, bs, w, bs}), {0, 3, 5, 1, 2, 4});
    return {c.reshape(t, {n, ch * bs * bs, h, w})};
}

// OneHot: y = (indices, wrapped, == iota along axis) ? on : off.
outputs one_hot(node_context& c) {
    auto* idx = c.input(0);
    auto dv = c.const_input(1, "depth").to_doubles();
    if (dv.size() != 1 || dv[0] < 1) c.fail("depth must be a positive scalar");
    auto depth = static_cast<int64_t>(dv[0]);
    auto* values = c.input(2);
    if (values->result.elements() != 2) c.fail("values must hold [off, on], got " + to_string(values->result.lens));
    int64_t r = static_cast<int64_t>(idx->result.rank()) + 1;
    int64_t axis = c.axis(c.attr_int("axis", -1), r);
    if (idx->result.type != dtype::int64_type) idx = c.add("convert", {idx}, attrs({{"target_type", std::string("int64_type")}}));
    auto& il = idx->result.lens;
    auto* zero = c.broadcast_to(c.lit(literal::from<int64_t>(dtype::int64_type, {}, {0})), il);
    auto* wrapped = c.add("add", {idx, c.broadcast_to(c.lit(literal::from<int64_t>(dtype::int64_type, {}, {depth})), il)});
    idx = c.add("where", {c.add("less", {idx, zero}), wrapped, idx});
    ints out = il;
    out.insert(out.begin() + axis, depth);
    ints iota(static_cast<std::size_t>(depth));
    std::iota(iota.begin(), iota.end(), 0);
    ints iota_lens(static_cast<std::size_t>(r), 1);
    iota_lens[static_cast<std::size_t>(axis)] = depth;
    auto* hot = c.add("equal", {c.broadcast_to(c.add("unsqueeze", {idx}, attrs({{"axes", ints{axis}}})), out),
                                c.broadcast_to(c.lit(literal::from<int64_t>(dtype::int64_type, iota_lens, iota)), out)});
    auto* flat = c.reshape(values, {2});
    auto pick = [&](int64_t i) {
        auto* v = c.add("slice", {flat}, attrs({{"starts", ints{i}}, {"steps", ints{1}}, {"out_lens", ints{1}}}));
        return c.broadcast_to(c.add("squeeze", {v}, attrs({{"axes", ints{0}}})), out);
    };
    return {c.add("where", {hot, pick(1), pick(0)})};
}

// ArgMax / ArgMin: keepdims (default 1) keeps the reduced axis as length 1.
converter arg(std::string op) {
    return [op](node_context& c) -> outputs {
        auto* x = c.input(0);
        int64_t r = static_cast<int64_t>(x->result.rank());
        if (r == 0) c.fail("input must not be a scalar");
        int64_t axis = c.axis(c.attr_int("axis", 0), r);
        if (x->result.lens[static_cast<std::size_t>(axis)] == 0) c.fail("cannot reduce the empty axis " + std::to_string(axis));
        auto* y = c.add(op, {x}, attrs({{"axis", axis}, {"select_last", c.attr_int("select_last_index", 0)}}));
        if (!c.attr_int("keepdims", 1)) y = c.add("squeeze", {y}, attrs({{"axes", ints{axis}}}));
        return {y};
    };
}

// Hardmax: 1 at the first largest element along axis, else 0 (before opset 13 the input is
// coerced to 2-D around axis).
outputs hardmax(node_context& c) {
    auto* x = c.input(0);
    auto l = x->result.lens;
    int64_t r = static_cast<int64_t>(l.size());
    if (r == 0) c.fail("input must not be a scalar");
    int64_t axis = c.axis(c.attr_int("axis", c.opset >= 13 ? -1 : 1), r);
    auto* v = x;
    if (c.opset < 13) {
        int64_t outer = 1, inner = 1;
        for (int64_t i = 0; i < r; ++i) (i < axis ? outer : inner) = checked_mul(i < axis ? outer : inner, l[static_cast<std::size_t>(i)]);
        v = c.reshape(x, {outer, inner});
        axis = 1;
    }
    auto& vl = v->result.lens;
    auto* best = c.broadcast_to(c.add("arg_max", {v}, attrs({{"axis", axis}})), vl);
    int64_t n = vl[static_cast<std::size_t>(axis)];
    ints iota(static_cast<std::size_t>(n)), iota_lens(vl.size(), 1);
    std::iota(iota.begin(), iota.end(), 0);
    iota_lens[static_cast<std::size_t>(axis)] = n;
    auto* hot = c.add("equal", {best, c.broadcast_to(c.lit(literal::from<int64_t>(dtype::int64_type, iota_lens, iota)), vl)});
    auto* y = c.add("convert", {hot}, attrs({{"target_type", std::string(dtype_name(x->result.type))}}));
    return {c.opset < 13 ? c.reshape(y, l) : y};
}

converter cumulative(bool product) {
    return [product](node_context& c) -> outputs {
        auto* x = c.input(0);
        int64_t r = static_cast<int64_t>(x->result.rank());
        if (r == 0) c.fail("input must not be a scalar");
        auto a = c.const_ints(1, "axis");
        if (a.size() != 1) c.fail("axis must be a scalar");
        return {c.add("cumulative", {x}, attrs({{"axis", c.axis(a[0], r)},
                                                {"exclusive", c.attr_int("exclusive", 0) != 0 ? int64_t{1} : int64_t{0}},
                                                {"reverse", c.attr_int("reverse", 0) != 0 ? int64_t{1} : int64_t{0}},
                                                {"product", int64_t{product ? 1 : 0}}}))};
    };
}

outputs gather_elements(node_context& c) {
    auto* data = c.input(0);
    auto* idx = c.input(1);
    int64_t r = static_cast<int64_t>(data->result.rank());
    if (r == 0) c.fail("data must not be a scalar");
    if (idx->result.type != dtype::int32_type && idx->result.type != dtype::int64_type)
        c.fail("indices must be int32 or int64, got " + std::string(dtype_name(idx->result.type)));
    if (idx->result.rank() != data->result.rank())
        c.fail("indices " + to_string(idx->result.lens) + " must have the rank of data " + to_string(data->result.lens));
    return {c.add("gather_elements", {data, idx}, attrs({{"axis", c.axis(c.attr_int("axis", 0), r)}}))};
}

// NonZero: the output's length depends on the data, so only a constant input is supported.
outputs non_zero(node_context& c) {
    auto* x = c.input(0);
    if (!x->is_literal()) c.fail("the output shape depends on the input's values: not supported unless the input is constant");
    auto v = x->lit.to_doubles();
    auto& l = x->result.lens;
    ints rows[MXC_MAX_RANK];
    for (std::size_t e = 0; e < v.size(); ++e) {
        if (v[e] == 0) continue;
        auto rest = static_cast<int64_t>(e);
        for (std::size_t d = l.size(); d-- > 0;) {
            rows[d].push_back(rest % l[d]);
            rest /= l[d];
        }
    }
    ints out;
    int64_t n = l.empty() ? (v[0] != 0 ? 1 : 0) : static_cast<int64_t>(rows[0].size());
    for (std::size_t d = 0; d < l.size(); ++d) out.insert(out.end(), rows[d].begin(), rows[d].end());
    if (l.empty()) out.assign(static_cast<std::size_t>(n), 0);
    return {c.lit(literal::from<int64_t>(dtype::int64_type, {std::max<int64_t>(1, static_cast<int64_t>(l.size())), n}, out))};
}

// Compress: a constant condition makes it a gather of the selected positions.
outputs compress(node_context& c) {
    auto* x = c.input(0);
    auto cond = c.const_input(1, "condition").to_doubles(); // decides the output shape
    if (!c.has_attr("axis")) x = c.reshape(x, {x->result.elements()});
    int64_t axis = c.axis(c.attr_int("axis", 0), static_cast<int64_t>(x->result.rank()));
    int64_t dim = x->result.lens[static_cast<std::size_t>(axis)];
    if (static_cast<int64_t>(cond.size()) > dim)
        c.fail("condition has " + std::to_string(cond.size()) + " values for an axis of length " + std::to_string(dim));
    ints keep;
    for (std::size_t i = 0; i < cond.size(); ++i)
        if (cond[i] != 0) keep.push_back(static_cast<int64_t>(i));
    auto* idx = c.lit(literal::from<int64_t>(dtype::int64_type, {static_cast<int64_t>(keep.size())}, keep));
    return {c.add("gather", {x, idx}, attrs({{"axis", axis}}))};
}

} // namespace

MXC_ONNX_CONVERTERS(tensor) {
    add_converter("Slice", slice);
    add_converter("Split", split);
    add_converter("Tile", tile, 6);
    add_converter("Trilu", trilu);
    add_converter("DepthToSpace", depth_to_space);
    add_converter("SpaceToDepth", space_to_depth);
    add_converter("OneHot", one_hot);
    add_converter("ArgMax", arg("arg_max"));
    add_converter("ArgMin", arg("arg_min"));
    add_converter("Hardmax", hardmax);
    add_converter("CumSum", cumulative(false));
    add_converter("CumProd", cumulative(true));
    add_converter("GatherElements", gather_elements);
    add_converter("NonZero", non_zero);
    add_converter("Compress", compress);
}

} // namespace mxc::onnx_detail
