// pooling: max or average over windows of x [N, C, spatial...] -> [N, C, out...].
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "ir/ops/spatial.hpp"
#include "templates/cpu/pooling.hpp"

namespace mxc {
namespace {
struct pool_attrs {
    int64_t mode; // 0 max, 1 average
    std::vector<int64_t> pads, stride, lengths, dilation;
};

pool_attrs resolve(const attributes& a, std::size_t s) {
    auto& mode = a.get_string("mode");
    if (mode != "max" && mode != "average")
        throw error("pooling: mode must be \"max\" or \"average\", got \"" + mode + "\"");
    auto& lengths = a.get_ints("lengths");
    if (lengths.size() != s)
        throw error("pooling: lengths " + to_string(lengths) + " must have " + std::to_string(s) + " values");
    return {mode == "max" ? 0 : 1, spatial_list("pooling", "padding", a.get_ints("padding"), 2 * s, 0, 0),
            spatial_list("pooling", "stride", a.get_ints("stride"), s, 1, 1),
            spatial_list("pooling", "lengths", lengths, s, 1, 1),
            spatial_list("pooling", "dilation", a.get_ints("dilation"), s, 1, 1)};
}
} // namespace

MXC_REGISTER_OP(pooling) {
    op_def d;
    d.name = "pooling";
    d.doc = "max, or average (float types only), of x over windows at p*stride - pad_begin + k*dilation; "
            "out = floor_or_ceil((in + pads - (lengths-1)*dilation - 1) / stride) + 1, ceil dropping a window that "
            "starts past in + pad_begin; ip = [mode (0 max, 1 average), count_include_pad, pad_begin[s], pad_end[s], "
            "stride[s], lengths[s], dilation[s]]";
    d.attrs = {{"mode", std::string("max")},          {"padding", std::vector<int64_t>{}},
               {"stride", std::vector<int64_t>{}},     {"lengths", std::vector<int64_t>{}},
               {"dilation", std::vector<int64_t>{}},   {"ceil_mode", int64_t{0}},
               {"count_include_pad", int64_t{0}}};
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        auto& x = in[0];
        check_spatial_input("pooling", x);
        const std::size_t s = x.rank() - 2;
        auto p = resolve(a, s);
        if (p.mode == 1 && !is_floating(x.type))
            throw error("pooling: average pooling needs a floating-point input, got " + std::string(dtype_name(x.type)));
        const bool ceil_mode = a.get_int("ceil_mode") != 0;
        std::vector<int64_t> out{x.lens[0], x.lens[1]};
        for (std::size_t i = 0; i < s; ++i) {
            int64_t span = (p.lengths[i] - 1) * p.dilation[i] + 1;
            int64_t avail = x.lens[2 + i] + p.pads[i] + p.pads[s + i];
            if (span > avail)
                throw error("pooling: window " + to_string(p.lengths) + " (dilated extent " + std::to_string(span) +
                            ") does not fit padded input dim " + std::to_string(i) + " of " + to_string(x.lens));
            int64_t o = (avail - span + (ceil_mode ? p.stride[i] - 1 : 0)) / p.stride[i] + 1;
            if (ceil_mode && (o - 1) * p.stride[i] >= x.lens[2 + i] + p.pads[i]) --o;
            out.push_back(o);
        }
        return shape(x.type, out);
    };
    d.kernel = "pooling";
    d.params = [](const attributes& a, const std::vector<shape>& in, const shape&) {
        auto p = resolve(a, in[0].rank() - 2);
        kernel_params k;
        k.ip = {p.mode, a.get_int("count_include_pad") != 0 ? 1 : 0};
        for (auto* v : {&p.pads, &p.stride, &p.lengths, &p.dilation}) k.ip.insert(k.ip.end(), v->begin(), v->end());
        return k;
    };
    d.cpu_template_ip = 1; // the mode: a library builds the max's loops or the average's
    d.cpu = MXC_CPU_KERNELS(pooling, MXC_FLOAT_TYPES, int8_t, uint8_t);
    return d;
}

} // namespace mxc
