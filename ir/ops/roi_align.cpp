// roi_align: ONNX RoiAlign (average or max of bilinear samples per output bin).
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/cpu/roi_align.hpp"

namespace mxc {

MXC_REGISTER_OP(roi_align) {
    op_def d;
    d.name = "roi_align";
    d.doc = "x [N,C,H,W], rois [R,4] (x1,y1,x2,y2), batch_indices [R] (int32/int64) -> [R,C,output_height,output_width]; "
            "mode avg|max, half_pixel, sampling_ratio, spatial_scale; ip = [mode, half_pixel, sampling_ratio, indices "
            "are int64], fp = [spatial_scale]";
    d.attrs = {{"mode", std::string("avg")},
               {"half_pixel", int64_t{1}},
               {"output_height", int64_t{1}},
               {"output_width", int64_t{1}},
               {"sampling_ratio", int64_t{0}},
               {"spatial_scale", 1.0}};
    d.min_inputs = d.max_inputs = 3;
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        auto &x = in[0], &rois = in[1], &bi = in[2];
        if (x.rank() != 4 || x.lens[2] < 1 || x.lens[3] < 1)
            throw error("roi_align: x must be [N,C,H,W] with H, W >= 1, got " + to_string(x.lens));
        if (!is_floating(x.type) || rois.type != x.type) throw error("roi_align: x and rois must share one floating type");
        if (rois.rank() != 2 || rois.lens[1] != 4) throw error("roi_align: rois must be [R,4], got " + to_string(rois.lens));
        if (bi.lens != std::vector<int64_t>{rois.lens[0]} || (bi.type != dtype::int64_type && bi.type != dtype::int32_type))
            throw error("roi_align: batch_indices must be int32/int64 [" + std::to_string(rois.lens[0]) + "], got " +
                        std::string(dtype_name(bi.type)) + " " + to_string(bi.lens));
        auto mode = a.get_string("mode");
        if (mode != "avg" && mode != "max") throw error("roi_align: mode must be avg or max, got '" + mode + "'");
        if (a.get_int("output_height") < 1 || a.get_int("output_width") < 1 || a.get_int("sampling_ratio") < 0)
            throw error("roi_align: output_height and output_width must be positive, sampling_ratio not negative");
        return shape(x.type, {rois.lens[0], x.lens[1], a.get_int("output_height"), a.get_int("output_width")});
    };
    d.kernel = "roi_align";
    d.params = [](const attributes& a, const std::vector<shape>& in, const shape&) {
        return kernel_params{{a.get_string("mode") == "max" ? 1 : 0, a.get_int("half_pixel"), a.get_int("sampling_ratio"),
                              in[2].type == dtype::int64_type ? 1 : 0},
                             {a.get_float("spatial_scale")}};
    };
    d.cpu = MXC_CPU_KERNELS(roi_align, MXC_FLOAT_TYPES);
    return d;
}

} // namespace mxc
