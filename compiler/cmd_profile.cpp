// mxc profile FILE.json [--top N] [--order-by time|flops|memory|bandwidth]
//   [--aggregate-by type --aggregate sum|mean|max] [--min-time MS] [--filter REGEX]
// Reads a trace written by `mxc perf/run --profile` and prints a table per kernel (or per
// kernel type): self time, share and cumulative share, FLOPs and GFLOP/s, memory and
// bandwidth, shapes. A kernel's time is its mean over the profiled iterations.
#include "compiler/commands.hpp"
#include "compiler/json.hpp"
#include "compiler/tool_cli.hpp"
#include "ir/error.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>

namespace mxc::cli {

namespace {
struct profile_args {
    std::string file, order_by = "time", aggregate_by, aggregate = "sum", filter;
    int top = 0;
    double min_time = 0;
};

struct row {
    std::string name, op, inputs, output;
    double ms = 0, flops = 0, bytes = 0;
    int count = 0; // calls (iterations) or kernels (aggregated)
};

std::string human(double v, const char* unit) {
    const char* prefixes[] = {"", "K", "M", "G", "T"};
    int p = 0;
    while (v >= 1000 && p < 4) v /= 1000, ++p;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f %s%s", v, prefixes[p], unit);
    return buf;
}

// Left-aligned in a column of width w, always followed by at least one space.
std::string pad(std::string s, std::size_t w) {
    s += ' ';
    if (s.size() < w) s.append(w - s.size(), ' ');
    return s;
}
} // namespace

void add_profile(CLI::App& app) {
    auto a = std::make_shared<profile_args>();
    auto* sub = app.add_subcommand("profile", "Analyse a trace from perf/run --profile: a table of kernels by time, FLOPs, memory");
    sub->add_option("file", a->file, "the trace (.json) written by --profile")->required();
    sub->add_option("--top", a->top, "show the first N rows (default all)");
    sub->add_option("--order-by", a->order_by, "time (default), flops, memory or bandwidth");
    sub->add_option("--aggregate-by", a->aggregate_by, "type: one row per kernel type");
    sub->add_option("--aggregate", a->aggregate, "with --aggregate-by: sum (default), mean or max");
    sub->add_option("--min-time", a->min_time, "hide rows under this many ms");
    sub->add_option("--filter", a->filter, "keep kernels whose op or instruction name matches this regex");
    sub->callback([a] {
        if (a->order_by != "time" && a->order_by != "flops" && a->order_by != "memory" && a->order_by != "bandwidth")
            throw error("--order-by must be time, flops, memory or bandwidth, got '" + a->order_by + "'");
        if (!a->aggregate_by.empty() && a->aggregate_by != "type")
            throw error("--aggregate-by must be type, got '" + a->aggregate_by + "'");
        if (a->aggregate != "sum" && a->aggregate != "mean" && a->aggregate != "max")
            throw error("--aggregate must be sum, mean or max, got '" + a->aggregate + "'");
        std::regex filter;
        try {
            filter = std::regex(a->filter.empty() ? ".*" : a->filter);
        } catch (const std::regex_error& e) {
            throw error("--filter '" + a->filter + "' is not a regular expression: " + e.what());
        }
        std::ifstream f(a->file, std::ios::binary);
        if (!f) throw error("cannot read '" + a->file + "'");
        std::stringstream text;
        text << f.rdbuf();
        json doc = parse_json(text.str(), a->file);
        const json* events = doc.find("traceEvents");
        if (!events || events->kind != json::array)
            throw error(a->file + ": not a trace from mxc perf/run --profile (no \"traceEvents\" list)");

        // One row per kernel (instruction), its time the mean over iterations.
        std::map<std::string, row> rows;
        std::vector<std::string> order;
        for (auto& e : events->arr) {
            const json* cat = e.find("cat");
            const json* args = e.find("args");
            const json* dur = e.find("dur");
            if (!cat || cat->str != "kernel" || !args || !dur || dur->kind != json::number) continue;
            auto str = [&](const char* k) { const json* v = args->find(k); return v && v->kind == json::string ? v->str : std::string(); };
            auto num = [&](const char* k) { const json* v = args->find(k); return v && v->kind == json::number ? v->num : 0.0; };
            std::string name = str("instruction");
            const json* op = e.find("name");
            std::string op_name = op ? op->str : "";
            if (!std::regex_search(name, filter) && !std::regex_search(op_name, filter)) continue;
            auto [it, fresh] = rows.try_emplace(name);
            row& r = it->second;
            if (fresh) {
                order.push_back(name);
                r = {name, op_name, str("inputs"), str("output"), 0, num("flops"), num("bytes"), 0};
            }
            r.ms += dur->num / 1000.0;
            r.count++;
        }
        if (rows.empty()) throw error(a->file + ": no kernel events" + (a->filter.empty() ? "" : " match --filter '" + a->filter + "'"));
        std::vector<row> table;
        for (auto& n : order) {
            row r = rows[n];
            r.ms /= r.count;
            r.count = 1;
            table.push_back(r);
        }
        if (a->aggregate_by == "type") {
            std::map<std::string, row> by_type;
            for (auto& r : table) {
                row& t = by_type[r.op];
                t.name = t.op = r.op;
                t.count++;
                if (a->aggregate == "max") {
                    if (r.ms >= t.ms) t.ms = r.ms, t.flops = r.flops, t.bytes = r.bytes, t.inputs = r.inputs, t.output = r.output;
                } else {
                    t.ms += r.ms, t.flops += r.flops, t.bytes += r.bytes;
                }
            }
            table.clear();
            for (auto& [op, t] : by_type) {
                if (a->aggregate == "mean") t.ms /= t.count, t.flops /= t.count, t.bytes /= t.count;
                table.push_back(t);
            }
        }
        double total = 0;
        for (auto& r : table) total += r.ms;
        auto key = [&](const row& r) {
            if (a->order_by == "flops") return r.flops;
            if (a->order_by == "memory") return r.bytes;
            if (a->order_by == "bandwidth") return r.ms > 0 ? r.bytes / r.ms : 0;
            return r.ms;
        };
        std::stable_sort(table.begin(), table.end(), [&](const row& x, const row& y) { return key(x) > key(y); });

        bool agg = a->aggregate_by == "type";
        std::cout << pad("self(ms)", 10) << pad("share", 8) << pad("cumul", 8) << pad(agg ? "kernels" : "op", agg ? 9 : 22)
                  << pad(agg ? "op" : "instruction", agg ? 22 : 12) << pad("FLOPs", 12) << pad("GFLOP/s", 10)
                  << pad("memory", 12) << pad("bandwidth", 13) << (agg ? "" : "shapes") << "\n";
        double cumul = 0;
        int shown = 0;
        for (auto& r : table) {
            cumul += r.ms;
            if (r.ms < a->min_time) continue;
            if (a->top > 0 && shown >= a->top) break;
            ++shown;
            double gflops = r.ms > 0 ? r.flops / (r.ms * 1e6) : 0;
            std::cout << pad(fixed(r.ms), 10) << pad(fixed(total > 0 ? 100 * r.ms / total : 0, 1) + "%", 8)
                      << pad(fixed(total > 0 ? 100 * cumul / total : 0, 1) + "%", 8)
                      << (agg ? pad(std::to_string(r.count), 9) + pad(r.op, 22) : pad(r.op, 22) + pad(r.name, 12))
                      << pad(human(r.flops, ""), 12) << pad(fixed(gflops, 2), 10) << pad(human(r.bytes, "B"), 12)
                      << pad(human(r.ms > 0 ? r.bytes / (r.ms * 1e-3) : 0, "B/s"), 13)
                      << (agg ? "" : r.inputs + " -> " + r.output) << "\n";
        }
        std::cout << "total " << fixed(total) << "ms in " << table.size() << (agg ? " kernel types" : " kernels")
                  << (a->aggregate_by.empty() ? "" : " (" + a->aggregate + " per type)") << ", " << shown << " shown\n";
    });
}

} // namespace mxc::cli
