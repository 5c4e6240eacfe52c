// Element types of the IR. Names follow the text form of DESIGN.md ("float_type", ...).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mxc {

// The order is the index used by per-dtype kernel tables; keep `dtype_count` last.
enum class dtype : uint8_t {
    float_type,
    half_type,
    bf16_type,
    double_type,
    int8_type,
    int16_type,
    int32_type,
    int64_type,
    uint8_type,
    uint16_type,
    uint32_type,
    uint64_type,
    bool_type,
    dtype_count
};
constexpr int dtype_count = static_cast<int>(dtype::dtype_count);

std::size_t dtype_size(dtype t);
std::string_view dtype_name(dtype t);              // "float_type"
std::optional<dtype> parse_dtype(std::string_view name);
std::string_view dtype_c_name(dtype t);             // C++ element type in kernels: "float", "mxc_half", ...
bool is_floating(dtype t);
bool is_integral(dtype t);                          // not bool
bool is_signed(dtype t);

// ONNX TensorProto.DataType <-> dtype (nullopt for types mxc does not support).
std::optional<dtype> dtype_from_onnx(int onnx_type);
int dtype_to_onnx(dtype t);
std::string_view onnx_type_name(int onnx_type);     // "FLOAT", "STRING", ... for messages

} // namespace mxc
