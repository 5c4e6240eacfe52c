// simplify-algebra: local rewrites that remove work.
//   x * 1, 1 * x, x / 1, x + 0, 0 + x, x - 0  ->  x   (the constant may be any broadcast splat)
//   neg(neg(x))                                ->  x
//   transpose(transpose(x))                    ->  one transpose, or x when they cancel
//   reshape(reshape(x))                        ->  reshape(x)
//   dot(x * c, y * d)                          ->  dot(x, y) * (c d)   (c, d splats; either may be
//                                                  absent; the scaled operand used by the dot alone:
//                                                  an attention's q and k scales become one multiply
//                                                  that fuse-epilogue puts into the product's store)
// A value is only replaced by a standard one (users such as reshape need packed inputs), and
// only when the types and lens agree. Replaced instructions are left for dce.
#include "passes/pass_manager.hpp"
#include "passes/rewrite.hpp"
#include "templates/common/types.hpp"

#include <optional>

namespace mxc {
namespace {

bool same_value_shape(const instruction* x, const instruction& ins) {
    return x->result.standard() && x->result.lens == ins.result.lens && x->result.type == ins.result.type;
}

bool is_splat(const instruction* ins, double v) {
    auto s = splat_value(ins);
    return s && *s == v;
}

// The input that the instruction returns unchanged, or null.
instruction* passthrough(const instruction& ins) {
    if (ins.inputs.size() == 2) {
        auto *a = ins.inputs[0], *b = ins.inputs[1];
        if ((ins.op == "mul" || ins.op == "div") && is_splat(b, 1)) return a;
        if ((ins.op == "add" || ins.op == "sub") && is_splat(b, 0)) return a;
        if (ins.op == "mul" && is_splat(a, 1)) return b;
        if (ins.op == "add" && is_splat(a, 0)) return b;
    }
    if (ins.op == "neg" && ins.inputs[0]->op == "neg") return ins.inputs[0]->inputs[0];
    return nullptr;
}

// A scalar literal of floating type t holding v (nullopt for other types).
std::optional<literal> scalar_of(dtype t, double v) {
    switch (t) {
    case dtype::float_type: return literal::from<float>(t, {}, {static_cast<float>(v)});
    case dtype::double_type: return literal::from<double>(t, {}, {v});
    case dtype::half_type: return literal::from<uint16_t>(t, {}, {mxc_half(static_cast<float>(v)).bits});
    case dtype::bf16_type: return literal::from<uint16_t>(t, {}, {mxc_bf16(static_cast<float>(v)).bits});
    default: return std::nullopt;
    }
}

// dot(x * c, y * d) -> dot(x, y) * (c d) before `it` (ins, a dot); whether it rewrote.
bool hoist_dot_scales(module& m, ins_iter it) {
    auto& ins = *it;
    double factor = 1;
    bool found = false;
    std::vector<instruction*> operands = ins.inputs;
    for (auto*& v : operands) {
        if (v->op != "mul" || v->inputs.size() != 2 || m.users(v).size() != 1) continue;
        for (int c = 0; c < 2; ++c) {
            auto *k = v->inputs[static_cast<std::size_t>(c)], *x = v->inputs[static_cast<std::size_t>(1 - c)];
            auto s = splat_value(k);
            if (!s || x->result.lens != v->result.lens || x->result.type != v->result.type) continue;
            factor *= *s;
            v = x;
            found = true;
            break;
        }
    }
    if (!found || !(factor == factor)) return false;
    auto lit = scalar_of(ins.result.type, factor);
    if (!lit) return false;
    auto* d = m.insert(it, "dot", operands, ins.attrs);
    auto* c = m.insert_literal(it, std::move(*lit));
    attributes a;
    a.set("out_lens", ins.result.lens);
    auto* b = m.insert(it, "multibroadcast", {c}, a);
    auto* r = m.insert(it, "mul", {d, b}, {});
    if (r->result != ins.result) return false; // (left for dce)
    m.replace_uses(&ins, r);
    return true;
}

void simplify_algebra(module& m) {
    for (auto it = m.instructions.begin(); it != m.instructions.end(); ++it) {
        auto& ins = *it;
        if (ins.is_builtin()) continue;
        if (auto* x = passthrough(ins); x && same_value_shape(x, ins)) {
            m.replace_uses(&ins, x);
            continue;
        }
        auto* in = ins.inputs.empty() ? nullptr : ins.inputs[0];
        if (ins.op == "dot" && hoist_dot_scales(m, it)) continue;
        if (ins.op == "transpose" && in->op == "transpose") {
            auto& outer = ins.attrs.get_ints("permutation");
            auto& inner = in->attrs.get_ints("permutation");
            std::vector<int64_t> p(outer.size());
            bool ident = true;
            for (std::size_t i = 0; i < p.size(); ++i) {
                p[i] = inner[static_cast<std::size_t>(outer[i])];
                ident = ident && p[i] == static_cast<int64_t>(i);
            }
            auto* x = in->inputs[0];
            auto* r = ident ? x : m.insert(it, "transpose", {x}, [&] { attributes a; a.set("permutation", p); return a; }());
            if (r->result == ins.result) m.replace_uses(&ins, r);
        } else if (ins.op == "reshape" && in->op == "reshape" && in->inputs[0]->result.standard()) {
            auto* r = m.insert(it, "reshape", {in->inputs[0]}, ins.attrs);
            m.replace_uses(&ins, r);
        }
    }
}
} // namespace

MXC_REGISTER_PASS(simplify_algebra) {
    return pass{"simplify-algebra", "x*1, x+0, double negation, transpose and reshape chains, scales out of dots", simplify_algebra};
}

} // namespace mxc
