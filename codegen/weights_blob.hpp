// What the passes that re-lay constant weights in the lowered module's blob share
// (channels_last_weights.cpp, dot_weights_strips.cpp): who reads which bytes, whether only the
// kernels being changed do, and writing the new layout in place or appended.
#pragma once
#include "codegen/lower.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mxc {

// A kernel input read from the weights blob: bytes [begin, end).
struct weights_use {
    std::size_t kernel, input;
    int64_t begin, end;
};

// Every kernel input read from the blob.
std::vector<weights_use> weights_uses(const lowered_module& l);

// Whether every reader of bytes [begin, end) is one of `kernels` reading them as its input 1
// from `begin`, and `same` (of that kernel) holds: then the bytes may be rewritten in place.
template <class F>
bool only_readers(const std::vector<weights_use>& uses, int64_t begin, int64_t end, const std::vector<std::size_t>& kernels,
                  const lowered_module& l, F same) {
    for (const weights_use& u : uses) {
        if (u.end <= begin || u.begin >= end) continue;
        bool listed = false;
        for (std::size_t i : kernels) listed |= u.kernel == i;
        if (!listed || u.input != 1 || u.begin != begin || !same(l.kernels[u.kernel])) return false;
    }
    return true;
}

// Writes `bytes` over the blob at `begin` (in_place: they replace as many bytes there), else
// appends them at the next weights_alignment (padded to it); returns where they are.
int64_t store_weights(lowered_module& l, int64_t begin, const std::string& bytes, bool in_place);

// A re-layout pass: the kernels whose input 1 is in the blob and for which key(k) is not Key{}
// are taken by the offset of that input; for each offset, relayout(first kernel, its key, the
// bytes there) gives the new layout, stored in place where it is as long as the old bytes and
// no other reader (another kernel, another key) reads them, else appended; then mark(k, offset)
// for every kernel with the same key and type. Returns the number of weight tensors stored.
template <class Key, class KeyOf, class Relayout, class Mark>
int relayout_weights(lowered_module& l, KeyOf key_of, Relayout relayout, Mark mark) {
    const std::vector<weights_use> uses = weights_uses(l);
    std::map<int64_t, std::vector<std::size_t>> wanted; // the candidates by the offset of their input 1
    for (std::size_t i = 0; i < l.kernels.size(); ++i)
        if (!(key_of(l.kernels[i]) == Key{})) wanted[l.kernels[i].in[1].offset].push_back(i);
    int stored = 0;
    for (auto& [begin, kernels] : wanted) {
        const kernel_call& first = l.kernels[kernels[0]];
        const Key key = key_of(first);
        const dtype t = first.type;
        int64_t end = begin;
        for (const weights_use& u : uses)
            if (u.kernel == kernels[0] && u.input == 1) end = u.end;
        auto same = [&](const kernel_call& k) { return k.type == t && key_of(k) == key; };
        const std::string bytes = relayout(first, key, l.weights.data() + begin);
        const bool alone = static_cast<int64_t>(bytes.size()) == end - begin && only_readers(uses, begin, end, kernels, l, same);
        const int64_t at = store_weights(l, begin, bytes, alone);
        for (std::size_t i : kernels)
            if (same(l.kernels[i])) mark(l.kernels[i], at); // (another view of the same bytes stays as it is)
        ++stored;
    }
    return stored;
}

} // namespace mxc
