// arg_max / arg_min, cumulative (cumsum / cumprod) and gather_elements: kernels computing one
// output element at a time (templates/common/tensor_ops.hpp).
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/cpu/tensor_ops.hpp"

namespace mxc {
namespace {
int64_t checked_axis(const std::string& op, const attributes& a, const shape& x) {
    int64_t axis = a.get_int("axis");
    if (axis < 0 || axis >= static_cast<int64_t>(x.rank()))
        throw error(op + ": axis " + std::to_string(axis) + " is out of range for " + to_string(x));
    return axis;
}

op_def arg(std::string name, kernel_table_t cpu) {
    op_def d;
    d.name = name;
    d.doc = "int64 index of the " + std::string(name == "arg_max" ? "largest" : "smallest") +
            " element along axis (kept as length 1); ties: first, or last if select_last; ip = [axis, select_last]";
    d.attrs = {{"axis", int64_t{0}}, {"select_last", int64_t{0}}};
    d.compute_shape = [name](const attributes& a, const std::vector<shape>& in) {
        auto lens = in[0].lens;
        auto axis = static_cast<std::size_t>(checked_axis(name, a, in[0]));
        if (lens[axis] == 0) throw error(name + ": axis " + std::to_string(axis) + " of " + to_string(in[0]) + " is empty");
        lens[axis] = 1;
        return shape(dtype::int64_type, lens);
    };
    d.kernel = name;
    d.type_from_input = 0;
    d.params = [](const attributes& a, const std::vector<shape>&, const shape&) {
        return kernel_params{{a.get_int("axis"), a.get_int("select_last")}, {}};
    };
    d.cpu = cpu;
    return d;
}
} // namespace

MXC_REGISTER_OP(arg_max) { return arg("arg_max", MXC_CPU_KERNELS(arg_max, MXC_NUMERIC_TYPES)); }
MXC_REGISTER_OP(arg_min) { return arg("arg_min", MXC_CPU_KERNELS(arg_min, MXC_NUMERIC_TYPES)); }

MXC_REGISTER_OP(cumulative) {
    op_def d;
    d.name = "cumulative";
    d.doc = "running sum (or product) along axis, optionally exclusive and/or reversed;"
            " ip = [axis, exclusive, reverse, product]";
    d.attrs = {{"axis", int64_t{0}}, {"exclusive", int64_t{0}}, {"reverse", int64_t{0}}, {"product", int64_t{0}}};
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        checked_axis("cumulative", a, in[0]);
        return in[0].as_standard();
    };
    d.kernel = "cumulative";
    d.params = [](const attributes& a, const std::vector<shape>&, const shape&) {
        return kernel_params{{a.get_int("axis"), a.get_int("exclusive"), a.get_int("reverse"), a.get_int("product")}, {}};
    };
    d.cpu = MXC_CPU_KERNELS(cumulative, MXC_NUMERIC_TYPES);
    return d;
}

MXC_REGISTER_OP(gather_elements) {
    op_def d;
    d.name = "gather_elements";
    d.doc = "y[i] = data[i with its axis index replaced by indices[i]] (y has the indices' lens; negative"
            " indices wrap, out of range gives 0); ip = [axis, indices are int64 (1) or int32 (0)]";
    d.attrs = {{"axis", int64_t{0}}};
    d.min_inputs = d.max_inputs = 2;
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        checked_axis("gather_elements", a, in[0]);
        if (in[1].type != dtype::int32_type && in[1].type != dtype::int64_type)
            throw error("gather_elements: indices must be int32 or int64, got " + std::string(dtype_name(in[1].type)));
        if (in[1].rank() != in[0].rank())
            throw error("gather_elements: indices " + to_string(in[1]) + " must have the rank of data " + to_string(in[0]));
        return shape(in[0].type, in[1].lens);
    };
    d.kernel = "gather_elements";
    d.params = [](const attributes& a, const std::vector<shape>& in, const shape&) {
        return kernel_params{{a.get_int("axis"), in[1].type == dtype::int64_type ? 1 : 0}, {}};
    };
    d.cpu = MXC_CPU_KERNELS(gather_elements, MXC_ALL_TYPES);
    return d;
}

} // namespace mxc
