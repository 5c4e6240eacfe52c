// weights_uses, store_weights (codegen/weights_blob.hpp).
#include "codegen/weights_blob.hpp"
#include "ir/dtype.hpp"

namespace mxc {

namespace {
int64_t align_to(int64_t n, int64_t a) { return (n + a - 1) / a * a; }
} // namespace

std::vector<weights_use> weights_uses(const lowered_module& l) {
    std::vector<weights_use> uses;
    for (std::size_t i = 0; i < l.kernels.size(); ++i) {
        const kernel_call& k = l.kernels[i];
        for (std::size_t j = 0; j < k.in.size() && j < k.in_shapes.size(); ++j)
            if (k.in[j].kind == location::weights) {
                const shape& s = k.in_shapes[j];
                const int64_t span = s.elements() == 0 ? 0 : s.element_space() * static_cast<int64_t>(dtype_size(s.type));
                uses.push_back({i, j, k.in[j].offset, k.in[j].offset + span});
            }
    }
    return uses;
}

int64_t store_weights(lowered_module& l, int64_t begin, const std::string& bytes, bool in_place) {
    if (in_place) {
        l.weights.replace(static_cast<std::size_t>(begin), bytes.size(), bytes);
        return begin;
    }
    const int64_t at = align_to(static_cast<int64_t>(l.weights.size()), l.weights_alignment);
    l.weights.resize(static_cast<std::size_t>(at), '\0');
    l.weights += bytes;
    l.weights.resize(static_cast<std::size_t>(align_to(static_cast<int64_t>(l.weights.size()), l.weights_alignment)), '\0');
    return at;
}

} // namespace mxc
