// Indexed reads and writes: scatter_elements, scatter_nd (with the ONNX reductions),
// gather_nd and tensor_scatter; kernels compute one output element at a time
// (templates/common/scatter.hpp).
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/cpu/scatter.hpp"

namespace mxc {
namespace {

const std::vector<std::string> reductions = {"none", "add", "mul", "max", "min"};

int64_t reduction_code(const std::string& op, const attributes& a) {
    auto& r = a.get_string("reduction");
    for (std::size_t i = 0; i < reductions.size(); ++i)
        if (reductions[i] == r) return static_cast<int64_t>(i);
    throw error(op + ": reduction must be none, add, mul, max or min, got \"" + r + "\"");
}

void check_indices(const std::string& op, const shape& s) {
    if (s.type != dtype::int32_type && s.type != dtype::int64_type)
        throw error(op + ": indices must be int32 or int64, got " + std::string(dtype_name(s.type)));
}

int64_t is64(const shape& s) { return s.type == dtype::int64_type ? 1 : 0; }

} // namespace

MXC_REGISTER_OP(scatter_elements) {
    op_def d;
    d.name = "scatter_elements";
    d.doc = "y = data with updates[j] combined into y[j with its axis index replaced by indices[j]] (reduction none"
            " (last write wins), add, mul, max, min; negative indices wrap, out of range ones are ignored); inputs data,"
            " indices, updates; ip = [axis, indices are int64, reduction]";
    d.attrs = {{"axis", int64_t{0}}, {"reduction", std::string("none")}};
    d.min_inputs = d.max_inputs = 3;
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        auto &data = in[0], &ind = in[1], &upd = in[2];
        reduction_code("scatter_elements", a);
        int64_t axis = a.get_int("axis");
        if (axis < 0 || axis >= static_cast<int64_t>(data.rank()))
            throw error("scatter_elements: axis " + std::to_string(axis) + " is out of range for data " + to_string(data.lens));
        check_indices("scatter_elements", ind);
        if (ind.lens != upd.lens || upd.type != data.type || ind.rank() != data.rank())
            throw error("scatter_elements: indices " + to_string(ind.lens) + " and updates " + to_string(upd.lens) +
                        " must have one lens, of the rank of data " + to_string(data.lens) + ", and updates its type");
        for (std::size_t i = 0; i < data.rank(); ++i)
            if (static_cast<int64_t>(i) != axis && ind.lens[i] > data.lens[i])
                throw error("scatter_elements: indices " + to_string(ind.lens) + " exceed data " + to_string(data.lens) +
                            " along axis " + std::to_string(i));
        return data.as_standard();
    };
    d.kernel = "scatter_elements";
    d.params = [](const attributes& a, const std::vector<shape>& in, const shape&) {
        return kernel_params{{a.get_int("axis"), is64(in[1]), reduction_code("scatter_elements", a)}, {}};
    };
    d.cpu = MXC_CPU_KERNELS(scatter_elements, MXC_ALL_TYPES);
    return d;
}

MXC_REGISTER_OP(scatter_nd) {
    op_def d;
    d.name = "scatter_nd";
    d.doc = "y = data with the slice y[indices[t]] combined with updates[t] for each index tuple t, in order (reduction"
            " none, add, mul, max, min); data [r], indices [m..., q], updates [m..., data.lens[q:]]; ip = [indices are"
            " int64, reduction]";
    d.attrs = {{"reduction", std::string("none")}};
    d.min_inputs = d.max_inputs = 3;
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        auto &data = in[0], &ind = in[1], &upd = in[2];
        reduction_code("scatter_nd", a);
        check_indices("scatter_nd", ind);
        if (ind.rank() < 1 || ind.lens.back() < 1 || ind.lens.back() > static_cast<int64_t>(data.rank()))
            throw error("scatter_nd: indices " + to_string(ind.lens) + " must end in a length 1.." +
                        std::to_string(data.rank()) + " (the rank of data " + to_string(data.lens) + ")");
        std::vector<int64_t> want(ind.lens.begin(), ind.lens.end() - 1);
        want.insert(want.end(), data.lens.begin() + ind.lens.back(), data.lens.end());
        if (upd.lens != want || upd.type != data.type)
            throw error("scatter_nd: updates " + to_string(upd.lens) + " must be " + to_string(want) +
                        " for data " + to_string(data.lens) + " and indices " + to_string(ind.lens));
        return data.as_standard();
    };
    d.kernel = "scatter_nd";
    d.params = [](const attributes& a, const std::vector<shape>& in, const shape&) {
        return kernel_params{{is64(in[1]), reduction_code("scatter_nd", a)}, {}};
    };
    d.cpu = MXC_CPU_KERNELS(scatter_nd, MXC_ALL_TYPES);
    return d;
}

