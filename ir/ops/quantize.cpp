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
    d.doc = "y = saturate(round_half_even(x / scale) + zero_point); inputs x, scale (float, double, half or bf16),"
            " zero_point (the output type: an integer of 2 to 32 bits, float8 or float4e2m1), all of one lens; float8"
            " outputs round x / scale + zero_point to nearest even, out of range: +-max if saturate else inf/NaN;"
            " ip = [dtype index of x, saturate]";
    d.attrs = {{"saturate", int64_t{1}}};
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
        const bool int_out = is_integral(zp.type) && dtype_size(zp.type) <= 4;
        if (!int_out && (!is_low_precision(zp.type) || zp.type == dtype::float8e8m0_type))
            throw error("quantize_linear: zero_point must be an integer of at most 32 bits, a float8 or float4e2m1, got " +
                        std::string(dtype_name(zp.type)));
        return shape(zp.type, x.lens);
    };
    d.kernel = "quantize_linear";
    d.source_type_from_input = 0;
    d.params = [](const attributes& a, const std::vector<shape>& in, const shape&) {
        return kernel_params{{static_cast<int64_t>(in[0].type), a.get_int("saturate") != 0 ? 1 : 0}, {}};
    };
    d.cpu = MXC_CPU_KERNELS(quantize_linear, int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, mxc_int4, mxc_uint4,
                            mxc_int2, mxc_uint2, mxc_f8e4m3fn, mxc_f8e4m3fnuz, mxc_f8e5m2, mxc_f8e5m2fnuz, mxc_f4e2m1);
    return d;
}

} // namespace mxc
