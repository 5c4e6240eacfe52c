// fuse-epilogue: a convolution, transposed convolution or dot (or an already fused one) whose
// only user is an elementwise op (bias add, activation, residual add, clip, or a fused
// `pointwise`) becomes a fused_convolution / fused_convolution_transpose / fused_dot that
// applies the elementwise body to each value before it is stored: one kernel instead of two,
// no intermediate buffer. Repeats until the user is not elementwise. Limits: fused_max_inputs
// inputs and fused_max_program program codes.
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "passes/fusion.hpp"
#include "passes/pass_manager.hpp"

namespace mxc {
namespace {

// The views between p and its elementwise user when they keep p's elements in their order: a
// chain of reshape / transpose / squeeze / unsqueeze with standard results, each the only user
// of the one before (e.g. a [seq, features] product seen as [seq, 1, features], then as [1, seq,
// features]: an attention's output projection before the residual add; a transpose with a
// standard result moves only axes of length 1). Empty when p's user is no such view.
std::vector<instruction*> standard_view_chain(module& m, instruction* p) {
    std::vector<instruction*> chain;
    if (!p->result.standard()) return chain;
    for (auto* v = p;;) {
        auto users = m.users(v);
        if (users.size() != 1) break;
        auto* w = users[0];
        bool keeps_order = w->op == "reshape" || w->op == "transpose" || w->op == "squeeze" || w->op == "unsqueeze";
        if (!keeps_order || !w->result.standard()) break;
        chain.push_back(w);
        v = w;
    }
    if (!chain.empty() && m.users(chain.back()).size() != 1) chain.clear();
    return chain;
}

// The view that undoes chain step w, from its result's lens to its input's: the inverse
// transpose, else a reshape back.
std::pair<std::string, attributes> undo_view(const instruction& w) {
    attributes a;
    if (w.op == "transpose") {
        const auto& perm = w.attrs.get_ints("permutation");
        std::vector<int64_t> inverse(perm.size());
        for (std::size_t i = 0; i < perm.size(); ++i) inverse[static_cast<std::size_t>(perm[i])] = static_cast<int64_t>(i);
        a.set("permutation", inverse);
        return {"transpose", a};
    }
    a.set("dims", w.inputs[0]->result.lens);
    return {"reshape", a};
}

// Fuses the only user of `p` into it; returns the new instruction or null. Through a chain of
// order-keeping views of p (standard_view_chain): the elementwise user's other inputs are read
// through the chain undone (views in p's dims; no fusion when one cannot be viewed so), and
// the fused result through the chain's views replaces the user, so the values and their order
// are the same.
instruction* fuse_user(module& m, instruction* p) {
    auto users = m.users(p);
    if (users.size() != 1) return nullptr;
    const auto chain = standard_view_chain(m, p);
    auto* t = chain.empty() ? nullptr : chain.back();
    auto* u = t ? m.users(t)[0] : users[0];
    auto f = as_fusable(*u);
    if (!f || u->result.type != p->result.type) return nullptr;
    if (t) {
        if (u->result.lens != t->result.lens) return nullptr;
        for (auto* v : f->inputs) { // every other input must have a view in p's dims
            if (v == t) continue;
            shape s = v->result;
            try {
                for (auto w = chain.rbegin(); w != chain.rend(); ++w) {
                    auto [op, a] = undo_view(**w);
                    s = get_op(op).compute_shape(a, {s});
                }
            } catch (const error&) {
                return nullptr;
            }
        }
        for (auto*& v : f->inputs) {
            if (v == t) {
                v = p;
                continue;
            }
            for (auto w = chain.rbegin(); w != chain.rend(); ++w) {
                auto [op, a] = undo_view(**w);
                v = m.insert(m.iter(u), op, {v}, a);
            }
        }
    }
    // p's own body and extra inputs (a plain conv/dot: body x0, none)
    bool already = p->op.rfind("fused_", 0) == 0;
    body_node pbody = already ? parse_body(p->attrs.get_string("body")) : input_node(0);
    std::vector<instruction*> inputs{p->inputs[0], p->inputs[1]}; // extras follow: body xN = inputs[N + 1]
    std::vector<instruction*> extras(p->inputs.begin() + 2, p->inputs.end());
    inputs.insert(inputs.end(), extras.begin(), extras.end());
    auto extra_index = [&](instruction* v) { // body index of an extra input
        auto it = std::find(inputs.begin() + 2, inputs.end(), v);
        if (it == inputs.end()) {
            inputs.push_back(v);
            it = inputs.end() - 1;
        }
        return static_cast<int>(it - inputs.begin()) - 1;
    };
    std::vector<body_node> map;
    for (auto* v : f->inputs) map.push_back(v == p ? pbody : input_node(extra_index(v)));
    auto body = substitute(f->body, map);
    if (inputs.size() > fused_max_inputs || body_program(body).size() > fused_max_program) return nullptr;
    attributes a;
    for (auto& [n, v] : p->attrs.items)
        if (n != "body") a.set(n, v);
    a.set("body", print_body(body));
    auto* fused = m.insert(m.iter(u), epilogue_fused_op(p->op), inputs, a);
    fused->origin = p->origin;
    auto* result = fused;
    for (auto* w : chain) result = m.insert(m.iter(u), w->op, {result}, w->attrs);
    m.replace_uses(u, result);
    m.remove(u);
    for (auto w = chain.rbegin(); w != chain.rend(); ++w) m.remove(*w);
    m.remove(p);
    return fused;
}

void fuse_epilogue(module& m) {
    std::vector<instruction*> work;
    for (auto& ins : m.instructions)
        if (epilogue_fused_op(ins.op) && is_floating(ins.result.type)) work.push_back(&ins);
    for (auto* p : work)
        while (auto* f = fuse_user(m, p)) p = f;
}
} // namespace

MXC_REGISTER_PASS(fuse_epilogue) {
    return pass{"fuse-epilogue", "fuses bias, activation, residual add and clip into the conv/gemm/matmul store",
                fuse_epilogue};
}

} // namespace mxc
