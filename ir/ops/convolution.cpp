// convolution: x [N, C, spatial...] * w [M, C/group, k...] -> [N, M, out...] (no bias).
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "ir/ops/spatial.hpp"
#include "templates/cpu/convolution.hpp"

namespace mxc {
namespace {
struct conv_attrs {
    std::vector<int64_t> pads, stride, dilation; // pads: s begins then s ends
    int64_t group;
};

conv_attrs resolve(const attributes& a, std::size_t s) {
    return {spatial_list("convolution", "padding", a.get_ints("padding"), 2 * s, 0, 0),
            spatial_list("convolution", "stride", a.get_ints("stride"), s, 1, 1),
            spatial_list("convolution", "dilation", a.get_ints("dilation"), s, 1, 1), a.get_int("group")};
}
} // namespace

MXC_REGISTER_OP(convolution) {
    op_def d;
    d.name = "convolution";
    d.doc = "y[n,m,p] = sum_{c,k} x[n, g*C/group + c, p*stride - pad_begin + k*dilation] * w[m,c,k] (zero outside); "
            "padding = begins then ends, {} = defaults; ip = [group, pad_begin[s], stride[s], dilation[s]]";
    d.attrs = {{"padding", std::vector<int64_t>{}},
               {"stride", std::vector<int64_t>{}},
               {"dilation", std::vector<int64_t>{}},
               {"group", int64_t{1}}};
    d.min_inputs = d.max_inputs = 2;
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        auto &x = in[0], &w = in[1];
        check_spatial_input("convolution", x);
        if (w.rank() != x.rank())
            throw error("convolution: weights " + to_string(w.lens) + " must have the rank of the input " +
                        to_string(x.lens));
        if (w.type != x.type)
            throw error("convolution: input and weights must have the same type, got " +
                        std::string(dtype_name(x.type)) + " and " + std::string(dtype_name(w.type)));
        const std::size_t s = x.rank() - 2;
        auto c = resolve(a, s);
        if (c.group < 1 || x.lens[1] % c.group != 0 || w.lens[0] % c.group != 0)
            throw error("convolution: group " + std::to_string(c.group) + " must be >= 1 and divide the " +
                        std::to_string(x.lens[1]) + " input and " + std::to_string(w.lens[0]) + " output channels");
        if (w.lens[1] * c.group != x.lens[1])
            throw error("convolution: weights " + to_string(w.lens) + " need " + std::to_string(w.lens[1] * c.group) +
                        " input channels (C/group = dim 1), input " + to_string(x.lens) + " has " +
                        std::to_string(x.lens[1]));
        std::vector<int64_t> out{x.lens[0], w.lens[0]};
        for (std::size_t i = 0; i < s; ++i) {
            int64_t span = (w.lens[2 + i] - 1) * c.dilation[i] + 1;
            int64_t avail = x.lens[2 + i] + c.pads[i] + c.pads[s + i];
            if (w.lens[2 + i] < 1 || span > avail)
                throw error("convolution: kernel " + to_string(w.lens) + " (dilated extent " + std::to_string(span) +
                            ") does not fit padded input dim " + std::to_string(i) + " of " + to_string(x.lens));
            out.push_back((avail - span) / c.stride[i] + 1);
        }
        return shape(x.type, out);
    };
    d.kernel = "convolution";
    d.params = [](const attributes& a, const std::vector<shape>& in, const shape&) {
        const std::size_t s = in[0].rank() - 2;
        auto c = resolve(a, s);
        kernel_params p;
        p.ip.push_back(c.group);
        p.ip.insert(p.ip.end(), c.pads.begin(), c.pads.begin() + static_cast<std::ptrdiff_t>(s));
        p.ip.insert(p.ip.end(), c.stride.begin(), c.stride.end());
        p.ip.insert(p.ip.end(), c.dilation.begin(), c.dilation.end());
        return p;
    };
    d.cpu = MXC_CPU_KERNELS(convolution, MXC_FLOAT_TYPES, int32_t);
    return d;
}

} // namespace mxc
