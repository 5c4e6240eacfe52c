// ONNX converters for the optimizers of domain ai.onnx.preview.training (Adagrad, Adam,
// Momentum): pointwise formulas over the optimized tensors, with the learning rate R and the
// update count T read at run time.
#include "compiler/onnx_node.hpp"
#include "compiler/onnx_pointwise.hpp"
#include "ir/error.hpp"

namespace mxc::onnx_detail {
namespace {

using outputs = std::vector<instruction*>;


// The common inputs: R (a float scalar), T (an int64 scalar, as R's type), then `groups`
// lists of n tensors each (X, G, and the optimizer's state), n from the input count.
struct optimizer_inputs {
    instruction* r;
    instruction* t;      // T converted to R's element type
    instruction* t_pos;  // T > 0 (bool)
    std::vector<std::vector<instruction*>> groups;
};

optimizer_inputs read_inputs(node_context& c, std::size_t groups, const char* names) {
    std::size_t rest = c.num_inputs() < 2 ? 0 : c.num_inputs() - 2;
    if (rest == 0 || rest % groups != 0)
        c.fail("expects R, T and then " + std::to_string(groups) + " lists (" + names + ") of equal length, got " +
               std::to_string(c.num_inputs()) + " inputs");
    optimizer_inputs in;
    in.r = c.input(0);
    if (!is_floating(in.r->result.type) || in.r->result.elements() != 1)
        c.fail("the learning rate R must be a float scalar, got " + to_string(in.r->result));
    auto* t = c.input(1);
    if (t->result.type != dtype::int64_type || t->result.elements() != 1)
        c.fail("the update count T must be an int64 scalar, got " + to_string(t->result));
    in.r = c.reshape(in.r, {});
    t = c.reshape(t, {});
    in.t = c.add("convert", {t}, attrs({{"target_type", std::string(dtype_name(in.r->result.type))}}));
    in.t_pos = c.add("greater", {t, c.lit(literal::from<int64_t>(dtype::int64_type, {}, {0}))});
    std::size_t n = rest / groups;
    for (std::size_t g = 0; g < groups; ++g) {
        in.groups.emplace_back();
        for (std::size_t i = 0; i < n; ++i) {
            auto* x = c.input(2 + g * n + i);
            if (x->result.type != in.r->result.type)
                c.fail("input " + std::to_string(2 + g * n + i) + " has element type " + std::string(dtype_name(x->result.type)) +
                       ", R has " + std::string(dtype_name(in.r->result.type)));
            if (g > 0 && x->result.lens != in.groups[0][i]->result.lens)
                c.fail("input " + std::to_string(2 + g * n + i) + " has shape " + to_string(x->result.lens) + ", its X has " +
                       to_string(in.groups[0][i]->result.lens));
            in.groups.back().push_back(x);
        }
    }
    return in;
}

// Adagrad: r = R / (1 + T * decay_factor); G' = norm_coefficient * X + G; H' = H + G'^2;
// X' = X - r * G' / (sqrt(H') + epsilon). Outputs X'..., H'...
outputs adagrad(node_context& c) {
    auto in = read_inputs(c, 3, "X, G, H");
    pw p{c, in.r->result.type};
    double decay = c.attr_float("decay_factor", 0), eps = c.attr_float("epsilon", 1e-6),
           norm = c.attr_float("norm_coefficient", 0);
    auto* r = p.div(in.r, p.add(p.k(1), p.mul(in.t, p.k(decay))));
    outputs xs, hs;
    for (std::size_t i = 0; i < in.groups[0].size(); ++i) {
        auto *x = in.groups[0][i], *g = in.groups[1][i], *h = in.groups[2][i];
        auto* greg = p.add(p.mul(p.k(norm), x), g);
        auto* h2 = p.add(h, p.mul(greg, greg));
        auto* step = p.div(greg, p.add(c.add("sqrt", {h2}), p.k(eps)));
        xs.push_back(p.sub(x, p.mul(r, step)));
        hs.push_back(h2);
    }
    xs.insert(xs.end(), hs.begin(), hs.end());
    return xs;
}

// Momentum: G' = norm_coefficient * X + G; V' = alpha * V + (T > 0 ? beta : 1) * G';
// X' = X - R * V' (standard) or X - R * (G' + alpha * V') (nesterov). Outputs X'..., V'...
outputs momentum(node_context& c) {
    auto in = read_inputs(c, 3, "X, G, V");
    pw p{c, in.r->result.type};
    for (auto* a : {"alpha", "beta", "mode", "norm_coefficient"})
        if (!c.has_attr(a)) c.fail("attribute '" + std::string(a) + "' is required");
    double alpha = c.attr_float("alpha", 0), beta = c.attr_float("beta", 0), norm = c.attr_float("norm_coefficient", 0);
    auto mode = c.attr_string("mode", "");
    if (mode != "standard" && mode != "nesterov") c.fail("mode must be 'standard' or 'nesterov', got '" + mode + "'");
    auto* beta_t = p.where(in.t_pos, p.k(beta), p.k(1));
    outputs xs, vs;
    for (std::size_t i = 0; i < in.groups[0].size(); ++i) {
        auto *x = in.groups[0][i], *g = in.groups[1][i], *v = in.groups[2][i];
        auto* greg = p.add(p.mul(p.k(norm), x), g);
        auto* v2 = p.add(p.mul(p.k(alpha), v), p.mul(beta_t, greg));
        auto* dir = mode == "standard" ? v2 : p.add(greg, p.mul(p.k(alpha), v2));
        xs.push_back(p.sub(x, p.mul(in.r, dir)));
        vs.push_back(v2);
    }
    xs.insert(xs.end(), vs.begin(), vs.end());
    return xs;
}

// Adam: G' = norm_coefficient * X + G; V' = alpha V + (1 - alpha) G'; H' = beta H + (1 - beta) G'^2;
// R' = T > 0 ? R sqrt(1 - beta^T) / (1 - alpha^T) : R; X' = (1 - norm_coefficient_post) *
// (X - R' V' / (sqrt(H') + epsilon)). Outputs X'..., V'..., H'...
outputs adam(node_context& c) {
    auto in = read_inputs(c, 4, "X, G, V, H");
    pw p{c, in.r->result.type};
    double alpha = c.attr_float("alpha", 0.9), beta = c.attr_float("beta", 0.999), eps = c.attr_float("epsilon", 1e-6),
           norm = c.attr_float("norm_coefficient", 0), post = c.attr_float("norm_coefficient_post", 0);
    auto* alpha_t = p.op("pow", p.k(alpha), in.t);
    auto* beta_t = p.op("pow", p.k(beta), in.t);
    auto* r_adj = p.div(p.mul(in.r, c.add("sqrt", {p.sub(p.k(1), beta_t)})), p.sub(p.k(1), alpha_t));
    auto* r = p.where(in.t_pos, r_adj, in.r);
    outputs xs, vs, hs;
    for (std::size_t i = 0; i < in.groups[0].size(); ++i) {
        auto *x = in.groups[0][i], *g = in.groups[1][i], *v = in.groups[2][i], *h = in.groups[3][i];
        auto* greg = p.add(p.mul(p.k(norm), x), g);
        auto* v2 = p.add(p.mul(p.k(alpha), v), p.mul(p.k(1 - alpha), greg));
        auto* h2 = p.add(p.mul(p.k(beta), h), p.mul(p.k(1 - beta), p.mul(greg, greg)));
        auto* x2 = p.sub(x, p.mul(r, p.div(v2, p.add(c.add("sqrt", {h2}), p.k(eps)))));
        xs.push_back(p.mul(p.k(1 - post), x2));
        vs.push_back(v2);
        hs.push_back(h2);
    }
    xs.insert(xs.end(), vs.begin(), vs.end());
    xs.insert(xs.end(), hs.begin(), hs.end());
    return xs;
}

} // namespace

MXC_ONNX_CONVERTERS(training) {
    add_converter("ai.onnx.preview.training::Adagrad", adagrad, 1, 1);
    add_converter("ai.onnx.preview.training::Adam", adam, 1, 1);
    add_converter("ai.onnx.preview.training::Momentum", momentum, 1, 1);
}

} // namespace mxc::onnx_detail
