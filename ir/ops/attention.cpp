// attention: softmax(body(q . kt, e1, ...)) . v along the last axis of the scores, in one
// kernel (made by passes/fuse_attention.cpp; math: templates/common/attention.hpp).
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "ir/pointwise_body.hpp"
#include "templates/cpu/attention.hpp"

#include <algorithm>
#include <numeric>

namespace mxc {
namespace {
// The permutation attribute, the identity when empty; checked against the rank.
std::vector<int64_t> permutation_of(const attributes& a, std::size_t r) {
    std::vector<int64_t> p = a.get_ints("permutation");
    if (p.empty()) {
        p.resize(r);
        std::iota(p.begin(), p.end(), int64_t{0});
    }
    std::vector<int64_t> sorted = p;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i)
        if (sorted[i] != static_cast<int64_t>(i) || sorted.size() != r)
            throw error("attention: permutation " + to_string(p) + " is not a permutation of " + std::to_string(r) + " dims");
    if (p.back() != static_cast<int64_t>(r) - 1)
        throw error("attention: permutation " + to_string(p) + " must keep the last dim last");
    return p;
}
} // namespace

MXC_REGISTER_OP(attention) {
    op_def d;
    d.name = "attention";
    d.doc = "y = softmax(body(q . kt, e1, ...)) . v, softmax along the keys: q [..., Lq, D], kt [..., D, Lk], "
            "v [..., Lk, Dv], extra inputs with the scores' lens [..., Lq, Lk] (body x0 = the product, xN = eN); "
            "D, Dv <= " + std::to_string(MXC_ATTENTION_MAX_HEAD) +
            " (double: " + std::to_string(MXC_ATTENTION_MAX_HEAD / 2) + ")"
            "; result [..., Lq, Dv] with its dims permuted (the last kept last), packed; "
            "ip = [rank, permutation, the body's postfix program]";
    d.attrs = {{"body", std::string("x0")}, {"permutation", std::vector<int64_t>{}}};
    d.min_inputs = 3;
    d.max_inputs = 8; // q, kt, v and up to 5 extra inputs (the hip kernels take 8 inputs)
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        auto &q = in[0], &kt = in[1], &v = in[2];
        const std::size_t r = q.rank();
        if (r < 2 || r > MXC_MAX_RANK || kt.rank() != r || v.rank() != r)
            throw error("attention: q, kt and v must have the same rank, 2 to " + std::to_string(MXC_MAX_RANK) + ", got " +
                        to_string(q.lens) + ", " + to_string(kt.lens) + ", " + to_string(v.lens));
        for (std::size_t i = 0; i + 2 < r; ++i)
            if (kt.lens[i] != q.lens[i] || v.lens[i] != q.lens[i])
                throw error("attention: batch dims differ: q " + to_string(q.lens) + ", kt " + to_string(kt.lens) + ", v " +
                            to_string(v.lens));
        if (kt.lens[r - 2] != q.lens[r - 1] || v.lens[r - 2] != kt.lens[r - 1])
            throw error("attention: q " + to_string(q.lens) + ", kt " + to_string(kt.lens) + " and v " + to_string(v.lens) +
                        " do not chain (q's last dim = kt's rows, kt's last dim = v's rows)");
        if (q.lens[r - 1] > MXC_ATTENTION_MAX_HEAD || v.lens[r - 1] > MXC_ATTENTION_MAX_HEAD)
            throw error("attention: head sizes " + std::to_string(q.lens[r - 1]) + " and " + std::to_string(v.lens[r - 1]) +
                        " exceed " + std::to_string(MXC_ATTENTION_MAX_HEAD));
        if (!is_floating(q.type) || kt.type != q.type || v.type != q.type)
            throw error("attention: q, kt and v must share one floating type");
        if (q.type == dtype::double_type && std::max(q.lens[r - 1], v.lens[r - 1]) > MXC_ATTENTION_MAX_HEAD / 2)
            throw error("attention: double head sizes must be at most " + std::to_string(MXC_ATTENTION_MAX_HEAD / 2));
        std::vector<int64_t> scores = q.lens;
        scores[r - 1] = kt.lens[r - 1];
        auto b = parse_body(a.get_string("body"));
        if (static_cast<std::size_t>(body_inputs(b)) != in.size() - 2)
            throw error("attention: body \"" + a.get_string("body") + "\" uses " + std::to_string(body_inputs(b)) +
                        " inputs, the op has " + std::to_string(in.size() - 2));
        for (std::size_t i = 3; i < in.size(); ++i)
            if (in[i].lens != scores || in[i].type != q.type)
                throw error("attention: input " + std::to_string(i) + " " + to_string(in[i]) + " must have the scores' lens " +
                            to_string(scores) + " and type " + std::string(dtype_name(q.type)));
        auto p = permutation_of(a, r);
        std::vector<int64_t> lens = q.lens, out(r);
        lens[r - 1] = v.lens[r - 1];
        for (std::size_t i = 0; i < r; ++i) out[i] = lens[static_cast<std::size_t>(p[i])];
        return shape(q.type, out);
    };
    d.kernel = "attention";
    d.params = [](const attributes& a, const std::vector<shape>& in, const shape&) {
        const std::size_t r = in[0].rank();
        kernel_params k;
        k.ip.push_back(static_cast<int64_t>(r));
        auto p = permutation_of(a, r);
        k.ip.insert(k.ip.end(), p.begin(), p.end());
        auto prog = body_program(parse_body(a.get_string("body")));
        k.ip.insert(k.ip.end(), prog.begin(), prog.end());
        return k;
    };
    d.cpu = MXC_CPU_KERNELS(attention, MXC_FLOAT_TYPES);
    return d;
}

} // namespace mxc
