// ONNX import: reads a .onnx file into an IR program with static shapes.
// Graph inputs become @params, initializers literals, graph outputs the @return; every
// instruction's `origin` names the ONNX node it came from. Errors are one line and name the
// node, op and opset.
#pragma once
#include "ir/literal.hpp"
#include "ir/module.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mxc {

struct import_options {
    std::map<std::string, std::vector<int64_t>> input_dims; // --input-dim @NAME D0 D1 ...: full shape of an input
    int64_t batch = 0;                                       // --batch N: fixes a symbolic first dim
};

program import_onnx(const std::string& path, const import_options& opts = {});

// The same, from the bytes of a model already in memory (`what` names it in messages).
program import_onnx_bytes(const std::string& bytes, const std::string& what, const import_options& opts = {});

// The ONNX op types (default domain) the importer converts, sorted, with the range of model
// opsets it accepts them at (from the converter registry).
struct onnx_op_support {
    std::string op_type;
    int64_t min_opset = 1, max_opset = 1;
};
std::vector<onnx_op_support> supported_onnx_ops();

// A serialized onnx.TensorProto (an input_K.pb / output_K.pb of the ONNX test data) as a
// literal; `what` names it in messages. Sets `name` to the tensor's name when given.
literal read_tensor_proto(const std::string& bytes, const std::string& what, std::string* name = nullptr);

} // namespace mxc
