// Elementwise ops. Inputs must have equal lens and dtype (the importer inserts multibroadcast
// views). The math is in templates/common/pointwise.hpp; pointwise_expr calls the same functors.
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/cpu/pointwise.hpp"

namespace mxc {
namespace {
shape same_lens(const std::string& op, const std::vector<shape>& in) {
    for (auto& s : in)
        if (s.lens != in[0].lens || s.type != in[0].type)
            throw error(op + ": inputs must have the same type and lens, got " + to_string(in[0]) + " and " +
                        to_string(s));
    return in[0].as_standard();
}

op_def pointwise(std::string name, int arity, kernel_table_t cpu, std::string expr, std::string doc) {
    op_def d;
    d.name = name;
    d.doc = std::move(doc);
    d.min_inputs = d.max_inputs = arity;
    d.compute_shape = [name](const attributes&, const std::vector<shape>& in) { return same_lens(name, in); };
    d.kernel = name;
    d.params = [](const attributes&, const std::vector<shape>&, const shape&) { return kernel_params{}; };
    d.cpu = cpu;
    d.pointwise_expr = std::move(expr);
    return d;
}

// The convert round_mode attribute as mxc_round_up/down/nearest (templates/common/lowp.hpp).
int64_t round_mode_index(const attributes& a) {
    const auto& m = a.get_string("round_mode");
    if (m == "up") return mxc_round_up;
    if (m == "down") return mxc_round_down;
    if (m == "nearest") return mxc_round_nearest;
    throw error("convert: unknown round_mode '" + m + "' (expected up, down or nearest)");
}
} // namespace

MXC_REGISTER_OP(relu) {
    return pointwise("relu", 1, MXC_CPU_KERNELS(relu, MXC_FLOAT_TYPES, MXC_SIGNED_INT_TYPES), "mxc_pw_relu{}(x0)",
                     "y = max(x, 0)");
}
MXC_REGISTER_OP(sigmoid) {
    return pointwise("sigmoid", 1, MXC_CPU_KERNELS(sigmoid, MXC_FLOAT_TYPES), "mxc_pw_sigmoid{}(x0)",
                     "y = 1 / (1 + exp(-x))");
}
MXC_REGISTER_OP(tanh) {
    return pointwise("tanh", 1, MXC_CPU_KERNELS(tanh, MXC_FLOAT_TYPES), "mxc_pw_tanh{}(x0)", "y = tanh(x)");
}
MXC_REGISTER_OP(neg) {
    return pointwise("neg", 1, MXC_CPU_KERNELS(neg, MXC_FLOAT_TYPES, MXC_SIGNED_INT_TYPES), "mxc_pw_neg{}(x0)",
                     "y = -x");
}
MXC_REGISTER_OP(abs) {
    return pointwise("abs", 1, MXC_CPU_KERNELS(abs, MXC_NUMERIC_TYPES), "mxc_pw_abs{}(x0)", "y = |x|");
}
MXC_REGISTER_OP(exp) {
    return pointwise("exp", 1, MXC_CPU_KERNELS(exp, MXC_FLOAT_TYPES), "mxc_pw_exp{}(x0)", "y = e^x");
}
MXC_REGISTER_OP(log) {
    return pointwise("log", 1, MXC_CPU_KERNELS(log, MXC_FLOAT_TYPES), "mxc_pw_log{}(x0)", "y = ln(x)");
}
MXC_REGISTER_OP(sqrt) {
    return pointwise("sqrt", 1, MXC_CPU_KERNELS(sqrt, MXC_FLOAT_TYPES), "mxc_pw_sqrt{}(x0)", "y = sqrt(x)");
}
MXC_REGISTER_OP(erf) {
    return pointwise("erf", 1, MXC_CPU_KERNELS(erf, MXC_FLOAT_TYPES), "mxc_pw_erf{}(x0)", "y = erf(x)");
}
MXC_REGISTER_OP(gelu) {
    return pointwise("gelu", 1, MXC_CPU_KERNELS(gelu, MXC_FLOAT_TYPES), "mxc_pw_gelu{}(x0)",
                     "y = 0.5 x (1 + erf(x / sqrt(2))) (made by fuse-reduce)");
}
MXC_REGISTER_OP(gelu_tanh) {
    return pointwise("gelu_tanh", 1, MXC_CPU_KERNELS(gelu_tanh, MXC_FLOAT_TYPES), "mxc_pw_gelu_tanh{}(x0)",
                     "y = 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) (made by fuse-reduce)");
}
MXC_REGISTER_OP(add) {
    return pointwise("add", 2, MXC_CPU_KERNELS(add, MXC_NUMERIC_TYPES), "mxc_pw_add{}(x0, x1)", "y = a + b");
}
MXC_REGISTER_OP(sub) {
    return pointwise("sub", 2, MXC_CPU_KERNELS(sub, MXC_NUMERIC_TYPES), "mxc_pw_sub{}(x0, x1)", "y = a - b");
}
MXC_REGISTER_OP(mul) {
    return pointwise("mul", 2, MXC_CPU_KERNELS(mul, MXC_NUMERIC_TYPES), "mxc_pw_mul{}(x0, x1)", "y = a * b");
}
MXC_REGISTER_OP(div) {
    return pointwise("div", 2, MXC_CPU_KERNELS(div, MXC_NUMERIC_TYPES), "mxc_pw_div{}(x0, x1)",
                     "y = a / b (integers truncate; integer x / 0 = 0)");
}
MXC_REGISTER_OP(max) {
    return pointwise("max", 2, MXC_CPU_KERNELS(max, MXC_NUMERIC_TYPES), "mxc_pw_max{}(x0, x1)", "y = max(a, b)");
}
MXC_REGISTER_OP(min) {
    return pointwise("min", 2, MXC_CPU_KERNELS(min, MXC_NUMERIC_TYPES), "mxc_pw_min{}(x0, x1)", "y = min(a, b)");
}
MXC_REGISTER_OP(pow) {
    return pointwise("pow", 2, MXC_CPU_KERNELS(pow, MXC_FLOAT_TYPES, int32_t, int64_t), "mxc_pw_pow{}(x0, x1)",
                     "y = a ^ b (integers: exact, negative exponents truncate)");
}
MXC_REGISTER_OP(clip) {
    return pointwise("clip", 3, MXC_CPU_KERNELS(clip, MXC_NUMERIC_TYPES), "mxc_pw_clip{}(x0, x1, x2)",
                     "y = min(max(x, lo), hi); inputs x, lo, hi");
}
MXC_REGISTER_OP(contiguous) {
    auto d = pointwise("contiguous", 1, MXC_CPU_KERNELS(contiguous, MXC_ALL_TYPES, MXC_LOWP_TYPES), "(x0)",
                       "y = packed copy of the (strided) view x");
    return d;
}

MXC_REGISTER_OP(convert) {
    op_def d;
    d.name = "convert";
    d.doc = "y = x cast to target_type (through the source's compute type; bool is x != 0); saturate and round_mode "
            "(up, down, nearest) apply to float8/float4 targets as in ONNX Cast; ip = [source dtype index, saturate, "
            "round_mode index]";
    d.attrs = {{"target_type", std::string("float_type")}, {"saturate", int64_t{1}}, {"round_mode", std::string("up")}};
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        auto t = parse_dtype(a.get_string("target_type"));
        if (!t) throw error("convert: unknown target_type '" + a.get_string("target_type") + "'");
        round_mode_index(a);
        return shape(*t, in[0].lens);
    };
    d.kernel = "convert";
    d.source_type_from_input = 0;
    d.params = [](const attributes& a, const std::vector<shape>& in, const shape&) {
        return kernel_params{{static_cast<int64_t>(in[0].type), a.get_int("saturate") != 0 ? 1 : 0, round_mode_index(a)}, {}};
    };
    d.cpu = MXC_CPU_KERNELS(convert, MXC_ALL_TYPES, MXC_LOWP_TYPES);
    d.pointwise_expr = "(x0)";
    return d;
}

} // namespace mxc