MXC_REGISTER_OP(gather_nd) {
    op_def d;
    d.name = "gather_nd";
    d.doc = "y[b..., m..., k...] = data[b..., indices[b..., m...], k...] with b the first batch_dims axes of both;"
            " indices [b..., m..., q]; negative indices wrap, out of range gives 0; ip = [batch_dims, indices are int64]";
    d.attrs = {{"batch_dims", int64_t{0}}};
    d.min_inputs = d.max_inputs = 2;
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        auto &data = in[0], &ind = in[1];
        check_indices("gather_nd", ind);
        int64_t b = a.get_int("batch_dims"), r = static_cast<int64_t>(data.rank()), m = static_cast<int64_t>(ind.rank());
        if (b < 0 || m < 1 || b >= m || b >= r)
            throw error("gather_nd: batch_dims " + std::to_string(b) + " must be below the ranks of data " +
                        to_string(data.lens) + " and indices " + to_string(ind.lens));
        int64_t q = ind.lens.back();
        if (q < 0 || b + q > r)
            throw error("gather_nd: indices " + to_string(ind.lens) + " index " + std::to_string(q) + " axes past batch_dims " +
                        std::to_string(b) + " of data " + to_string(data.lens));
        for (int64_t i = 0; i < b; ++i)
            if (ind.lens[static_cast<std::size_t>(i)] != data.lens[static_cast<std::size_t>(i)])
                throw error("gather_nd: the batch axes of indices " + to_string(ind.lens) + " and data " + to_string(data.lens) +
                            " differ");
        std::vector<int64_t> lens(ind.lens.begin(), ind.lens.end() - 1);
        lens.insert(lens.end(), data.lens.begin() + b + q, data.lens.end());
        if (lens.size() > MXC_MAX_RANK) throw error("gather_nd: result rank " + std::to_string(lens.size()) + " exceeds " + std::to_string(MXC_MAX_RANK));
        return shape(data.type, lens);
    };
    d.kernel = "gather_nd";
    d.params = [](const attributes& a, const std::vector<shape>& in, const shape&) {
        return kernel_params{{a.get_int("batch_dims"), is64(in[1])}, {}};
    };
    d.cpu = MXC_CPU_KERNELS(gather_nd, MXC_ALL_TYPES);
    return d;
}

MXC_REGISTER_OP(tensor_scatter) {
    op_def d;
    d.name = "tensor_scatter";
    d.doc = "y = past with update written along axis from write_indices[batch] on (0 without them; circular: modulo"
            " the axis length); inputs past, update (past's lens but the axis), optional write_indices [batch] (int64);"
            " ip = [axis, circular, has write_indices]";
    d.attrs = {{"axis", int64_t{1}}, {"circular", int64_t{0}}};
    d.min_inputs = 2;
    d.max_inputs = 3;
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        auto &past = in[0], &upd = in[1];
        int64_t axis = a.get_int("axis"), r = static_cast<int64_t>(past.rank());
        if (axis < 1 || axis >= r)
            throw error("tensor_scatter: axis " + std::to_string(axis) + " must be 1.." + std::to_string(r - 1) +
                        " for past " + to_string(past.lens));
        bool ok = upd.rank() == past.rank() && upd.type == past.type;
        for (std::size_t i = 0; ok && i < past.rank(); ++i)
            ok = static_cast<int64_t>(i) == axis ? upd.lens[i] <= past.lens[i] : upd.lens[i] == past.lens[i];
        if (!ok)
            throw error("tensor_scatter: update " + to_string(upd.lens) + " must match past " + to_string(past.lens) +
                        " but for a length no larger along axis " + std::to_string(axis));
        if (in.size() > 2 && (in[2].type != dtype::int64_type || in[2].lens != std::vector<int64_t>{past.lens[0]}))
            throw error("tensor_scatter: write_indices " + to_string(in[2].lens) + " must be int64 [" +
                        std::to_string(past.lens[0]) + "]");
        return past.as_standard();
    };
    d.kernel = "tensor_scatter";
    d.params = [](const attributes& a, const std::vector<shape>& in, const shape&) {
        return kernel_params{{a.get_int("axis"), a.get_int("circular") != 0 ? 1 : 0, in.size() > 2 ? 1 : 0}, {}};
    };
    d.cpu = MXC_CPU_KERNELS(tensor_scatter, MXC_ALL_TYPES);
    return d;
}

} // namespace mxc
