// The subcommands of the mxc driver; each lives in compiler/cmd_<name>.cpp.
#pragma once
#include <CLI/CLI.hpp>

namespace mxc::cli {
void setup_compile(CLI::App& app); // the root command: mxc MODEL.onnx -o libmodel.so
void add_read(CLI::App& app);      // mxc read MODEL.onnx
void add_opt(CLI::App& app);       // mxc opt FILE.mxir --passes=...
void add_conformance(CLI::App& app); // mxc conformance DIR... --target ref|cpu|hip
void add_ops(CLI::App& app);       // mxc ops
} // namespace mxc::cli
