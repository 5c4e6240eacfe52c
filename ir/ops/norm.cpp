// Normalisations over the trailing dims, made by fuse-reduce (passes/fuse_reduce.cpp) from
// the decomposed forms exporters write: layer_norm and rms_norm, one kernel each.
// Math: templates/common/norm.hpp.
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/cpu/norm.hpp"

namespace mxc {
namespace {
op_def norm_op(std::string name, int max_inputs, kernel_table_t cpu, std::string doc) {
    op_def d;
    d.name = name;
    d.doc = std::move(doc) + "; rows = dims axis.. of x; optional inputs have x's lens and type; ip = [axis], fp = [epsilon]";
    d.attrs = {{"axis", int64_t{-1}}, {"epsilon", 1e-5}};
    d.max_inputs = max_inputs;
    d.compute_shape = [name](const attributes& a, const std::vector<shape>& in) {
        auto& x = in[0];
        const auto r = static_cast<int64_t>(x.rank());
        const int64_t axis = a.get_int("axis");
        if (r < 1 || r > MXC_MAX_RANK || axis < 0 || axis >= r)
            throw error(name + ": axis " + std::to_string(axis) + " must be in [0, rank) of " + to_string(x.lens));
        if (!is_floating(x.type)) throw error(name + ": x must be floating point, got " + to_string(x));
        for (std::size_t i = 1; i < in.size(); ++i)
            if (in[i].lens != x.lens || in[i].type != x.type)
                throw error(name + ": input " + std::to_string(i) + " " + to_string(in[i]) + " must have the lens and type of x " +
                            to_string(x));
        return x.as_standard();
    };
    d.kernel = name;
    d.params = [](const attributes& a, const std::vector<shape>&, const shape&) {
        return kernel_params{{a.get_int("axis")}, {a.get_float("epsilon")}};
    };
    d.cpu = cpu;
    return d;
}
} // namespace

MXC_REGISTER_OP(layer_norm) {
    return norm_op("layer_norm", 3, MXC_CPU_KERNELS(layer_norm, MXC_FLOAT_TYPES),
                   "y = (x - mean) / sqrt(var + epsilon) [* scale] [+ bias] per row (inputs x, scale, bias)");
}
MXC_REGISTER_OP(rms_norm) {
    return norm_op("rms_norm", 2, MXC_CPU_KERNELS(rms_norm, MXC_FLOAT_TYPES),
                   "y = x / sqrt(mean(x^2) + epsilon) [* scale] per row (inputs x, scale)");
}

} // namespace mxc
