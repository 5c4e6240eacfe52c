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
#include <optional>
#include <unordered_set>

namespace mxc {
namespace {

bool has_cpu_kernel(const op_def& def, const instruction& ins) {
    if (def.is_view) return true;
    dtype t = def.type_from_input >= 0 ? ins.inputs.at(static_cast<std::size_t>(def.type_from_input))->result.type
                                       : ins.result.type;
    return def.cpu[static_cast<std::size_t>(t)] != nullptr;
}

// The value of an instruction known at compile time: a literal with known data, or a view of
// such a value.
std::optional<tensor> constant_value(const instruction* ins) {
    if (ins->is_literal()) return ins->lit.known() ? std::optional(tensor::of(ins->lit)) : std::nullopt;
    if (ins->is_builtin() || !get_op(ins->op).is_view) return std::nullopt;
    std::vector<tensor> in;
    for (auto* i : ins->inputs) {
        auto v = constant_value(i);
        if (!v) return std::nullopt;
        in.push_back(*v);
    }
    return eval_instruction(*ins, in);
}

// The inputs' values when the instruction should be folded.
std::optional<std::vector<tensor>> fold_inputs(const instruction& ins) {
    if (ins.is_builtin()) return std::nullopt;
    auto& def = get_op(ins.op);
    if ((def.is_view && ins.result.broadcasted()) || !has_cpu_kernel(def, ins)) return std::nullopt;
    std::vector<tensor> in;
    for (auto* i : ins.inputs) {
        auto v = constant_value(i);
        if (!v) return std::nullopt;
        in.push_back(*v);
    }
    return in;
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
        auto in = fold_inputs(*it);
        if (!in) continue;
        literal value = eval_instruction(*it, *in).pack();
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
