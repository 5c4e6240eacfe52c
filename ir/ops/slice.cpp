// slice: a strided view of input 0 (no kernel): per axis d, y[.., i, ..] = x[.., starts[d] +
// i * steps[d], ..] for i < out_lens[d]. Steps may be negative (the view walks backwards).
#include "ir/error.hpp"
#include "ir/op.hpp"

namespace mxc {

MXC_REGISTER_OP(slice) {
    op_def d;
    d.name = "slice";
    d.doc = "strided view: y[..i..] = x[..starts[d] + i * steps[d]..] for i < out_lens[d]; one value per axis, steps != 0";
    d.attrs = {{"starts", std::vector<int64_t>{}}, {"steps", std::vector<int64_t>{}}, {"out_lens", std::vector<int64_t>{}}};
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        auto &starts = a.get_ints("starts"), &steps = a.get_ints("steps"), &lens = a.get_ints("out_lens");
        auto& x = in[0];
        if (starts.size() != x.rank() || steps.size() != x.rank() || lens.size() != x.rank())
            throw error("slice: starts " + to_string(starts) + ", steps " + to_string(steps) + " and out_lens " +
                        to_string(lens) + " must have one value per axis of " + to_string(x));
        shape r = x;
        for (std::size_t i = 0; i < x.rank(); ++i) {
            int64_t last = starts[i] + (lens[i] - 1) * steps[i];
            bool ok = steps[i] != 0 && lens[i] >= 0 &&
                      (lens[i] == 0 || (starts[i] >= 0 && starts[i] < x.lens[i] && last >= 0 && last < x.lens[i]));
            if (!ok)
                throw error("slice: axis " + std::to_string(i) + " (start " + std::to_string(starts[i]) + ", step " +
                            std::to_string(steps[i]) + ", " + std::to_string(lens[i]) + " elements) leaves " +
                            to_string(x.lens));
            r.lens[i] = lens[i];
            r.strides[i] = x.strides[i] * steps[i];
        }
        return r;
    };
    d.is_view = true;
    d.view_offset = [](const attributes& a, const std::vector<shape>& in) {
        auto &starts = a.get_ints("starts"), &lens = a.get_ints("out_lens");
        int64_t off = 0;
        for (std::size_t i = 0; i < starts.size(); ++i)
            if (lens[i] > 0) off += starts[i] * in[0].strides[i];
        return off;
    };
    return d;
}

} // namespace mxc
