// fuse-reduce: the row-wise patterns exporters write as chains of reductions and elementwise
// ops become one op (one kernel) each:
//   softmax     exp(x - max(x)) / sum(exp(x - max(x)))  (or without the max)  -> softmax[axis]
//   layer norm  d = x - mean(x); d / sqrt(mean(d^2) + eps) [* scale] [+ bias] -> layer_norm
//               (also d * (1 / sqrt(...)), d*d for d^2: what the LayerNormalization importer writes)
//   RMS norm    x / sqrt(mean(x^2) + eps) [* scale]                           -> rms_norm
//   GELU        any elementwise tree over one value x and constants that computes
//               0.5 x (1 + erf(x / sqrt 2)) or its tanh approximation          -> gelu / gelu_tanh
// GELU is recognised by value: the tree is evaluated at sample points and compared with both
// forms, so every way of writing it (x * 0.5 or / 2, / sqrt 2 or * 1/sqrt 2, pow(x, 3) or
// x*x*x...) matches, and nothing else does. Intermediate values must have no other users
// (they are removed); the result replaces the last instruction of the pattern. Reductions must
// keep their dims (the IR's reduce ops always do) and cover the trailing axes (one axis for
// softmax). Floating types only; no type changes inside a pattern.
#include "passes/fusion.hpp"
#include "passes/pass_manager.hpp"
#include "passes/rewrite.hpp"
#include "templates/common/pointwise_program.hpp"

#include <cmath>

