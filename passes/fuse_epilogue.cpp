// fuse-epilogue: a convolution, transposed convolution or dot (or an already fused one) whose
// only user is an elementwise op (bias add, activation, residual add, clip, or a fused
// `pointwise`) becomes a fused_convolution / fused_convolution_transpose / fused_dot that
// applies the elementwise body to each value before it is stored: one kernel instead of two,
// no intermediate buffer. Repeats until the user is not elementwise. Limits: fused_max_inputs
// inputs and fused_max_program program codes.
#include "passes/fusion.hpp"
#include "passes/pass_manager.hpp"

namespace mxc {
namespace {

// p's only user when it is a transpose whose result is standard (it moves only axes of length
// 1: the same elements in the same order, e.g. a [seq, 1, features] product seen as [1, seq,
// features]) with one user, else null.
instruction* standard_transpose_user(module& m, instruction* p) {
    auto users = m.users(p);
    if (users.size() != 1 || users[0]->op != "transpose" || !p->result.standard()) return nullptr;
    auto* t = users[0];
    return t->result.standard() && m.users(t).size() == 1 ? t : nullptr;
}

// Fuses the only user of `p` into it; returns the new instruction or null. Through a
// standard transpose t of p (standard_transpose_user): the elementwise user's other inputs are
// read through the inverse transpose (views in p's dims), and the fused result through t's
// permutation replaces the user, so the values and their order are the same.
instruction* fuse_user(module& m, instruction* p) {
    auto users = m.users(p);
    if (users.size() != 1) return nullptr;
    auto* t = standard_transpose_user(m, p);
    auto* u = t ? m.users(t)[0] : users[0];
    auto f = as_fusable(*u);
    if (!f || u->result.type != p->result.type) return nullptr;
    if (t) {
        if (u->result.lens != t->result.lens) return nullptr;
        const auto& perm = t->attrs.get_ints("permutation");
        std::vector<int64_t> inverse(perm.size());
        for (std::size_t i = 0; i < perm.size(); ++i) inverse[static_cast<std::size_t>(perm[i])] = static_cast<int64_t>(i);
        attributes back;
        back.set("permutation", inverse);
        for (auto*& v : f->inputs)
            v = v == t ? p : m.insert(m.iter(u), "transpose", {v}, back);
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
    auto* result = t ? m.insert(m.iter(u), "transpose", {fused}, t->attrs) : fused;
    m.replace_uses(u, result);
    m.remove(u);
    if (t) m.remove(t);
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
