// batch_norm_inference: per-channel normalisation of x [N, C, ...] with running statistics.
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/cpu/batch_norm.hpp"

namespace mxc {

MXC_REGISTER_OP(batch_norm_inference) {
    op_def d;
    d.name = "batch_norm_inference";
    d.doc = "y = (x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + bias[c]; inputs x [N, C, ...], scale, bias, "
            "mean, var ([C]); fp = [epsilon]";
    d.attrs = {{"epsilon", 1e-05}};
    d.min_inputs = d.max_inputs = 5;
    d.compute_shape = [](const attributes&, const std::vector<shape>& in) {
        auto& x = in[0];
        if (x.rank() < 2 || x.rank() > MXC_MAX_RANK)
            throw error("batch_norm_inference: input must be [N, C, ...] of rank 2 to " + std::to_string(MXC_MAX_RANK) +
                        ", got " + to_string(x.lens));
        static const char* names[] = {"x", "scale", "bias", "mean", "var"};
        for (std::size_t i = 1; i < 5; ++i) {
            if (in[i].type != x.type)
                throw error(std::string("batch_norm_inference: ") + names[i] + " must have the type of x (" +
                            std::string(dtype_name(x.type)) + "), got " + std::string(dtype_name(in[i].type)));
            if (in[i].lens != std::vector<int64_t>{x.lens[1]})
                throw error(std::string("batch_norm_inference: ") + names[i] + " must be {" + std::to_string(x.lens[1]) +
                            "} (the channels of x " + to_string(x.lens) + "), got " + to_string(in[i].lens));
        }
        return x.as_standard();
    };
    d.kernel = "batch_norm_inference";
    d.params = [](const attributes& a, const std::vector<shape>&, const shape&) {
        return kernel_params{{}, {a.get_float("epsilon")}};
    };
    d.cpu = MXC_CPU_KERNELS(batch_norm_inference, MXC_FLOAT_TYPES);
    return d;
}

} // namespace mxc
