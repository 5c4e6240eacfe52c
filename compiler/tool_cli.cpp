#include "compiler/tool_cli.hpp"
#include "compiler/json.hpp"
#include "ir/error.hpp"

#include <chrono>
#include <cstdio>
#include <fstream>

namespace mxc::cli {

void add_model_options(CLI::App* sub, model_args& a, bool with_target, bool with_fp16) {
    sub->add_option("model", a.model, "MODEL.onnx (or .mxir), or LIB.so built by mxc")->required();
    if (with_target) {
        sub->add_option("--target", a.target, "ref, cpu (default for a model) or hip");
        sub->add_option("--threads", a.threads, "cpu: the threads each run uses (the library's set_num_threads; 0 = all "
                                                "cores; default 1)")
            ->check(CLI::Range(0, 1024));
        sub->add_flag("--no-cache", a.no_cache,
                      "compile a model's kernel sources afresh (default: reuse objects from $MXC_CACHE_DIR or "
                      "~/.cache/mxc/objects, as mxc MODEL.onnx does)");
    }
    sub->add_option("--input-dim", a.input_dims, "@NAME D0 D1 ...: fix the shape of an input (may be repeated)")
        ->expected(1, CLI::detail::expected_max_vector_size);
    sub->add_option("--batch", a.batch, "fix a symbolic first dim of every input to N");
    sub->add_option("--offload-arch", a.offload_arch, "hip: gfxNNN, sm_NN or emu (host SIMT emulator) (default: the GPU found)");
    sub->add_option("--hip-compiler", a.hip_compiler, "the compiler for hip builds");
    if (with_fp16)
        sub->add_flag("--fp16", a.fp16, "run a float32 model in half precision (f16 weights and activations, f32 API)");
    sub->add_flag("-q,--quiet", a.quiet, "say nothing on stderr but errors");
}

session_options session_opts(const model_args& a) {
    session_options o;
    o.fp16 = a.fp16;
    o.target = a.target;
    o.import = make_import_options(a.input_dims, a.batch);
    o.offload_arch = a.offload_arch;
    o.hip_compiler = a.hip_compiler;
    o.quiet = a.quiet;
    o.threads = a.threads;
    o.cache = !a.no_cache;
    return o;
}

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

kernel_profile profile_kernels(session& s, int iterations, const std::string& trace_path) {
    if (!s.can_profile)
        throw error("this library has no per-kernel timing: build it with `mxc MODEL.onnx --profile-hooks -o LIB.so`");
    std::size_t n = s.kernels.size();
    kernel_profile r;
    std::vector<double>& mean = r.kernel_ms;
    mean.assign(n, 0);
    std::vector<double> start, time;
    std::string events;
    using clock = std::chrono::steady_clock;
    auto t0 = clock::now();
    for (int it = 0; it < iterations; ++it) {
        auto run_start = clock::now();
        double base = std::chrono::duration<double, std::milli>(run_start - t0).count();
        s.execute_profiled(start, time);
        r.run_ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - run_start).count());
        r.sum_ms.push_back(0);
        for (std::size_t i = 0; i < n; ++i) {
            mean[i] += time[i] / iterations;
            r.sum_ms.back() += time[i];
            if (trace_path.empty()) continue;
            auto& k = s.kernels[i];
            char nums[160];
            std::snprintf(nums, sizeof nums, "\"ts\": %.3f, \"dur\": %.3f", (base + start[i]) * 1e3, time[i] * 1e3);
            events += std::string(events.empty() ? "" : ",\n") + "  {\"name\": " + json_quote(k.op) +
                      ", \"cat\": \"kernel\", \"ph\": \"X\", \"pid\": 1, \"tid\": 1, " + nums +
                      ", \"args\": {\"instruction\": " + json_quote(k.name) + ", \"iteration\": " + std::to_string(it) +
                      ", \"inputs\": " + json_quote(k.inputs) + ", \"output\": " + json_quote(k.output) +
                      ", \"flops\": " + fixed(k.flops, 0) + ", \"bytes\": " + fixed(k.bytes, 0) +
                      ", \"text\": " + json_quote(k.text) + "}}";
        }
    }
    if (!trace_path.empty()) {
        std::ofstream f(trace_path, std::ios::binary | std::ios::trunc);
        f << "{\"displayTimeUnit\": \"ms\", \"otherData\": {\"target\": " << json_quote(s.target)
          << ", \"build\": " << json_quote(s.build_info) << "},\n\"traceEvents\": [\n"
          << events << "\n]}\n";
        f.close();
        if (!f) throw error("cannot write the trace " + trace_path);
    }
    return r;
}

} // namespace mxc::cli
