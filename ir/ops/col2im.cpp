// col2im: rearranges blocks [N, C * prod(block), L] into an image [N, C, image...], summing
// where blocks overlap (templates/common/col2im.hpp).
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "ir/ops/spatial.hpp"
#include "templates/cpu/col2im.hpp"

namespace mxc {
namespace {
struct col2im_attrs {
    std::vector<int64_t> image, block, pads, stride, dilation, blocks;
};

col2im_attrs resolve(const attributes& a, const shape& x) {
    col2im_attrs r;
    r.image = a.get_ints("image_shape");
    const std::size_t s = r.image.size();
    if (s < 1 || s + 2 > MXC_MAX_RANK) throw error("col2im: image_shape " + to_string(r.image) + " must have 1 to " + std::to_string(MXC_MAX_RANK - 2) + " values");
    r.block = spatial_list("col2im", "block_shape", a.get_ints("block_shape"), s, 0, 1);
    r.pads = spatial_list("col2im", "padding", a.get_ints("padding"), 2 * s, 0, 0);
    r.stride = spatial_list("col2im", "stride", a.get_ints("stride"), s, 1, 1);
    r.dilation = spatial_list("col2im", "dilation", a.get_ints("dilation"), s, 1, 1);
    if (x.rank() != 3) throw error("col2im: input must be [N, C * prod(block_shape), L], got " + to_string(x.lens));
    int64_t kn = 1, l = 1;
    for (std::size_t d = 0; d < s; ++d) {
        if (r.image[d] < 1) throw error("col2im: image_shape " + to_string(r.image) + " must be positive");
        int64_t span = (r.block[d] - 1) * r.dilation[d] + 1, room = r.image[d] + r.pads[d] + r.pads[s + d];
        if (room < span) throw error("col2im: block_shape " + to_string(r.block) + " does not fit image_shape " + to_string(r.image) + " with the pads");
        r.blocks.push_back((room - span) / r.stride[d] + 1);
        kn = checked_mul(kn, r.block[d]);
        l = checked_mul(l, r.blocks.back());
    }
    if (x.lens[1] % kn != 0 || x.lens[2] != l)
        throw error("col2im: input " + to_string(x.lens) + " must be [N, C * " + std::to_string(kn) + ", " + std::to_string(l) + "] for block_shape " +
                    to_string(r.block) + " and image_shape " + to_string(r.image));
    return r;
}
} // namespace

MXC_REGISTER_OP(col2im) {
    op_def d;
    d.name = "col2im";
    d.doc = "y[n, c, p] = sum over block offsets k and blocks b with p = b*stride - pad_begin + k*dilation of"
            " x[n, c*K + k, b]; x [N, C*K, L] (K = prod(block_shape), L = the blocks in the padded image);"
            " ip = [block[s], blocks[s], pad_begin[s], stride[s], dilation[s]]";
    d.attrs = {{"image_shape", std::vector<int64_t>{}}, {"block_shape", std::vector<int64_t>{}}, {"padding", std::vector<int64_t>{}},
               {"stride", std::vector<int64_t>{}},      {"dilation", std::vector<int64_t>{}}};
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        auto r = resolve(a, in[0]);
        int64_t kn = 1;
        for (auto b : r.block) kn *= b;
        std::vector<int64_t> lens = {in[0].lens[0], in[0].lens[1] / kn};
        lens.insert(lens.end(), r.image.begin(), r.image.end());
        return shape(in[0].type, lens);
    };
    d.kernel = "col2im";
    d.params = [](const attributes& a, const std::vector<shape>& in, const shape&) {
        auto r = resolve(a, in[0]);
        std::vector<int64_t> ip = r.block;
        ip.insert(ip.end(), r.blocks.begin(), r.blocks.end());
        ip.insert(ip.end(), r.pads.begin(), r.pads.begin() + static_cast<std::ptrdiff_t>(r.image.size()));
        ip.insert(ip.end(), r.stride.begin(), r.stride.end());
        ip.insert(ip.end(), r.dilation.begin(), r.dilation.end());
        return kernel_params{ip, {}};
    };
    d.cpu = MXC_CPU_KERNELS(col2im, MXC_FLOAT_TYPES, MXC_SIGNED_INT_TYPES, MXC_UNSIGNED_INT_TYPES);
    return d;
}

} // namespace mxc
