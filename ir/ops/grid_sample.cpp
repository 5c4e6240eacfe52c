// grid_sample: ONNX GridSample (1 to 3 spatial dims).
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/cpu/grid_sample.hpp"

namespace mxc {

MXC_REGISTER_OP(grid_sample) {
    op_def d;
    d.name = "grid_sample";
    d.doc = "x [N,C,D1..Dr], grid [N,O1..Or,r] (normalised, x first) -> [N,C,O1..Or]; mode nearest|linear|cubic, "
            "padding_mode zeros|border|reflection, align_corners; ip = [mode, padding, align_corners]";
    d.attrs = {{"mode", int64_t{1}}, {"padding_mode", int64_t{0}}, {"align_corners", int64_t{0}}};
    d.min_inputs = d.max_inputs = 2;
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        auto &x = in[0], &g = in[1];
        std::size_t r = x.rank() < 2 ? 0 : x.rank() - 2;
        if (r < 1 || r > 3 || g.rank() != r + 2 || g.lens.back() != static_cast<int64_t>(r) || g.lens[0] != x.lens[0])
            throw error("grid_sample: x " + to_string(x.lens) + " and grid " + to_string(g.lens) +
                        " must be [N,C,D1..Dr] and [N,O1..Or,r] with r in 1..3");
        if (g.type != x.type) throw error("grid_sample: grid must have x's type");
        if (a.get_int("mode") < 0 || a.get_int("mode") > 2 || a.get_int("padding_mode") < 0 || a.get_int("padding_mode") > 2)
            throw error("grid_sample: mode and padding_mode must be 0 to 2");
        std::vector<int64_t> lens{x.lens[0], x.lens[1]};
        lens.insert(lens.end(), g.lens.begin() + 1, g.lens.end() - 1);
        return shape(x.type, lens);
    };
    d.kernel = "grid_sample";
    d.params = [](const attributes& a, const std::vector<shape>&, const shape&) {
        return kernel_params{{a.get_int("mode"), a.get_int("padding_mode"), a.get_int("align_corners")}, {}};
    };
    d.cpu = MXC_CPU_KERNELS(grid_sample, MXC_FLOAT_TYPES);
    return d;
}

} // namespace mxc
