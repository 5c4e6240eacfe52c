// The memory planner (see memory_plan.hpp for what is a buffer, its interval and a block).
//
// 1. Buffers and their intervals on the final instruction order; storage sharing decided by
//    share_memory (memory_sharing.cpp) groups them into blocks.
// 2. Interval graph colouring with sizes: blocks are placed one by one, each into the
//    smallest gap between the already-placed blocks it conflicts with that fits it (lowest
//    such gap on a tie), or on top of them. Several orders are tried (largest first; most
//    constrained first: the most bytes live around it; longest interval first; largest
//    size x length first) and the smallest arena is kept.
// 3. Improvement: a hill climb on the order. A block that touches the top of the arena moves
//    earlier in the order and everything is placed again; the new plan is kept if its arena
//    is not larger. It stops at the lower bound or after a fixed amount of work (never a
//    clock), so the plan is deterministic.
// Sizes are rounded up to the alignment, so every offset is a multiple of it.
#include "passes/memory_plan.hpp"
#include "ir/op.hpp"
#include "passes/live_profile.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <random>
#include <unordered_map>

namespace mxc {
namespace {

int64_t align_up(int64_t n, int64_t a) { return (n + a - 1) / a * a; }

struct block {
    int64_t size;
    int first, last;
};

// The blocks of the shared buffers: every buffer's block and its byte position inside it.
struct block_map {
    std::vector<block> blocks;
    std::vector<int> block_of;  // per buffer
    std::vector<int64_t> pos;   // per buffer, bytes from its block's start
};

block_map make_blocks(const std::vector<buffer_plan>& bufs, int64_t alignment) {
    // Resolve each buffer to the buffer it shares storage with (in_place_of / slice_of point
    // to earlier-decided partners; follow them to a buffer that shares with nobody).
    const std::size_t n = bufs.size();
    std::vector<int> parent(n, -1);
    std::vector<int64_t> delta(n, 0); // position relative to the parent
    // in_place_of: same position as the input; slice_of: at slice_offset inside the concat.
    // A buffer can be both a slice (of a concat) and in place of an input: then the input
    // hangs under this buffer instead (its position = this buffer's position).
    for (std::size_t i = 0; i < n; ++i)
        if (bufs[i].slice_of >= 0) {
            parent[i] = bufs[i].slice_of;
            delta[i] = bufs[i].slice_offset;
        }
    for (std::size_t i = 0; i < n; ++i)
        if (bufs[i].in_place_of >= 0) {
            auto x = static_cast<std::size_t>(bufs[i].in_place_of);
            parent[x] = static_cast<int>(i);
            delta[x] = 0;
        }
    block_map bm;
    bm.block_of.assign(n, -1);
    bm.pos.assign(n, 0);
    std::vector<int> root(n);
    std::function<void(std::size_t)> resolve = [&](std::size_t i) {
        if (bm.block_of[i] == -2) return; // resolving: cannot happen for the planner's decisions
        if (bm.block_of[i] != -1) return;
        if (parent[i] < 0) {
            root[i] = static_cast<int>(i);
            bm.block_of[i] = 0;
            return;
        }
        bm.block_of[i] = -2;
        auto p = static_cast<std::size_t>(parent[i]);
        resolve(p);
        root[i] = root[p];
        bm.pos[i] = bm.pos[p] + delta[i];
        bm.block_of[i] = 0;
    };
    for (std::size_t i = 0; i < n; ++i) resolve(i);
    std::unordered_map<int, int> index_of_root;
    for (std::size_t i = 0; i < n; ++i) {
        auto [it, fresh] = index_of_root.emplace(root[i], static_cast<int>(bm.blocks.size()));
        if (fresh) bm.blocks.push_back({0, bufs[i].first, bufs[i].last});
        auto& b = bm.blocks[static_cast<std::size_t>(it->second)];
        b.size = std::max(b.size, align_up(bm.pos[i] + bufs[i].bytes, alignment));
        b.first = std::min(b.first, bufs[i].first);
        b.last = std::max(b.last, bufs[i].last);
        bm.block_of[i] = it->second;
    }
    return bm;
}

struct placed {
    int64_t offset, end;
    int first, last;
};

// Best fit among the placed blocks (sorted by offset) whose intervals overlap b's.
int64_t best_offset(const std::vector<placed>& by_offset, const block& b) {
    int64_t best = -1, best_gap = 0, top = 0;
    for (auto& p : by_offset) {
        if (p.last < b.first || b.last < p.first) continue;
        int64_t gap = p.offset - top;
        if (gap >= b.size && (best < 0 || gap < best_gap)) {
            best = top;
            best_gap = gap;
        }
        top = std::max(top, p.end);
    }
    return best >= 0 ? best : top;
}

// Places the blocks in `order`; returns the arena size and fills `offsets`.
int64_t place(const std::vector<block>& blocks, const std::vector<int>& order, std::vector<int64_t>& offsets) {
    std::vector<placed> by_offset;
    by_offset.reserve(blocks.size());
    offsets.assign(blocks.size(), 0);
    int64_t arena = 0;
    for (int i : order) {
        auto& b = blocks[static_cast<std::size_t>(i)];
        if (b.size == 0) continue;
        int64_t off = best_offset(by_offset, b);
        offsets[static_cast<std::size_t>(i)] = off;
        placed p{off, off + b.size, b.first, b.last};
        auto at = std::upper_bound(by_offset.begin(), by_offset.end(), p,
                                   [](const placed& x, const placed& y) { return x.offset < y.offset; });
        by_offset.insert(at, p);
        arena = std::max(arena, p.end);
    }
    return arena;
}

std::vector<int> sorted_order(std::size_t n, const std::function<bool(int, int)>& before) {
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), before);
    return order;
}

} // namespace

