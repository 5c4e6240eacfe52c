// concat: inputs joined along one axis.
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/cpu/concat.hpp"

namespace mxc {

MXC_REGISTER_OP(concat) {
    op_def d;
    d.name = "concat";
    d.doc = "y = x0, x1, ... joined along axis (same type, other lens equal); ip = [axis]";
    d.attrs = {{"axis", int64_t{0}}};
    d.min_inputs = 1;
    d.max_inputs = -1;
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        const int64_t axis = a.get_int("axis");
        auto& x = in[0];
        if (x.rank() > MXC_MAX_RANK)
            throw error("concat: rank " + std::to_string(x.rank()) + " exceeds " + std::to_string(MXC_MAX_RANK));
        if (axis < 0 || axis >= static_cast<int64_t>(x.rank()))
            throw error("concat: axis " + std::to_string(axis) + " is out of range for " + to_string(x.lens));
        auto lens = x.lens;
        const auto ax = static_cast<std::size_t>(axis);
        lens[ax] = 0;
        for (auto& s : in) {
            auto other = s.lens;
            if (other.size() == lens.size()) other[ax] = 0;
            if (s.type != x.type || other != lens)
                throw error("concat: inputs must have the same type and lens except along axis " +
                            std::to_string(axis) + ", got " + to_string(x) + " and " + to_string(s));
        }
        for (auto& s : in) lens[ax] += s.lens[ax];
        return shape(x.type, lens);
    };
    d.kernel = "concat";
    d.params = [](const attributes& a, const std::vector<shape>&, const shape&) {
        return kernel_params{{a.get_int("axis")}, {}};
    };
    d.cpu = MXC_CPU_KERNELS(concat, MXC_ALL_TYPES);
    return d;
}

} // namespace mxc
