// convolution_transpose: x [N, C, in...] with w [C, M/group, k...] -> [N, M, out...] (ONNX
// ConvTranspose without bias; a broadcast `add` follows for the bias).
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "ir/ops/spatial.hpp"
#include "templates/cpu/convolution_transpose.hpp"

namespace mxc {

MXC_REGISTER_OP(convolution_transpose) {
    op_def d;
    d.name = "convolution_transpose";
    d.doc = "y[n,m,i*stride - pad_begin + k*dilation] += x[n,c,i] * w[c,m%(M/group),k] over c of m's group; "
            "out = (in-1)*stride - pad_begin - pad_end + (k-1)*dilation + 1 + output_padding; "
            "ip = [group, pad_begin[s], stride[s], dilation[s]]";
    d.attrs = {{"padding", std::vector<int64_t>{}},
               {"stride", std::vector<int64_t>{}},
               {"dilation", std::vector<int64_t>{}},
               {"output_padding", std::vector<int64_t>{}},
               {"group", int64_t{1}}};
    d.min_inputs = d.max_inputs = 2;
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        const std::string op = "convolution_transpose";
        auto &x = in[0], &w = in[1];
        check_spatial_input(op, x);
        if (w.rank() != x.rank() || w.type != x.type)
            throw error(op + ": weights " + to_string(w) + " must have the rank and type of the input " + to_string(x));
        const std::size_t s = x.rank() - 2;
        auto pads = spatial_list(op, "padding", a.get_ints("padding"), 2 * s, 0, 0);
        auto stride = spatial_list(op, "stride", a.get_ints("stride"), s, 1, 1);
        auto dil = spatial_list(op, "dilation", a.get_ints("dilation"), s, 1, 1);
        auto outpad = spatial_list(op, "output_padding", a.get_ints("output_padding"), s, 0, 0);
        int64_t group = a.get_int("group");
        if (group < 1 || x.lens[1] % group != 0 || w.lens[0] != x.lens[1])
            throw error(op + ": weights " + to_string(w.lens) + " need dim 0 = the " + std::to_string(x.lens[1]) +
                        " input channels, divisible by group " + std::to_string(group));
        std::vector<int64_t> out{x.lens[0], w.lens[1] * group};
        for (std::size_t i = 0; i < s; ++i) {
            int64_t o = (x.lens[2 + i] - 1) * stride[i] - pads[i] - pads[s + i] + (w.lens[2 + i] - 1) * dil[i] + 1 +
                        outpad[i];
            if (o < 1) throw error(op + ": output dim " + std::to_string(i) + " would be " + std::to_string(o));
            out.push_back(o);
        }
        return shape(x.type, out);
    };
    d.kernel = "convolution_transpose";
    d.params = [](const attributes& a, const std::vector<shape>& in, const shape&) {
        const std::size_t s = in[0].rank() - 2;
        const std::string op = "convolution_transpose";
        auto pads = spatial_list(op, "padding", a.get_ints("padding"), 2 * s, 0, 0);
        auto stride = spatial_list(op, "stride", a.get_ints("stride"), s, 1, 1);
        auto dil = spatial_list(op, "dilation", a.get_ints("dilation"), s, 1, 1);
        kernel_params p;
        p.ip.push_back(a.get_int("group"));
        p.ip.insert(p.ip.end(), pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(s));
        p.ip.insert(p.ip.end(), stride.begin(), stride.end());
        p.ip.insert(p.ip.end(), dil.begin(), dil.end());
        return p;
    };
    d.cpu = MXC_CPU_KERNELS(convolution_transpose, MXC_FLOAT_TYPES);
    return d;
}

} // namespace mxc
