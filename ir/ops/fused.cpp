// Fused ops, made by the fusion passes: an elementwise `body` (ir/pointwise_body.hpp) applied
// to the inputs (`pointwise`) or to the value of a convolution / transposed convolution /
// matrix product before it is stored (`fused_convolution`, `fused_convolution_transpose`,
// `fused_dot`). Kernels: templates/cpu/fused.hpp and
// templates/hip/fused.hpp; generated code pastes the body as one expression.
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "ir/pointwise_body.hpp"
#include "templates/cpu/fused.hpp"

namespace mxc {
namespace {
// Elementwise inputs all have the lens and type of `out`; the body uses exactly n of them.
void check_body(const std::string& op, const attributes& a, const std::vector<shape>& in, std::size_t first,
                const shape& out) {
    auto b = parse_body(a.get_string("body"));
    std::size_t n = in.size() - first + (first ? 1 : 0);
    if (static_cast<std::size_t>(body_inputs(b)) != n)
        throw error(op + ": body \"" + a.get_string("body") + "\" uses " + std::to_string(body_inputs(b)) +
                    " inputs, the op has " + std::to_string(n));
    for (std::size_t i = first; i < in.size(); ++i)
        if (in[i].lens != out.lens || in[i].type != out.type)
            throw error(op + ": input " + std::to_string(i) + " " + to_string(in[i]) + " must have the lens and type of " +
                        to_string(out));
}

std::vector<int64_t> program(const attributes& a) { return body_program(parse_body(a.get_string("body"))); }

std::vector<shape> first_two(const std::vector<shape>& in) { return {in.at(0), in.at(1)}; }

// fused_convolution, fused_convolution_transpose: the spatial op `base` (convolution,
// convolution_transpose) with a body over its value and extra inputs; its attrs, shape and ip
// come first.
op_def fused_spatial(const std::string& name, const op_def& base) {
    op_def d;
    d.name = name;
    d.doc = "y = body(" + base.name + "(x, w), e1, e2, ...): x0 = the " + base.name +
            "'s value, xN = extra input N (inputs x, w, e1...); ip = [the " + base.name + "'s ip, the body's postfix program]";
    d.attrs = base.attrs;
    d.attrs.push_back({"body", std::string("x0")});
    d.min_inputs = 2;
    d.max_inputs = -1;
    const auto base_attrs = [](const attributes& a) {
        attributes ca;
        for (auto& [n, v] : a.items)
            if (n != "body") ca.set(n, v);
        return ca;
    };
    d.compute_shape = [&base, name, base_attrs](const attributes& a, const std::vector<shape>& in) {
        if (in.size() < 2) throw error(name + ": needs x and w");
        shape out = base.compute_shape(base_attrs(a), first_two(in));
        check_body(name, a, in, 2, out);
        return out;
    };
    d.kernel = name;
    d.params = [&base, base_attrs](const attributes& a, const std::vector<shape>& in, const shape& out) {
        auto p = base.params(base_attrs(a), first_two(in), out);
        auto prog = program(a);
        p.ip.insert(p.ip.end(), prog.begin(), prog.end());
        return p;
    };
    return d;
}
} // namespace

MXC_REGISTER_OP(pointwise) {
    op_def d;
    d.name = "pointwise";
    d.doc = "y = body(x0, x1, ...) elementwise (inputs of equal lens and type); ip = [the body's postfix program]";
    d.attrs = {{"body", std::string("x0")}};
    d.max_inputs = -1;
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        shape out = in[0].as_standard();
        check_body("pointwise", a, in, 0, out);
        return out;
    };
    d.kernel = "fused_pointwise";
    d.params = [](const attributes& a, const std::vector<shape>&, const shape&) { return kernel_params{program(a), {}}; };
    d.cpu = MXC_CPU_KERNELS(fused_pointwise, MXC_FLOAT_TYPES);
    return d;
}

MXC_REGISTER_OP(fused_convolution) {
    op_def d = fused_spatial("fused_convolution", get_op("convolution"));
    d.cpu = MXC_CPU_KERNELS(fused_convolution, MXC_FLOAT_TYPES);
    return d;
}

MXC_REGISTER_OP(fused_convolution_transpose) {
    op_def d = fused_spatial("fused_convolution_transpose", get_op("convolution_transpose"));
    d.cpu = MXC_CPU_KERNELS(fused_convolution_transpose, MXC_FLOAT_TYPES);
    return d;
}

MXC_REGISTER_OP(fused_dot) {
    auto& dot = get_op("dot");
    op_def d;
    d.name = "fused_dot";
    d.doc = "y = body(dot(a, b), e1, e2, ...): x0 = the product, xN = extra input N (inputs a, b, e1...); "
            "ip = [the body's postfix program]";
    d.attrs = {{"body", std::string("x0")}};
    d.min_inputs = 2;
    d.max_inputs = -1;
    d.compute_shape = [&dot](const attributes& a, const std::vector<shape>& in) {
        if (in.size() < 2) throw error("fused_dot: needs a and b");
        shape out = dot.compute_shape({}, first_two(in));
        check_body("fused_dot", a, in, 2, out);
        return out;
    };
    d.kernel = "fused_dot";
    d.params = [](const attributes& a, const std::vector<shape>&, const shape&) { return kernel_params{program(a), {}}; };
    d.cpu = MXC_CPU_KERNELS(fused_dot, MXC_FLOAT_TYPES);
    return d;
}

} // namespace mxc
