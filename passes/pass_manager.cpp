#include "passes/pass_manager.hpp"
#include "ir/error.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>

namespace mxc {
namespace {
std::map<std::string, pass, std::less<>>& registry() {
    static std::map<std::string, pass, std::less<>> r;
    return r;
}

std::string known_passes() {
    std::string r;
    for (auto& [n, p] : registry()) r += (r.empty() ? "" : ", ") + n;
    return r;
}
} // namespace

void register_pass(pass p) {
    auto name = p.name;
    registry().insert_or_assign(name, std::move(p));
}

const pass* find_pass(std::string_view name) {
    auto it = registry().find(name);
    return it == registry().end() ? nullptr : &it->second;
}

const pass& get_pass(std::string_view name) {
    if (auto* p = find_pass(name)) return *p;
    throw error("unknown pass '" + std::string(name) + "' (known passes: " + known_passes() + ")");
}

std::vector<const pass*> all_passes() {
    std::vector<const pass*> r;
    for (auto& [n, p] : registry()) r.push_back(&p);
    return r;
}

void run_passes(program& prog, const std::vector<std::string>& names, const pass_options& options) {
    std::vector<const pass*> passes;
    for (auto& n : names) passes.push_back(&get_pass(n));
    for (auto& n : options.print_after) get_pass(n);
    std::ostream& report = options.report ? *options.report : std::cerr;

    using clock = std::chrono::steady_clock;
    std::vector<std::pair<std::string, double>> times;
    for (auto* p : passes) {
        auto start = clock::now();
        for (auto& m : prog.modules) p->run(*m);
        times.emplace_back(p->name, std::chrono::duration<double>(clock::now() - start).count());

        if (options.verify_each) {
            for (auto& m : prog.modules) {
                try {
                    verify(*m);
                } catch (const error& e) {
                    throw error("after pass '" + p->name + "': " + e.what());
                }
            }
        }
        auto& pa = options.print_after;
        if (options.print_after_all || std::find(pa.begin(), pa.end(), p->name) != pa.end())
            report << "# after pass '" << p->name << "'\n" << print(prog);
    }
    if (options.time_passes) {
        double total = 0;
        char line[256];
        report << "# pass timing (seconds)\n";
        for (auto& [n, s] : times) {
            std::snprintf(line, sizeof line, "%12.6f  %s\n", s, n.c_str());
            report << line;
            total += s;
        }
        std::snprintf(line, sizeof line, "%12.6f  total\n", total);
        report << line;
    }
}

std::vector<std::string> default_pipeline(bool fp16) {
    std::vector<std::string> r = {"eliminate-identity", "simplify-algebra", "constant-propagate", "cse",
                                  "dce", "fold-batchnorm", "constant-propagate", "dce",
                                  "fuse-reduce", "eliminate-contiguous", "hoist-pointwise", "fuse-pointwise",
                                  "fuse-epilogue", "merge-parallel-dots", "dce"};
    if (fp16) r.insert(std::find(r.begin(), r.end(), "fuse-pointwise"), "convert-fp16");
    // fuse-attention after fuse-reduce (its softmax); MXC_FUSE_ATTENTION=0: without it (the A/B)
    const char* env = std::getenv("MXC_FUSE_ATTENTION");
    if (!env || std::string(env) != "0") r.insert(std::find(r.begin(), r.end(), "eliminate-contiguous"), "fuse-attention");
    return r;
}

} // namespace mxc
