// Code generation for fused kernels (pointwise, fused_convolution, fused_dot): the body is
// pasted as ONE C++ expression into a functor the kernel template calls per element, e.g.
//   struct k3_body { static constexpr int inputs = 2;
//       template <class C> MXC_HD C operator()(const C* x) const {
//           return mxc_pw_relu{}(mxc_pw_add{}(x[0], x[1])); } };
//   mxc::cpu::fused_pointwise_expr<float>(k, k3_body{});
#include "codegen/emit.hpp"
#include "ir/pointwise_body.hpp"

namespace mxc {

bool is_fused_kernel(const kernel_call& k) { return k.ins->attrs.has("body"); }

std::string fused_body_functor(const kernel_call& k, const std::string& id) {
    auto body = parse_body(k.ins->attrs.get_string("body"));
    // `inputs`: how many x[] the expression reads, so that the kernels fill only those (with
    // constant indices: the array stays in registers)
    return "struct " + id + "_body {\n    static constexpr int inputs = " + std::to_string(body_inputs(body)) +
           ";\n    template <class C> MXC_HD C operator()(const C* x) const {\n        return " + body_cxx(body) +
           ";\n    }\n};\n";
}

std::string fused_call(const kernel_call& k, const std::string& id, const target_style& st, const std::string& cfg) {
    return "mxc::" + st.target + "::" + k.kernel + "_expr<" + std::string(dtype_c_name(k.type)) + cfg + ">(k" + st.call_suffix +
           ", " + id + "_body{});";
}

} // namespace mxc
