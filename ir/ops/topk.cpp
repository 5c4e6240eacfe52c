// top_k: the int64 indices of the k largest (or smallest) elements along an axis, best first,
// ties by the lower index; the values are a gather_elements of x by them
// (templates/common/topk.hpp).
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/cpu/topk.hpp"

namespace mxc {

MXC_REGISTER_OP(top_k) {
    op_def d;
    d.name = "top_k";
    d.doc = "int64 indices of the k largest (largest=1) or smallest elements of x along axis, best first, ties by"
            " the lower index, NaN counted largest; y has x's lens with k along axis; ip = [axis, largest]";
    d.attrs = {{"k", int64_t{1}}, {"axis", int64_t{0}}, {"largest", int64_t{1}}};
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        auto& x = in[0];
        int64_t axis = a.get_int("axis"), k = a.get_int("k");
        if (axis < 0 || axis >= static_cast<int64_t>(x.rank()))
            throw error("top_k: axis " + std::to_string(axis) + " is out of range for " + to_string(x.lens));
        auto lens = x.lens;
        if (k < 0 || k > lens[static_cast<std::size_t>(axis)])
            throw error("top_k: k " + std::to_string(k) + " must be 0.." + std::to_string(lens[static_cast<std::size_t>(axis)]) +
                        " (the length of axis " + std::to_string(axis) + " of " + to_string(x.lens) + ")");
        lens[static_cast<std::size_t>(axis)] = k;
        return shape(dtype::int64_type, lens);
    };
    d.kernel = "top_k";
    d.type_from_input = 0;
    d.params = [](const attributes& a, const std::vector<shape>&, const shape&) {
        return kernel_params{{a.get_int("axis"), a.get_int("largest") != 0 ? 1 : 0}, {}};
    };
    d.cpu = MXC_CPU_KERNELS(top_k, MXC_NUMERIC_TYPES);
    return d;
}

} // namespace mxc
