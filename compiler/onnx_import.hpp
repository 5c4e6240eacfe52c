// ONNX import: reads a .onnx file into an IR program with static shapes.
// Graph inputs become @params, initializers literals, graph outputs the @return; every
// instruction's `origin` names the ONNX node it came from. Errors are one line and name the
// node, op and opset.
#pragma once
#include "compiler/onnx_external.hpp"
#include "ir/module.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mxc {

struct import_options {
    std::map<std::string, std::vector<int64_t>> input_dims; // --input-dim @NAME D0 D1 ...: full shape of an input
    int64_t batch = 0;                                       // --batch N: fixes a symbolic first dim
    onnx_detail::external_data_options external_data;        // model_dir is set by import_onnx(path)
};

program import_onnx(const std::string& path, const import_options& opts = {});

// The same, from the bytes of a model already in memory (`what` names it in messages).
program import_onnx_bytes(const std::string& bytes, const std::string& what, const import_options& opts = {});

} // namespace mxc
