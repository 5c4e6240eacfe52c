// Element types of the IR. Names follow the text form of DESIGN.md ("float_type", ...).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
    // Low-precision types: one element per byte inside mxc (docs/ir.md), packed only at the
    // ONNX boundary (onnx_pack / onnx_unpack).
    float8e4m3fn_type,
    float8e4m3fnuz_type,
    float8e5m2_type,
    float8e5m2fnuz_type,
    float8e8m0_type,
    float4e2m1_type,
    int4_type,
    uint4_type,
    int2_type,
    uint2_type,
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
bool is_low_precision(dtype t);                     // float8*, float4e2m1, [u]int4, [u]int2

// Bits per element in ONNX tensors (raw_data, int32_data): 4 for [u]int4/float4e2m1, 2 for
// [u]int2, else 8 * dtype_size. Sub-byte elements pack from the least significant bits.
int onnx_bits(dtype t);
std::size_t onnx_packed_bytes(dtype t, int64_t elements);
// mxc's storage (dtype_size bytes per element) <-> ONNX's packed bytes.
std::string onnx_pack(dtype t, const char* data, int64_t elements);
std::vector<char> onnx_unpack(dtype t, const char* packed, int64_t elements);

// ONNX TensorProto.DataType <-> dtype (nullopt for types mxc does not support).
std::optional<dtype> dtype_from_onnx(int onnx_type);
int dtype_to_onnx(dtype t);
std::string_view onnx_type_name(int onnx_type);     // "FLOAT", "STRING", ... for messages

} // namespace mxc
