// max_pool_index: where each max-pooling window's maximum is, as a flat int64 index into x
// (ONNX MaxPool's second output; templates/common/pool_index.hpp).
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "ir/ops/spatial.hpp"
#include "templates/cpu/pool_index.hpp"

namespace mxc {

MXC_REGISTER_OP(max_pool_index) {
    op_def d;
    d.name = "max_pool_index";
    d.doc = "int64 flat index into x [N, C, spatial...] of the first largest element of each window at p*stride -"
            " pad_begin + k*dilation, for the out_lens windows per spatial axis (as pooling gives them);"
            " (n*C + c)*prod(spatial) + the spatial index, row-major or column-major (storage_order 1);"
            " ip = [storage_order, pad_begin[s], stride[s], lengths[s], dilation[s]]";
    d.attrs = {{"padding", std::vector<int64_t>{}}, {"stride", std::vector<int64_t>{}}, {"lengths", std::vector<int64_t>{}},
               {"dilation", std::vector<int64_t>{}}, {"out_lens", std::vector<int64_t>{}}, {"storage_order", int64_t{0}}};
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        auto& x = in[0];
        check_spatial_input("max_pool_index", x);
        const std::size_t s = x.rank() - 2;
        spatial_list("max_pool_index", "padding", a.get_ints("padding"), 2 * s, 0, 0);
        spatial_list("max_pool_index", "stride", a.get_ints("stride"), s, 1, 1);
        spatial_list("max_pool_index", "lengths", a.get_ints("lengths"), s, 1, 1);
        spatial_list("max_pool_index", "dilation", a.get_ints("dilation"), s, 1, 1);
        auto out = spatial_list("max_pool_index", "out_lens", a.get_ints("out_lens"), s, 0, 0);
        std::vector<int64_t> lens{x.lens[0], x.lens[1]};
        lens.insert(lens.end(), out.begin(), out.end());
        return shape(dtype::int64_type, lens);
    };
    d.kernel = "max_pool_index";
    d.type_from_input = 0;
    d.params = [](const attributes& a, const std::vector<shape>& in, const shape&) {
        const std::size_t s = in[0].rank() - 2;
        auto pads = spatial_list("max_pool_index", "padding", a.get_ints("padding"), 2 * s, 0, 0);
        kernel_params k;
        k.ip = {a.get_int("storage_order") != 0 ? 1 : 0};
        k.ip.insert(k.ip.end(), pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(s));
        for (auto* name : {"stride", "lengths", "dilation"}) {
            auto v = spatial_list("max_pool_index", name, a.get_ints(name), s, 1, 1);
            k.ip.insert(k.ip.end(), v.begin(), v.end());
        }
        return k;
    };
    d.cpu = MXC_CPU_KERNELS(max_pool_index, MXC_NUMERIC_TYPES);
    return d;
}

} // namespace mxc
