// pack_channels_last_weights (codegen/channels_last_weights.hpp).
#include "codegen/channels_last_weights.hpp"
#include "codegen/gemm_choice.hpp"
#include "codegen/weights_blob.hpp"
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
} // namespace

int pack_channels_last_weights(lowered_module& l) {
    const std::vector<weights_use> uses = weights_uses(l);
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
        const bool alone = only_readers(uses, begin, end, kernels, l, [&](const kernel_call& k) { return k.in_shapes[1] == w; });
        const std::string cl = to_channels_last(l.weights.data() + begin, w.lens, dtype_size(w.type));
        const int64_t at = store_weights(l, begin, cl, alone);
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
