// A model ready to run for the tools (mxc run, perf, params, verify): a generated library
// opened with dlopen and driven through its C API, an ONNX model compiled into a temporary
// library for cpu/hip, or the reference evaluator (ref).
#pragma once
#include "compiler/onnx_import.hpp"
#include "ir/literal.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mxc {

struct tensor_desc {
    std::string name;
    shape s; // inputs: as the model reads them (strides included); outputs: standard
};

struct kernel_desc {
    std::string name, op, text, inputs, output; // see mxc_kernel_info in runtime-stub/hooks.hpp
    double flops = 0, bytes = 0;
};

class session {
public:
    virtual ~session() = default;
    std::string target;               // "ref", "cpu" or "hip"
    std::string build_info;           // what built the library ("" for ref)
    std::vector<tensor_desc> inputs, outputs;
    std::vector<kernel_desc> kernels; // empty when the library has no kernel table
    bool can_profile = false;         // per-kernel times
    bool can_observe = false;         // every kernel's output

    // Copies the inputs (in the order of `inputs`) into the buffers run from.
    virtual void prepare(const std::vector<literal>& in) = 0;
    virtual void execute() = 0;
    // Runs once timing every kernel (ms): start from the start of the run, and duration.
    virtual void execute_profiled(std::vector<double>& start_ms, std::vector<double>& time_ms) = 0;
    // Runs once, handing kernel i's output to `observe`.
    virtual void execute_observed(const std::function<void(std::size_t, const literal&)>& observe) = 0;
    virtual std::vector<literal> results() = 0; // of the last run, in the order of `outputs`
    // Times `n` plain runs (ms each; hip: on device memory, no copies); false when the
    // library cannot (built without --profile-hooks, or ref).
    virtual bool time_runs(int n, std::vector<double>& run_ms) {
        (void)n, (void)run_ms;
        return false;
    }
    // How the runs so far went (hip graphs): captures, replays, runs launched kernel by kernel.
    virtual bool graph_stats(std::size_t& captures, std::size_t& replays, std::size_t& direct) {
        (void)captures, (void)replays, (void)direct;
        return false;
    }
};

struct session_options {
    std::string target;          // "" = the library's own / cpu for a model
    import_options import;
    std::string offload_arch, hip_compiler;
    bool profile = false, debug_trace = false; // what a model compiled here gets
    bool fp16 = false;           // a model runs in half precision (passes/convert_fp16.cpp)
    bool quiet = false;
    int threads = -1;            // cpu: the threads a run uses (set_num_threads; 0 = all cores); -1 = unset (one)
    bool cache = true;           // a model's objects from and into the object cache (compiler/object_cache.hpp)
    bool optimise = true;        // false (ref only): the program as imported, without the passes
};

// MODEL.onnx (or .mxir) or LIB.so. Throws mxc::error.
std::unique_ptr<session> open_session(const std::string& path, const session_options& opts);

bool is_library_path(const std::string& path);

// The exported-symbol prefix of a generated library (from its dynamic symbol table).
std::string library_prefix(const std::string& path);

// The inputs, each from --input NAME:VALUE or random (seed: fixed, said on stderr unless quiet).
std::vector<literal> make_inputs(const session& s, const std::vector<std::string>& specs, bool quiet);

} // namespace mxc
