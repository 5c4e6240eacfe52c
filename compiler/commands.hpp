// The subcommands of the mxc driver; each lives in compiler/cmd_<name>.cpp.
#pragma once
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
} // namespace mxc::cli
