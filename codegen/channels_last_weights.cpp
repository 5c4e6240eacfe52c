// pack_channels_last_weights (codegen/channels_last_weights.hpp).
#include "codegen/channels_last_weights.hpp"
#include "codegen/gemm_choice.hpp"
#include "ir/dtype.hpp"
#include "ir/eval.hpp"
#include "templates/common/gemm_choice.hpp"

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace mxc {

namespace {
// A kernel input read from the weights blob: bytes [begin, end).
struct blob_use {
    std::size_t kernel, input;
    int64_t begin, end;
};

// The weights w [M, C, kh, kw] (packed, es bytes each) as [M, kh, kw, C].
std::string to_channels_last(const char* w, const std::vector<int64_t>& lens, std::size_t es) {
    const int64_t m = lens[0], c = lens[1], kn = lens[2] * lens[3];
    std::string out(static_cast<std::size_t>(m * c * kn) * es, '\0');
    for (int64_t o = 0; o < m; ++o)
        for (int64_t ch = 0; ch < c; ++ch)
            for (int64_t q = 0; q < kn; ++q)
                std::memcpy(&out[static_cast<std::size_t>((o * kn + q) * c + ch) * es],
                            w + static_cast<std::size_t>((o * c + ch) * kn + q) * es, es);
    return out;
}

shape channels_last_shape(const shape& w) {
    const int64_t c = w.lens[1], kh = w.lens[2], kw = w.lens[3];
    return shape(w.type, w.lens, {kh * kw * c, 1, kw * c, c});
}

int64_t align_to(int64_t n, int64_t a) { return (n + a - 1) / a * a; }
} // namespace

int pack_channels_last_weights(lowered_module& l) {
    std::vector<blob_use> uses;
    for (std::size_t i = 0; i < l.kernels.size(); ++i) {
        const kernel_call& k = l.kernels[i];
        for (std::size_t j = 0; j < k.in.size() && j < k.in_shapes.size(); ++j)
            if (k.in[j].kind == location::weights) {
                const shape& s = k.in_shapes[j];
                const int64_t span = s.elements() == 0 ? 0 : s.element_space() * static_cast<int64_t>(dtype_size(s.type));
                uses.push_back({i, j, k.in[j].offset, k.in[j].offset + span});
            }
    }
    // The candidates by the offset of their weights: packed, not channels-last already (1x1).
    std::map<int64_t, std::vector<std::size_t>> wanted;
    for (std::size_t i = 0; i < l.kernels.size(); ++i) {
        const kernel_call& k = l.kernels[i];
        if (!conv_runs_channels_last(k) || k.in[1].kind != location::weights) continue;
        const shape& w = k.in_shapes[1];
        if (!w.standard() || mxc_conv_w_channels_last(make_desc(w)) || w.elements() == 0) continue;
        wanted[k.in[1].offset].push_back(i);
    }
    int packed = 0;
    for (auto& [begin, kernels] : wanted) {
        const shape w = l.kernels[kernels[0]].in_shapes[1];
        const int64_t end = begin + w.bytes();
        // in place when every reader of these bytes is one of the candidates with the same shape
        bool alone = true;
        for (const blob_use& u : uses) {
            if (u.end <= begin || u.begin >= end) continue;
            const kernel_call& k = l.kernels[u.kernel];
            bool candidate = false;
            for (std::size_t i : kernels) candidate |= u.kernel == i;
            alone &= candidate && u.input == 1 && u.begin == begin && k.in_shapes[1] == w;
        }
        const std::string cl = to_channels_last(l.weights.data() + begin, w.lens, dtype_size(w.type));
        int64_t at = begin;
        if (alone) {
            l.weights.replace(static_cast<std::size_t>(begin), cl.size(), cl);
        } else {
            at = align_to(static_cast<int64_t>(l.weights.size()), l.weights_alignment);
            l.weights.resize(static_cast<std::size_t>(at), '\0');
            l.weights += cl;
            l.weights.resize(static_cast<std::size_t>(align_to(static_cast<int64_t>(l.weights.size()), l.weights_alignment)), '\0');
        }
        for (std::size_t i : kernels) {
            if (l.kernels[i].in_shapes[1] != w) continue; // (another view of the same bytes: stays)
            l.kernels[i].in[1].offset = at;
            l.kernels[i].in_shapes[1] = channels_last_shape(w);
        }
        ++packed;
    }
    return packed;
}

} // namespace mxc
