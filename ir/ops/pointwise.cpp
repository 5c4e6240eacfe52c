// Elementwise ops. Inputs must have equal lens (the importer inserts multibroadcast views).
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
} // namespace

MXC_REGISTER_OP(relu) {
    return pointwise("relu", 1, MXC_CPU_KERNELS(relu, MXC_FLOAT_TYPES, MXC_SIGNED_INT_TYPES), "(x0 > 0 ? x0 : 0)",
                     "y = max(x, 0)");
}
MXC_REGISTER_OP(add) {
    return pointwise("add", 2, MXC_CPU_KERNELS(add, MXC_NUMERIC_TYPES), "(x0 + x1)", "y = a + b");
}

} // namespace mxc
