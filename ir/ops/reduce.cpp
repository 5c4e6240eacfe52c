// reduce_sum, reduce_mean, reduce_max, reduce_min, reduce_prod over listed axes; reduced axes stay with len 1.
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/cpu/reduce.hpp"

namespace mxc {
namespace {
op_def reduce(std::string name, kernel_table_t cpu, std::string doc) {
    op_def d;
    d.name = name;
    d.doc = std::move(doc) + "; axes sorted, unique, non-negative ({} reduces nothing); ip = axes";
    d.attrs = {{"axes", std::vector<int64_t>{}}};
    d.compute_shape = [name](const attributes& a, const std::vector<shape>& in) {
        auto& axes = a.get_ints("axes");
        auto& x = in[0];
        if (x.rank() > MXC_MAX_RANK)
            throw error(name + ": rank " + std::to_string(x.rank()) + " exceeds " + std::to_string(MXC_MAX_RANK));
        auto lens = x.lens;
        for (std::size_t i = 0; i < axes.size(); ++i) {
            if (axes[i] < 0 || axes[i] >= static_cast<int64_t>(x.rank()))
                throw error(name + ": axis " + std::to_string(axes[i]) + " is out of range for " + to_string(x.lens));
            if (i > 0 && axes[i] <= axes[i - 1]) throw error(name + ": axes " + to_string(axes) + " must be sorted and unique");
            lens[static_cast<std::size_t>(axes[i])] = 1;
        }
        return shape(x.type, lens);
    };
    d.kernel = name;
    d.params = [](const attributes& a, const std::vector<shape>&, const shape&) {
        return kernel_params{a.get_ints("axes"), {}};
    };
    d.cpu = cpu;
    return d;
}
} // namespace

MXC_REGISTER_OP(reduce_sum) {
    return reduce("reduce_sum", MXC_CPU_KERNELS(reduce_sum, MXC_NUMERIC_TYPES), "y = sum of x over axes");
}
MXC_REGISTER_OP(reduce_mean) {
    return reduce("reduce_mean", MXC_CPU_KERNELS(reduce_mean, MXC_NUMERIC_TYPES),
                  "y = mean of x over axes (integers truncate)");
}
MXC_REGISTER_OP(reduce_max) {
    return reduce("reduce_max", MXC_CPU_KERNELS(reduce_max, MXC_NUMERIC_TYPES, bool), "y = max of x over axes");
}
MXC_REGISTER_OP(reduce_min) {
    return reduce("reduce_min", MXC_CPU_KERNELS(reduce_min, MXC_NUMERIC_TYPES, bool), "y = min of x over axes");
}

MXC_REGISTER_OP(reduce_prod) {
    return reduce("reduce_prod", MXC_CPU_KERNELS(reduce_prod, MXC_NUMERIC_TYPES), "y = product of x over axes");
}

} // namespace mxc
