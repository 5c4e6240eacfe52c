// class_select: the per-element class pick of NegativeLogLikelihoodLoss and
// SoftmaxCrossEntropyLoss (the importer composes the rest from pointwise ops and reductions).
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/cpu/loss.hpp"

namespace mxc {

MXC_REGISTER_OP(class_select) {
    op_def d;
    d.name = "class_select";
    d.doc = "x [N, C, d...], target [N, d...] (int32/int64) -> y[n, d...] = x[n, target[n, d...], d...]; 0 where"
            " target == ignore_index (has_ignore=1) or out of range; ip = [ignore_index, has_ignore, target is int64]";
    d.attrs = {{"ignore_index", int64_t{-100}}, {"has_ignore", int64_t{0}}};
    d.min_inputs = d.max_inputs = 2;
    d.compute_shape = [](const attributes&, const std::vector<shape>& in) {
        auto &x = in[0], &t = in[1];
        if (t.type != dtype::int32_type && t.type != dtype::int64_type)
            throw error("class_select: target must be int32 or int64, got " + std::string(dtype_name(t.type)));
        if (x.rank() < 2 || x.rank() > MXC_MAX_RANK || t.rank() + 1 != x.rank())
            throw error("class_select: x " + to_string(x.lens) + " must be [N, C, d...] for target " + to_string(t.lens));
        auto lens = x.lens;
        lens.erase(lens.begin() + 1);
        if (lens != t.lens)
            throw error("class_select: target " + to_string(t.lens) + " must be " + to_string(lens) + " for x " + to_string(x.lens));
        return shape(x.type, lens);
    };
    d.kernel = "class_select";
    d.params = [](const attributes& a, const std::vector<shape>& in, const shape&) {
        return kernel_params{{a.get_int("ignore_index"), a.get_int("has_ignore"), in[1].type == dtype::int64_type ? 1 : 0}, {}};
    };
    d.cpu = MXC_CPU_KERNELS(class_select, MXC_NUMERIC_TYPES);
    return d;
}

} // namespace mxc
