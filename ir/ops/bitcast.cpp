// bitcast: the bits of each element read as another type of the same width (ONNX BitCast).
// Kernel in templates/*/pointwise.hpp, the bit handling in templates/common/lowp.hpp.
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/cpu/pointwise.hpp"

namespace mxc {

MXC_REGISTER_OP(bitcast) {
    op_def d;
    d.name = "bitcast";
    d.doc = "y = the bits of x read as target_type (of the same width in bits; sub-byte integers sign-extend); "
            "ip = [source dtype index]";
    d.attrs = {{"target_type", std::string("float_type")}};
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        auto t = parse_dtype(a.get_string("target_type"));
        if (!t) throw error("bitcast: unknown target_type '" + a.get_string("target_type") + "'");
        if (onnx_bits(*t) != onnx_bits(in[0].type))
            throw error("bitcast: " + std::string(dtype_name(in[0].type)) + " and " + std::string(dtype_name(*t)) +
                        " differ in width");
        return shape(*t, in[0].lens);
    };
    d.kernel = "bitcast";
    d.source_type_from_input = 0;
    d.params = [](const attributes&, const std::vector<shape>& in, const shape&) {
        return kernel_params{{static_cast<int64_t>(in[0].type)}, {}};
    };
    d.cpu = MXC_CPU_KERNELS(bitcast, MXC_ALL_TYPES, MXC_LOWP_TYPES);
    return d;
}

} // namespace mxc
