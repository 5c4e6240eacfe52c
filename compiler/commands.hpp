// The subcommands of the mxc driver; each lives in compiler/cmd_<name>.cpp.
#pragma once
#include "compiler/onnx_import.hpp"

#include <CLI/CLI.hpp>

namespace mxc::cli {
void setup_compile(CLI::App& app); // the root command: mxc MODEL.onnx -o libmodel.so
void add_read(CLI::App& app);      // mxc read MODEL.onnx
void add_opt(CLI::App& app);       // mxc opt FILE.mxir --passes=...
void add_params(CLI::App& app);    // mxc params MODEL.onnx|LIB.so
void add_version(CLI::App& app);   // mxc version [LIB.so]
void add_run(CLI::App& app);       // mxc run LIB.so|MODEL.onnx --input NAME:VALUE ...
void add_perf(CLI::App& app);      // mxc perf MODEL.onnx|LIB.so
void add_profile(CLI::App& app);   // mxc profile TRACE.json
void add_compare(CLI::App& app);   // mxc compare DIR_A DIR_B
void add_verify(CLI::App& app);    // mxc verify MODEL.onnx --target cpu
void add_conformance(CLI::App& app); // mxc conformance DIR... --target ref|cpu|hip
void add_ops(CLI::App& app);       // mxc ops
void add_plan_bench(CLI::App& app); // mxc plan-bench MODEL...

// --const-input NAME:VALUE (compiler/cmd_read.cpp): binds graph input NAME at build time to
// VALUE: a serialized TensorProto file (.pb) or an inline list of numbers ("1,2,3": int64 when
// they are all integers, else double; the importer converts to the input's declared type).
void add_const_inputs(import_options& o, const std::vector<std::string>& specs);
} // namespace mxc::cli
