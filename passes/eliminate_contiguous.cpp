// eliminate-contiguous: removes `contiguous` copies that no reader needs. Every kernel reads
// its inputs through strides, so a copy is only needed where a view cannot be formed (a
// reshape that merges dims that are not packed) or for a model output. Two rewrites:
//  1. contiguous(v) -> v where every user still type-checks with the strided v (kernels
//     always do; views are re-inferred, with their own users, and the copy is kept when any
//     of them fails).
//  2. contiguous(transpose(dot(a, b))) with the last axis kept last (attention's head merge)
//     -> the dot computes straight into the transposed order: the permuted rows become batch
//     dims with M = 1, a and b are read as views of the same data, and a reshape drops the
//     1. Fused dots move their epilogue inputs the same way.
// Model outputs keep their copies (lowering needs them).
#include "passes/pass_manager.hpp"
#include "passes/view_rewrite.hpp"

namespace mxc {
namespace {

attributes one(const std::string& name, attr_value v) {
    attributes a;
    a.set(name, std::move(v));
    return a;
}

// Rewrite 1: the users of c read its input directly.
bool bypass(module& m, instruction* c) { return replace_with_strided(m, c, c->inputs[0], false); }

// Rewrite 2: contiguous(transpose(dot)) -> reshape(dot over permuted views).
bool dot_in_order(module& m, instruction* c) {
    auto* t = c->inputs[0];
    if (t->op != "transpose" || m.users(t).size() != 1) return false;
    auto* d = t->inputs[0];
    if ((d->op != "dot" && d->op != "fused_dot") || m.users(d).size() != 1) return false;
    auto& p = t->attrs.get_ints("permutation");
    const auto r = static_cast<int64_t>(p.size());
    if (r < 2 || r + 1 > MXC_MAX_RANK || p.back() != r - 1) return false;
    auto pos = m.iter(d);
    // rows: the permuted batch and M dims; then [1, K] for a, [K, N] for b, [1, N] for the rest
    std::vector<int64_t> rows(p.begin(), p.end() - 1), perm_b = rows;
    perm_b.push_back(r - 1);
    perm_b.push_back(r);
    std::vector<int64_t> b_lens = d->inputs[1]->result.lens;
    b_lens.insert(b_lens.end() - 2, d->result.lens[static_cast<std::size_t>(r - 2)]);
    std::vector<instruction*> inputs;
    for (std::size_t i = 0; i < d->inputs.size(); ++i) {
        auto* v = d->inputs[i];
        if (i == 1) {
            v = m.insert(pos, "unsqueeze", {v}, one("axes", std::vector<int64_t>{r - 2}));
            v = m.insert(pos, "multibroadcast", {v}, one("out_lens", b_lens));
            v = m.insert(pos, "transpose", {v}, one("permutation", perm_b));
        } else {
            v = m.insert(pos, "transpose", {v}, one("permutation", i == 0 ? [&] {
                auto q = rows;
                q.push_back(r - 1);
                return q;
            }() : p));
            v = m.insert(pos, "unsqueeze", {v}, one("axes", std::vector<int64_t>{r - 1}));
        }
        inputs.push_back(v);
    }
    auto* nd = m.insert(pos, d->op, inputs, d->attrs);
    nd->origin = d->origin;
    auto* out = m.insert(m.iter(c), "reshape", {nd}, one("dims", c->result.lens));
    m.replace_uses(c, out);
    m.remove(c);
    m.remove(t);
    m.remove(d);
    return true;
}

void eliminate_contiguous(module& m) {
    std::vector<instruction*> work;
    for (auto& ins : m.instructions)
        if (ins.op == "contiguous") work.push_back(&ins);
    for (auto* c : work) {
        if (bypass(m, c)) m.remove(c);
        else dot_in_order(m, c);
    }
}
} // namespace

MXC_REGISTER_PASS(eliminate_contiguous) {
    return pass{"eliminate-contiguous", "kernels read strided views directly: removes contiguous copies no reader needs",
                eliminate_contiguous};
}

} // namespace mxc
