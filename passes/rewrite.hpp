// Small helpers shared by the rewriting passes: constant values seen through views, splat
// tests, and replacing an instruction's uses.
#pragma once
#include "ir/eval.hpp"
#include "ir/module.hpp"
#include "ir/op.hpp"
#include "templates/common/math.hpp"

#include <cstring>
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
// Walks the elements in place and stops at the first that differs (weights of hundreds of MB
// are never copied or converted whole). The views other than slice (transpose, multibroadcast,
// reshape, squeeze, unsqueeze) keep every element of their input, so a non-empty one is a splat
// exactly when its input is: that is asked of the input, not of the view's elements (GELU's
// scalars 0.5, 1 and sqrt(2) broadcast to BERT's [32, 128, 3072] were walked 12.6 million
// elements at a time, 60 times: 4-9 s of simplify-algebra at batch 32).
inline std::optional<double> splat_value(const instruction* ins) {
    if (!ins->is_literal() && !ins->is_builtin() && get_op(ins->op).is_view && ins->op != "slice")
        return ins->result.elements() == 0 ? std::nullopt : splat_value(ins->inputs.at(0));
    auto t = constant_value(ins);
    if (!t || t->s.elements() == 0) return std::nullopt;
    const auto es = static_cast<int64_t>(dtype_size(t->s.type));
    const mxc_desc d = make_desc(t->s);
    auto element = [&](int64_t e) { return t->data() + mxc_offset_of(d, e) * es; };
    auto value = [&](const char* p) {
        return literal(shape(t->s.type, {1}), std::vector<char>(p, p + es)).to_doubles()[0];
    };
    const char* first = element(0);
    const double v = value(first);
    if (!(v == v)) return std::nullopt; // NaN equals nothing
    for (int64_t e = 1, n = t->s.elements(); e < n; ++e) {
        const char* p = element(e);
        if (std::memcmp(p, first, static_cast<std::size_t>(es)) != 0 && !(value(p) == v)) return std::nullopt;
    }
    return v;
}

// Every use of `from` now uses `to` (the caller leaves `from` for dce).
inline void replace(module& m, instruction* from, instruction* to) { m.replace_uses(from, to); }

} // namespace mxc
