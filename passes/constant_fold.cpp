// constant-fold: an instruction whose inputs are all literals is evaluated at compile time
// (with the reference evaluator, i.e. the same cpu kernels the generated library uses) and
// replaced by a literal. Its inputs are left in place for dce.
//
// Not folded: literals whose data is unknown (read from a digest), ops without a cpu kernel
// for the type, and broadcasting views (multibroadcast of a literal): packing those would
// multiply the weights for nothing, as the view costs nothing at run time. A kernel op that
// reads such a view still folds.
#include "ir/eval.hpp"
#include "ir/op.hpp"
#include "passes/pass_manager.hpp"

#include <algorithm>
#include <unordered_set>

namespace mxc {
namespace {

bool has_cpu_kernel(const op_def& def, const instruction& ins) {
    if (def.is_view) return true;
    dtype t = def.type_from_input >= 0 ? ins.inputs.at(static_cast<std::size_t>(def.type_from_input))->result.type
                                       : ins.result.type;
    return def.cpu[static_cast<std::size_t>(t)] != nullptr;
}

bool foldable(const instruction& ins) {
    if (ins.is_builtin()) return false;
    if (!std::all_of(ins.inputs.begin(), ins.inputs.end(),
                     [](const instruction* in) { return in->is_literal() && in->lit.known(); }))
        return false;
    auto& def = get_op(ins.op);
    if (def.is_view && ins.result.broadcasted()) return false;
    return has_cpu_kernel(def, ins);
}

// A folded view becomes a packed literal, so the strides its users' results were computed
// from change: those results (views are the ones that depend on strides) are recomputed.
void update_result(instruction& ins, std::unordered_set<const instruction*>& changed) {
    if (ins.is_builtin() || std::none_of(ins.inputs.begin(), ins.inputs.end(), [&](auto* i) { return changed.count(i); }))
        return;
    std::vector<shape> in;
    for (auto* i : ins.inputs) in.push_back(i->result);
    auto s = get_op(ins.op).compute_shape(ins.attrs, in);
    if (s == ins.result) return;
    ins.result = s;
    changed.insert(&ins);
}

void constant_fold(module& m) {
    std::unordered_set<const instruction*> changed;
    for (auto it = m.instructions.begin(); it != m.instructions.end(); ++it) {
        update_result(*it, changed);
        if (!foldable(*it)) continue;
        std::vector<tensor> in;
        for (auto* i : it->inputs) in.push_back(tensor::of(i->lit));
        literal value = eval_instruction(*it, in).pack();
        auto* lit = m.insert_literal(it, std::move(value));
        if (lit->result != it->result) changed.insert(lit);
        m.replace_uses(&*it, lit);
        it = std::prev(m.instructions.erase(it));
    }
}

} // namespace

MXC_REGISTER_PASS(constant_fold) {
    return pass{"constant-fold", "evaluates instructions whose inputs are all literals and replaces them by literals",
                constant_fold};
}

} // namespace mxc
