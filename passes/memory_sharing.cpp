// Storage sharing for the memory planner: fewer, larger-lived blocks instead of one slot per
// buffer, decided before placement (memory_plan.hpp says what a block is).
//
// 1. Concat slices. A concat input y that is a kernel result of its own (not a view, param,
//    literal or output) is written straight into its slice of the concat's output when the
//    slice is contiguous (every dim of the output before the axis is 1: channel concat at
//    batch 1; producers write packed outputs) and starts at an aligned byte offset. Then the
//    concat copies nothing. Only the first use of y in a concat gets a slice.
// 2. In-place pointwise. A pointwise kernel Y (also a fused one, or the epilogue input of a
//    fused convolution / dot product: the residual of a ResNet block) writes over an input X
//    (directly, not through a view) when X is its own block root, has Y's dtype and bytes, dies at Y (X's last use is Y
//    and every other member of X's block died before Y), and no other input of Y reads X's
//    storage (through a view, or as the convolution's x or w). Kernels read and write the same
//    element index, so out == in is safe (templates/{cpu,hip}/pointwise.hpp and fused.hpp).
//
// Every decision merges two blocks: it is kept only if the most bytes live at any instruction
// (the lower bound of the plan) does not grow. An in-place merge of two blocks of one size
// never grows it; a concat slice can (the concat's whole output then lives from y's
// definition), which the check refuses.
#include "ir/op.hpp"
#include "passes/fusion.hpp"
#include "passes/live_profile.hpp"
#include "passes/memory_plan.hpp"

#include <algorithm>
#include <unordered_map>

namespace mxc {
namespace {

int64_t align_up(int64_t n, int64_t a) { return (n + a - 1) / a * a; }

const instruction* owner(const instruction* ins) {
    while (!ins->is_builtin() && get_op(ins->op).is_view) ins = ins->inputs.at(0);
    return ins;
}

// Blocks during the decisions: each buffer has a root and a byte position inside the root's
// storage; every member lies inside its root's bytes.
struct blocks {
    std::vector<buffer_plan>& bufs;
    int64_t alignment;
    live_profile live;
    std::vector<int> root;
    std::vector<int64_t> pos;
    std::vector<std::vector<int>> members; // of each root
    std::vector<int> first, last;          // of each root: the block's interval

    blocks(std::vector<buffer_plan>& b, int64_t a, int instructions)
        : bufs(b), alignment(a), live(instructions), root(b.size()), pos(b.size(), 0), members(b.size()),
          first(b.size()), last(b.size()) {
        for (std::size_t i = 0; i < b.size(); ++i) {
            root[i] = static_cast<int>(i);
            members[i] = {static_cast<int>(i)};
            first[i] = b[i].first;
            last[i] = b[i].last;
            live.add(first[i], last[i], size(static_cast<int>(i)));
        }
    }

    int64_t size(int r) const { return align_up(bufs[static_cast<std::size_t>(r)].bytes, alignment); }

