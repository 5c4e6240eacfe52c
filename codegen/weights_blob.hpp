// What the passes that re-lay constant weights in the lowered module's blob share
// (channels_last_weights.cpp, dot_weights_strips.cpp): who reads which bytes, whether only the
// kernels being changed do, and writing the new layout in place or appended.
#pragma once
#include "codegen/lower.hpp"

#include <cstdint>
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

} // namespace mxc
