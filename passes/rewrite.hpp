// Small helpers shared by the rewriting passes: constant values seen through views, splat
// tests, and replacing an instruction's uses.
#pragma once
#include "ir/eval.hpp"
#include "ir/module.hpp"
#include "ir/op.hpp"

#include <optional>

namespace mxc {

// The value of `ins` when it is a known literal or a chain of views over one; else nothing.
inline std::optional<tensor> constant_value(const instruction* ins) {
    if (ins->is_literal()) {
        if (!ins->lit.known()) return std::nullopt;
        return tensor::of(ins->lit);
    }
    if (ins->is_builtin() || !get_op(ins->op).is_view) return std::nullopt;
    auto in = constant_value(ins->inputs.at(0));
    if (!in) return std::nullopt;
    return eval_instruction(*ins, {*in});
}

// The one value every element of `ins` has, when it is a constant with all elements equal.
inline std::optional<double> splat_value(const instruction* ins) {
    auto t = constant_value(ins);
    if (!t || t->s.elements() == 0) return std::nullopt;
    auto v = t->pack().to_doubles();
    for (double x : v)
        if (!(x == v[0])) return std::nullopt;
    return v[0];
}

// Every use of `from` now uses `to` (the caller leaves `from` for dce).
inline void replace(module& m, instruction* from, instruction* to) { m.replace_uses(from, to); }

} // namespace mxc
