// resize: ONNX Resize / Upsample along one axis (the importer chains one per resized axis).
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/cpu/resize.hpp"

#include <algorithm>
#include <array>

namespace mxc {
namespace {
int64_t index_of(const std::string& what, const std::string& v, const std::vector<std::string>& names) {
    auto it = std::find(names.begin(), names.end(), v);
    if (it == names.end()) throw error("resize: unknown " + what + " '" + v + "'");
    return it - names.begin();
}
const std::vector<std::string> modes = {"nearest", "linear", "cubic"};
const std::vector<std::string> coordinate_modes = {"half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel",
                                                   "tf_crop_and_resize", "half_pixel_symmetric"};
const std::vector<std::string> nearest_modes = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
} // namespace

MXC_REGISTER_OP(resize) {
    op_def d;
    d.name = "resize";
    d.doc = "x resized along `axis` to `length` elements with ONNX Resize semantics (mode nearest|linear|cubic, "
            "coordinate_transformation_mode, nearest_mode, cubic_coeff_a, exclude_outside, antialias, scale, roi "
            "[start, end] for tf_crop_and_resize, extrapolation_value); ip/fp: templates/common/resize.hpp";
    d.attrs = {{"axis", int64_t{0}},
               {"length", int64_t{1}},
               {"mode", std::string("nearest")},
               {"coordinate_transformation_mode", std::string("half_pixel")},
               {"nearest_mode", std::string("round_prefer_floor")},
               {"cubic_coeff_a", -0.75},
               {"exclude_outside", int64_t{0}},
               {"antialias", int64_t{0}},
               {"scale", 1.0},
               {"roi", std::vector<double>{0.0, 1.0}},
               {"extrapolation_value", 0.0}};
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        auto& x = in[0];
        int64_t axis = a.get_int("axis"), len = a.get_int("length");
        if (x.rank() > MXC_MAX_RANK || axis < 0 || axis >= static_cast<int64_t>(x.rank()))
            throw error("resize: axis " + std::to_string(axis) + " is out of range for " + to_string(x.lens));
        if (len < 0) throw error("resize: negative length " + std::to_string(len));
        if (!(a.get_float("scale") > 0)) throw error("resize: scale must be positive");
        if (a.get_floats("roi").size() != 2) throw error("resize: roi must be [start, end]");
        index_of("mode", a.get_string("mode"), modes);
        index_of("coordinate_transformation_mode", a.get_string("coordinate_transformation_mode"), coordinate_modes);
        index_of("nearest_mode", a.get_string("nearest_mode"), nearest_modes);
        auto lens = x.lens;
        lens[static_cast<std::size_t>(axis)] = len;
        return shape(x.type, lens);
    };
    d.kernel = "resize";
    d.params = [](const attributes& a, const std::vector<shape>&, const shape&) {
        auto& roi = a.get_floats("roi");
        return kernel_params{{a.get_int("axis"), index_of("mode", a.get_string("mode"), modes),
                              index_of("", a.get_string("coordinate_transformation_mode"), coordinate_modes),
                              index_of("", a.get_string("nearest_mode"), nearest_modes), a.get_int("exclude_outside"),
                              a.get_int("antialias")},
                             {a.get_float("scale"), roi[0], roi[1], a.get_float("cubic_coeff_a"),
                              a.get_float("extrapolation_value")}};
    };
    d.cpu = MXC_CPU_KERNELS(resize, MXC_NUMERIC_TYPES);
    return d;
}

} // namespace mxc
