// conv_transpose: ONNX ConvTranspose without bias (the importer adds it).
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/cpu/conv_transpose.hpp"

namespace mxc {

MXC_REGISTER_OP(conv_transpose) {
    op_def d;
    d.name = "conv_transpose";
    d.doc = "x [N,C,in...], w [C,M/group,k...] -> [N,M,out...] with `out_lens` (the spatial output dims); input i and "
            "kernel offset k add to output i*stride - pad_begin + k*dilation; ip = [group, pad_begin[s], stride[s], dilation[s]]";
    d.attrs = {{"padding", std::vector<int64_t>{}},
               {"stride", std::vector<int64_t>{}},
               {"dilation", std::vector<int64_t>{}},
               {"group", int64_t{1}},
               {"out_lens", std::vector<int64_t>{}}};
    d.min_inputs = d.max_inputs = 2;
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        auto &x = in[0], &w = in[1];
        auto s = x.rank() < 3 ? 0 : x.rank() - 2;
        auto fail = [&](const std::string& m) { throw error("conv_transpose: " + m + " (x " + to_string(x.lens) + ", w " + to_string(w.lens) + ")"); };
        if (s < 1 || x.rank() > MXC_MAX_RANK || w.rank() != x.rank()) fail("x and w must have the same rank, 3 to 8");
        if (x.type != w.type) fail("x and w must have the same type");
        int64_t group = a.get_int("group");
        if (group < 1 || x.lens[1] % group != 0 || w.lens[0] != x.lens[1]) fail("w must be [C, M/group, k...] and group divide C");
        for (auto* name : {"padding", "stride", "dilation", "out_lens"})
            if (a.get_ints(name).size() != s) fail(std::string(name) + " must have one value per spatial dim");
        for (std::size_t i = 0; i < s; ++i)
            if (a.get_ints("stride")[i] < 1 || a.get_ints("dilation")[i] < 1 || a.get_ints("out_lens")[i] < 0)
                fail("strides and dilations must be positive");
        std::vector<int64_t> lens{x.lens[0], w.lens[1] * group};
        for (auto v : a.get_ints("out_lens")) lens.push_back(v);
        return shape(x.type, lens);
    };
    d.kernel = "conv_transpose";
    d.params = [](const attributes& a, const std::vector<shape>&, const shape&) {
        std::vector<int64_t> ip{a.get_int("group")};
        for (auto* name : {"padding", "stride", "dilation"})
            for (auto v : a.get_ints(name)) ip.push_back(v);
        return kernel_params{ip, {}};
    };
    d.cpu = MXC_CPU_KERNELS(conv_transpose, MXC_FLOAT_TYPES);
    return d;
}

} // namespace mxc
