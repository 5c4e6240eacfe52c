// ONNX external data: initializers whose bytes live in a file next to the model
// (TensorProto.data_location = EXTERNAL, external_data {location, offset, length}).
// The location must be a relative path inside the model's folder (no absolute paths, no
// "..", no symbolic link leading out); --allow-external-data DIR also admits files under DIR.
#pragma once
#include "ir/literal.hpp"

#include <onnx/onnx_pb.h>

#include <set>
#include <string>
#include <vector>

namespace mxc::onnx_detail {

struct external_data_options {
    std::string model_dir;                 // the folder of the .onnx file; empty: model came from memory
    std::vector<std::string> allowed_dirs; // --allow-external-data DIR...
    std::set<std::string>* files_read = nullptr; // if set: gets the external files read (canonical paths)
};

bool has_external_data(const onnx::TensorProto& t);

// Reads the tensor's bytes from its file; `what` names it in messages ("initializer 'w'").
literal external_tensor_to_literal(const onnx::TensorProto& t, const std::string& what,
                                   const external_data_options& opts);

} // namespace mxc::onnx_detail
