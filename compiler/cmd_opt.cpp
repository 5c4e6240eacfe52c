// mxc opt FILE.mxir: reads the text IR, runs passes on it and prints the result.
#include "compiler/commands.hpp"
#include "ir/error.hpp"
#include "passes/memory_plan.hpp"
#include "passes/pass_manager.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace mxc::cli {
namespace {

struct opt_args {
    std::string input;
    std::string output;
    std::string passes;
    bool print_after_all = false;
    std::vector<std::string> print_after;
    bool time_passes = false;
    bool print_memory_plan = false;
    bool no_memory_sharing = false;
};

std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> r;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) r.push_back(item);
    return r;
}

std::string read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw error("cannot open '" + path + "'");
    std::stringstream ss;
    ss << f.rdbuf();
    if (f.bad()) throw error("cannot read '" + path + "'");
    return ss.str();
}

// Writes through a temporary file in the same folder and renames it into place, so that a
// failure never leaves a half-written output.
void write_file_atomically(const std::string& path, const std::string& text) {
    std::string tmp = path + ".tmp" + std::to_string(::getpid());
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (f) f << text;
        if (!f || !f.flush()) {
            std::remove(tmp.c_str());
            throw error("cannot write '" + path + "'");
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw error("cannot write '" + path + "' (rename failed)");
    }
}

std::string print_memory_plan(const module& m, bool share) {
    plan_options o;
    o.share = share;
    auto plan = plan_memory(m, o);
    validate_memory_plan(m, plan);
    auto names = instruction_names(m);
    std::unordered_map<const instruction*, std::string> name_of;
    std::size_t k = 0;
    for (auto& ins : m.instructions) name_of[&ins] = names[k++];
    std::string out;
    for (auto& b : plan.buffers) {
        out += name_of.at(b.ins) + ": offset=" + std::to_string(b.offset) + " bytes=" + std::to_string(b.bytes) +
               " interval=[" + std::to_string(b.first) + ", " + std::to_string(b.last) + "]";
        if (b.in_place_of >= 0) out += " in_place_of=" + name_of.at(plan.buffers[static_cast<std::size_t>(b.in_place_of)].ins);
        if (b.slice_of >= 0)
            out += " slice_of=" + name_of.at(plan.buffers[static_cast<std::size_t>(b.slice_of)].ins) + "+" +
                   std::to_string(b.slice_offset);
        out += "\n";
    }
    out += "arena_bytes=" + std::to_string(plan.arena_bytes) + " lower_bound_bytes=" +
           std::to_string(plan.lower_bound_bytes) + " naive_bytes=" + std::to_string(plan.naive_bytes) + "\n";
    return out;
}

void run_opt(const opt_args& a, bool passes_given) {
    program p;
    auto text_in = read_file(a.input);
    try {
        p = parse_program(text_in);
    } catch (const error& e) {
        throw error(a.input + ": " + e.what());
    }
    pass_options options;
    options.print_after_all = a.print_after_all;
    for (auto& n : a.print_after)
        for (auto& item : split_commas(n)) options.print_after.push_back(item);
    options.time_passes = a.time_passes;
    options.verify_each = true;
    run_passes(p, passes_given ? split_commas(a.passes) : default_pipeline(), options);

    std::string text = print(p);
    if (!a.output.empty()) write_file_atomically(a.output, text);
    if (a.print_memory_plan) std::cout << print_memory_plan(p.main(), !a.no_memory_sharing);
    else if (a.output.empty()) std::cout << text;
    std::cout.flush();
    if (!std::cout) throw error("cannot write to standard output");
}

} // namespace

void add_opt(CLI::App& app) {
    auto a = std::make_shared<opt_args>();
    auto* sub = app.add_subcommand("opt", "Read the text IR (.mxir), run passes on it and print the result");
    sub->add_option("file", a->input, "the text IR to read")->required();
    auto* passes = sub->add_option("--passes", a->passes,
                                   "comma-separated passes to run, in order (default: the default pipeline; "
                                   "--passes= runs none)")
                      ->expected(0, 1);
    sub->add_flag("--print-after-all", a->print_after_all, "print the program to stderr after every pass");
    sub->add_option("--print-after", a->print_after, "print the program to stderr after the named pass(es)")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    sub->add_flag("--time-passes", a->time_passes, "report the seconds each pass took on stderr");
    sub->add_option("-o,--output", a->output, "write the result here (atomically) instead of stdout");
    sub->add_flag("--print-memory-plan", a->print_memory_plan,
                  "print the validated memory plan of the main module (instead of the module on stdout)");
    sub->add_flag("--no-memory-sharing", a->no_memory_sharing,
                  "--print-memory-plan: no in-place kernels or concat slices (one slot per buffer)");
    sub->callback([a, passes] { run_opt(*a, passes->count() > 0); });
}

} // namespace mxc::cli
