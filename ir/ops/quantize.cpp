// quantize_linear: the rounding, zero-point and saturating step of ONNX QuantizeLinear (and
// of the requantization in QLinearMatMul / QLinearConv / DynamicQuantizeLinear). Scales and
// zero points arrive already broadcast to x's lens (per-tensor, per-axis and blocked
// granularities are views built by the importer); dequantization is a composition of
// convert / sub / mul.
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/cpu/quantize.hpp"

namespace mxc {

MXC_REGISTER_OP(quantize_linear) {
    op_def d;
    d.name = "quantize_linear";
    d.doc = "y = saturate(round_half_even(x / scale) + zero_point); inputs x, scale (one floating type), zero_point"
            " (the output type), all of one lens; ip = [dtype index of x]";
    d.min_inputs = d.max_inputs = 3;
    d.compute_shape = [](const attributes&, const std::vector<shape>& in) {
        auto &x = in[0], &s = in[1], &zp = in[2];
        const bool wide_float = x.type == dtype::float_type || x.type == dtype::double_type ||
                                x.type == dtype::half_type || x.type == dtype::bf16_type;
        if (!wide_float || s.type != x.type)
            throw error("quantize_linear: x and scale must have one type of float, double, half or bf16, got " + std::string(dtype_name(x.type)) +
                        " and " + std::string(dtype_name(s.type)));
        if (s.lens != x.lens || zp.lens != x.lens)
            throw error("quantize_linear: scale " + to_string(s.lens) + " and zero_point " + to_string(zp.lens) +
                        " must have x's lens " + to_string(x.lens));
        if (!is_integral(zp.type) || dtype_size(zp.type) > 4)
            throw error("quantize_linear: zero_point must be an integer type of at most 32 bits, got " +
                        std::string(dtype_name(zp.type)));
        return shape(zp.type, x.lens);
    };
    d.kernel = "quantize_linear";
    d.params = [](const attributes&, const std::vector<shape>& in, const shape&) {
        return kernel_params{{static_cast<int64_t>(in[0].type)}, {}};
    };
    d.cpu = MXC_CPU_KERNELS(quantize_linear, int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t);
    return d;
}

} // namespace mxc