namespace mxc {
namespace {

bool is(const instruction* i, const char* op) { return i && i->op == op; }

// The only user of `v`, or null.
instruction* sole_user(const module& m, const instruction* v) {
    auto u = m.users(v);
    return u.size() == 1 ? u[0] : nullptr;
}

// The only user of `v` seen through one multibroadcast (`v` -> broadcast -> user).
instruction* sole_user_through_broadcast(const module& m, instruction* v, std::vector<instruction*>& chain) {
    auto* b = sole_user(m, v);
    if (!is(b, "multibroadcast")) return nullptr;
    chain.push_back(b);
    return sole_user(m, b);
}

// The one value of a constant whose elements are all equal. Looks through views at the
// literal (all its elements, so a view of part of a non-uniform literal counts as unknown):
// cheap even for large broadcast biases, unlike packing the view.
std::optional<double> uniform_value(const instruction* v) {
    while (!v->is_builtin() && get_op(v->op).is_view) v = v->inputs[0];
    if (!v->is_literal() || !v->lit.known() || v->lit.s.elements() == 0) return std::nullopt;
    std::optional<double> r;
    mxc_visit_dtype(static_cast<int>(v->lit.s.type), [&](auto tag) {
        using T = decltype(tag);
        using C = mxc_compute_t<T>;
        const T* d = v->lit.as<T>();
        const int64_t n = v->lit.s.elements();
        for (int64_t i = 1; i < n; ++i)
            if (!(C(d[i]) == C(d[0]))) return;
        r = static_cast<double>(C(d[0]));
    });
    return r;
}

bool splat_is(const instruction* v, double want) {
    auto s = uniform_value(v);
    return s && *s == want;
}

// The operand of binary `ins` other than `v` (null unless `v` is exactly one operand).
instruction* other(const instruction* ins, const instruction* v) {
    if (ins->inputs.size() != 2) return nullptr;
    if (ins->inputs[0] == v && ins->inputs[1] != v) return ins->inputs[1];
    if (ins->inputs[1] == v && ins->inputs[0] != v) return ins->inputs[0];
    return nullptr;
}

// Axes of a reduction when they are the trailing axes [first, rank) of its input: first, else -1.
int64_t trailing_axes(const instruction* red) {
    auto& axes = red->attrs.get_ints("axes");
    const auto r = static_cast<int64_t>(red->inputs[0]->result.rank());
    if (axes.empty()) return -1;
    for (std::size_t i = 0; i < axes.size(); ++i)
        if (axes[i] != r - static_cast<int64_t>(axes.size()) + static_cast<int64_t>(i)) return -1;
    return axes[0];
}

// True for `sq` = pow(v, 2) or mul(v, v).
bool is_square_of(const instruction* sq, const instruction* v) {
    if (is(sq, "mul")) return sq->inputs[0] == v && sq->inputs[1] == v;
    return is(sq, "pow") && sq->inputs[0] == v && splat_is(sq->inputs[1], 2.0);
}

// Replaces `last` by the new op and removes the pattern's instructions (all now unused).
instruction* commit(module& m, instruction* last, const std::string& op, std::vector<instruction*> inputs, attributes a,
                    std::vector<instruction*> chain) {
    auto* r = m.insert(m.iter(last), op, std::move(inputs), std::move(a));
    r->origin = last->origin;
    m.replace_uses(last, r);
    chain.push_back(last);
    for (bool again = true; again;) { // users first
        again = false;
        for (auto*& c : chain)
            if (c && m.users(c).empty()) {
                m.remove(c);
                c = nullptr;
                again = true;
            }
    }
    return r;
}

// After the normalised value `n` (not in chain): optional `* scale` then `+ bias` (operands
// of n's lens and type). Returns the last instruction.
instruction* scale_and_bias(const module& m, instruction* n, std::vector<instruction*>& chain,
                            std::vector<instruction*>& extra, bool allow_bias) {
    instruction* last = n;
    for (const char* op : {"mul", "add"}) {
        if (std::string(op) == "add" && !allow_bias) break;
        auto* u = sole_user(m, last);
        auto* o = u && is(u, op) ? other(u, last) : nullptr;
        if (!o || o->result.lens != n->result.lens || o->result.type != n->result.type) {
            if (std::string(op) == "mul" && allow_bias) return last; // bias needs a scale before it
            break;
        }
        chain.push_back(last);
        extra.push_back(o);
        last = u;
    }
    return last;
}

// From the "sqrt(mean + eps)" part of a norm: the instruction that divides `d` by it (either
// div(d, broadcast(s)) or mul(d, broadcast(1 / s))), pushing the path onto chain; else null.
instruction* divide_by(const module& m, instruction* s, const instruction* d, std::vector<instruction*>& chain) {
    auto* u = sole_user(m, s);
    if (is(u, "div") && splat_is(u->inputs[0], 1.0) && u->inputs[1] == s) { // 1 / s, then d * that
        chain.push_back(s);
        chain.push_back(u);
        auto* mul = sole_user_through_broadcast(m, u, chain);
        return is(mul, "mul") && other(mul, chain.back()) == d ? mul : nullptr;
    }
    chain.push_back(s);
    auto* div = sole_user_through_broadcast(m, s, chain);
    return is(div, "div") && div->inputs[0] == d && div->inputs[1] == chain.back() ? div : nullptr;
}

// mean_sq = reduce_mean(square of v) -> add eps -> sqrt: the sqrt and epsilon, or null.
instruction* sqrt_of_mean_plus_eps(const module& m, instruction* mean_sq, double* eps, std::vector<instruction*>& chain) {
    auto* add = sole_user(m, mean_sq);
    auto* e = is(add, "add") ? other(add, mean_sq) : nullptr;
    auto ev = e ? uniform_value(e) : std::nullopt;
    auto* s = ev ? sole_user(m, add) : nullptr;
    if (!is(s, "sqrt")) return nullptr;
    *eps = *ev;
    chain.push_back(mean_sq);
    chain.push_back(add);
    return s;
}

attributes norm_attrs(int64_t axis, double eps) {
    attributes a;
    a.set("axis", axis);
    a.set("epsilon", eps);
    return a;
}

// mean = reduce_mean(x) -> broadcast -> d = sub(x, .) -> mean(d^2) ... : layer_norm.
instruction* try_layer_norm(module& m, instruction* mean) {
    auto* x = mean->inputs[0];
    int64_t axis = trailing_axes(mean);
    if (axis < 0) return nullptr;
    std::vector<instruction*> chain{mean};
    auto* d = sole_user_through_broadcast(m, mean, chain);
    if (!is(d, "sub") || d->inputs[0] != x || d->inputs[1] != chain.back()) return nullptr;
    auto du = m.users(d);
    if (du.size() != 2) return nullptr;
    auto* sq = is_square_of(du[0], d) ? du[0] : is_square_of(du[1], d) ? du[1] : nullptr;
    auto* var = sq ? sole_user(m, sq) : nullptr;
    if (!is(var, "reduce_mean") || var->attrs != mean->attrs) return nullptr;
    chain.push_back(d);
    chain.push_back(sq);
    double eps = 0;
    auto* s = sqrt_of_mean_plus_eps(m, var, &eps, chain);
    auto* n = s ? divide_by(m, s, d, chain) : nullptr;
    if (!n || std::find(du.begin(), du.end(), n) == du.end()) return nullptr;
    std::vector<instruction*> inputs{x};
    auto* last = scale_and_bias(m, n, chain, inputs, true);
    return commit(m, last, "layer_norm", inputs, norm_attrs(axis, eps), chain);
}

// ms = reduce_mean(x^2) -> + eps -> sqrt -> x / that [* scale]: rms_norm.
instruction* try_rms_norm(module& m, instruction* ms) {
    auto* sq = ms->inputs[0];
    if (sq->inputs.empty() || !is_square_of(sq, sq->inputs[0]) || sole_user(m, sq) != ms) return nullptr;
    auto* x = sq->inputs[0];
    int64_t axis = trailing_axes(ms);
    if (axis < 0) return nullptr;
    std::vector<instruction*> chain{sq};
    double eps = 0;
    auto* s = sqrt_of_mean_plus_eps(m, ms, &eps, chain);
    auto* n = s ? divide_by(m, s, x, chain) : nullptr;
    if (!n) return nullptr;
    std::vector<instruction*> inputs{x};
    auto* last = scale_and_bias(m, n, chain, inputs, false);
    return commit(m, last, "rms_norm", inputs, norm_attrs(axis, eps), chain);
}

// e = exp(x - broadcast(max(x))) or exp(x); e / broadcast(sum(e)): softmax.
instruction* try_softmax(module& m, instruction* e) {
    auto* t = e->inputs[0];
    auto eu = m.users(e);
    if (eu.size() != 2) return nullptr;
    auto* sum = is(eu[0], "reduce_sum") ? eu[0] : is(eu[1], "reduce_sum") ? eu[1] : nullptr;
    if (!sum || sum->attrs.get_ints("axes").size() != 1) return nullptr;
    int64_t axis = sum->attrs.get_ints("axes")[0];
    std::vector<instruction*> chain;
    instruction* x = t;
    if (is(t, "sub") && sole_user(m, t) == e && is(t->inputs[1], "multibroadcast")) {
        auto* mx = t->inputs[1]->inputs[0];
        if (is(mx, "reduce_max") && mx->inputs[0] == t->inputs[0] && mx->attrs == sum->attrs &&
            sole_user(m, mx) == t->inputs[1] && sole_user(m, t->inputs[1]) == t) {
            x = t->inputs[0];
            chain = {mx, t->inputs[1], t};
        }
    }
    chain.push_back(e);
    chain.push_back(sum);
    auto* div = sole_user_through_broadcast(m, sum, chain);
    if (!is(div, "div") || div->inputs[0] != e || div->inputs[1] != chain.back()) return nullptr;
    attributes a;
    a.set("axis", axis);
    return commit(m, div, "softmax", {x}, a, chain);
}

// --- GELU by value ---------------------------------------------------------------------------

struct gelu_tree {
    dtype type = dtype::float_type;
    instruction* var = nullptr;
    std::vector<double> consts;          // body input k + 1
    std::vector<instruction*> inner;     // the ops of the tree, root last
    bool has_erf_or_tanh = false;
};

constexpr std::size_t gelu_max_ops = 24;

// Builds the body of `ins` (the root when root is true); false when it is not one value's tree.
bool build_tree(const module& m, instruction* ins, const instruction* parent, gelu_tree& t, body_node& out) {
    if (parent) {
        if (auto c = uniform_value(ins)) {
            t.consts.push_back(*c);
            out = input_node(static_cast<int>(t.consts.size()));
            return true;
        }
    }
    bool op = !ins->is_builtin() && is_body_op(ins->op) && ins->attrs.items.empty() && ins->result.type == t.type;
    if (op && (!parent || only_user(m, ins, parent))) {
        if (t.inner.size() >= gelu_max_ops) return false;
        out = body_node{};
        out.op = ins->op;
        t.has_erf_or_tanh = t.has_erf_or_tanh || ins->op == "erf" || ins->op == "tanh";
        for (auto* in : ins->inputs) {
            body_node a;
            if (!build_tree(m, in, ins, t, a)) return false;
            out.args.push_back(a);
        }
        t.inner.push_back(ins);
        return true;
    }
    if (!parent || (t.var && t.var != ins)) return false;
    t.var = ins;
    out = input_node(0);
    return true;
}

// The tree rooted at `root` when it computes gelu or gelu_tanh of one value.
instruction* try_gelu(module& m, instruction* root) {
    gelu_tree t;
    t.type = root->result.type;
    body_node body;
    if (!build_tree(m, root, nullptr, t, body) || !t.var || !t.has_erf_or_tanh || t.inner.size() < 3) return nullptr;
    auto prog = body_program(body);
    if (prog.size() > 4 * gelu_max_ops) return nullptr;
    bool erf_form = true, tanh_form = true;
    std::vector<double> x(t.consts.size() + 1);
    for (std::size_t i = 0; i < t.consts.size(); ++i) x[i + 1] = t.consts[i];
    for (double v : {-6.0, -3.5, -2.0, -1.3, -0.7, -0.2, 0.0, 0.15, 0.5, 0.9, 1.6, 2.4, 4.0, 7.0}) {
        x[0] = v;
        double y = mxc_pw_run(prog.data(), static_cast<int64_t>(prog.size()), x.data());
        auto near = [&](double want) { return std::fabs(y - want) <= 1e-5 * (1 + std::fabs(want)); };
        erf_form = erf_form && near(mxc_pw_gelu{}(v));
        tanh_form = tanh_form && near(mxc_pw_gelu_tanh{}(v));
    }
    if (!erf_form && !tanh_form) return nullptr;
    t.inner.pop_back(); // the root
    return commit(m, root, erf_form ? "gelu" : "gelu_tanh", {t.var}, {}, t.inner);
}

void fuse_reduce(module& m) {
    for (auto it = m.instructions.begin(); it != m.instructions.end(); ++it) {
        auto* ins = &*it;
        if (ins->is_builtin() || !is_floating(ins->result.type)) continue;
        instruction* r = nullptr;
        if (ins->op == "reduce_mean") {
            r = try_layer_norm(m, ins);
            if (!r) r = try_rms_norm(m, ins);
        } else if (ins->op == "exp") {
            r = try_softmax(m, ins);
        } else if (is_body_op(ins->op) && ins->attrs.items.empty()) {
            r = try_gelu(m, ins);
        }
        if (r) it = m.iter(r); // the pattern's instructions are gone; go on after the new op
    }
}

} // namespace

MXC_REGISTER_PASS(fuse_reduce) {
    return pass{"fuse-reduce", "softmax, layer-norm, RMS-norm and GELU patterns into one kernel each", fuse_reduce};
}

} // namespace mxc