    // Moves the block of root `a` into the block of root `b` so that a's root sits at byte
    // `at` of b's root, if that does not raise the peak of live bytes. Returns whether it did.
    bool merge(int a, int b, int64_t at) {
        auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
        int64_t peak = live.max();
        int f = std::min(first[ua], first[ub]), l = std::max(last[ua], last[ub]);
        live.add(first[ua], last[ua], -size(a));
        live.add(first[ub], last[ub], -size(b));
        live.add(f, l, size(b));
        if (live.max() > peak) {
            live.add(f, l, -size(b));
            live.add(first[ub], last[ub], size(b));
            live.add(first[ua], last[ua], size(a));
            return false;
        }
        for (int m : members[ua]) {
            root[static_cast<std::size_t>(m)] = b;
            pos[static_cast<std::size_t>(m)] += at;
            members[ub].push_back(m);
        }
        members[ua].clear();
        first[ub] = f;
        last[ub] = l;
        return true;
    }
};

bool contiguous_slices(const instruction& concat) {
    auto axis = static_cast<std::size_t>(concat.attrs.get_int("axis"));
    const auto& lens = concat.result.lens;
    return concat.result.standard() && std::all_of(lens.begin(), lens.begin() + static_cast<std::ptrdiff_t>(axis),
                                                   [](int64_t d) { return d == 1; });
}

// The first input a kernel may overwrite, or -1: elementwise kernels (each output element
// is computed from the inputs at that element only, then stored) over any input; fused
// convolutions / transposed convolutions / products over their epilogue inputs (2, 3, ...),
// never x or w.
int first_overwritable_input(const instruction& ins) {
    if (ins.is_builtin()) return -1;
    if (has_epilogue_inputs(ins.op)) return 2;
    if (ins.op == "pointwise" || (!get_op(ins.op).pointwise_expr.empty() && ins.op != "convert")) return 0;
    return -1;
}

} // namespace

void share_memory(const module& m, std::vector<buffer_plan>& bufs, int64_t alignment) {
    std::unordered_map<const instruction*, int> buffer_of;
    for (std::size_t i = 0; i < bufs.size(); ++i) buffer_of[bufs[i].ins] = static_cast<int>(i);
    auto find = [&](const instruction* ins) {
        auto it = buffer_of.find(ins);
        return it == buffer_of.end() ? -1 : it->second;
    };
    blocks bl(bufs, alignment, static_cast<int>(m.instructions.size()));

    for (std::size_t c = 0; c < bufs.size(); ++c) {
        const instruction& concat = *bufs[c].ins;
        if (concat.op != "concat" || !contiguous_slices(concat)) continue;
        int64_t offset = 0;
        std::vector<int> used;
        for (auto* in : concat.inputs) {
            int y = find(in);
            int64_t slice = in->result.bytes();
            bool fits = y >= 0 && bl.root[static_cast<std::size_t>(y)] == y && std::find(used.begin(), used.end(), y) == used.end() &&
                        offset % alignment == 0 && in->result.standard();
            if (fits) {
                int r = bl.root[c];
                if (bl.merge(y, r, bl.pos[c] + offset)) {
                    bufs[static_cast<std::size_t>(y)].slice_of = static_cast<int>(c);
                    bufs[static_cast<std::size_t>(y)].slice_offset = offset;
                }
                used.push_back(y);
            }
            offset += slice;
        }
    }

    for (std::size_t y = 0; y < bufs.size(); ++y) {
        const instruction& ins = *bufs[y].ins;
        int from = first_overwritable_input(ins);
        if (from < 0 || !ins.result.standard()) continue;
        for (std::size_t k = static_cast<std::size_t>(from); k < ins.inputs.size(); ++k) {
            auto* in = ins.inputs[k];
            int x = find(in);
            if (x < 0 || bl.root[static_cast<std::size_t>(x)] != x) continue;
            auto ux = static_cast<std::size_t>(x);
            if (in->result.type != ins.result.type || bufs[ux].bytes != bufs[y].bytes || !in->result.standard()) continue;
            if (bufs[ux].last != bufs[y].first) continue;
            bool dead = std::all_of(bl.members[ux].begin(), bl.members[ux].end(), [&](int mm) {
                return mm == x || bufs[static_cast<std::size_t>(mm)].last < bufs[y].first;
            });
            bool read_otherwise = false; // another input (or x / w of a product) reads X's storage
            for (std::size_t j = 0; j < ins.inputs.size(); ++j) {
                int o = find(owner(ins.inputs[j]));
                bool same_element = ins.inputs[j] == in && j >= static_cast<std::size_t>(from);
                if (o >= 0 && bl.root[static_cast<std::size_t>(o)] == x && !same_element) read_otherwise = true;
            }
            if (!dead || read_otherwise) continue;
            if (bl.merge(x, bl.root[y], bl.pos[y])) {
                bufs[y].in_place_of = x;
                break;
            }
        }
    }
}

} // namespace mxc
