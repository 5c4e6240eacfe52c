// dot: batched matrix product a [..., M, K] x b [..., K, N] -> [..., M, N].
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/cpu/dot.hpp"

namespace mxc {

MXC_REGISTER_OP(dot) {
    op_def d;
    d.name = "dot";
    d.doc = "y[..., i, j] = sum_k a[..., i, k] * b[..., k, j]; same batch lens, rank >= 2; no parameters";
    d.min_inputs = d.max_inputs = 2;
    d.compute_shape = [](const attributes&, const std::vector<shape>& in) {
        auto &a = in[0], &b = in[1];
        if (a.type != b.type)
            throw error("dot: inputs must have the same type, got " + std::string(dtype_name(a.type)) + " and " +
                        std::string(dtype_name(b.type)));
        if (a.rank() < 2 || a.rank() != b.rank() || a.rank() > MXC_MAX_RANK)
            throw error("dot: inputs must have the same rank, 2 to " + std::to_string(MXC_MAX_RANK) + ", got " +
                        to_string(a.lens) + " and " + to_string(b.lens));
        const std::size_t r = a.rank();
        for (std::size_t i = 0; i + 2 < r; ++i)
            if (a.lens[i] != b.lens[i])
                throw error("dot: batch dims differ: " + to_string(a.lens) + " and " + to_string(b.lens));
        if (a.lens[r - 1] != b.lens[r - 2])
            throw error("dot: inner dims differ: " + to_string(a.lens) + " x " + to_string(b.lens));
        auto out = a.lens;
        out[r - 1] = b.lens[r - 1];
        return shape(a.type, out);
    };
    d.kernel = "dot";
    d.params = [](const attributes&, const std::vector<shape>&, const shape&) { return kernel_params{}; };
    d.cpu = MXC_CPU_KERNELS(dot, MXC_FLOAT_TYPES, int32_t, int64_t, uint32_t, uint64_t);
    return d;
}

} // namespace mxc
