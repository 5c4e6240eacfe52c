// deform_conv: ONNX DeformConv (2 spatial dims; the bias is added by the importer).
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/cpu/deform_conv.hpp"

namespace mxc {

MXC_REGISTER_OP(deform_conv) {
    op_def d;
    d.name = "deform_conv";
    d.doc = "x [N,C,H,W], w [M,C/group,KH,KW], offset [N,offset_group*2*KH*KW,OH,OW] (dy, dx per tap), optional mask "
            "[N,offset_group*KH*KW,OH,OW] -> [N,M,OH,OW]: a convolution sampling x bilinearly at the offset taps; "
            "padding = {top, left, bottom, right}; ip = [group, offset_group, pad_h, pad_w, stride_h, stride_w, dilation_h, "
            "dilation_w, has_mask]";
    d.attrs = {{"padding", std::vector<int64_t>{0, 0, 0, 0}},
               {"stride", std::vector<int64_t>{1, 1}},
               {"dilation", std::vector<int64_t>{1, 1}},
               {"group", int64_t{1}},
               {"offset_group", int64_t{1}}};
    d.min_inputs = 3;
    d.max_inputs = 4;
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        auto &x = in[0], &w = in[1], &off = in[2];
        auto &pad = a.get_ints("padding"), &st = a.get_ints("stride"), &dil = a.get_ints("dilation");
        int64_t group = a.get_int("group"), og = a.get_int("offset_group");
        if (x.rank() != 4 || w.rank() != 4) throw error("deform_conv: x and w must be 4-D, got " + to_string(x.lens) + " and " + to_string(w.lens));
        if (pad.size() != 4 || st.size() != 2 || dil.size() != 2) throw error("deform_conv: padding needs 4 values, stride and dilation 2");
        for (std::size_t i = 0; i < 2; ++i)
            if (st[i] < 1 || dil[i] < 1 || pad[i] < 0 || pad[i + 2] < 0) throw error("deform_conv: bad stride, dilation or padding");
        if (group < 1 || og < 1 || x.lens[1] % group != 0 || x.lens[1] % og != 0 || w.lens[0] % group != 0 ||
            w.lens[1] != x.lens[1] / group)
            throw error("deform_conv: w " + to_string(w.lens) + " does not fit x " + to_string(x.lens) + " with group " +
                        std::to_string(group) + " and offset_group " + std::to_string(og));
        for (auto& s : in)
            if (s.type != x.type || !is_floating(s.type)) throw error("deform_conv: inputs must share one floating type");
        int64_t kh = w.lens[2], kw = w.lens[3];
        int64_t oh = (x.lens[2] + pad[0] + pad[2] - (dil[0] * (kh - 1) + 1)) / st[0] + 1;
        int64_t ow = (x.lens[3] + pad[1] + pad[3] - (dil[1] * (kw - 1) + 1)) / st[1] + 1;
        if (oh < 1 || ow < 1) throw error("deform_conv: the kernel does not fit the padded input " + to_string(x.lens));
        if (off.lens != std::vector<int64_t>{x.lens[0], og * 2 * kh * kw, oh, ow})
            throw error("deform_conv: offset must be " + to_string(std::vector<int64_t>{x.lens[0], og * 2 * kh * kw, oh, ow}) +
                        ", got " + to_string(off.lens));
        if (in.size() > 3 && in[3].lens != std::vector<int64_t>{x.lens[0], og * kh * kw, oh, ow})
            throw error("deform_conv: mask must be " + to_string(std::vector<int64_t>{x.lens[0], og * kh * kw, oh, ow}) +
                        ", got " + to_string(in[3].lens));
        return shape(x.type, {x.lens[0], w.lens[0], oh, ow});
    };
    d.kernel = "deform_conv";
    d.params = [](const attributes& a, const std::vector<shape>& in, const shape&) {
        auto &pad = a.get_ints("padding"), &st = a.get_ints("stride"), &dil = a.get_ints("dilation");
        return kernel_params{{a.get_int("group"), a.get_int("offset_group"), pad[0], pad[1], st[0], st[1], dil[0], dil[1],
                              in.size() > 3 ? 1 : 0},
                             {}};
    };
    d.cpu = MXC_CPU_KERNELS(deform_conv, MXC_FLOAT_TYPES);
    return d;
}

} // namespace mxc
