// mxc read MODEL.onnx [--input-dim @NAME D0 D1 ...] [--batch N] [--passes=default|default-fp16|LIST]
//   [--print-after-all] [--report] [--format text|dot]: imports an ONNX model, optionally runs
// passes, and prints its IR as text (DESIGN.md form) or as a Graphviz graph.
#include "compiler/commands.hpp"
#include "compiler/onnx_import.hpp"
#include "ir/error.hpp"
#include "ir/module.hpp"
#include "ir/op.hpp"
#include "passes/pass_manager.hpp"

#include <map>
#include <sstream>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <unordered_map>
#include <sstream>

namespace mxc::cli {
namespace {

struct read_args {
    std::string model;
    std::string passes;
    bool report = false;
    std::vector<std::vector<std::string>> input_dims;
    int64_t batch = 0;
    std::vector<std::string> const_inputs;
    std::vector<std::string> external_dirs;
    std::string format = "text";
    bool print_after_all = false;
};

std::string dot_escape(const std::string& s) {
    std::string r;
    for (char c : s) r += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    return r;
}

// Graphviz: one node per instruction (label: op and result dims), one edge per input.
std::string to_dot(const module& m) {
    auto names = instruction_names(m);
    std::unordered_map<const instruction*, std::size_t> id;
    std::string o = "digraph \"" + dot_escape(m.name) + "\" {\n  node [shape=box, fontname=\"monospace\"];\n";
    std::size_t i = 0;
    for (auto& ins : m.instructions) {
        id[&ins] = i;
        std::string label = names[i] + "\\n" + dot_escape(ins.is_param() ? "@param" : ins.op);
        if (!ins.is_return()) {
            label += "\\n{";
            for (std::size_t d = 0; d < ins.result.lens.size(); ++d) label += (d ? ", " : "") + std::to_string(ins.result.lens[d]);
            label += "}";
        }
        std::string style = ins.is_param() || ins.is_return() ? ", shape=oval" : ins.is_literal() ? ", shape=note" : "";
        o += "  n" + std::to_string(i) + " [label=\"" + label + "\"" + style + "];\n";
        ++i;
    }
    for (auto& ins : m.instructions)
        for (auto* in : ins.inputs) o += "  n" + std::to_string(id.at(in)) + " -> n" + std::to_string(id.at(&ins)) + ";\n";
    return o + "}\n";
}

int64_t parse_dim(const std::string& flag, const std::string& s) {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || p != s.data() + s.size() || v < 0)
        throw error(flag + ": '" + s + "' is not a dimension (a non-negative integer)");
    return v;
}

literal inline_values(const std::string& flag, const std::string& text) {
    std::vector<std::string> items;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) items.push_back(item);
    std::vector<int64_t> ints;
    for (auto& item : items) {
        int64_t v = 0;
        auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
        if (ec != std::errc{} || p != item.data() + item.size()) break;
        ints.push_back(v);
    }
    auto n = static_cast<int64_t>(items.size());
    if (ints.size() == items.size()) return literal::from<int64_t>(dtype::int64_type, {n}, ints);
    std::vector<double> reals;
    for (auto& item : items) {
        char* end = nullptr;
        errno = 0;
        double v = std::strtod(item.c_str(), &end);
        if (item.empty() || *end != 0 || errno != 0)
            throw error(flag + ": '" + item + "' is not a number (expected FILE.pb or a list like 1,2,3)");
        reals.push_back(v);
    }
    return literal::from<double>(dtype::double_type, {n}, reals);
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
    if (s == "default-fp16") return default_pipeline(true);
    std::vector<std::string> r;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) r.push_back(item);
    return r;
}

} // namespace

void add_const_inputs(import_options& o, const std::vector<std::string>& specs) {
    for (auto& spec : specs) {
        auto colon = spec.rfind(':');
        if (colon == std::string::npos || colon == 0)
            throw error("--const-input expects NAME:VALUE (VALUE: a .pb tensor file or a list like 1,2,3), got '" + spec + "'");
        std::string name = spec.substr(0, colon), value = spec.substr(colon + 1);
        std::string flag = "--const-input " + name;
        literal l;
        if (value.ends_with(".pb")) {
            std::ifstream f(value, std::ios::binary);
            if (!f) throw error(flag + ": cannot open '" + value + "': " + std::strerror(errno));
            std::ostringstream ss;
            ss << f.rdbuf();
            l = read_tensor_proto(ss.str(), "'" + value + "'");
        } else if (value.ends_with(".npy")) {
            throw error(flag + ": .npy files are not supported; give a .pb TensorProto or a list like 1,2,3");
        } else {
            l = inline_values(flag, value);
        }
        if (!o.constant_inputs.emplace(name, l).second) throw error(flag + " is given twice");
    }
}

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
    sub->add_option("--const-input", args->const_inputs,
                    "NAME:FILE.pb|1,2,3: bind a graph input at build time (it becomes a constant; may be repeated)");
    sub->add_option("--passes", args->passes, "run these passes after import: 'default' (the default pipeline), 'default-fp16' (that of --fp16) "
                    "or a comma-separated list");
    sub->add_flag("--report", args->report, "print the kernel count (by op) to stderr, before and after the passes");
    sub->add_flag("--print-after-all", args->print_after_all, "print the IR to stderr after every pass");
    sub->add_option("--format", args->format, "text (default) or dot (Graphviz)");
    sub->callback([args] {
        if (args->format != "text" && args->format != "dot")
            throw error("--format must be text or dot, got '" + args->format + "'");
        auto o = make_import_options(args->input_dims, args->batch);
        add_const_inputs(o, args->const_inputs);
        o.external_data.allowed_dirs = args->external_dirs;
        auto p = import_onnx(args->model, o);
        if (args->report) std::cerr << "imported " << kernel_report(p.main()) << "\n";
        if (!args->passes.empty() || args->print_after_all) {
            pass_options po;
            po.print_after_all = args->print_after_all;
            run_passes(p, pass_list(args->passes.empty() ? "default" : args->passes), po);
            if (args->report) std::cerr << "optimised " << kernel_report(p.main()) << "\n";
        }
        if (args->format == "dot") std::cout << to_dot(p.main());
        else std::cout << print(p);
        std::cout.flush();
        if (!std::cout) throw error("cannot write the output");
    });
}

} // namespace mxc::cli
