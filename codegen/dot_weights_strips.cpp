// store_dot_weights_as_strips (codegen/dot_weights_strips.hpp).
#include "codegen/dot_weights_strips.hpp"
#include "codegen/weights_blob.hpp"
#include "ir/dtype.hpp"
#include "templates/cpu/gemm.hpp"

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace mxc {

namespace {
// b's K x N matrix, if the kernel is a candidate (see the header), else {0, 0}
std::pair<int64_t, int64_t> candidate(const kernel_call& k) {
    if ((k.kernel != "dot" && k.kernel != "fused_dot") || k.type != dtype::float_type) return {0, 0};
    if (k.in.size() < 2 || k.in_shapes.size() < 2 || k.in[1].kind != location::weights) return {0, 0};
    const shape& b = k.in_shapes[1];
    const shape& o = k.out_shape;
    const std::size_t r = o.lens.size();
    if (r < 2 || b.lens.size() != r || b.type != k.type || k.in_shapes[0].lens.size() != r) return {0, 0};
    const int64_t kd = b.lens[r - 2], n = b.lens[r - 1];
    if (kd <= 0 || n <= 0 || b.strides[r - 1] != 1 || (kd > 1 && b.strides[r - 2] != n)) return {0, 0};
    int64_t batches = 1;
    for (std::size_t d = 0; d + 2 < r; ++d) {
        if (b.lens[d] != 1 && b.strides[d] != 0) return {0, 0};
        batches *= o.lens[d];
    }
    if (o.lens[r - 2] < 2 && batches < 2) return {0, 0};
    return {kd, n};
}

// b (K x N, packed rows, es bytes each) as strips of K x nr
std::string to_strips(const char* b, int64_t kd, int64_t n, int nr, std::size_t es) {
    const int64_t strips = (n + nr - 1) / nr;
    std::string out(static_cast<std::size_t>(strips * kd * nr) * es, '\0');
    for (int64_t kk = 0; kk < kd; ++kk)
        for (int64_t j = 0; j < n; ++j)
            std::memcpy(&out[static_cast<std::size_t>(cpu::gemm_strip_index(kk, j, kd, nr)) * es],
                        b + static_cast<std::size_t>(kk * n + j) * es, es);
    return out;
}
} // namespace

int store_dot_weights_as_strips(lowered_module& l) {
    const std::vector<weights_use> uses = weights_uses(l);
    // the candidates by the offset of their b
    std::map<int64_t, std::vector<std::size_t>> wanted;
    for (std::size_t i = 0; i < l.kernels.size(); ++i)
        if (candidate(l.kernels[i]).first > 0) wanted[l.kernels[i].in[1].offset].push_back(i);
    int stored = 0;
    for (auto& [begin, kernels] : wanted) {
        const kernel_call& first = l.kernels[kernels[0]];
        const std::pair<int64_t, int64_t> dims = candidate(first);
        const int64_t kd = dims.first, n = dims.second; // (plain variables: lambdas below capture them)
        const dtype t = first.type;
        const std::size_t es = dtype_size(t);
        const int nr = cpu::gemm_shape<float>::nr;
        const int64_t end = begin + kd * n * static_cast<int64_t>(es);
        auto same = [&](const kernel_call& k) { return k.type == t && candidate(k) == std::make_pair(kd, n); };
        // in place when every reader of these bytes is a candidate reading the same matrix, and
        // the strips take the same bytes (N a multiple of nr)
        const bool alone = n % nr == 0 && only_readers(uses, begin, end, kernels, l, same);
        const int64_t at = store_weights(l, begin, to_strips(l.weights.data() + begin, kd, n, nr, es), alone);
        for (std::size_t i : kernels) {
            kernel_call& k = l.kernels[i];
            if (!same(k)) continue; // (another view of the same bytes: stays as it is)
            k.in[1].offset = at;
            k.in_shapes[1] = shape(t, {(n + nr - 1) / nr, kd, nr});
            k.b_strips = true;
        }
        ++stored;
    }
    return stored;
}

} // namespace mxc
