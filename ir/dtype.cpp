#include "ir/dtype.hpp"

#include <array>

namespace mxc {
namespace {
struct dtype_info {
    std::string_view name;
    std::string_view c_name;
    std::size_t size;
    int onnx;
    bool floating, is_signed;
};
// ONNX TensorProto.DataType numbers: FLOAT=1 UINT8=2 INT8=3 UINT16=4 INT16=5 INT32=6 INT64=7
// STRING=8 BOOL=9 FLOAT16=10 DOUBLE=11 UINT32=12 UINT64=13 BFLOAT16=16.
constexpr std::array<dtype_info, dtype_count> infos = {{
    {"float_type", "float", 4, 1, true, true},
    {"half_type", "mxc_half", 2, 10, true, true},
    {"bf16_type", "mxc_bf16", 2, 16, true, true},
    {"double_type", "double", 8, 11, true, true},
    {"int8_type", "int8_t", 1, 3, false, true},
    {"int16_type", "int16_t", 2, 5, false, true},
    {"int32_type", "int32_t", 4, 6, false, true},
    {"int64_type", "int64_t", 8, 7, false, true},
    {"uint8_type", "uint8_t", 1, 2, false, false},
    {"uint16_type", "uint16_t", 2, 4, false, false},
    {"uint32_type", "uint32_t", 4, 12, false, false},
    {"uint64_type", "uint64_t", 8, 13, false, false},
    {"bool_type", "bool", 1, 9, false, false},
}};
const dtype_info& info(dtype t) { return infos.at(static_cast<std::size_t>(t)); }
} // namespace

std::size_t dtype_size(dtype t) { return info(t).size; }
std::string_view dtype_name(dtype t) { return info(t).name; }
std::string_view dtype_c_name(dtype t) { return info(t).c_name; }
bool is_floating(dtype t) { return info(t).floating; }
bool is_integral(dtype t) { return !info(t).floating && t != dtype::bool_type; }
bool is_signed(dtype t) { return info(t).is_signed; }

std::optional<dtype> parse_dtype(std::string_view name) {
    for (std::size_t i = 0; i < infos.size(); ++i)
        if (infos[i].name == name) return static_cast<dtype>(i);
    return std::nullopt;
}

std::optional<dtype> dtype_from_onnx(int onnx_type) {
    for (std::size_t i = 0; i < infos.size(); ++i)
        if (infos[i].onnx == onnx_type) return static_cast<dtype>(i);
    return std::nullopt;
}
int dtype_to_onnx(dtype t) { return info(t).onnx; }

std::string_view onnx_type_name(int t) {
    static constexpr std::array<std::string_view, 24> names = {
        "UNDEFINED", "FLOAT",      "UINT8",        "INT8",         "UINT16",      "INT16",
        "INT32",     "INT64",      "STRING",       "BOOL",         "FLOAT16",     "DOUBLE",
        "UINT32",    "UINT64",     "COMPLEX64",    "COMPLEX128",   "BFLOAT16",    "FLOAT8E4M3FN",
        "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4", "INT4",       "FLOAT4E2M1"};
    if (t >= 0 && t < static_cast<int>(names.size())) return names[static_cast<std::size_t>(t)];
    return "UNKNOWN";
}

} // namespace mxc
