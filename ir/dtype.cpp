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
// STRING=8 BOOL=9 FLOAT16=10 DOUBLE=11 UINT32=12 UINT64=13 BFLOAT16=16 FLOAT8E4M3FN=17
// FLOAT8E4M3FNUZ=18 FLOAT8E5M2=19 FLOAT8E5M2FNUZ=20 UINT4=21 INT4=22 FLOAT4E2M1=23
// FLOAT8E8M0=24 UINT2=25 INT2=26 (onnx.proto).
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
    {"float8e4m3fn_type", "mxc_f8e4m3fn", 1, 17, true, true},
    {"float8e4m3fnuz_type", "mxc_f8e4m3fnuz", 1, 18, true, true},
    {"float8e5m2_type", "mxc_f8e5m2", 1, 19, true, true},
    {"float8e5m2fnuz_type", "mxc_f8e5m2fnuz", 1, 20, true, true},
    {"float8e8m0_type", "mxc_f8e8m0", 1, 24, true, false},
    {"float4e2m1_type", "mxc_f4e2m1", 1, 23, true, true},
    {"int4_type", "mxc_int4", 1, 22, false, true},
    {"uint4_type", "mxc_uint4", 1, 21, false, false},
    {"int2_type", "mxc_int2", 1, 26, false, true},
    {"uint2_type", "mxc_uint2", 1, 25, false, false},
}};
const dtype_info& info(dtype t) { return infos.at(static_cast<std::size_t>(t)); }
} // namespace

std::size_t dtype_size(dtype t) { return info(t).size; }
std::string_view dtype_name(dtype t) { return info(t).name; }
std::string_view dtype_c_name(dtype t) { return info(t).c_name; }
bool is_floating(dtype t) { return info(t).floating; }
bool is_integral(dtype t) { return !info(t).floating && t != dtype::bool_type; }
bool is_signed(dtype t) { return info(t).is_signed; }
bool is_low_precision(dtype t) { return t >= dtype::float8e4m3fn_type && t < dtype::dtype_count; }

int onnx_bits(dtype t) {
    switch (t) {
    case dtype::int4_type:
    case dtype::uint4_type:
    case dtype::float4e2m1_type: return 4;
    case dtype::int2_type:
    case dtype::uint2_type: return 2;
    default: return static_cast<int>(8 * dtype_size(t));
    }
}

std::size_t onnx_packed_bytes(dtype t, int64_t elements) {
    auto n = static_cast<std::size_t>(elements);
    int bits = onnx_bits(t);
    if (bits >= 8) return n * static_cast<std::size_t>(bits / 8);
    std::size_t per_byte = static_cast<std::size_t>(8 / bits);
    return (n + per_byte - 1) / per_byte;
}

std::string onnx_pack(dtype t, const char* data, int64_t elements) {
    int bits = onnx_bits(t);
    if (bits >= 8) return std::string(data, onnx_packed_bytes(t, elements));
    std::string r(onnx_packed_bytes(t, elements), '\0');
    const unsigned mask = (1u << bits) - 1;
    for (int64_t i = 0; i < elements; ++i) {
        auto v = static_cast<unsigned>(static_cast<unsigned char>(data[i])) & mask;
        auto shift = static_cast<unsigned>((i % (8 / bits)) * bits);
        r[static_cast<std::size_t>(i / (8 / bits))] |= static_cast<char>(v << shift);
    }
    return r;
}

std::vector<char> onnx_unpack(dtype t, const char* packed, int64_t elements) {
    int bits = onnx_bits(t);
    if (bits >= 8) return std::vector<char>(packed, packed + onnx_packed_bytes(t, elements));
    std::vector<char> r(static_cast<std::size_t>(elements));
    const unsigned mask = (1u << bits) - 1;
    const bool sign_extend = t == dtype::int4_type || t == dtype::int2_type;
    for (int64_t i = 0; i < elements; ++i) {
        auto byte = static_cast<unsigned>(static_cast<unsigned char>(packed[i / (8 / bits)]));
        unsigned v = (byte >> ((i % (8 / bits)) * bits)) & mask;
        int x = static_cast<int>(v);
        if (sign_extend && (v >> (bits - 1))) x -= 1 << bits;
        r[static_cast<std::size_t>(i)] = static_cast<char>(x);
    }
    return r;
}

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
    static constexpr std::array<std::string_view, 27> names = {
        "UNDEFINED", "FLOAT",      "UINT8",        "INT8",         "UINT16",      "INT16",
        "INT32",     "INT64",      "STRING",       "BOOL",         "FLOAT16",     "DOUBLE",
        "UINT32",    "UINT64",     "COMPLEX64",    "COMPLEX128",   "BFLOAT16",    "FLOAT8E4M3FN",
        "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4", "INT4",       "FLOAT4E2M1",
        "FLOAT8E8M0", "UINT2", "INT2"};
    if (t >= 0 && t < static_cast<int>(names.size())) return names[static_cast<std::size_t>(t)];
    return "UNKNOWN";
}

} // namespace mxc
