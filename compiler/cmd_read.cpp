// mxc read MODEL.onnx [--input-dim @NAME D0 D1 ...] [--batch N]: imports an ONNX model and
// prints its IR text.
#include "compiler/commands.hpp"
#include "compiler/onnx_import.hpp"
#include "ir/error.hpp"
#include "ir/module.hpp"

#include <charconv>
#include <iostream>
#include <memory>

namespace mxc::cli {
namespace {

struct read_args {
    std::string model;
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
    sub->callback([args] {
        auto o = make_import_options(args->input_dims, args->batch);
        o.external_data.allowed_dirs = args->external_dirs;
        auto p = import_onnx(args->model, o);
        std::cout << print(p);
        std::cout.flush();
        if (!std::cout) throw error("cannot write the output");
    });
}

} // namespace mxc::cli
