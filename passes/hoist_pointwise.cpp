// hoist-pointwise: a one-input pointwise op that reads a kernel's result through views which
// leave it strided runs before the views instead: sigmoid(transpose(reshape(conv))) ->
// transpose(reshape(sigmoid(conv))). The op then reads its input packed, and fuse-epilogue can
// fold it into the producer; the strided read moves to the views' reader, which reads through
// strides anyway, or to a copy (below). (YOLO's heads: each detection convolution's output is
// reshaped, transposed and passed through a sigmoid, then reshaped again for a concat; the
// sigmoid read it transposed, element by element, 0.7 ms of 10: now a copy of 0.24.)
// Only where the rewrite computes no more than before and nothing else needs the values in
// between: each view of the chain, and the producer, have the one user; the views drop no
// element (the op's output has at least as many as the producer's); the op keeps the element
// type.
#include "ir/op.hpp"
#include "passes/fusion.hpp"
#include "passes/pass_manager.hpp"
#include "passes/view_rewrite.hpp"

#include <iterator>

namespace mxc {
namespace {

bool hoistable_op(const instruction& ins) {
    if (ins.is_builtin() || ins.op == "contiguous" || ins.inputs.size() != 1) return false;
    const op_def& def = get_op(ins.op);
    return !def.is_view && !def.pointwise_expr.empty() && ins.result.type == ins.inputs[0]->result.type;
}

bool hoist(module& m, instruction* ins) {
    if (!hoistable_op(*ins) || ins->inputs[0]->result.standard()) return false;
    std::vector<instruction*> chain; // the views, from the op's input down to the producer's user
    instruction* v = ins->inputs[0];
    while (!v->is_builtin() && get_op(v->op).is_view) {
        if (v->inputs.size() != 1 || m.users(v).size() != 1) return false;
        chain.push_back(v);
        v = v->inputs[0];
    }
    instruction* root = v;
    if (chain.empty() || root->is_builtin() || m.users(root).size() != 1 || !root->result.standard() ||
        root->result.elements() > ins->result.elements())
        return false;
    auto pos = std::next(m.iter(root));
    std::vector<instruction*> added = {m.insert(pos, ins->op, {root}, ins->attrs)};
    added.back()->origin = ins->origin;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        added.push_back(m.insert(pos, (*it)->op, {added.back()}, (*it)->attrs));
        added.back()->origin = (*it)->origin;
    }
    // The op's users read the strided views instead of its packed result. Where one cannot (a
    // reshape that merges dims the views leave apart, a model output), a contiguous copy of the
    // views takes the op's place, when the op will fuse into the producer (a copy through
    // strides instead of the op through them); else nothing changes.
    if (!replace_with_strided(m, ins, added.back(), false)) {
        const bool absorbed = as_fusable(*ins) && (epilogue_fused_op(root->op) || as_fusable(*root));
        if (!absorbed) {
            for (auto it = added.rbegin(); it != added.rend(); ++it) m.remove(*it);
            return false;
        }
        added.push_back(m.insert(pos, "contiguous", {added.back()}));
        m.replace_uses(ins, added.back());
    }
    m.remove(ins);
    for (auto* c : chain) m.remove(c);
    return true;
}

void hoist_pointwise(module& m) {
    std::vector<instruction*> work;
    for (auto& ins : m.instructions)
        if (hoistable_op(ins)) work.push_back(&ins);
    for (auto* ins : work) hoist(m, ins);
}
} // namespace

MXC_REGISTER_PASS(hoist_pointwise) {
    return pass{"hoist-pointwise",
                "a one-input pointwise op over strided views of a kernel's result runs before the views (then reads "
                "it packed, and may fuse into its producer)",
                hoist_pointwise};
}

} // namespace mxc
