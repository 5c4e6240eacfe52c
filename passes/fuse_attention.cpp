// fuse-attention: the scaled dot-product attention of transformers,
//   s = dot(q, kt) -> elementwise ops on s (scale, mask add, softcap) -> softmax(last axis)
//     -> dot(probabilities, v) [-> transpose that keeps the last axis: the heads' merge]
// becomes one `attention` op (ir/ops/attention.cpp): the elementwise chain is its body (x0 =
// the product, xN = the chain's other inputs, read at each score), the transpose its output
// permutation. One kernel instead of three to five, and the [.., Lq, Lk] scores and
// probabilities are never stored. Each value of the chain must have its next op as its only
// user (an exported qk output keeps the ops apart). Limits: the fused kernels' inputs and
// program codes (passes/fusion.hpp) and the op's head sizes. Runs after fuse-reduce (which
// makes the softmax) and before eliminate-contiguous (whose rewrite of the heads' merge reads
// the values through views a dot, not this op, understands).
// MXC_FUSE_ATTENTION=0 in mxc's environment leaves the default pipeline without it (the A/B).
#include "passes/fusion.hpp"
#include "passes/pass_manager.hpp"
#include "templates/common/attention.hpp"

namespace mxc {
namespace {

struct chain {
    instruction* product = nullptr; // the dot q . kt
    body_node body;                 // over x0 = the product and xN = extras[N - 1]
    std::vector<instruction*> ops;  // the elementwise ops, from the softmax back to the product
};

// The chain from `x` (read by `next` only) back to a dot: x itself, or an elementwise op of
// which exactly one input continues the chain. Extra inputs are numbered in `extras`.
std::optional<chain> chain_of(module& m, instruction* x, const instruction* next, std::vector<instruction*>& extras,
                              int depth) {
    if (!only_user(m, x, next) || depth > 16) return std::nullopt;
    if (x->op == "dot") {
        chain c;
        c.product = x;
        c.body = input_node(0);
        return c;
    }
    auto f = as_fusable(*x);
    if (!f) return std::nullopt;
    std::optional<chain> found;
    std::size_t via = 0;
    for (std::size_t i = 0; i < f->inputs.size(); ++i) {
        auto* v = f->inputs[i];
        if (v->op != "dot" && !as_fusable(*v)) continue;
        std::vector<instruction*> trial = extras;
        auto c = chain_of(m, v, x, trial, depth + 1);
        if (!c) continue;
        if (found) return std::nullopt; // two inputs lead to products
        found = std::move(c);
        extras = std::move(trial);
        via = i;
    }
    if (!found) return std::nullopt;
    std::vector<body_node> map;
    for (std::size_t i = 0; i < f->inputs.size(); ++i)
        map.push_back(i == via ? found->body : input_node(input_index(extras, f->inputs[i]) + 1));
    found->body = substitute(f->body, map);
    found->ops.insert(found->ops.begin(), x);
    return found;
}

void fuse_one(module& m, instruction* sm) {
    const auto& s = sm->result;
    const auto r = static_cast<int64_t>(s.rank());
    const int64_t axis = sm->attrs.get_int("axis");
    if (r < 2 || (axis != r - 1 && axis != -1) || !is_floating(s.type) || is_low_precision(s.type) ||
        s.type == dtype::double_type)
        return;
    auto users = m.users(sm);
    if (users.size() != 1 || users[0]->op != "dot" || users[0]->inputs[0] != sm || users[0]->inputs[1] == sm) return;
    auto* pv = users[0];
    std::vector<instruction*> extras;
    auto c = chain_of(m, sm->inputs[0], sm, extras, 0);
    if (!c) return;
    auto *q = c->product->inputs[0], *kt = c->product->inputs[1], *v = pv->inputs[1];
    if (q->result.type != s.type || v->result.type != s.type || c->product->result.lens != s.lens) return;
    if (q->result.lens.back() > MXC_ATTENTION_MAX_HEAD || v->result.lens.back() > MXC_ATTENTION_MAX_HEAD) return;
    for (auto* e : extras)
        if (e->result.lens != s.lens || e->result.type != s.type) return;
    if (3 + extras.size() > fused_max_inputs || body_program(c->body).size() > fused_max_program) return;

    attributes a;
    a.set("body", print_body(c->body));
    // the heads' merge: a transpose that keeps the last axis, the only user of the product
    auto pv_users = m.users(pv);
    instruction* merge = nullptr;
    if (pv_users.size() == 1 && pv_users[0]->op == "transpose") {
        const auto& perm = pv_users[0]->attrs.get_ints("permutation");
        if (!perm.empty() && perm.back() == r - 1) {
            merge = pv_users[0];
            a.set("permutation", perm);
        }
    }
    std::vector<instruction*> inputs{q, kt, v};
    inputs.insert(inputs.end(), extras.begin(), extras.end());
    auto* at = m.insert(m.iter(pv), "attention", inputs, a);
    at->origin = pv->origin;
    m.replace_uses(merge ? merge : pv, at);
    if (merge) m.remove(merge);
    m.remove(pv);
    m.remove(sm);
    for (auto* op : c->ops) m.remove(op);
    m.remove(c->product);
}

void fuse_attention(module& m) {
    std::vector<instruction*> work;
    for (auto& ins : m.instructions)
        if (ins.op == "softmax") work.push_back(&ins);
    for (auto* sm : work) fuse_one(m, sm);
}
} // namespace

MXC_REGISTER_PASS(fuse_attention) {
    return pass{"fuse-attention",
                "dot -> scale/mask -> softmax -> dot (-> heads' transpose) becomes one attention kernel", fuse_attention};
}

} // namespace mxc
