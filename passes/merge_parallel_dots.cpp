// merge-parallel-dots: matrix products of the same input by different constant weights (the
// Q, K and V projections of attention) become one product by the weights concatenated along
// N; each original result is a slice view of it. Fused dots merge when their bodies are equal
// and every epilogue input is a constant that varies only along N (a bias, a scale): those are
// concatenated the same way. One kernel instead of several, and the input is read once.
// Runs after fuse-epilogue. A group is left alone when a user of a result cannot take the
// sliced (strided) view.
#include "passes/pass_manager.hpp"
#include "passes/rewrite.hpp"
#include "passes/view_rewrite.hpp"

#include <cstring>
#include <map>

namespace mxc {
namespace {

// True when `v` is a known constant whose value depends only on the last index `free_dims`
// trailing dims (others broadcast: stride 0 or length 1).
bool constant_along(const instruction* v, std::size_t free_dims) {
    auto& s = v->result;
    for (std::size_t d = 0; d + free_dims < s.rank(); ++d)
        if (s.lens[d] != 1 && s.strides[d] != 0) return false;
    return constant_value(v).has_value();
}

// The first `count` elements of the packed value of constant `v`, as bytes.
std::vector<char> leading_bytes(const instruction* v, int64_t count) {
    auto lit = constant_value(v)->pack();
    auto n = static_cast<std::size_t>(count) * dtype_size(lit.s.type);
    return std::vector<char>(lit.data(), lit.data() + n);
}

bool mergeable(const instruction* u, const instruction* a) {
    if ((u->op != "dot" && u->op != "fused_dot") || u->inputs[0] != a || !is_floating(u->result.type)) return false;
    if (u->result.rank() < 2 || !constant_along(u->inputs[1], 2)) return false;
    for (std::size_t i = 2; i < u->inputs.size(); ++i)
        if (!constant_along(u->inputs[i], 1)) return false;
    return true;
}

// Group key: the input and everything but N must agree.
std::string group_key(const instruction* u) {
    auto lens = u->result.lens, b = u->inputs[1]->result.lens;
    lens.back() = b.back() = 0;
    return std::to_string(reinterpret_cast<std::uintptr_t>(u->inputs[0])) + "|" + u->op + "|" +
           (u->attrs.has("body") ? u->attrs.get_string("body") : "") + "|" + std::to_string(u->inputs.size()) + "|" +
           to_string(lens) + to_string(b) + "|" + std::to_string(static_cast<int>(u->result.type));
}

void merge(module& m, std::vector<instruction*> group) {
    auto* first = group[0];
    auto* a = first->inputs[0];
    const std::size_t r = first->result.rank();
    const dtype t = first->result.type;
    const int64_t k_len = first->inputs[1]->result.lens[r - 2];
    const auto esize = static_cast<std::size_t>(dtype_size(t));
    int64_t total = 0;
    for (auto* u : group) total += u->result.lens.back();
    auto pos = m.iter(first);

    // weights [K, sum N]: row k is row k of every member's weights in turn
    std::vector<char> w(static_cast<std::size_t>(k_len * total) * esize);
    int64_t col = 0;
    for (auto* u : group) {
        const int64_t n = u->result.lens.back();
        auto bytes = leading_bytes(u->inputs[1], k_len * n);
        for (int64_t k = 0; k < k_len; ++k)
            std::memcpy(w.data() + static_cast<std::size_t>(k * total + col) * esize,
                        bytes.data() + static_cast<std::size_t>(k * n) * esize, static_cast<std::size_t>(n) * esize);
        col += n;
    }
    auto out_lens = first->result.lens;
    out_lens.back() = total;
    auto b_lens = first->inputs[1]->result.lens;
    b_lens.back() = total;
    auto broadcast = [&](instruction* v, const std::vector<int64_t>& lens) {
        attributes at;
        at.set("out_lens", lens);
        return v->result.lens == lens ? v : m.insert(pos, "multibroadcast", {v}, at);
    };
    std::vector<instruction*> inputs{a, broadcast(m.insert_literal(pos, literal(shape(t, {k_len, total}), w)), b_lens)};
    for (std::size_t i = 2; i < first->inputs.size(); ++i) { // epilogue constants [sum N]
        std::vector<char> e;
        for (auto* u : group) {
            auto bytes = leading_bytes(u->inputs[i], u->result.lens.back());
            e.insert(e.end(), bytes.begin(), bytes.end());
        }
        inputs.push_back(broadcast(m.insert_literal(pos, literal(shape(t, {total}), e)), out_lens));
    }
    auto* merged = m.insert(pos, first->op, inputs, first->attrs);
    merged->origin = first->origin;

    std::vector<std::pair<instruction*, instruction*>> done; // (member, its slice)
    col = 0;
    bool ok = true;
    for (auto* u : group) {
        attributes at;
        std::vector<int64_t> starts(r, 0);
        starts.back() = col;
        at.set("starts", starts);
        at.set("steps", std::vector<int64_t>(r, 1));
        at.set("out_lens", u->result.lens);
        col += u->result.lens.back();
        auto* s = m.insert(pos, "slice", {merged}, at);
        if (!(ok = replace_with_strided(m, u, s, true))) {
            m.remove(s);
            break;
        }
        done.emplace_back(u, s);
    }
    if (!ok) { // put everything back; dce removes the new constants
        for (auto& [u, s] : done) {
            replace_with_strided(m, s, u, true);
            m.remove(s);
        }
        m.remove(merged);
        return;
    }
    for (auto* u : group) m.remove(u);
}

void merge_parallel_dots(module& m) {
    std::map<std::string, std::vector<instruction*>> groups;
    std::vector<std::string> order;
    for (auto& ins : m.instructions) { // module order: a group's first member comes first
        if (ins.is_builtin() || !mergeable(&ins, ins.inputs[0])) continue;
        auto key = group_key(&ins);
        if (!groups.count(key)) order.push_back(key);
        groups[key].push_back(&ins);
    }
    for (auto& key : order)
        if (groups[key].size() > 1) merge(m, groups[key]);
}
} // namespace

MXC_REGISTER_PASS(merge_parallel_dots) {
    return pass{"merge-parallel-dots", "products of one input by several constant weights become one product and slices",
                merge_parallel_dots};
}

} // namespace mxc
