// softmax and log_softmax along one axis (numerically stable).
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/cpu/softmax.hpp"

namespace mxc {
namespace {
int64_t resolve_axis(const std::string& op, int64_t axis, const shape& x) {
    const auto r = static_cast<int64_t>(x.rank());
    if (axis < -r || axis >= r)
        throw error(op + ": axis " + std::to_string(axis) + " is out of range for " + to_string(x.lens));
    return axis < 0 ? axis + r : axis;
}

op_def softmax_op(std::string name, kernel_table_t cpu, std::string doc) {
    op_def d;
    d.name = name;
    d.doc = std::move(doc) + "; axis may be negative (from the end); ip = [axis, non-negative]";
    d.attrs = {{"axis", int64_t{-1}}};
    d.compute_shape = [name](const attributes& a, const std::vector<shape>& in) {
        auto& x = in[0];
        if (x.rank() < 1 || x.rank() > MXC_MAX_RANK)
            throw error(name + ": input must have rank 1 to " + std::to_string(MXC_MAX_RANK) + ", got " + to_string(x.lens));
        resolve_axis(name, a.get_int("axis"), x);
        return x.as_standard();
    };
    d.kernel = name;
    d.params = [name](const attributes& a, const std::vector<shape>& in, const shape&) {
        return kernel_params{{resolve_axis(name, a.get_int("axis"), in[0])}, {}};
    };
    d.cpu = cpu;
    return d;
}
} // namespace

MXC_REGISTER_OP(softmax) {
    return softmax_op("softmax", MXC_CPU_KERNELS(softmax, MXC_FLOAT_TYPES),
                      "y = exp(x - max) / sum(exp(x - max)) along axis");
}
MXC_REGISTER_OP(log_softmax) {
    return softmax_op("log_softmax", MXC_CPU_KERNELS(log_softmax, MXC_FLOAT_TYPES),
                      "y = x - max - log(sum(exp(x - max))) along axis");
}

} // namespace mxc
