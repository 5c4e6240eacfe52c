// Control flow: If, Loop and Scan. Their subgraphs are converted into the same module (the
// IR has no control flow): an If whose condition is known at build time keeps one branch;
// otherwise both branches are converted and their outputs selected elementwise (`where`,
// when the IR has it and the outputs agree in type and shape). Loop and Scan are unrolled:
// their trip counts are known at build time (a Loop's count and condition must be constants,
// a Scan runs over the static length of its scan inputs).
#include "compiler/onnx_node.hpp"
#include "ir/error.hpp"
#include "ir/op.hpp"

namespace mxc::onnx_detail {
namespace {

using outputs = std::vector<instruction*>;
using ints = std::vector<int64_t>;

// Unrolling stops with an error past this many iterations.
constexpr int64_t max_unrolled_iterations = 4096;

const onnx::GraphProto& graph_attr(node_context& c, const std::string& name) {
    auto* a = c.attr(name);
    if (!a) c.fail("attribute '" + name + "' is required but missing");
    if (a->type() != onnx::AttributeProto::GRAPH || !a->has_g()) c.fail("attribute '" + name + "' must be a graph");
    return a->g();
}

bool literal_true(node_context& c, const instruction* x, const std::string& what) {
    if (!x) c.fail(what + " must be a tensor");
    if (!x->is_literal()) c.fail_not_constant(x, what);
    auto v = x->lit.to_ints();
    if (v.size() != 1) c.fail(what + " must hold one value, got shape " + to_string(x->result.lens));
    return v[0] != 0;
}

instruction* tensor_of(node_context& c, const onnx_value& v, const std::string& what) {
    if (!v.tensor || v.optional) c.fail(what + " must be a tensor (it is a sequence or an optional)");
    return v.tensor;
}

// The items stacked along a new axis.
instruction* stack(node_context& c, const std::vector<instruction*>& items, int64_t axis) {
    std::vector<instruction*> parts;
    for (auto* x : items) parts.push_back(c.add("unsqueeze", {x}, attrs({{"axes", ints{axis}}})));
    return parts.size() == 1 ? parts[0] : c.add("concat", parts, attrs({{"axis", axis}}));
}

// A stacked output of zero iterations: empty along the new axis, its other dims as the body
// output declares them (they must all be fixed).
instruction* empty_stack(node_context& c, const onnx::ValueInfoProto& vi, int64_t axis, const std::string& what) {
    auto& tt = vi.type().tensor_type();
    auto type = dtype_from_onnx(tt.elem_type());
    ints lens;
    bool known = type && tt.has_shape();
    if (known)
        for (auto& d : tt.shape().dim()) {
            known = known && d.has_dim_value();
            lens.push_back(d.dim_value());
        }
    if (!known) c.fail(what + " has no iterations and its body output '" + vi.name() + "' has no fixed shape and type");
    if (axis > static_cast<int64_t>(lens.size())) c.fail(what + ": axis " + std::to_string(axis) + " is out of range");
    lens.insert(lens.begin() + axis, 0);
    return c.lit(literal::zeros(shape(*type, lens)));
}

outputs if_op(node_context& c) {
    auto* cond = c.input(0);
    auto& then_g = graph_attr(c, "then_branch");
    auto& else_g = graph_attr(c, "else_branch");
    const std::string what = "input 0 ('" + c.node.input(0) + "', the condition)";
    if (cond->result.elements() != 1) c.fail(what + " must hold one value, got shape " + to_string(cond->result.lens));
    if (cond->is_literal()) {
        bool v = literal_true(c, cond, what);
        c.value_outputs = c.run_graph(v ? then_g : else_g, {}, v ? "then_branch" : "else_branch");
        if (static_cast<int>(c.value_outputs.size()) < c.node.output_size())
            c.fail("the branch has " + std::to_string(c.value_outputs.size()) + " outputs, the node " +
                   std::to_string(c.node.output_size()));
        return {};
    }
    auto a = c.run_graph(then_g, {}, "then_branch");
    auto b = c.run_graph(else_g, {}, "else_branch");
    if (a.size() != b.size()) c.fail("the branches have different numbers of outputs");
    auto* select = find_op("where");
    for (std::size_t k = 0; k < a.size(); ++k) {
        auto *x = a[k].tensor, *y = b[k].tensor;
        bool tensors = x && y && !a[k].optional && !b[k].optional;
        if (tensors && x == y) {
            c.value_outputs.push_back(a[k]);
            continue;
        }
        if (!tensors || !select || x->result.type != y->result.type || x->result.lens != y->result.lens)
            c.fail_not_constant(cond, "input 0 ('" + c.node.input(0) + "', the condition: the branches' output " +
                                          std::to_string(k) + (tensors ? " differs in type or shape" : " is not a tensor") +
                                          (select ? "" : " and the IR has no select op") + ")");
        auto* cb = c.broadcast_to(c.reshape(cond, {}), x->result.lens);
        c.value_outputs.push_back(onnx_value::of(c.add("where", {cb, x, y})));
    }
    return {};
}

outputs loop(node_context& c) {
    auto& body = graph_attr(c, "body");
    int64_t trip = -1; // none
    if (c.has_input(0)) {
        auto v = c.const_ints(0, "trip count");
        if (v.size() != 1) c.fail("the trip count must hold one value");
        trip = v[0];
    }
    bool cond = true;
    if (c.has_input(1)) cond = literal_true(c, c.input(1), "input 1 ('" + c.node.input(1) + "', the condition)");
    std::vector<onnx_value> carried(c.values.begin() + std::min<std::ptrdiff_t>(2, static_cast<std::ptrdiff_t>(c.values.size())),
                                    c.values.end());
    const std::size_t n = carried.size();
    if (static_cast<std::size_t>(body.output_size()) < 1 + n)
        c.fail("the body has " + std::to_string(body.output_size()) + " outputs, it needs the condition and " +
               std::to_string(n) + " loop-carried values");
    const std::size_t k_scans = static_cast<std::size_t>(body.output_size()) - 1 - n;
    std::vector<std::vector<instruction*>> scans(k_scans);
    int64_t i = 0;
    for (; (trip < 0 || i < trip) && cond; ++i) {
        if (i >= max_unrolled_iterations)
            c.fail("runs more than " + std::to_string(max_unrolled_iterations) + " iterations, which mxc does not unroll");
        std::vector<onnx_value> in{onnx_value::of(c.scalar(dtype::int64_type, static_cast<double>(i))),
                                   onnx_value::of(c.scalar(dtype::bool_type, 1))};
        in.insert(in.end(), carried.begin(), carried.end());
        auto out = c.run_graph(body, in, "body (iteration " + std::to_string(i) + ")");
        cond = literal_true(c, out[0].tensor, "the loop condition (body output 0) of iteration " + std::to_string(i));
        carried.assign(out.begin() + 1, out.begin() + 1 + static_cast<std::ptrdiff_t>(n));
        for (std::size_t k = 0; k < k_scans; ++k)
            scans[k].push_back(tensor_of(c, out[1 + n + k], "scan output " + std::to_string(k)));
    }
    c.value_outputs = carried;
    for (std::size_t k = 0; k < k_scans; ++k) {
        auto& vi = body.output(static_cast<int>(1 + n + k));
        c.value_outputs.push_back(onnx_value::of(scans[k].empty() ? empty_stack(c, vi, 0, "the loop")
                                                                  : stack(c, scans[k], 0)));
    }
    return {};
}

outputs scan(node_context& c) {
    auto& body = graph_attr(c, "body");
    const int64_t m = c.attr_int("num_scan_inputs", 0);
    if (m < 1 || m > static_cast<int64_t>(c.num_inputs()))
        c.fail("num_scan_inputs " + std::to_string(m) + " is out of range for " + std::to_string(c.num_inputs()) + " inputs");
    const std::size_t n = c.num_inputs() - static_cast<std::size_t>(m);
    if (static_cast<std::size_t>(body.output_size()) < n)
        c.fail("the body has fewer outputs than the " + std::to_string(n) + " state values");
    const std::size_t k_scans = static_cast<std::size_t>(body.output_size()) - n;
    auto in_axes = c.attr_ints("scan_input_axes", ints(static_cast<std::size_t>(m), 0));
    auto in_dirs = c.attr_ints("scan_input_directions", ints(static_cast<std::size_t>(m), 0));
    auto out_axes = c.attr_ints("scan_output_axes", ints(k_scans, 0));
    auto out_dirs = c.attr_ints("scan_output_directions", ints(k_scans, 0));
    if (in_axes.size() != static_cast<std::size_t>(m) || in_dirs.size() != static_cast<std::size_t>(m) ||
        out_axes.size() != k_scans || out_dirs.size() != k_scans)
        c.fail("scan_input_axes/directions need one value per scan input, scan_output_axes/directions one per scan output");

    int64_t steps = -1;
    std::vector<instruction*> xs;
    for (std::size_t j = 0; j < static_cast<std::size_t>(m); ++j) {
        auto* x = c.input(n + j);
        in_axes[j] = c.axis(in_axes[j], static_cast<int64_t>(x->result.rank()), "scan_input_axes value");
        int64_t len = x->result.lens[static_cast<std::size_t>(in_axes[j])];
        if (steps >= 0 && len != steps)
            c.fail("scan inputs have different lengths along their scan axes (" + std::to_string(steps) + " and " +
                   std::to_string(len) + ")");
        steps = len;
        xs.push_back(x);
    }
    if (steps > max_unrolled_iterations)
        c.fail("runs " + std::to_string(steps) + " iterations, more than the " + std::to_string(max_unrolled_iterations) +
               " mxc unrolls");
    std::vector<onnx_value> states(c.values.begin(), c.values.begin() + static_cast<std::ptrdiff_t>(n));
    std::vector<std::vector<instruction*>> scans(k_scans);
    for (int64_t t = 0; t < steps; ++t) {
        std::vector<onnx_value> in = states;
        for (std::size_t j = 0; j < xs.size(); ++j) {
            auto* index = c.scalar(dtype::int64_type, static_cast<double>(in_dirs[j] ? steps - 1 - t : t));
            in.push_back(onnx_value::of(c.add("gather", {xs[j], index}, attrs({{"axis", in_axes[j]}}))));
        }
        auto out = c.run_graph(body, in, "body (iteration " + std::to_string(t) + ")");
        states.assign(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n));
        for (std::size_t k = 0; k < k_scans; ++k)
            scans[k].push_back(tensor_of(c, out[n + k], "scan output " + std::to_string(k)));
    }
    c.value_outputs = states;
    for (std::size_t k = 0; k < k_scans; ++k) {
        auto& vi = body.output(static_cast<int>(n + k));
        if (scans[k].empty()) {
            c.value_outputs.push_back(onnx_value::of(empty_stack(c, vi, out_axes[k] < 0 ? 0 : out_axes[k], "the scan")));
            continue;
        }
        if (out_dirs[k]) std::reverse(scans[k].begin(), scans[k].end());
        int64_t axis = c.axis(out_axes[k], static_cast<int64_t>(scans[k][0]->result.rank()) + 1, "scan_output_axes value");
        c.value_outputs.push_back(onnx_value::of(stack(c, scans[k], axis)));
    }
    return {};
}

} // namespace

MXC_ONNX_CONVERTERS(control) {
    add_converter("If", if_op);
    add_converter("Loop", loop);
    add_converter("Scan", scan, 9); // Scan-8 (batch axis, sequence_lens) is not supported
}

} // namespace mxc::onnx_detail