const buffer_plan* memory_plan::find(const instruction* ins) const {
    for (auto& b : buffers)
        if (b.ins == ins) return &b;
    return nullptr;
}

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
            buffer_plan b;
            b.ins = &ins;
            b.bytes = ins.result.bytes();
            b.first = b.last = index;
            buffers.push_back(b);
        }
        ++index;
    }
    return buffers;
}

memory_plan plan_memory(const module& m, int64_t alignment) {
    plan_options o;
    o.alignment = alignment;
    return plan_memory(m, o);
}

memory_plan plan_memory(const module& m, const plan_options& o) {
    memory_plan plan;
    plan.alignment = o.alignment;
    plan.buffers = find_buffers(m);
    auto& bufs = plan.buffers;
    if (o.share) share_memory(m, bufs, o.alignment);
    for (auto& b : bufs) plan.naive_bytes += align_up(b.bytes, o.alignment);

    block_map bm = make_blocks(bufs, o.alignment);
    const auto& blocks = bm.blocks;
    live_profile live(static_cast<int>(m.instructions.size()));
    for (auto& b : blocks) live.add(b.first, b.last, b.size);
    plan.lower_bound_bytes = blocks.empty() ? 0 : live.max();

    // Candidate orders; ties keep the earlier-starting block first.
    auto by = [&](auto key) {
        return sorted_order(blocks.size(), [&, key](int a, int b) {
            auto ka = key(blocks[static_cast<std::size_t>(a)]), kb = key(blocks[static_cast<std::size_t>(b)]);
            if (ka != kb) return ka > kb;
            return blocks[static_cast<std::size_t>(a)].first < blocks[static_cast<std::size_t>(b)].first;
        });
    };
    using key_t = std::pair<int64_t, int64_t>;
    // One placement scans the placed blocks for each block (n^2 / 2 steps): past a few
    // thousand blocks only the first order is tried and the hill climb is skipped.
    const int64_t n = static_cast<int64_t>(blocks.size());
    const bool large = n > 3000;
    std::vector<std::vector<int>> orders = {by([](const block& b) { return key_t{b.size, 0}; })};
    if (!large) {
        orders.push_back(by([&](const block& b) { return key_t{live.max(b.first, b.last), b.size}; }));
        orders.push_back(by([](const block& b) { return key_t{b.last - b.first, b.size}; }));
        orders.push_back(by([](const block& b) { return key_t{b.size * (b.last - b.first + 1), b.size}; }));
    }
    std::vector<int64_t> offsets, best_offsets;
    std::vector<int> best_order;
    int64_t best = -1;
    for (auto& order : orders) {
        int64_t arena = place(blocks, order, offsets);
        if (best < 0 || arena < best) {
            best = arena;
            best_order = order;
            best_offsets = offsets;
        }
    }

    // Hill climb: at most 400 rounds and about 5e8 gap-scan steps (n^2 / 2 per placement).
    if (o.improve && !large && best > plan.lower_bound_bytes) {
        const int64_t rounds = std::min<int64_t>(400, 1'000'000'000 / std::max<int64_t>(1, n * n));
        std::mt19937 rng(12345); // fixed seed: deterministic
        std::vector<int> order;
        for (int64_t r = 0; r < rounds && best > plan.lower_bound_bytes; ++r) {
            std::vector<int> top;
            for (std::size_t i = 0; i < blocks.size(); ++i)
                if (blocks[i].size > 0 && best_offsets[i] + blocks[i].size == best) top.push_back(static_cast<int>(i));
            int t = top[rng() % top.size()];
            order = best_order;
            auto at = std::find(order.begin(), order.end(), t);
            auto k = at - order.begin();
            if (k == 0) continue;
            auto to = order.begin() + static_cast<std::ptrdiff_t>(rng() % static_cast<uint32_t>(k));
            std::rotate(to, at, at + 1);
            int64_t arena = place(blocks, order, offsets);
            if (arena <= best) {
                best = arena;
                best_order = order;
                best_offsets = offsets;
            }
        }
    }

    plan.arena_bytes = std::max<int64_t>(best, 0);
    for (std::size_t i = 0; i < bufs.size(); ++i)
        bufs[i].offset = best_offsets.empty() ? 0 : best_offsets[static_cast<std::size_t>(bm.block_of[i])] + bm.pos[i];
    return plan;
}

} // namespace mxc
