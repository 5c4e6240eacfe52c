// Replacing a value by a strided view of the same lens (eliminate-contiguous,
// merge-parallel-dots): kernels read any strides, but the views that use the value have
// results that depend on its strides, so they are re-inferred (with their own view users).
#pragma once
#include "codegen/lower.hpp"
#include "ir/error.hpp"
#include "ir/module.hpp"
#include "ir/op.hpp"

#include <utility>
#include <vector>

namespace mxc {

// Re-infers the result of `ins` after an input changed, and of its view users recursively;
// records old results in `saved`. False when a shape no longer checks, its lens or type
// change, or (unless allow_return) a changed view reaches @return.
inline bool reinfer(const module& m, instruction* ins, std::vector<std::pair<instruction*, shape>>& saved,
                    bool allow_return) {
    std::vector<shape> in;
    for (auto* i : ins->inputs) in.push_back(i->result);
    shape s;
    try {
        s = get_op(ins->op).compute_shape(ins->attrs, in);
    } catch (const error&) {
        return false;
    }
    if (s.lens != ins->result.lens || s.type != ins->result.type) return false;
    if (s == ins->result) return true;
    saved.emplace_back(ins, ins->result);
    ins->result = s;
    if (!is_view(*ins)) return true;
    for (auto* u : m.users(ins)) {
        if (u->is_return() && !allow_return) return false;
        if (!u->is_builtin() && !reinfer(m, u, saved, allow_return)) return false;
    }
    return true;
}

// Every use of `from` now uses `to` (same lens and type, any strides), with view users
// re-inferred. When one no longer checks (or, unless allow_return, `from` is a model output),
// nothing changes and the result is false.
inline bool replace_with_strided(module& m, instruction* from, instruction* to, bool allow_return) {
    auto users = m.users(from);
    std::vector<std::pair<instruction*, shape>> saved;
    bool ok = true;
    for (auto* u : users)
        if (u->is_return() && !allow_return) ok = false;
    if (ok) m.replace_uses(from, to);
    for (auto* u : users)
        if (ok && !u->is_builtin()) ok = reinfer(m, u, saved, allow_return);
    if (ok) return true;
    for (auto* u : users)
        for (auto*& in : u->inputs)
            if (in == to) in = from;
    for (auto it = saved.rbegin(); it != saved.rend(); ++it) it->first->result = it->second;
    return false;
}

} // namespace mxc
