// More elementwise ops: trigonometric and rounding math, softplus/softsign, modulo, bitwise
// ops and shifts, comparisons (-> bool) and where. Inputs must have equal lens (the importer
// inserts multibroadcast views). The math is in templates/common/elementwise.hpp.
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/cpu/elementwise.hpp"

namespace mxc {
namespace {
void check_same(const std::string& op, const std::vector<shape>& in, std::size_t from, bool same_type) {
    for (std::size_t i = from; i < in.size(); ++i)
        if (in[i].lens != in[from].lens || (same_type && in[i].type != in[from].type))
            throw error(op + ": inputs must have the same " + (same_type ? "type and " : "") + "lens, got " +
                        to_string(in[from]) + " and " + to_string(in[i]));
}

op_def elementwise(std::string name, int arity, kernel_table_t cpu, std::string doc) {
    op_def d;
    d.name = name;
    d.doc = std::move(doc);
    d.min_inputs = d.max_inputs = arity;
    d.compute_shape = [name](const attributes&, const std::vector<shape>& in) {
        check_same(name, in, 0, true);
        return in[0].as_standard();
    };
    d.kernel = name;
    d.params = [](const attributes&, const std::vector<shape>&, const shape&) { return kernel_params{}; };
    d.cpu = cpu;
    d.pointwise_expr = "mxc_pw_" + name + "{}(x0" + (arity == 2 ? ", x1)" : ")");
    return d;
}

// (T, T) -> bool; the kernel is instantiated for the input type.
op_def comparison(std::string name, kernel_table_t cpu, std::string doc) {
    op_def d = elementwise(name, 2, cpu, std::move(doc));
    d.compute_shape = [name](const attributes&, const std::vector<shape>& in) {
        check_same(name, in, 0, true);
        return shape(dtype::bool_type, in[0].lens);
    };
    d.type_from_input = 0;
    d.pointwise_expr.clear();
    return d;
}
} // namespace

#define MXC_EW_OP(id, arity, doc, ...) \
    MXC_REGISTER_OP(id) { return elementwise(#id, arity, MXC_CPU_KERNELS(id, __VA_ARGS__), doc); }

MXC_EW_OP(sin, 1, "y = sin(x)", MXC_FLOAT_TYPES)
MXC_EW_OP(cos, 1, "y = cos(x)", MXC_FLOAT_TYPES)
MXC_EW_OP(tan, 1, "y = tan(x)", MXC_FLOAT_TYPES)
MXC_EW_OP(asin, 1, "y = asin(x)", MXC_FLOAT_TYPES)
MXC_EW_OP(acos, 1, "y = acos(x)", MXC_FLOAT_TYPES)
MXC_EW_OP(atan, 1, "y = atan(x)", MXC_FLOAT_TYPES)
MXC_EW_OP(sinh, 1, "y = sinh(x)", MXC_FLOAT_TYPES)
MXC_EW_OP(cosh, 1, "y = cosh(x)", MXC_FLOAT_TYPES)
MXC_EW_OP(asinh, 1, "y = asinh(x)", MXC_FLOAT_TYPES)
MXC_EW_OP(acosh, 1, "y = acosh(x)", MXC_FLOAT_TYPES)
MXC_EW_OP(atanh, 1, "y = atanh(x)", MXC_FLOAT_TYPES)
MXC_EW_OP(ceil, 1, "y = ceil(x)", MXC_FLOAT_TYPES)
MXC_EW_OP(floor, 1, "y = floor(x)", MXC_FLOAT_TYPES)
MXC_EW_OP(round, 1, "y = x rounded to the nearest integer, halves to even", MXC_FLOAT_TYPES)
MXC_EW_OP(reciprocal, 1, "y = 1 / x", MXC_FLOAT_TYPES)
MXC_EW_OP(sign, 1, "y = -1, 0 or 1 by the sign of x", MXC_NUMERIC_TYPES)
MXC_EW_OP(softplus, 1, "y = ln(1 + e^x)", MXC_FLOAT_TYPES)
MXC_EW_OP(softsign, 1, "y = x / (1 + |x|)", MXC_FLOAT_TYPES)
MXC_EW_OP(bitwise_not, 1, "y = ~x (integers), !x (bool)", MXC_SIGNED_INT_TYPES, MXC_UNSIGNED_INT_TYPES, bool)
MXC_EW_OP(mod, 2, "y = a mod b with the sign of b (Python %); integer x mod 0 = 0", MXC_NUMERIC_TYPES)
MXC_EW_OP(fmod, 2, "y = C fmod(a, b): the sign of a; integer x fmod 0 = 0", MXC_NUMERIC_TYPES)
MXC_EW_OP(bitwise_and, 2, "y = a & b (bool: logical and)", MXC_SIGNED_INT_TYPES, MXC_UNSIGNED_INT_TYPES, bool)
MXC_EW_OP(bitwise_or, 2, "y = a | b (bool: logical or)", MXC_SIGNED_INT_TYPES, MXC_UNSIGNED_INT_TYPES, bool)
MXC_EW_OP(bitwise_xor, 2, "y = a ^ b (bool: logical xor)", MXC_SIGNED_INT_TYPES, MXC_UNSIGNED_INT_TYPES, bool)
MXC_EW_OP(shift_left, 2, "y = a << b (0 when b >= the bit width)", MXC_UNSIGNED_INT_TYPES)
MXC_EW_OP(shift_right, 2, "y = a >> b (0 when b >= the bit width)", MXC_UNSIGNED_INT_TYPES)
#undef MXC_EW_OP

#define MXC_CMP_OP(id, doc) \
    MXC_REGISTER_OP(id) { return comparison(#id, MXC_CPU_KERNELS(id, MXC_ALL_TYPES), doc); }
MXC_CMP_OP(equal, "y = a == b (bool); a, b of one type")
MXC_CMP_OP(less, "y = a < b (bool); a, b of one type")
MXC_CMP_OP(greater, "y = a > b (bool); a, b of one type")
MXC_CMP_OP(less_or_equal, "y = a <= b (bool); a, b of one type")
MXC_CMP_OP(greater_or_equal, "y = a >= b (bool); a, b of one type")
#undef MXC_CMP_OP

MXC_REGISTER_OP(where) {
    op_def d;
    d.name = "where";
    d.doc = "y = cond ? a : b; inputs cond (bool), a, b (one type), all of the same lens";
    d.min_inputs = d.max_inputs = 3;
    d.compute_shape = [](const attributes&, const std::vector<shape>& in) {
        if (in[0].type != dtype::bool_type) throw error("where: the condition must be bool, got " + to_string(in[0]));
        check_same("where", in, 0, false);
        check_same("where", in, 1, true);
        return in[1].as_standard();
    };
    d.kernel = "where";
    d.params = [](const attributes&, const std::vector<shape>&, const shape&) { return kernel_params{}; };
    d.cpu = MXC_CPU_KERNELS(where, MXC_ALL_TYPES);
    return d;
}

} // namespace mxc
