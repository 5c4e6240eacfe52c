// fold-batchnorm: batch_norm_inference(conv, scale, bias, mean, var) with constant parameters,
// where conv is a `convolution` with constant weights (optionally followed by the broadcast
// `add` of a constant per-channel bias), becomes one convolution with scaled weights and a
// per-channel bias add:
//   s = scale / sqrt(var + eps);  W'[m] = W[m] * s[m];  b'[m] = (b[m] - mean[m]) * s[m] + bias[m]
// The same for a 2-D `dot` with constant right-hand side (gemm): channels are its columns.
// The convolution (or dot) must have no other user. Replaced instructions are left for dce.
#include "passes/pass_manager.hpp"
#include "passes/rewrite.hpp"

#include "templates/common/math.hpp"

#include <cmath>

namespace mxc {
namespace {

std::optional<std::vector<double>> constant_doubles(const instruction* ins) {
    auto t = constant_value(ins);
    if (!t) return std::nullopt;
    return t->pack().to_doubles();
}

literal make_literal(dtype t, const std::vector<int64_t>& lens, const std::vector<double>& v) {
    std::vector<char> bytes(v.size() * dtype_size(t));
    mxc_visit_dtype(static_cast<int>(t), [&](auto tag) {
        using T = decltype(tag);
        auto* p = reinterpret_cast<T*>(bytes.data());
        for (std::size_t i = 0; i < v.size(); ++i) p[i] = T(static_cast<mxc_compute_t<T>>(v[i]));
    });
    return literal(shape(t, lens), std::move(bytes));
}

void fold_one(module& m, instruction& bn) {
    auto* y = bn.inputs[0];
    std::optional<std::vector<double>> bias0;
    if (y->op == "add" && m.users(y).size() == 1) {
        // conv + broadcast per-channel bias: read b[m] from the constant operand at (0, m, 0...)
        auto* cst = y->inputs[1];
        auto v = constant_doubles(cst);
        if (!v || (y->inputs[0]->op != "convolution" && y->inputs[0]->op != "dot")) return;
        int64_t plane = y->result.elements() / (y->result.lens[0] * y->result.lens[1]);
        std::vector<double> b;
        for (int64_t c = 0; c < y->result.lens[1]; ++c) b.push_back((*v)[static_cast<std::size_t>(c * plane)]);
        // the operand must really be per-channel
        for (std::size_t e = 0; e < v->size(); ++e)
            if ((*v)[e] != b[static_cast<std::size_t>(static_cast<int64_t>(e) / plane % y->result.lens[1])]) return;
        bias0 = b;
        y = y->inputs[0];
    }
    bool conv = y->op == "convolution", dot = y->op == "dot" && y->result.rank() == 2;
    if ((!conv && !dot) || m.users(y).size() != 1) return;
    auto wt = constant_value(y->inputs[1]);
    auto w = wt ? std::optional<literal>(wt->pack()) : std::nullopt;
    auto scale = constant_doubles(bn.inputs[1]), bias = constant_doubles(bn.inputs[2]);
    auto mean = constant_doubles(bn.inputs[3]), var = constant_doubles(bn.inputs[4]);
    if (!w || !scale || !bias || !mean || !var) return;
    double eps = bn.attrs.get_float("epsilon");
    const int64_t channels = y->result.lens[1];
    std::vector<double> s(static_cast<std::size_t>(channels)), b(static_cast<std::size_t>(channels));
    for (std::size_t c = 0; c < s.size(); ++c) {
        s[c] = (*scale)[c] / std::sqrt((*var)[c] + eps);
        b[c] = ((bias0 ? (*bias0)[c] : 0.0) - (*mean)[c]) * s[c] + (*bias)[c];
    }
    // W'[m] = W[m] * s[m], element by element in the weights' own type (they can be large)
    const int64_t per = static_cast<int64_t>(w->s.elements()) / channels; // conv: W[m] is contiguous
    std::vector<char> scaled(w->bytes->begin(), w->bytes->end());
    mxc_visit_dtype(static_cast<int>(w->s.type), [&](auto tag) {
        using T = decltype(tag);
        auto* p = reinterpret_cast<T*>(scaled.data());
        auto scale_one = [&](T& x, int64_t c) {
            const double v = static_cast<double>(static_cast<mxc_compute_t<T>>(x));
            x = T(static_cast<mxc_compute_t<T>>(v * s[static_cast<std::size_t>(c)]));
        };
        if (conv) // W[c] is `per` contiguous elements
            for (int64_t c = 0; c < channels; ++c)
                for (int64_t i = 0; i < per; ++i) scale_one(p[c * per + i], c);
        else // dot: W[k, c], `per` rows of `channels`
            for (int64_t i = 0; i < per; ++i)
                for (int64_t c = 0; c < channels; ++c) scale_one(p[i * channels + c], c);
    });
    dtype t = y->result.type;
    auto pos = m.iter(&bn);
    auto* wlit = m.insert_literal(pos, literal(w->s, std::move(scaled)));
    auto* ny = m.insert(pos, y->op, {y->inputs[0], wlit}, y->attrs);
    ny->origin = y->origin;
    auto* blit = m.insert_literal(pos, make_literal(t, {channels}, b));
    std::vector<int64_t> axes{0};
    for (std::size_t d = 2; d < ny->result.rank(); ++d) axes.push_back(static_cast<int64_t>(d));
    instruction* bv = blit;
    if (conv) {
        attributes a;
        a.set("axes", axes);
        bv = m.insert(pos, "unsqueeze", {blit}, a);
    }
    attributes ba;
    ba.set("out_lens", ny->result.lens);
    auto* bb = m.insert(pos, "multibroadcast", {bv}, ba);
    auto* out = m.insert(pos, "add", {ny, bb});
    out->origin = bn.origin;
    m.replace_uses(&bn, out);
}

void fold_batchnorm(module& m) {
    std::vector<instruction*> bns;
    for (auto& ins : m.instructions)
        if (ins.op == "batch_norm_inference") bns.push_back(&ins);
    for (auto* bn : bns) fold_one(m, *bn);
}
} // namespace

MXC_REGISTER_PASS(fold_batchnorm) {
    return pass{"fold-batchnorm", "folds inference batch-norm into the preceding convolution or gemm weights",
                fold_batchnorm};
}

} // namespace mxc
