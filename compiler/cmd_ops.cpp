// mxc ops: the ONNX op types the importer converts and the model opsets it accepts them at,
// straight from the importer's converter registry (compiler/onnx_ops.cpp).
#include "compiler/commands.hpp"
#include "compiler/onnx_import.hpp"
#include "ir/error.hpp"
#include "ir/op.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace mxc::cli {

void add_ops(CLI::App& app) {
    auto* sub = app.add_subcommand("ops", "List the supported ONNX ops with their opset range");
    static bool ir = false;
    sub->add_flag("--ir", ir, "List the IR ops instead: name, inputs, attributes and what each computes");
    sub->callback([] {
        if (ir) {
            for (auto* d : all_ops()) {
                std::string attrs;
                for (auto& a : d->attrs) attrs += (attrs.empty() ? "" : ",") + a.name + "=" + to_string(a.default_value);
                std::string ins = d->max_inputs < 0 ? std::to_string(d->min_inputs) + "+"
                                  : d->min_inputs == d->max_inputs
                                      ? std::to_string(d->min_inputs)
                                      : std::to_string(d->min_inputs) + "-" + std::to_string(d->max_inputs);
                std::cout << d->name << (attrs.empty() ? "" : "[" + attrs + "]") << " inputs=" << ins
                          << (d->is_view ? " view" : "") << (d->doc.empty() ? "" : ": " + d->doc) << "\n";
            }
            std::cout.flush();
            if (!std::cout) throw error("cannot write the output");
            return;
        }
        auto ops = supported_onnx_ops();
        auto in_default = [](const onnx_op_support& op) { return op.domain.empty(); };
        auto defaults = std::count_if(ops.begin(), ops.end(), in_default);
        std::cout << "# " << defaults << " ONNX ops (default domain); opsets: the model opset range accepted\n";
        auto print = [](const std::string& name, const onnx_op_support& op) {
            std::string range = std::to_string(op.min_opset) + "-" + std::to_string(op.max_opset);
            char line[200];
            std::snprintf(line, sizeof line, "%-24s %s\n", name.c_str(), range.c_str());
            std::cout << line;
        };
        for (auto& op : ops)
            if (in_default(op)) print(op.op_type, op);
        if (defaults < static_cast<std::ptrdiff_t>(ops.size()))
            std::cout << "# " << ops.size() - static_cast<std::size_t>(defaults)
                      << " ops of other domains (domain::op); opsets: versions of that domain\n";
        for (auto& op : ops)
            if (!in_default(op)) print(op.domain + "::" + op.op_type, op);
        std::cout.flush();
        if (!std::cout) throw error("cannot write the output");
    });
}

} // namespace mxc::cli
