// merge-parallel-dots: matrix products of the same input by different constant weights (the
// Q, K and V projections of attention) become one product by the weights concatenated along
// N; each original result is a slice view of it. Fused dots merge when their bodies are equal
// and every epilogue input is a constant that varies only along N (a bias, a scale): those are
// concatenated the same way. One kernel instead of several, and the input is read once.
// Weights must be [K, N] literals (broadcast over batch dims), epilogue constants [N] literals
// or single values, broadcast. Runs after fuse-epilogue. A group is left alone when a user of a result cannot take the
// sliced (strided) view.
#include "passes/pass_manager.hpp"
#include "passes/view_rewrite.hpp"

#include <cstring>
#include <map>

namespace mxc {
namespace {

// The literal under `v` when `v` is a known literal seen through broadcasts only, else null.
const instruction* broadcast_literal(const instruction* v) {
    while (v->op == "multibroadcast") v = v->inputs[0];
    return v->is_literal() && v->lit.known() ? v : nullptr;
}

// True when the literal's lens are `lens`, give or take leading 1s.
bool lens_match(const instruction* lit, std::vector<int64_t> lens) {
    auto l = lit->lit.s.lens;
    while (!l.empty() && l.front() == 1 && l.size() > lens.size()) l.erase(l.begin());
    while (!lens.empty() && lens.front() == 1 && lens.size() > l.size()) lens.erase(lens.begin());
    return l == lens;
}

// The literal holding the weights of product u as [K, N]: b is such a literal, broadcast over
// the batch dims or not; else null.
const instruction* weights_of(const instruction* u) {
    auto* lit = broadcast_literal(u->inputs[1]);
    auto& bl = u->inputs[1]->result.lens;
    return lit && lens_match(lit, {bl[bl.size() - 2], bl.back()}) ? lit : nullptr;
}

// The literal holding epilogue input v of u when it is a constant per column: a [N] literal
// (or a single value) broadcast to the output; else null.
const instruction* columns_of(const instruction* u, const instruction* v) {
    auto* lit = broadcast_literal(v);
    return lit && (lit->lit.s.elements() == 1 || lens_match(lit, {u->result.lens.back()})) ? lit : nullptr;
}

// The n values of a columns_of literal, as bytes (a single value repeated).
std::vector<char> column_bytes(const instruction* lit, int64_t n) {
    const char* d = lit->lit.data();
    const auto size = static_cast<std::size_t>(lit->lit.s.bytes());
    if (lit->lit.s.elements() != 1) return std::vector<char>(d, d + size);
    std::vector<char> r;
    for (int64_t i = 0; i < n; ++i) r.insert(r.end(), d, d + size);
    return r;
}

bool mergeable(const instruction* u, const instruction* a) {
    if ((u->op != "dot" && u->op != "fused_dot") || u->inputs[0] != a || !is_floating(u->result.type)) return false;
    if (u->result.rank() < 2 || !weights_of(u)) return false;
    for (std::size_t i = 2; i < u->inputs.size(); ++i)
        if (!columns_of(u, u->inputs[i])) return false;
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
        const char* bytes = weights_of(u)->lit.data();
        for (int64_t k = 0; k < k_len; ++k)
            std::memcpy(w.data() + static_cast<std::size_t>(k * total + col) * esize,
                        bytes + static_cast<std::size_t>(k * n) * esize, static_cast<std::size_t>(n) * esize);
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
            auto bytes = column_bytes(columns_of(u, u->inputs[i]), u->result.lens.back());
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
