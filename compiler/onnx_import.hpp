// ONNX import: reads a .onnx file into an IR program with static shapes.
// Graph inputs become @params, initializers literals, graph outputs the @return; every
// instruction's `origin` names the ONNX node it came from. Errors are one line and name the
// node, op and opset.
#pragma once
#include "compiler/onnx_external.hpp"
#include "ir/error.hpp"
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
    // --const-input NAME:VALUE: graph inputs bound at build time. Each becomes a literal
    // instead of a @param (it disappears from the library's inputs), so that what the importer
    // needs as a constant (a Reshape's shape, a Loop's trip count, an If's condition) can be
    // computed from it. A value of another element type is converted to the declared one; one
    // whose element count matches the declared shape takes that shape.
    std::map<std::string, literal> constant_inputs;
    onnx_detail::external_data_options external_data;        // model_dir is set by import_onnx(path)
};

// Thrown when a node needs a value at build time that is computed from graph inputs at run
// time; `inputs` names those graph inputs: binding them with import_options::constant_inputs
// (--const-input) makes the model import.
struct needs_constant_inputs : error {
    std::vector<std::string> inputs;
    needs_constant_inputs(const std::string& msg, std::vector<std::string> names)
        : error(msg), inputs(std::move(names)) {}
};

program import_onnx(const std::string& path, const import_options& opts = {});

// The same, from the bytes of a model already in memory (`what` names it in messages).
program import_onnx_bytes(const std::string& bytes, const std::string& what, const import_options& opts = {});

// The ONNX op types the importer converts, sorted (the default domain first), with the range of
// model opsets it accepts them at (from the converter registry).
struct onnx_op_support {
    std::string op_type;
    int64_t min_opset = 1, max_opset = 1;
    std::string domain; // "" for the default domain; else the opsets are that domain's
};
std::vector<onnx_op_support> supported_onnx_ops();

// A serialized onnx.TensorProto (an input_K.pb / output_K.pb of the ONNX test data) as a
// literal; `what` names it in messages. Sets `name` to the tensor's name when given.
literal read_tensor_proto(const std::string& bytes, const std::string& what, std::string* name = nullptr);

} // namespace mxc
