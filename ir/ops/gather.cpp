// gather: data indexed along one axis by int32/int64 indices (negative ones count from the end).
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/cpu/gather.hpp"

namespace mxc {

MXC_REGISTER_OP(gather) {
    op_def d;
    d.name = "gather";
    d.doc = "y[i.., j.., k..] = data[i.., indices[j..], k..] along axis; negative indices wrap, out of range gives 0;"
            " ip = [axis, indices are int64 (1) or int32 (0)]";
    d.attrs = {{"axis", int64_t{0}}};
    d.min_inputs = d.max_inputs = 2;
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        auto &data = in[0], &ind = in[1];
        const int64_t axis = a.get_int("axis");
        if (axis < 0 || axis >= static_cast<int64_t>(data.rank()))
            throw error("gather: axis " + std::to_string(axis) + " is out of range for data " + to_string(data.lens));
        if (ind.type != dtype::int32_type && ind.type != dtype::int64_type)
            throw error("gather: indices must be int32 or int64, got " + std::string(dtype_name(ind.type)));
        std::vector<int64_t> lens(data.lens.begin(), data.lens.begin() + axis);
        lens.insert(lens.end(), ind.lens.begin(), ind.lens.end());
        lens.insert(lens.end(), data.lens.begin() + axis + 1, data.lens.end());
        if (lens.size() > MXC_MAX_RANK || ind.rank() > MXC_MAX_RANK)
            throw error("gather: result rank " + std::to_string(lens.size()) + " exceeds " + std::to_string(MXC_MAX_RANK));
        return shape(data.type, lens);
    };
    d.kernel = "gather";
    d.params = [](const attributes& a, const std::vector<shape>& in, const shape&) {
        return kernel_params{{a.get_int("axis"), in[1].type == dtype::int64_type ? 1 : 0}, {}};
    };
    d.cpu = MXC_CPU_KERNELS(gather, MXC_ALL_TYPES);
    return d;
}

} // namespace mxc
