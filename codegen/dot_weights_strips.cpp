// store_dot_weights_as_strips (codegen/dot_weights_strips.hpp).
#include "codegen/dot_weights_strips.hpp"
#include "codegen/weights_blob.hpp"
#include "ir/dtype.hpp"
#include "templates/cpu/gemm.hpp"

#include <cstdint>
#include <cstring>
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
    const int nr = cpu::gemm_shape<float>::nr;
    // (in place where the strips take the bytes of the matrix: N a multiple of nr)
    return relayout_weights<std::pair<int64_t, int64_t>>(
        l, candidate,
        [&](const kernel_call& k, std::pair<int64_t, int64_t> d, const char* b) {
            return to_strips(b, d.first, d.second, nr, dtype_size(k.type));
        },
        [&](kernel_call& k, int64_t at) {
            const std::pair<int64_t, int64_t> d = candidate(k);
            k.in[1].offset = at;
            k.in_shapes[1] = shape(k.type, {(d.second + nr - 1) / nr, d.first, nr});
            k.b_strips = true;
        });
}

} // namespace mxc
