// ONNX converters for elementwise ops (math, comparisons, logic, bitwise, activations that
// lower to primitive IR ops) and for shape-computing ops whose result is a constant
// (Size, ConstantOfShape, Range, EyeLike).
#include "compiler/onnx_node.hpp"
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/common/math.hpp"
#include "templates/common/types.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace mxc::onnx_detail {
namespace {

using outputs = std::vector<instruction*>;
using ints = std::vector<int64_t>;

// A literal of type t holding `values` (integers are computed as int64, others as double).
literal literal_of(dtype t, ints lens, const std::vector<double>& values, const ints& ivalues = {}) {
    std::vector<char> d(values.size() * dtype_size(t));
    mxc_visit_dtype(static_cast<int>(t), [&](auto tag) {
        using T = decltype(tag);
        for (std::size_t i = 0; i < values.size(); ++i) {
            T v = i < ivalues.size() ? mxc_convert<T>(ivalues[i]) : mxc_convert<T>(values[i]);
            std::memcpy(d.data() + i * sizeof(T), &v, sizeof(T));
        }
    });
    return literal(shape(t, std::move(lens)), std::move(d));
}

// Adds op over the inputs broadcast (numpy rules) to their common lens.
instruction* broadcast_op(node_context& c, const std::string& op, std::vector<instruction*> xs, attributes a = {}) {
    ints lens = xs[0]->result.lens;
    for (auto* x : xs) lens = c.broadcast_lens(lens, x->result.lens);
    for (auto*& x : xs) x = c.broadcast_to(x, lens);
    return c.add(op, xs, std::move(a));
}

instruction* same_type(node_context& c, instruction* a, instruction* b) {
    if (a->result.type != b->result.type)
        c.fail("inputs must have the same type, got " + std::string(dtype_name(a->result.type)) + " and " +
               std::string(dtype_name(b->result.type)));
    return b;
}

// A scalar of x's type broadcast to x's lens.
instruction* like(node_context& c, instruction* x, double v) {
    return c.broadcast_to(c.scalar(x->result.type, v), x->result.lens);
}

instruction* require_float(node_context& c, instruction* x) {
    if (!is_floating(x->result.type))
        c.fail("input must be a floating-point tensor, got " + std::string(dtype_name(x->result.type)));
    return x;
}

converter unary(std::string op) {
    return [op](node_context& c) -> outputs { return {c.add(op, {c.input(0)})}; };
}

converter binary(std::string op) {
    return [op](node_context& c) -> outputs {
        auto* a = c.input(0);
        auto* b = same_type(c, a, c.input(1));
        return {broadcast_op(c, op, {a, b})};
    };
}

converter logical(std::string op) {
    return [op](node_context& c) -> outputs {
        for (std::size_t i = 0; i < c.num_inputs(); ++i)
            if (c.input(i)->result.type != dtype::bool_type)
                c.fail("inputs must be bool, got " + std::string(dtype_name(c.input(i)->result.type)));
        if (op == "bitwise_not") return {c.add(op, {c.input(0)})};
        return {broadcast_op(c, op, {c.input(0), c.input(1)})};
    };
}

outputs mod(node_context& c) {
    auto* a = c.input(0);
    auto* b = same_type(c, a, c.input(1));
    bool f = c.attr_int("fmod", 0) != 0;
    if (!f && is_floating(a->result.type)) c.fail("fmod must be 1 for floating-point inputs");
    return {broadcast_op(c, f ? "fmod" : "mod", {a, b})};
}

outputs bit_shift(node_context& c) {
    auto dir = c.attr_string("direction", "");
    if (dir != "LEFT" && dir != "RIGHT") c.fail("direction must be LEFT or RIGHT, got '" + dir + "'");
    auto* a = c.input(0);
    auto* b = same_type(c, a, c.input(1));
    return {broadcast_op(c, dir == "LEFT" ? "shift_left" : "shift_right", {a, b})};
}

outputs where(node_context& c) {
    auto* cond = c.input(0);
    if (cond->result.type != dtype::bool_type) c.fail("the condition must be bool, got " + std::string(dtype_name(cond->result.type)));
    auto* a = c.input(1);
    auto* b = same_type(c, a, c.input(2));
    return {broadcast_op(c, "where", {cond, a, b})};
}

outputs is_nan(node_context& c) {
    auto* x = require_float(c, c.input(0));
    return {c.add("bitwise_not", {c.add("equal", {x, x})})};
}

outputs is_inf(node_context& c) {
    auto* x = require_float(c, c.input(0));
    bool pos = c.attr_int("detect_positive", 1) != 0, neg = c.attr_int("detect_negative", 1) != 0;
    auto* p = c.add("equal", {x, like(c, x, INFINITY)});
    auto* n = c.add("equal", {x, like(c, x, -INFINITY)});
    if (pos && neg) return {c.add("bitwise_or", {p, n})};
    if (pos) return {p};
    if (neg) return {n};
    return {c.broadcast_to(c.lit(scalar_literal(dtype::bool_type, 0)), x->result.lens)};
}

// Mean: the sum divided by the number of inputs.
outputs mean(node_context& c) {
    auto* acc = c.input(0);
    for (std::size_t i = 1; i < c.num_inputs(); ++i) acc = broadcast_op(c, "add", {acc, same_type(c, acc, c.input(i))});
    if (c.num_inputs() == 1) return {acc};
    return {c.add("div", {acc, like(c, acc, static_cast<double>(c.num_inputs()))})};
}

// --- activations lowered to primitive ops ----------------------------------------------------

instruction* mul_by(node_context& c, instruction* x, double v) { return c.add("mul", {x, like(c, x, v)}); }
instruction* add_to(node_context& c, instruction* x, double v) { return c.add("add", {x, like(c, x, v)}); }
instruction* zeros_like(node_context& c, instruction* x) { return like(c, x, 0); }

outputs elu(node_context& c) { // x < 0 ? alpha * (e^x - 1) : x
    auto* x = require_float(c, c.input(0));
    double alpha = c.attr_float("alpha", 1.0);
    auto* neg = mul_by(c, add_to(c, c.add("exp", {x}), -1), alpha);
    return {c.add("where", {c.add("less", {x, zeros_like(c, x)}), neg, x})};
}

outputs selu(node_context& c) { // gamma * (x <= 0 ? alpha * e^x - alpha : x)
    auto* x = require_float(c, c.input(0));
    double alpha = c.attr_float("alpha", 1.67326319217681884765625), gamma = c.attr_float("gamma", 1.05070102214813232421875);
    auto* neg = add_to(c, mul_by(c, c.add("exp", {x}), alpha), -alpha);
    return {mul_by(c, c.add("where", {c.add("less_or_equal", {x, zeros_like(c, x)}), neg, x}), gamma)};
}

outputs celu(node_context& c) { // max(0, x) + min(0, alpha * (e^(x / alpha) - 1))
    auto* x = require_float(c, c.input(0));
    double alpha = c.attr_float("alpha", 1.0);
    auto* e = mul_by(c, add_to(c, c.add("exp", {mul_by(c, x, 1.0 / alpha)}), -1), alpha);
    return {c.add("add", {c.add("max", {x, zeros_like(c, x)}), c.add("min", {e, zeros_like(c, x)})})};
}

outputs leaky_relu(node_context& c) {
    auto* x = require_float(c, c.input(0));
    double alpha = c.attr_float("alpha", 0.01);
    return {c.add("where", {c.add("less", {x, zeros_like(c, x)}), mul_by(c, x, alpha), x})};
}

outputs prelu(node_context& c) { // slope broadcasts to x (unidirectionally)
    auto* x = c.input(0);
    auto* slope = same_type(c, x, c.input(1));
    if (c.broadcast_lens(x->result.lens, slope->result.lens) != x->result.lens)
        c.fail("slope " + to_string(slope->result.lens) + " does not broadcast to X " + to_string(x->result.lens));
    slope = c.broadcast_to(slope, x->result.lens);
    return {c.add("where", {c.add("less", {x, zeros_like(c, x)}), c.add("mul", {x, slope}), x})};
}

instruction* hard_sigmoid_of(node_context& c, instruction* x, double alpha, double beta) {
    return c.add("clip", {add_to(c, mul_by(c, x, alpha), beta), zeros_like(c, x), like(c, x, 1)});
}

outputs hard_sigmoid(node_context& c) {
    auto* x = require_float(c, c.input(0));
    return {hard_sigmoid_of(c, x, c.attr_float("alpha", 0.2), c.attr_float("beta", 0.5))};
}

outputs hard_swish(node_context& c) {
    auto* x = require_float(c, c.input(0));
    return {c.add("mul", {x, hard_sigmoid_of(c, x, 1.0 / 6, 0.5)})};
}

outputs thresholded_relu(node_context& c) {
    auto* x = require_float(c, c.input(0));
    double alpha = c.attr_float("alpha", 1.0);
    return {c.add("where", {c.add("greater", {x, like(c, x, alpha)}), x, zeros_like(c, x)})};
}

outputs shrink(node_context& c) { // x < -lambd ? x + bias : x > lambd ? x - bias : 0
    auto* x = c.input(0);
    double lambd = c.attr_float("lambd", 0.5), bias = c.attr_float("bias", 0.0);
    if (!is_floating(x->result.type) && !is_signed(x->result.type) && lambd == 0 && bias == 0) return {x};
    auto* hi = c.add("where", {c.add("greater", {x, like(c, x, lambd)}), add_to(c, x, -bias), zeros_like(c, x)});
    return {c.add("where", {c.add("less", {x, like(c, x, -lambd)}), add_to(c, x, bias), hi})};
}

outputs mish(node_context& c) { // x * tanh(softplus(x))
    auto* x = require_float(c, c.input(0));
    return {c.add("mul", {x, c.add("tanh", {c.add("softplus", {x})})})};
}

outputs swish(node_context& c) { // x * sigmoid(alpha * x)
    auto* x = require_float(c, c.input(0));
    double alpha = c.attr_float("alpha", 1.0);
    return {c.add("mul", {x, c.add("sigmoid", {alpha == 1.0 ? x : mul_by(c, x, alpha)})})};
}

outputs gelu(node_context& c) {
    auto* x = require_float(c, c.input(0));
    auto approx = c.attr_string("approximate", "none");
    if (approx == "tanh") { // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        auto* x3 = c.add("mul", {x, c.add("mul", {x, x})});
        auto* inner = mul_by(c, c.add("add", {x, mul_by(c, x3, 0.044715)}), std::sqrt(2.0 / M_PI));
        return {c.add("mul", {mul_by(c, x, 0.5), add_to(c, c.add("tanh", {inner}), 1)})};
    }
    if (approx != "none") c.fail("approximate must be 'none' or 'tanh', got '" + approx + "'");
    if (!find_op("erf")) c.fail("approximate='none' needs the erf op, which this build lacks");
    auto* e = c.add("erf", {mul_by(c, x, M_SQRT1_2)});
    return {c.add("mul", {mul_by(c, x, 0.5), add_to(c, e, 1)})};
}

// --- constant-valued shape ops ---------------------------------------------------------------

outputs size(node_context& c) {
    return {c.lit(literal::from<int64_t>(dtype::int64_type, {}, {c.input(0)->result.elements()}))};
}

outputs constant_of_shape(node_context& c) {
    ints lens = c.const_ints(0, "shape");
    for (auto l : lens)
        if (l < 0) c.fail("shape " + to_string(lens) + " has a negative dimension");
    literal v = scalar_literal(dtype::float_type, 0);
    if (auto* a = c.attr("value")) {
        if (a->type() != onnx::AttributeProto::TENSOR) c.fail("attribute 'value' must be a tensor");
        v = tensor_to_literal(a->t(), c.label + ": the value");
        if (v.s.elements() != 1) c.fail("the value must have one element, got " + to_string(v.s.lens));
        v = literal(shape(v.s.type, {}), std::vector<char>(v.data(), v.data() + dtype_size(v.s.type)));
    }
    return {c.broadcast_to(c.lit(v), lens)};
}

outputs range(node_context& c) {
    auto& s = c.const_input(0, "start");
    auto& l = c.const_input(1, "limit");
    auto& d = c.const_input(2, "delta");
    dtype t = s.s.type;
    if (l.s.type != t || d.s.type != t) c.fail("start, limit and delta must have one type");
    for (auto* v : {&s, &l, &d})
        if (v->s.elements() != 1) c.fail("start, limit and delta must be scalars, got " + to_string(v->s.lens));
    std::vector<double> vals;
    ints ivals;
    // The result is built as a constant: its length is checked before anything is allocated
    // (and computed without overflow: a hostile start/limit/delta must not be undefined).
    constexpr double max_elements = 1 << 28;
    auto check_count = [&](double n) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.4g", n);
        if (n > max_elements)
            c.fail(std::string("the range would have ") + buf + " elements; mxc builds Range as a constant of at most " +
                   std::to_string(static_cast<int64_t>(max_elements)));
    };
    if (is_integral(t)) {
        int64_t a = s.to_ints()[0], b = l.to_ints()[0], st = d.to_ints()[0];
        if (st == 0) c.fail("delta must not be 0");
        __int128 span = static_cast<__int128>(b) - a;
        __int128 n128 = (span + st + (st > 0 ? -1 : 1)) / st;
        check_count(static_cast<double>(n128));
        int64_t n = n128 > 0 ? static_cast<int64_t>(n128) : 0;
        for (int64_t i = 0; i < n; ++i) ivals.push_back(static_cast<int64_t>(a + static_cast<__int128>(i) * st));
        vals.resize(ivals.size());
    } else {
        double a = s.to_doubles()[0], b = l.to_doubles()[0], st = d.to_doubles()[0];
        if (st == 0) c.fail("delta must not be 0");
        double q = std::ceil((b - a) / st);
        if (std::isnan(q)) c.fail("start, limit and delta must be numbers, got " + std::to_string(a) + ", " +
                                  std::to_string(b) + ", " + std::to_string(st));
        check_count(q);
        auto n = static_cast<int64_t>(std::max(0.0, q));
        for (int64_t i = 0; i < n; ++i) vals.push_back(a + static_cast<double>(i) * st);
    }
    return {c.lit(literal_of(t, {static_cast<int64_t>(vals.size())}, vals, ivals))};
}

