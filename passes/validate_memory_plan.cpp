// An independent check of a memory plan. It shares no code with the planner: it works out
// from the module itself which values need arena space and how long they live, then checks
// the plan against that.
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "passes/memory_plan.hpp"

#include <algorithm>
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

    // Overlap: walk the buffers by start; each is checked against the later-starting ones
    // that begin before it ends.
    std::vector<const buffer_plan*> by_first;
    for (auto& b : p.buffers) by_first.push_back(&b);
    std::sort(by_first.begin(), by_first.end(), [](auto* a, auto* b) { return a->first < b->first; });
    for (std::size_t i = 0; i < by_first.size(); ++i) {
        auto* a = by_first[i];
        for (std::size_t j = i + 1; j < by_first.size() && by_first[j]->first <= a->last; ++j) {
            auto* b = by_first[j];
            bool disjoint = a->offset + a->bytes <= b->offset || b->offset + b->bytes <= a->offset;
            if (!disjoint && a->bytes > 0 && b->bytes > 0)
                fail("the buffers of " + describe(a->ins) + " [" + std::to_string(a->offset) + ", " +
                     std::to_string(a->offset + a->bytes) + ") and " + describe(b->ins) + " [" +
                     std::to_string(b->offset) + ", " + std::to_string(b->offset + b->bytes) +
                     ") overlap while both live at instruction " + std::to_string(b->first));
        }
    }

    if (p.naive_bytes != naive) fail("naive_bytes is " + std::to_string(p.naive_bytes) + ", should be " + std::to_string(naive));
    std::map<int, int64_t> live_change;
    for (auto& b : p.buffers) {
        int64_t s = (b.bytes + p.alignment - 1) / p.alignment * p.alignment;
        live_change[b.first] += s;
        live_change[b.last + 1] -= s;
    }
    int64_t live = 0, most = 0;
    for (auto& [i, d] : live_change) most = std::max(most, live += d);
    if (p.lower_bound_bytes != most)
        fail("lower_bound_bytes is " + std::to_string(p.lower_bound_bytes) + ", should be " + std::to_string(most));
    if (p.arena_bytes < most) fail("arena_bytes " + std::to_string(p.arena_bytes) + " is below the lower bound " + std::to_string(most));
}

} // namespace mxc
