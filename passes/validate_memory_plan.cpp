// An independent check of a memory plan. It shares no code with the planner: it works out
// from the module itself which values need arena space and how long they live, then checks
// the plan against that.
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "passes/fusion.hpp"
#include "passes/memory_plan.hpp"

#include <algorithm>
#include <climits>
#include <functional>
#include <map>
#include <set>

namespace mxc {
namespace {

struct expected_buffer {
    int64_t bytes;
    int first, last;
};

bool is_view(const instruction& ins) { return !ins.is_builtin() && get_op(ins.op).is_view; }

// Follows views down to the instruction that owns the memory.
const instruction* owner(const instruction* ins) {
    while (is_view(*ins)) ins = ins->inputs.at(0);
    return ins;
}

std::map<const instruction*, expected_buffer> expected_buffers(const module& m) {
    std::map<const instruction*, int> index;
    int n = 0;
    for (auto& ins : m.instructions) index[&ins] = n++;
    auto outs = m.outputs();
    std::set<const instruction*> outputs(outs.begin(), outs.end());

    std::map<const instruction*, expected_buffer> r;
    for (auto& ins : m.instructions)
        if (!ins.is_builtin() && !is_view(ins) && !outputs.count(&ins))
            r[&ins] = {ins.result.bytes(), index[&ins], index[&ins]};
    // Any use of a value (directly or through views of it) keeps its owner's buffer alive.
    for (auto& ins : m.instructions)
        for (auto* in : ins.inputs) {
            auto it = r.find(owner(in));
            if (it != r.end()) it->second.last = std::max(it->second.last, index[&ins]);
        }
    return r;
}

std::string describe_at(const instruction* ins, int index) {
    if (index < 0) return "an instruction outside the module";
    return "instruction " + std::to_string(index) + " (" + ins->op + (ins->origin.empty() ? "" : ", " + ins->origin) + ")";
}

} // namespace

void validate_memory_plan(const module& m, const memory_plan& p) {
    auto fail = [&](const std::string& what) { throw error("memory plan of module '" + m.name + "': " + what); };
    if (p.alignment <= 0) fail("alignment " + std::to_string(p.alignment) + " is not positive");
    if (p.arena_bytes < 0 || p.arena_bytes % p.alignment != 0)
        fail("arena_bytes " + std::to_string(p.arena_bytes) + " is not a multiple of the alignment");

    auto expected = expected_buffers(m);
    std::map<const instruction*, int> index;
    for (auto& ins : m.instructions) index.emplace(&ins, static_cast<int>(index.size()));
    auto describe = [&](const instruction* ins) {
        auto it = index.find(ins);
        return describe_at(ins, it == index.end() ? -1 : it->second);
    };
    std::set<const instruction*> seen;
    int64_t naive = 0;
    for (auto& b : p.buffers) {
        auto it = expected.find(b.ins);
        auto what = describe(b.ins);
        if (it == expected.end()) fail(what + " has a buffer but needs none");
        if (!seen.insert(b.ins).second) fail(what + " has two buffers");
        auto& e = it->second;
        if (b.bytes != e.bytes) fail(what + " has " + std::to_string(b.bytes) + " bytes, needs " + std::to_string(e.bytes));
        if (b.first != e.first || b.last != e.last)
            fail(what + " lives [" + std::to_string(b.first) + ", " + std::to_string(b.last) + "], should live [" +
                 std::to_string(e.first) + ", " + std::to_string(e.last) + "]");
        if (b.offset < 0 || b.offset % p.alignment != 0)
            fail(what + " is at offset " + std::to_string(b.offset) + ", not a multiple of " + std::to_string(p.alignment));
        if (b.offset + b.bytes > p.arena_bytes)
            fail(what + " ends at " + std::to_string(b.offset + b.bytes) + ", past the arena's " + std::to_string(p.arena_bytes) +
                 " bytes");
        naive += (b.bytes + p.alignment - 1) / p.alignment * p.alignment;
    }
    for (auto& [ins, e] : expected)
        if (!seen.count(ins)) fail(describe(ins) + " has no buffer");

    // Sharing decisions, each checked against the module on its own.
    std::map<const instruction*, const buffer_plan*> plan_of;
    for (auto& b : p.buffers) plan_of[b.ins] = &b;
    const int n = static_cast<int>(p.buffers.size());
    auto partner = [&](const buffer_plan& b, int i, const char* what) -> const buffer_plan& {
        if (i < 0 || i >= n || &p.buffers[static_cast<std::size_t>(i)] == &b)
            fail(describe(b.ins) + ": " + what + " " + std::to_string(i) + " is not another buffer of the plan");
        return p.buffers[static_cast<std::size_t>(i)];
    };
    for (auto& y : p.buffers) {
        auto what = describe(y.ins);
        if (y.in_place_of >= 0) {
            auto& x = partner(y, y.in_place_of, "in_place_of");
            auto why = what + " in place of " + describe(x.ins) + ": ";
            auto& ins = *y.ins;
            // Elementwise kernels may overwrite any input; fused convolutions / transposed
            // convolutions / products only their epilogue inputs (from 2 on).
            bool elementwise = ins.op == "pointwise" || (!get_op(ins.op).pointwise_expr.empty() && ins.op != "convert");
            bool epilogue = has_epilogue_inputs(ins.op);
            if (!elementwise && !epilogue) fail(why + "not an elementwise kernel");
            auto from = ins.inputs.begin() + (epilogue ? std::min<std::ptrdiff_t>(2, std::ssize(ins.inputs)) : 0);
            if (std::find(from, ins.inputs.end(), x.ins) == ins.inputs.end())
                fail(why + (epilogue ? "not a direct epilogue input" : "not a direct input"));
            if (x.ins->result.type != ins.result.type || x.bytes != y.bytes || !x.ins->result.standard() || !ins.result.standard())
                fail(why + "different dtype, size or layout");
            if (x.last != y.first) fail(why + "the input is still used after instruction " + std::to_string(y.first));
            if (x.offset != y.offset) fail(why + "offsets " + std::to_string(x.offset) + " and " + std::to_string(y.offset) + " differ");
            for (auto* j : ins.inputs)
                if (j != x.ins && owner(j) == x.ins) fail(why + "another input reads the same buffer through a view");
            if (epilogue && (ins.inputs.at(0) == x.ins || ins.inputs.at(1) == x.ins))
                fail(why + "the product reads the buffer it overwrites");
        }
        if (y.slice_of >= 0) {
            auto& c = partner(y, y.slice_of, "slice_of");
            auto why = what + " as a slice of " + describe(c.ins) + ": ";
            auto& concat = *c.ins;
            if (concat.op != "concat") fail(why + "not a concat");
            auto at = std::find(concat.inputs.begin(), concat.inputs.end(), y.ins);
            if (at == concat.inputs.end()) fail(why + "not a direct input of it");
            int64_t offset = 0;
            for (auto it = concat.inputs.begin(); it != at; ++it) offset += (*it)->result.bytes();
            if (y.slice_offset != offset) fail(why + "slice offset " + std::to_string(y.slice_offset) + ", should be " + std::to_string(offset));
            auto axis = static_cast<std::size_t>(concat.attrs.get_int("axis"));
            for (std::size_t d = 0; d < axis; ++d)
                if (concat.result.lens[d] != 1) fail(why + "the slice is not contiguous (dim " + std::to_string(d) + " before the axis is not 1)");
            if (!concat.result.standard() || !y.ins->result.standard()) fail(why + "not packed");
            if (y.offset != c.offset + y.slice_offset)
                fail(why + "offset " + std::to_string(y.offset) + ", should be " + std::to_string(c.offset + y.slice_offset));
        }
    }
    // a lies inside b's storage as (a slice of)* a slice of b.
    auto inside = [&](const buffer_plan* a, const buffer_plan* b) {
        for (int steps = 0; a->slice_of >= 0 && steps <= n; ++steps) {
            a = &p.buffers[static_cast<std::size_t>(a->slice_of)];
            if (a == b) return true;
        }
        return false;
    };
    auto shares = [&](const buffer_plan* a, const buffer_plan* b) {
        auto self = [&](const buffer_plan* x) { return static_cast<int>(x - p.buffers.data()); };
        return a->in_place_of == self(b) || b->in_place_of == self(a) || inside(a, b) || inside(b, a);
    };

    // Overlap: walk the buffers by start; each is checked against the later-starting ones
    // that begin before it ends. Overlapping bytes are allowed only between a buffer and the
    // input it overwrites in place, or a concat and its slices.
    std::vector<const buffer_plan*> by_first;
    for (auto& b : p.buffers) by_first.push_back(&b);
    std::sort(by_first.begin(), by_first.end(), [](auto* a, auto* b) { return a->first < b->first; });
    for (std::size_t i = 0; i < by_first.size(); ++i) {
        auto* a = by_first[i];
        for (std::size_t j = i + 1; j < by_first.size() && by_first[j]->first <= a->last; ++j) {
            auto* b = by_first[j];
            bool disjoint = a->offset + a->bytes <= b->offset || b->offset + b->bytes <= a->offset;
            if (!disjoint && a->bytes > 0 && b->bytes > 0 && !shares(a, b))
                fail("the buffers of " + describe(a->ins) + " [" + std::to_string(a->offset) + ", " +
                     std::to_string(a->offset + a->bytes) + ") and " + describe(b->ins) + " [" +
                     std::to_string(b->offset) + ", " + std::to_string(b->offset + b->bytes) +
                     ") overlap while both live at instruction " + std::to_string(b->first));
        }
    }

    if (p.naive_bytes != naive) fail("naive_bytes is " + std::to_string(p.naive_bytes) + ", should be " + std::to_string(naive));
    // Lower bound: the blocks (buffers joined by sharing) live at each instruction; a block
    // spans its members' bytes and intervals.
    std::vector<int> group(p.buffers.size());
    for (std::size_t i = 0; i < group.size(); ++i) group[i] = static_cast<int>(i);
    std::function<int(int)> find_group = [&](int i) {
        auto u = static_cast<std::size_t>(i);
        return group[u] == i ? i : group[u] = find_group(group[u]);
    };
    for (std::size_t i = 0; i < group.size(); ++i)
        for (int other : {p.buffers[i].in_place_of, p.buffers[i].slice_of})
            if (other >= 0) group[static_cast<std::size_t>(find_group(other))] = find_group(static_cast<int>(i));
    struct span { int64_t lo = INT64_MAX, hi = 0; int first = INT32_MAX, last = 0; };
    std::map<int, span> spans;
    for (std::size_t i = 0; i < group.size(); ++i) {
        auto& b = p.buffers[i];
        auto& s = spans[find_group(static_cast<int>(i))];
        s.lo = std::min(s.lo, b.offset);
        s.hi = std::max(s.hi, b.offset + b.bytes);
        s.first = std::min(s.first, b.first);
        s.last = std::max(s.last, b.last);
    }
    std::map<int, int64_t> live_change;
    for (auto& [g, s] : spans) {
        int64_t bytes = (s.hi - s.lo + p.alignment - 1) / p.alignment * p.alignment;
        live_change[s.first] += bytes;
        live_change[s.last + 1] -= bytes;
    }
    int64_t live = 0, most = 0;
    for (auto& [i, d] : live_change) most = std::max(most, live += d);
    if (p.lower_bound_bytes != most)
        fail("lower_bound_bytes is " + std::to_string(p.lower_bound_bytes) + ", should be " + std::to_string(most));
    if (p.arena_bytes < most) fail("arena_bytes " + std::to_string(p.arena_bytes) + " is below the lower bound " + std::to_string(most));
}

} // namespace mxc