outputs eye_like(node_context& c) {
    auto* x = c.input(0);
    if (x->result.rank() != 2) c.fail("input must be 2-D, got " + to_string(x->result.lens));
    dtype t = x->result.type;
    if (c.has_attr("dtype")) {
        auto o = dtype_from_onnx(static_cast<int>(c.attr_int("dtype", 1)));
        if (!o) c.fail("dtype " + std::string(onnx_type_name(static_cast<int>(c.attr_int("dtype", 1)))) + " is not supported");
        t = *o;
    }
    int64_t rows = x->result.lens[0], cols = x->result.lens[1], k = c.attr_int("k", 0);
    std::vector<double> v(static_cast<std::size_t>(rows * cols), 0.0);
    for (int64_t i = 0; i < rows; ++i)
        if (i + k >= 0 && i + k < cols) v[static_cast<std::size_t>(i * cols + i + k)] = 1.0;
    return {c.lit(literal_of(t, {rows, cols}, v))};
}

} // namespace

MXC_ONNX_CONVERTERS(elementwise) {
    for (auto [onnx_name, op] : std::vector<std::pair<const char*, const char*>>{
             {"Sin", "sin"}, {"Cos", "cos"}, {"Tan", "tan"}, {"Asin", "asin"}, {"Acos", "acos"}, {"Atan", "atan"},
             {"Sinh", "sinh"}, {"Cosh", "cosh"}, {"Asinh", "asinh"}, {"Acosh", "acosh"}, {"Atanh", "atanh"},
             {"Ceil", "ceil"}, {"Floor", "floor"}, {"Round", "round"}, {"Sign", "sign"}, {"Reciprocal", "reciprocal"},
             {"Softplus", "softplus"}, {"Softsign", "softsign"}, {"BitwiseNot", "bitwise_not"}})
        add_converter(onnx_name, unary(op));
    add_converter("BitwiseAnd", binary("bitwise_and"));
    add_converter("BitwiseOr", binary("bitwise_or"));
    add_converter("BitwiseXor", binary("bitwise_xor"));
    add_converter("BitShift", bit_shift);
    add_converter("Equal", binary("equal"));
    add_converter("Less", binary("less"));
    add_converter("Greater", binary("greater"));
    add_converter("LessOrEqual", binary("less_or_equal"));
    add_converter("GreaterOrEqual", binary("greater_or_equal"));
    add_converter("And", logical("bitwise_and"));
    add_converter("Or", logical("bitwise_or"));
    add_converter("Xor", logical("bitwise_xor"));
    add_converter("Not", logical("bitwise_not"));
    add_converter("Mod", mod);
    add_converter("Where", where);
    add_converter("IsNaN", is_nan);
    add_converter("IsInf", is_inf);
    add_converter("Mean", mean);
    add_converter("Elu", elu);
    add_converter("Selu", selu);
    add_converter("Celu", celu);
    add_converter("LeakyRelu", leaky_relu);
    add_converter("PRelu", prelu);
    add_converter("HardSigmoid", hard_sigmoid);
    add_converter("HardSwish", hard_swish);
    add_converter("ThresholdedRelu", thresholded_relu);
    add_converter("Shrink", shrink);
    add_converter("Mish", mish);
    add_converter("Swish", swish);
    add_converter("Gelu", gelu);
    add_converter("Size", size);
    add_converter("ConstantOfShape", constant_of_shape);
    add_converter("Range", range);
    add_converter("EyeLike", eye_like);
}

} // namespace mxc::onnx_detail
