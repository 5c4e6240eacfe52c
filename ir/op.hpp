// The op registry. Each IR op is defined once, in ir/ops/<op>.cpp: name, attributes with
// defaults, shape inference, and its kernel (a template in templates/cpu and templates/hip
// with the mxc_kargs calling convention). The cpu instantiations of the kernel serve the
// reference evaluator and constant folding; codegen emits calls to the same templates.
#pragma once
#include "ir/attribute.hpp"
#include "ir/shape.hpp"
#include "templates/common/abi.hpp"
#include "templates/common/types.hpp"

#include <array>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace mxc {

using ref_kernel = void (*)(const mxc_kargs&);
using kernel_table_t = std::array<ref_kernel, dtype_count>;

struct attr_spec {
    std::string name;
    attr_value default_value; // also fixes the attribute's kind
};

struct kernel_params {
    std::vector<int64_t> ip;
    std::vector<double> fp;
};

struct op_def {
    std::string name;
    std::string doc;                 // one line: what it computes, inputs, params packing
    std::vector<attr_spec> attrs;
    int min_inputs = 1;
    int max_inputs = 1;              // -1: any number
    // Result shape from attributes and input shapes; throws mxc::error saying what is wrong.
    std::function<shape(const attributes&, const std::vector<shape>&)> compute_shape;

    // A view op produces no kernel: its result is a strided view of input 0, starting
    // view_offset(...) elements after input 0's first element.
    bool is_view = false;
    std::function<int64_t(const attributes&, const std::vector<shape>&)> view_offset;

    // Kernel ops: template `mxc::cpu::<kernel><T>` / `mxc::hip::<kernel><T>`, where T is the
    // C++ type of the output (or of input `type_from_input` when >= 0).
    std::string kernel;
    int type_from_input = -1;
    // Kernels that read an input of another type than T (casts, quantisation; ip[0] is its
    // dtype index): the generated call names that input's C++ type as the template's second
    // argument, <T, S>, so a library instantiates only the conversion it runs. The reference
    // tables take <T> alone (S = void), which dispatches on ip[0] at run time.
    int source_type_from_input = -1;
    // cpu: the first cpu_template_ip kernel params (ip) are also the generated call's template
    // arguments after T (and S), pooling<float, 0>, so a library holds only the branch they
    // choose; the reference tables leave them at their default, -1, which reads ip at run time.
    int cpu_template_ip = 0;
    std::function<kernel_params(const attributes&, const std::vector<shape>& in, const shape& out)> params;
    kernel_table_t cpu{};            // the cpu instantiations, null for unsupported dtypes

    // Pointwise ops (elementwise, same-shaped inputs): C++ expression over `x0`, `x1`, ...
    // (as float/double of the element type) used by fused kernels; empty if not pointwise.
    std::string pointwise_expr;
};

void register_op(op_def def);                        // at static-init time, from ir/ops/*.cpp
const op_def* find_op(std::string_view name);
const op_def& get_op(std::string_view name);         // throws mxc::error for an unknown op
std::vector<const op_def*> all_ops();                // sorted by name

// Fills in defaults, checks kinds and unknown names; throws mxc::error.
attributes normalize_attributes(const op_def& def, attributes given);

// dtype index of a C++ element type.
template <class T> constexpr int dtype_index();
template <> constexpr int dtype_index<float>() { return 0; }
template <> constexpr int dtype_index<mxc_half>() { return 1; }
template <> constexpr int dtype_index<mxc_bf16>() { return 2; }
template <> constexpr int dtype_index<double>() { return 3; }
template <> constexpr int dtype_index<int8_t>() { return 4; }
template <> constexpr int dtype_index<int16_t>() { return 5; }
template <> constexpr int dtype_index<int32_t>() { return 6; }
template <> constexpr int dtype_index<int64_t>() { return 7; }
template <> constexpr int dtype_index<uint8_t>() { return 8; }
template <> constexpr int dtype_index<uint16_t>() { return 9; }
template <> constexpr int dtype_index<uint32_t>() { return 10; }
template <> constexpr int dtype_index<uint64_t>() { return 11; }
template <> constexpr int dtype_index<bool>() { return 12; }
template <> constexpr int dtype_index<mxc_f8e4m3fn>() { return 13; }
template <> constexpr int dtype_index<mxc_f8e4m3fnuz>() { return 14; }
template <> constexpr int dtype_index<mxc_f8e5m2>() { return 15; }
template <> constexpr int dtype_index<mxc_f8e5m2fnuz>() { return 16; }
template <> constexpr int dtype_index<mxc_f8e8m0>() { return 17; }
template <> constexpr int dtype_index<mxc_f4e2m1>() { return 18; }
template <> constexpr int dtype_index<mxc_int4>() { return 19; }
template <> constexpr int dtype_index<mxc_uint4>() { return 20; }
template <> constexpr int dtype_index<mxc_int2>() { return 21; }
template <> constexpr int dtype_index<mxc_uint2>() { return 22; }

template <class... Ts, class F> kernel_table_t make_kernel_table(F f) {
    kernel_table_t t{};
    ((t[static_cast<std::size_t>(dtype_index<Ts>())] = f(Ts{})), ...);
    return t;
}

} // namespace mxc

// Type lists for MXC_CPU_KERNELS.
#define MXC_FLOAT_TYPES float, mxc_half, mxc_bf16, double
#define MXC_SIGNED_INT_TYPES int8_t, int16_t, int32_t, int64_t
#define MXC_UNSIGNED_INT_TYPES uint8_t, uint16_t, uint32_t, uint64_t
#define MXC_NUMERIC_TYPES MXC_FLOAT_TYPES, MXC_SIGNED_INT_TYPES, MXC_UNSIGNED_INT_TYPES
#define MXC_ALL_TYPES MXC_NUMERIC_TYPES, bool
// The low-precision types (templates/common/lowp.hpp): only data movement and casts take them.
#define MXC_LOWP_TYPES mxc_f8e4m3fn, mxc_f8e4m3fnuz, mxc_f8e5m2, mxc_f8e5m2fnuz, mxc_f8e8m0, mxc_f4e2m1, \
    mxc_int4, mxc_uint4, mxc_int2, mxc_uint2

// The cpu kernel table of template `mxc::cpu::fn` instantiated for the listed types:
//   def.cpu = MXC_CPU_KERNELS(relu, MXC_FLOAT_TYPES);
#define MXC_CPU_KERNELS(fn, ...) \
    ::mxc::make_kernel_table<__VA_ARGS__>([](auto tag) -> ::mxc::ref_kernel { return &::mxc::cpu::fn<decltype(tag)>; })

// Registers an op at static-init time: MXC_REGISTER_OP(relu) { op_def d; ...; return d; }
#define MXC_REGISTER_OP(id)                                                        \
    static ::mxc::op_def mxc_make_op_##id();                                       \
    static const bool mxc_registered_##id = (::mxc::register_op(mxc_make_op_##id()), true); \
    static ::mxc::op_def mxc_make_op_##id()
