// Tensors in and out of the tools: the readers of `mxc run --input NAME:VALUE` (one per
// format: .npy, .pb TensorProto, JSON, inline array), the .npy writer, the text dump format
// and the seeded random inputs. Every reader checks sizes strictly and fails with one line.
#pragma once
#include "ir/literal.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace mxc {

// VALUE of --input NAME:VALUE for an input of shape `expected`: a .npy, .pb or .json file, or
// an inline array "[[1,2],[3,4]]". The result has `expected`'s type and (standard) lens.
literal read_input_value(const std::string& value, const std::string& name, const shape& expected);

literal read_npy(const std::string& path);                         // C order, little endian
literal read_tensor_proto(const std::string& path);                // an ONNX TensorProto
// {"NAME": {"shape": [1, 3], "type": "float32", "raw": [...]}} (or the inner object alone).
literal read_json_tensor(const std::string& path, const std::string& name);
// A nested array of numbers; its nesting gives the lens.
literal parse_inline_array(const std::string& text, dtype t);

// Low-precision types are written as their exact values in float32 (float8, float4) or
// int8/uint8 (int4, uint4, int2, uint2): numpy has no such types.
void write_npy(const std::string& path, const literal& l);
// "float_type {2, 3}\n" then the values, one per line (mxc run --io-dump-format text).
std::string tensor_text(const literal& l);
literal read_tensor_text(const std::string& path);

// Uniform values in [-1, 1) (integers: 0..9, bools: 0/1) from a fixed seed.
literal random_tensor(const shape& s, uint64_t seed);

// Values of any dtype from doubles (converted as a C++ cast does; to integers they saturate, NaN -> 0).
literal literal_from_doubles(dtype t, std::vector<int64_t> lens, const std::vector<double>& values);

// "float32" / "float" / "int64" ... (numpy and ONNX spellings) -> dtype.
dtype dtype_from_name(const std::string& name, const std::string& what);

} // namespace mxc
