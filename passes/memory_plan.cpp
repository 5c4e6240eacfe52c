// The memory planner (see memory_plan.hpp for what is a buffer and its interval).
//
// Interval graph colouring with sizes, greedy best fit: buffers are placed largest first (ties:
// earliest interval first, then instruction order); each goes into the smallest gap between
// the already-placed buffers it conflicts with that fits it (lowest such gap on a tie), or on
// top of them when no gap fits. All sizes are rounded up to the alignment, so every offset is
// a multiple of it.
#include "passes/memory_plan.hpp"
#include "ir/op.hpp"

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace mxc {
namespace {

int64_t align_up(int64_t n, int64_t a) { return (n + a - 1) / a * a; }

// The buffers of a module with their intervals, in instruction order (offsets still 0).
std::vector<buffer_plan> find_buffers(const module& m) {
    std::vector<buffer_plan> buffers;
    std::unordered_map<const instruction*, std::size_t> buffer_of; // the buffer a value lives in
    auto outputs = m.outputs();
    int index = 0;
    for (auto& ins : m.instructions) {
        for (auto* in : ins.inputs) {
            auto b = buffer_of.find(in);
            if (b != buffer_of.end()) buffers[b->second].last = index;
        }
        if (ins.is_builtin()) {
            // params, literals and @return take no arena
        } else if (get_op(ins.op).is_view) {
            auto root = buffer_of.find(ins.inputs.at(0));
            if (root != buffer_of.end()) buffer_of[&ins] = root->second;
        } else if (std::find(outputs.begin(), outputs.end(), &ins) == outputs.end()) {
            buffer_of[&ins] = buffers.size();
            buffers.push_back(buffer_plan{&ins, ins.result.bytes(), index, index, 0});
        }
        ++index;
    }
    return buffers;
}

struct placed {
    int64_t offset, end;
    int first, last;
};

// Best fit among the placed buffers (sorted by offset) whose intervals overlap b's.
int64_t best_offset(const std::vector<placed>& by_offset, const buffer_plan& b, int64_t size) {
    int64_t best = -1, best_gap = 0, top = 0;
    for (auto& p : by_offset) {
        if (p.last < b.first || b.last < p.first) continue;
        int64_t gap = p.offset - top;
        if (gap >= size && (best < 0 || gap < best_gap)) {
            best = top;
            best_gap = gap;
        }
        top = std::max(top, p.end);
    }
    return best >= 0 ? best : top;
}

} // namespace

const buffer_plan* memory_plan::find(const instruction* ins) const {
    for (auto& b : buffers)
        if (b.ins == ins) return &b;
    return nullptr;
}

memory_plan plan_memory(const module& m, int64_t alignment) {
    memory_plan plan;
    plan.alignment = alignment;
    plan.buffers = find_buffers(m);
    auto& bufs = plan.buffers;
    auto size = [&](std::size_t i) { return align_up(bufs[i].bytes, alignment); };

    std::vector<std::size_t> order(bufs.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        if (size(a) != size(b)) return size(a) > size(b);
        return bufs[a].first < bufs[b].first; // stable: instruction order on a full tie
    });

    std::vector<placed> by_offset;
    for (auto i : order) {
        auto& b = bufs[i];
        b.offset = size(i) == 0 ? 0 : best_offset(by_offset, b, size(i));
        placed p{b.offset, b.offset + size(i), b.first, b.last};
        auto pos = std::upper_bound(by_offset.begin(), by_offset.end(), p,
                                    [](const placed& x, const placed& y) { return x.offset < y.offset; });
        by_offset.insert(pos, p);
        plan.arena_bytes = std::max(plan.arena_bytes, p.end);
        plan.naive_bytes += size(i);
    }

    // Lower bound: the most aligned bytes live at one instruction (a sweep over interval ends).
    std::vector<int64_t> delta(m.instructions.size() + 1, 0);
    for (std::size_t i = 0; i < bufs.size(); ++i) {
        delta[static_cast<std::size_t>(bufs[i].first)] += size(i);
        delta[static_cast<std::size_t>(bufs[i].last) + 1] -= size(i);
    }
    int64_t live = 0;
    for (auto d : delta) plan.lower_bound_bytes = std::max(plan.lower_bound_bytes, live += d);
    return plan;
}

} // namespace mxc
