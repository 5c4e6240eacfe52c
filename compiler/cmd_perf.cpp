// mxc perf MODEL.onnx|LIB.so [-n 100] [--warmup 10] [--batch N] [--input-dim @NAME D...]
//   [--profile FILE.json]: the compiled program with each kernel's time and share, a summary
// per kernel type, the rate and the total time's distribution, and the overhead (total time
// minus the kernels' time). Totals and kernel times come from the same profiled runs of a
// library built with profiling hooks (a model is compiled with them here).
#include "compiler/commands.hpp"
#include "compiler/session.hpp"
#include "compiler/tool_cli.hpp"
#include "ir/error.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <map>
#include <thread>
#if defined(__linux__)
#include <sched.h>
#endif

namespace {
// the CPUs this thread may run on: what a library's set_num_threads(0) starts
unsigned usable_cpus() {
#if defined(__linux__)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return unsigned(CPU_COUNT(&set));
#endif
    return std::thread::hardware_concurrency();
}
} // namespace

namespace mxc::cli {

namespace {
struct perf_args : model_args {
    int n = 100, warmup = 10;
    std::vector<std::string> inputs;
    std::string profile;
};

double percentile(const std::vector<double>& sorted, double p) {
    double pos = p * static_cast<double>(sorted.size() - 1);
    auto lo = static_cast<std::size_t>(std::floor(pos));
    auto hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

std::string pct(double part, double whole) { return fixed(whole > 0 ? 100 * part / whole : 0, 2) + "%"; }
} // namespace

void add_perf(CLI::App& app) {
    auto a = std::make_shared<perf_args>();
    auto* sub = app.add_subcommand("perf", "Time a model: per-instruction times, a summary per kernel type, rate and overhead");
    add_model_options(sub, *a, true, true);
    sub->add_option("-n,--iterations", a->n, "timed runs (default 100)");
    sub->add_option("--warmup", a->warmup, "untimed runs first (default 10)");
    sub->add_option("--input", a->inputs, "NAME:VALUE as for mxc run (default: random, fixed seed)");
    sub->add_option("--profile", a->profile, "also write a Chrome trace-event file (Perfetto, chrome://tracing)");
    sub->callback([a] {
        if (a->n < 1) throw error("-n must be at least 1");
        if (a->warmup < 0) throw error("--warmup must not be negative");
        if (a->target == "ref") throw error("perf: --target ref is the reference evaluator; time cpu or hip");
        session_options o = session_opts(*a);
        o.profile = true;
        auto s = open_session(a->model, o);
        s->prepare(make_inputs(*s, a->inputs, a->quiet));
        if (!s->can_profile)
            throw error(a->model + " was built without profiling hooks: rebuild it with `mxc MODEL.onnx --profile-hooks -o " +
                        a->model + "`, or pass the .onnx");
        for (int i = 0; i < a->warmup; ++i) s->execute();
        // Total and kernel times come from the same runs, so the kernels (timed inside each run)
        // always add up to at most the total; the hooks cost two clock reads (cpu) or two
        // event records (hip) per kernel.
        kernel_profile prof = profile_kernels(*s, a->n, a->profile);
        std::vector<double>& kt = prof.kernel_ms;
        std::vector<double>& total = prof.run_ms;
        double kernels_ms = 0;
        for (double v : kt) kernels_ms += v;
        std::sort(total.begin(), total.end());
        double mean = 0;
        for (double v : total) mean += v / static_cast<double>(total.size());

        std::cout << "Compiled program (" << s->target << ", " << s->kernels.size() << " kernels):\n";
        for (std::size_t i = 0; i < s->kernels.size(); ++i)
            std::cout << s->kernels[i].text << ": " << fixed(kt[i]) << "ms, " << pct(kt[i], kernels_ms) << "\n";

        struct sum_t {
            double ms = 0;
            int count = 0;
        };
        std::map<std::string, sum_t> by_op;
        for (std::size_t i = 0; i < kt.size(); ++i) by_op[s->kernels[i].op].ms += kt[i], by_op[s->kernels[i].op].count++;
        std::vector<std::pair<std::string, sum_t>> ops(by_op.begin(), by_op.end());
        std::sort(ops.begin(), ops.end(), [](auto& x, auto& y) { return x.second.ms > y.second.ms; });
        std::cout << "\nSummary:\n";
        for (auto& [op, st] : ops)
            std::cout << op << ": " << fixed(st.ms) << "ms / " << st.count << " = " << fixed(st.ms / st.count) << "ms, "
                      << pct(st.ms, kernels_ms) << "\n";

        int64_t batch = a->batch;
        if (!batch && !s->inputs.empty() && !s->inputs[0].s.lens.empty()) batch = s->inputs[0].s.lens[0];
        std::cout << "\nBatch size: " << batch << "\n";
        if (s->target == "cpu") std::cout << "Threads: " << (a->threads < 0 ? 1u : a->threads ? unsigned(a->threads) : usable_cpus()) << "\n";
        std::cout << "Rate: " << fixed(mean > 0 ? 1000.0 * static_cast<double>(std::max<int64_t>(batch, 1)) / mean : 0, 2)
                  << " inferences/sec\n";
        std::cout << "Total time: " << fixed(mean) << "ms (Min: " << fixed(total.front()) << "ms, Median: "
                  << fixed(percentile(total, 0.5)) << "ms, Mean: " << fixed(mean) << "ms, P90: " << fixed(percentile(total, 0.9))
                  << "ms, P99: " << fixed(percentile(total, 0.99)) << "ms, Max: " << fixed(total.back()) << "ms)\n";
        std::cout << "Total instructions time: " << fixed(kernels_ms) << "ms\n";
        std::cout << "Overhead time: " << fixed(mean - kernels_ms) << "ms, " << pct(mean - kernels_ms, mean) << "\n";
        std::cout << "(" << a->n << " profiled runs after " << a->warmup
                  << " warm-up runs; instruction times are means over the same runs as the total)\n";
        // The profiled runs launch kernel by kernel with events between them; the host
        // overhead of a plain run (hip: a graph replay on device memory) is timed apart.
        std::vector<double> plain;
        if (s->time_runs(std::max(a->warmup, 1), plain) && s->time_runs(a->n, plain)) {
            std::sort(plain.begin(), plain.end());
            std::sort(prof.sum_ms.begin(), prof.sum_ms.end());
            double run_us = 1e3 * percentile(plain, 0.5), kernels_us = 1e3 * percentile(prof.sum_ms, 0.5);
            std::size_t captures = 0, replays = 0, direct = 0;
            std::string how;
            if (s->target == "hip" && s->graph_stats(captures, replays, direct))
                how = replays ? " (graph replays: " + std::to_string(captures) + " captures, " + std::to_string(replays) +
                                    " replays, " + std::to_string(direct) + " runs kernel by kernel)"
                              : " (graphs off: kernel by kernel)";
            std::cout << "\nPlain run time" << (s->target == "hip" ? " on device memory" : "") << how << ": median "
                      << fixed(run_us, 1) << "us over " << a->n << " runs (kernels: the median of the profiled runs' sums)\n";
            std::cout << "host overhead: " << fixed(run_us - kernels_us, 1) << " us/run (run " << fixed(run_us, 1)
                      << " us - kernels " << fixed(kernels_us, 1) << " us)\n";
        }
        if (!a->profile.empty() && !a->quiet) std::cerr << "mxc: wrote the trace " << a->profile << "\n";
    });
}

} // namespace mxc::cli
