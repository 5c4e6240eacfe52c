// mxc plan-bench MODEL...: the memory planner next to the baselines, one markdown table row
// per model (bench/memory/run.sh makes bench/results/memory-*.md with it).
//
// Columns: buffers; naive (one slot per buffer); greedy-by-size, the planner of TVM
// (greedy_by_size) and TFLite (greedy by size), implemented here from their published
// description: buffers sorted by size (largest first), each placed at the lowest offset where
// it overlaps no already-placed buffer whose interval overlaps its own; ours without storage
// sharing (the same buffers as the baseline); ours; the lower bound of ours (the most bytes
// live at one instruction); ours / lower bound; ours / greedy-by-size; planning time.
// Models that fail to import or compile are counted as skipped (the reasons go to stderr).
#include "codegen/lower.hpp"
#include "compiler/commands.hpp"
#include "compiler/onnx_import.hpp"
#include "ir/error.hpp"
#include "passes/memory_plan.hpp"
#include "passes/pass_manager.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <numeric>
#include <sstream>

namespace mxc::cli {
namespace {

int64_t align_up(int64_t n, int64_t a) { return (n + a - 1) / a * a; }

// The greedy-by-size baseline: largest first, first fit (the lowest offset that fits).
int64_t greedy_by_size(const std::vector<buffer_plan>& bufs, int64_t alignment) {
    std::vector<std::size_t> order(bufs.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return bufs[a].bytes > bufs[b].bytes; });
    struct slot { int64_t offset, end; int first, last; };
    std::vector<slot> placed;
    int64_t arena = 0;
    for (auto i : order) {
        auto& b = bufs[i];
        int64_t size = align_up(b.bytes, alignment);
        std::vector<slot> conflicts;
        for (auto& s : placed)
            if (!(s.last < b.first || b.last < s.first)) conflicts.push_back(s);
        std::sort(conflicts.begin(), conflicts.end(), [](auto& x, auto& y) { return x.offset < y.offset; });
        int64_t offset = 0;
        for (auto& s : conflicts) {
            if (s.offset >= offset + size) break; // the gap below s fits
            offset = std::max(offset, s.end);
        }
        placed.push_back({offset, offset + size, b.first, b.last});
        arena = std::max(arena, offset + size);
    }
    return arena;
}

std::string model_label(const std::string& path) {
    // ../shared/onnx-tests/node/test_x/model.onnx -> node/test_x; others: the path
    auto pos = path.find("onnx-tests/");
    std::string s = pos == std::string::npos ? path : path.substr(pos + 11);
    const std::string tail = "/model.onnx";
    if (s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0) s.resize(s.size() - tail.size());
    return s;
}

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

program load_model(const std::string& path) {
    if (path.size() > 5 && path.substr(path.size() - 5) == ".mxir") {
        std::ifstream f(path, std::ios::binary);
        if (!f) throw error("cannot read " + path);
        std::stringstream text;
        text << f.rdbuf();
        return parse_program(text.str());
    }
    return import_onnx(path, import_options{});
}

struct totals {
    int models = 0, at_bound = 0, worse_than_greedy = 0, no_buffers = 0;
    double worst_ratio = 1.0;
    std::string worst_model;
};

void bench_one(const std::string& path, const std::vector<std::string>& passes, totals& t,
               std::vector<std::string>& skipped) {
    program p;
    try {
        p = load_model(path);
        run_passes(p, passes);
        make_outputs_kernels(p.main());
    } catch (const std::exception& e) {
        skipped.push_back(model_label(path) + ": " + e.what());
        return;
    }
    const module& m = p.main();
    const int64_t alignment = 256;
    auto bufs = find_buffers(m);
    int64_t naive = 0;
    for (auto& b : bufs) naive += align_up(b.bytes, alignment);
    int64_t greedy = greedy_by_size(bufs, alignment);
    plan_options unshared;
    unshared.share = false;
    auto plain = plan_memory(m, unshared);
    validate_memory_plan(m, plain);

    auto start = std::chrono::steady_clock::now();
    auto ours = plan_memory(m, plan_options{});
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    validate_memory_plan(m, ours);

    if (bufs.empty()) { // every value is an output: nothing to plan, no row
        ++t.models;
        ++t.at_bound;
        ++t.no_buffers;
        return;
    }
    double ratio = ours.lower_bound_bytes ? double(ours.arena_bytes) / double(ours.lower_bound_bytes) : 1.0;
    double vs_greedy = greedy ? double(ours.arena_bytes) / double(greedy) : 1.0;
    ++t.models;
    t.at_bound += ours.arena_bytes == ours.lower_bound_bytes;
    t.worse_than_greedy += ours.arena_bytes > greedy;
    if (ratio > t.worst_ratio) {
        t.worst_ratio = ratio;
        t.worst_model = model_label(path);
    }
    std::cout << "| " << model_label(path) << " | " << bufs.size() << " | " << naive << " | " << greedy << " | "
              << plain.arena_bytes << " | " << ours.arena_bytes << " | " << ours.lower_bound_bytes << " | " << fixed(ratio, 4)
              << " | " << fixed(vs_greedy, 4) << " | " << fixed(ms, 2) << " |\n";
}

} // namespace

void add_plan_bench(CLI::App& app) {
    auto models = std::make_shared<std::vector<std::string>>();
    auto passes = std::make_shared<std::string>();
    auto passes_given = std::make_shared<bool>(false);
    auto* sub = app.add_subcommand("plan-bench", "Compare the memory planner with naive and greedy-by-size on models (markdown)");
    sub->add_option("models", *models, "ONNX models or .mxir programs")->required();
    sub->add_option("--passes", *passes, "comma-separated passes before planning (default: the default pipeline)")
        ->expected(0, 1)
        ->each([passes_given](const std::string&) { *passes_given = true; });
    sub->callback([models, passes, passes_given] {
        std::vector<std::string> list;
        if (*passes_given) {
            std::stringstream in(*passes);
            for (std::string item; std::getline(in, item, ',');)
                if (!item.empty()) list.push_back(item);
        } else {
            list = default_pipeline();
        }
        std::cout << "| model | buffers | naive | greedy-by-size | ours, no sharing | ours | lower bound | ours / bound "
                     "| ours / greedy | plan ms |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
        totals t;
        std::vector<std::string> skipped;
        for (auto& path : *models) bench_one(path, list, t, skipped);
        std::cout << "\n" << t.models << " models planned: " << t.at_bound << " at the lower bound, worst ours / bound "
                  << fixed(t.worst_ratio, 4) << (t.worst_model.empty() ? "" : " (" + t.worst_model + ")") << ", "
                  << t.worse_than_greedy << " worse than greedy-by-size; " << t.no_buffers
                  << " of them need no arena (every value is an output) and have no row; " << skipped.size()
                  << " skipped (import or compile failed; the reasons are on stderr).\n";
        for (auto& s : skipped) std::cerr << "skipped " << s.substr(0, s.find('\n')) << "\n";
    });
}

} // namespace mxc::cli
