// constant-propagate: every kernel instruction whose inputs are constants (literals, or views
// of constants, however deep) is evaluated at compile time with the reference evaluator and
// replaced by a literal. With static shapes this folds whole shape subgraphs and every chain
// of constant arithmetic the exporters leave (e.g. mul(broadcast(2), broadcast(3))).
// A folded value whose elements are all equal becomes a scalar literal broadcast to the
// lens, so folding never grows the weights. Views of constants stay views (they cost
// nothing). Replaced instructions are left for dce.
#include "passes/pass_manager.hpp"
#include "passes/rewrite.hpp"

#include <unordered_map>

namespace mxc {
namespace {

bool has_cpu_kernel(const instruction& ins) {
    auto& def = get_op(ins.op);
    dtype t = def.type_from_input >= 0 ? ins.inputs.at(static_cast<std::size_t>(def.type_from_input))->result.type
                                       : ins.result.type;
    return def.cpu[static_cast<std::size_t>(t)] != nullptr;
}

void constant_propagate(module& m) {
    std::unordered_map<const instruction*, tensor> known;
    for (auto it = m.instructions.begin(); it != m.instructions.end(); ++it) {
        auto& ins = *it;
        if (ins.is_literal() && ins.lit.known()) known[&ins] = tensor::of(ins.lit);
        if (ins.is_builtin()) continue;
        std::vector<tensor> in;
        for (auto* i : ins.inputs) {
            auto k = known.find(i);
            if (k == known.end()) break;
            in.push_back(k->second);
        }
        if (in.size() != ins.inputs.size()) continue;
        auto& def = get_op(ins.op);
        if (def.is_view) {
            known[&ins] = eval_instruction(ins, in);
            continue;
        }
        if (!has_cpu_kernel(ins)) continue;
        literal value = eval_instruction(ins, in).pack();
        auto v = value.to_doubles();
        bool splat = !v.empty() && ins.result.elements() > 1 &&
                     std::all_of(v.begin(), v.end(), [&](double x) { return x == v[0]; });
        instruction* r;
        if (splat) {
            std::vector<char> one(value.data(), value.data() + dtype_size(value.s.type));
            auto* s = m.insert_literal(it, literal(shape(value.s.type, {}), std::move(one)));
            known[s] = tensor::of(s->lit);
            attributes a;
            a.set("out_lens", ins.result.lens);
            r = m.insert(it, "multibroadcast", {s}, a);
            known[r] = eval_instruction(*r, {known[s]});
        } else {
            r = m.insert_literal(it, std::move(value));
            known[r] = tensor::of(r->lit);
        }
        m.replace_uses(&ins, r);
    }
}
} // namespace

MXC_REGISTER_PASS(constant_propagate) {
    return pass{"constant-propagate",
                "evaluates kernels whose inputs are constants (through views); splats become broadcast scalars",
                constant_propagate};
}

} // namespace mxc
