// mxc read MODEL.onnx [--input-dim @NAME D0 D1 ...] [--batch N]: imports an ONNX model and
// prints its IR text.
#include "compiler/commands.hpp"
#include "compiler/onnx_import.hpp"
#include "ir/error.hpp"
#include "ir/module.hpp"
#include "ir/op.hpp"
#include "passes/pass_manager.hpp"

#include <map>
#include <sstream>

#include <charconv>
#include <iostream>
#include <memory>

namespace mxc::cli {
namespace {

struct read_args {
    std::string model;
    std::string passes;
    bool report = false;
    std::vector<std::vector<std::string>> input_dims;
    std::vector<std::string> external_dirs;
    int64_t batch = 0;
};

int64_t parse_dim(const std::string& flag, const std::string& s) {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || p != s.data() + s.size() || v < 0)
        throw error(flag + ": '" + s + "' is not a dimension (a non-negative integer)");
    return v;
}

// "kernels: 57 (convolution 53, dot 1, ...)": the instructions that become kernels.
std::string kernel_report(const module& m) {
    std::map<std::string, int> count;
    int total = 0;
    for (auto& ins : m.instructions)
        if (!ins.is_builtin() && !get_op(ins.op).is_view) ++count[ins.op], ++total;
    std::string r = "kernels: " + std::to_string(total) + " (";
    for (auto& [op, n] : count) r += (r.back() == '(' ? "" : ", ") + op + " " + std::to_string(n);
    return r + ")";
}

std::vector<std::string> pass_list(const std::string& s) {
    if (s == "default") return default_pipeline();
    std::vector<std::string> r;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) r.push_back(item);
    return r;
}

} // namespace

// The options shared by every command that imports a model.
import_options make_import_options(const std::vector<std::vector<std::string>>& input_dims, int64_t batch) {
    import_options o;
    for (auto& group : input_dims) {
        if (group.size() < 1 || group[0].empty() || group[0][0] != '@')
            throw error("--input-dim expects @NAME followed by the dims, e.g. --input-dim @input 1 3 224 224");
        std::string name = group[0].substr(1);
        std::vector<int64_t> dims;
        for (std::size_t i = 1; i < group.size(); ++i) dims.push_back(parse_dim("--input-dim @" + name, group[i]));
        if (!o.input_dims.emplace(name, dims).second) throw error("--input-dim @" + name + " is given twice");
    }
    if (batch < 0) throw error("--batch must be positive");
    o.batch = batch;
    return o;
}

void add_read(CLI::App& app) {
    auto args = std::make_shared<read_args>();
    auto* sub = app.add_subcommand("read", "Import an ONNX model and print its IR");
    sub->add_option("model", args->model, "the .onnx file")->required();
    sub->add_option("--input-dim", args->input_dims,
                    "fix the shape of an input: --input-dim @NAME D0 D1 ... (may be repeated)")
        ->expected(1, CLI::detail::expected_max_vector_size);
    sub->add_option("--batch", args->batch, "fix a symbolic first dim of every input to N");
    sub->add_option("--allow-external-data", args->external_dirs,
                    "also read external weight files under DIR (default: only inside the model's folder)")
        ->type_name("DIR");
    sub->add_option("--passes", args->passes, "run these passes after import: 'default' (the default pipeline) or a comma-separated list");
    sub->add_flag("--report", args->report, "print the kernel count (by op) to stderr, before and after the passes");
    sub->callback([args] {
        auto o = make_import_options(args->input_dims, args->batch);
        o.external_data.allowed_dirs = args->external_dirs;
        auto p = import_onnx(args->model, o);
        if (args->report) std::cerr << "imported " << kernel_report(p.main()) << "\n";
        if (!args->passes.empty()) {
            run_passes(p, pass_list(args->passes));
            if (args->report) std::cerr << "optimised " << kernel_report(p.main()) << "\n";
        }
        std::cout << print(p);
        std::cout.flush();
        if (!std::cout) throw error("cannot write the output");
    });
}

} // namespace mxc::cli
