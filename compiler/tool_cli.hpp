// Options shared by the tools that load a model or a library (run, perf, params, verify).
#pragma once
#include "compiler/session.hpp"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace mxc::cli {

struct model_args {
    std::string model, target, offload_arch, hip_compiler;
    std::vector<std::vector<std::string>> input_dims;
    int64_t batch = 0;
    int threads = -1; // -1: not given
    bool fp16 = false, quiet = false, no_cache = false;
};

// model, [--target], --input-dim, --batch, --offload-arch, --hip-compiler, [--fp16], -q; the
// tools that run a model (those with --target) also take --threads.
void add_model_options(CLI::App* sub, model_args& a, bool with_target, bool with_fp16);
session_options session_opts(const model_args& a);

// --input-dim groups and --batch as import options (cmd_read.cpp).
import_options make_import_options(const std::vector<std::vector<std::string>>& input_dims, int64_t batch);

// Per-kernel profiling of `iterations` runs (inputs prepared), and a Chrome trace-event file
// when `trace_path` is set.
struct kernel_profile {
    std::vector<double> kernel_ms; // the mean ms of each kernel
    std::vector<double> run_ms;    // the host's wall time of each profiled run
    std::vector<double> sum_ms;    // the kernels' total time in each profiled run
};
kernel_profile profile_kernels(session& s, int iterations, const std::string& trace_path);

// "1.5 ms" style numbers.
std::string fixed(double v, int digits = 4);

} // namespace mxc::cli
