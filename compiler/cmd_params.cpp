// mxc params MODEL.onnx|LIB.so: every input and output with name, dtype, dims and strides
// (a library is read through its C API).
#include "compiler/commands.hpp"
#include "compiler/onnx_import.hpp"
#include "compiler/session.hpp"
#include "compiler/tool_cli.hpp"
#include "ir/error.hpp"

#include <fstream>
#include <iostream>
#include <sstream>

namespace mxc::cli {

void add_params(CLI::App& app) {
    auto a = std::make_shared<model_args>();
    auto* sub = app.add_subcommand("params", "List the inputs and outputs of a model or a library (name: dtype, dims, strides)");
    add_model_options(sub, *a, false, false);
    sub->callback([a] {
        std::vector<tensor_desc> ins, outs;
        if (is_library_path(a->model)) {
            auto s = open_session(a->model, session_opts(*a));
            ins = s->inputs;
            outs = s->outputs;
        } else {
            program p = import_onnx(a->model, make_import_options(a->input_dims, a->batch));
            module& m = p.main();
            for (auto* in : m.params()) ins.push_back({in->param_name, in->result});
            auto o = m.outputs();
            for (std::size_t i = 0; i < o.size(); ++i)
                outs.push_back({i < m.output_names.size() && !m.output_names[i].empty() ? m.output_names[i]
                                                                                       : "output" + std::to_string(i),
                                o[i]->result.as_standard()});
        }
        std::cout << "inputs:\n";
        for (auto& t : ins) std::cout << "  " << t.name << ": " << to_string(t.s) << "\n";
        std::cout << "outputs:\n";
        for (auto& t : outs) std::cout << "  " << t.name << ": " << to_string(t.s) << "\n";
    });
}

} // namespace mxc::cli
