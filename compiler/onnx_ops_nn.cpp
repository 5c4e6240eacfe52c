// ONNX converters for reductions, normalizations, attention and losses. Most compose IR ops
// (reduce_*, pointwise, dot, softmax, ...) so that every target gets them; the losses pick
// one class per element with the `class_select` op.
#include "compiler/onnx_node.hpp"
#include "ir/error.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mxc::onnx_detail {
namespace {

using outputs = std::vector<instruction*>;
using ints = std::vector<int64_t>;

ints range(int64_t from, int64_t to) {
    ints r;
    for (int64_t i = from; i < to; ++i) r.push_back(i);
    return r;
}

int64_t rank_of(instruction* x) { return static_cast<int64_t>(x->result.rank()); }

// Normalised, sorted, distinct axes.
ints norm_axes(node_context& c, ints axes, int64_t rank) {
    for (auto& a : axes) a = c.axis(a, rank);
    std::sort(axes.begin(), axes.end());
    if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) c.fail("axes " + to_string(axes) + " repeat an axis");
    return axes;
}

// A literal of x's element type holding `values` (given as float, converted exactly as a cast).
instruction* typed_lit(node_context& c, dtype t, ints lens, const std::vector<float>& values) {
    auto* l = c.lit(literal::from<float>(dtype::float_type, std::move(lens), values));
    if (t == dtype::float_type) return l;
    return c.add("convert", {l}, attrs({{"target_type", std::string(dtype_name(t))}}));
}

instruction* splat(node_context& c, instruction* like, double v) {
    return c.broadcast_to(c.scalar(like->result.type, v), like->result.lens);
}

// Pointwise op on two inputs, numpy broadcasting.
instruction* bin(node_context& c, const std::string& op, instruction* a, instruction* b) {
    auto [x, y] = c.broadcast(a, b);
    return c.add(op, {x, y});
}

instruction* convert_to(node_context& c, instruction* x, dtype t) {
    if (x->result.type == t) return x;
    return c.add("convert", {x}, attrs({{"target_type", std::string(dtype_name(t))}}));
}

// --- reductions ----------------------------------------------------------------------------

// ReduceX = post(reduce(pre(x))): pre / post are pointwise steps, reduce an IR reduce op.
struct reduce_recipe {
    std::string pre;    // "", "abs", "square", "exp"
    std::string reduce; // reduce_sum, reduce_max, ...
    std::string post;   // "", "sqrt", "log", "logsumexp"
};

converter reduce(reduce_recipe r, int64_t axes_input_from) {
    return [r, axes_input_from](node_context& c) -> outputs {
        auto* x = c.input(0);
        int64_t rank = rank_of(x);
        ints axes;
        if (c.opset >= axes_input_from) {
            if (c.has_input(1)) axes = c.const_ints(1, "axes");
        } else {
            axes = c.attr_ints("axes");
        }
        auto pre = [&](instruction* v) {
            if (r.pre == "abs") return c.add("abs", {v});
            if (r.pre == "square") return c.add("mul", {v, v});
            return v;
        };
        if (axes.empty()) {
            // noop_with_empty_axes: nothing is reduced, the element transforms still apply.
            if (c.opset >= axes_input_from && c.attr_int("noop_with_empty_axes", 0))
                return {r.post == "sqrt" || r.post == "log" ? c.add(r.post, {pre(x)}) : pre(x)};
            axes = range(0, rank);
        }
        axes = norm_axes(c, axes, rank);
        instruction* y = nullptr;
        if (r.post == "logsumexp") {
            // log(sum(exp(x - m))) + m with m the maximum: no overflow for large x.
            auto* m = c.add("reduce_max", {x}, attrs({{"axes", axes}}));
            auto* e = c.add("exp", {c.add("sub", {x, c.broadcast_to(m, x->result.lens)})});
            y = c.add("add", {c.add("log", {c.add("reduce_sum", {e}, attrs({{"axes", axes}}))}), m});
        } else {
            y = c.add(r.reduce, {pre(x)}, attrs({{"axes", axes}}));
            if (!r.post.empty()) y = c.add(r.post, {y});
        }
        if (!c.attr_int("keepdims", 1) && !axes.empty()) y = c.add("squeeze", {y}, attrs({{"axes", axes}}));
        return {y};
    };
}

// --- normalizations ------------------------------------------------------------------------

// (x - mean) * 1/sqrt(var + eps) over `axes` (kept as length 1); also returns mean and
// the inverse standard deviation.
struct normalized {
    instruction *y, *mean, *inv_std;
};
normalized standardize(node_context& c, instruction* x, const ints& axes, double eps) {
    auto& l = x->result.lens;
    auto* mean = c.add("reduce_mean", {x}, attrs({{"axes", axes}}));
    auto* d = c.add("sub", {x, c.broadcast_to(mean, l)});
    auto* var = c.add("reduce_mean", {c.add("mul", {d, d})}, attrs({{"axes", axes}}));
    auto* inv = c.add("div", {splat(c, var, 1.0), c.add("sqrt", {c.add("add", {var, splat(c, var, eps)})})});
    return {c.add("mul", {d, c.broadcast_to(inv, l)}), mean, inv};
}

// Half-precision inputs compute in float when stash_type is 1 (the default).
dtype stash_type(node_context& c, dtype t) {
    if (c.attr_int("stash_type", 1) == 1 && (t == dtype::half_type || t == dtype::bf16_type)) return dtype::float_type;
    return t;
}

outputs layer_norm(node_context& c) {
    auto* x = c.input(0);
    int64_t r = rank_of(x);
    if (r == 0) c.fail("X must not be a scalar");
    int64_t axis = c.axis(c.attr_int("axis", -1), r);
    dtype t = x->result.type, st = stash_type(c, t);
    auto n = standardize(c, convert_to(c, x, st), range(axis, r), c.attr_float("epsilon", 1e-5));
    auto* y = convert_to(c, n.y, t);
    y = bin(c, "mul", y, c.input(1));
    if (c.has_input(2)) y = bin(c, "add", y, c.input(2));
    if (y->result.lens != x->result.lens) c.fail("Scale and B must broadcast to X " + to_string(x->result.lens));
    return {y, n.mean, n.inv_std};
}

outputs rms_norm(node_context& c) {
    auto* x = c.input(0);
    int64_t r = rank_of(x);
    if (r == 0) c.fail("X must not be a scalar");
    int64_t axis = c.axis(c.attr_int("axis", -1), r);
    dtype t = x->result.type, st = stash_type(c, t);
    auto* xs = convert_to(c, x, st);
    auto* ms = c.add("reduce_mean", {c.add("mul", {xs, xs})}, attrs({{"axes", range(axis, r)}}));
    auto* rms = c.add("sqrt", {c.add("add", {ms, splat(c, ms, c.attr_float("epsilon", 1e-5))})});
    auto* y = convert_to(c, c.add("div", {xs, c.broadcast_to(rms, x->result.lens)}), t);
    y = bin(c, "mul", y, c.input(1));
    if (y->result.lens != x->result.lens) c.fail("scale must broadcast to X " + to_string(x->result.lens));
    return {y};
}

// A per-channel [C] tensor as [C, 1, ...] for an input of rank r (channels on axis 1).
instruction* per_channel(node_context& c, instruction* v, int64_t r, const std::string& what, int64_t channels) {
    if (v->result.lens != ints{channels})
        c.fail(what + " " + to_string(v->result.lens) + " must be {" + std::to_string(channels) + "}");
    if (r <= 2) return v;
    return c.add("unsqueeze", {v}, attrs({{"axes", range(1, r - 1)}}));
}

outputs instance_norm(node_context& c) {
    auto* x = c.input(0);
    int64_t r = rank_of(x);
    if (r < 3) c.fail("input must have rank >= 3, got " + to_string(x->result.lens));
    int64_t ch = x->result.lens[1];
    auto y = standardize(c, x, range(2, r), c.attr_float("epsilon", 1e-5)).y;
    y = bin(c, "mul", y, per_channel(c, c.input(1), r, "scale", ch));
    return {bin(c, "add", y, per_channel(c, c.input(2), r, "B", ch))};
}

outputs group_norm(node_context& c) {
    auto* x = c.input(0);
    int64_t r = rank_of(x);
    if (r < 3) c.fail("X must have rank >= 3, got " + to_string(x->result.lens));
    if (!c.has_attr("num_groups")) c.fail("attribute 'num_groups' is required");
    int64_t g = c.attr_int("num_groups", 1), n = x->result.lens[0], ch = x->result.lens[1];
    if (g <= 0 || ch % g != 0) c.fail("num_groups " + std::to_string(g) + " must divide the " + std::to_string(ch) + " channels");
    dtype t = x->result.type, st = stash_type(c, t);
    auto* grouped = c.reshape(convert_to(c, x, st), {n, g, x->result.elements() / std::max<int64_t>(1, n * g)});
    auto* y = convert_to(c, c.reshape(standardize(c, grouped, {2}, c.attr_float("epsilon", 1e-5)).y, x->result.lens), t);
    auto affine = [&](instruction* v, const std::string& what) {
        // Opset 18 had one value per group; opset 21 one per channel.
        if (c.opset < 21 && v->result.lens == ints{g} && g != ch) {
            auto* e = c.broadcast_to(c.add("unsqueeze", {v}, attrs({{"axes", ints{1}}})), {g, ch / g});
            v = c.reshape(e, {ch});
        }
        return per_channel(c, v, r, what, ch);
    };
    y = bin(c, "mul", y, affine(c.input(1), "scale"));
    return {bin(c, "add", y, affine(c.input(2), "bias"))};
}

outputs mean_variance_norm(node_context& c) {
    auto* x = c.input(0);
    int64_t r = rank_of(x);
    auto axes = norm_axes(c, c.attr_ints("axes", {0, 2, 3}), r);
    auto& l = x->result.lens;
    auto* mean = c.add("reduce_mean", {x}, attrs({{"axes", axes}}));
    auto* d = c.add("sub", {x, c.broadcast_to(mean, l)});
    auto* sd = c.add("sqrt", {c.add("reduce_mean", {c.add("mul", {d, d})}, attrs({{"axes", axes}}))});
    return {c.add("div", {d, c.broadcast_to(c.add("add", {sd, splat(c, sd, 1e-9)}), l)})};
}

outputs lp_norm(node_context& c) {
    auto* x = c.input(0);
    int64_t axis = c.axis(c.attr_int("axis", -1), rank_of(x));
    int64_t p = c.attr_int("p", 2);
    instruction* norm = nullptr;
    if (p == 1) norm = c.add("reduce_sum", {c.add("abs", {x})}, attrs({{"axes", ints{axis}}}));
    else if (p == 2) norm = c.add("sqrt", {c.add("reduce_sum", {c.add("mul", {x, x})}, attrs({{"axes", ints{axis}}}))});
    else c.fail("p must be 1 or 2, got " + std::to_string(p));
    // A zero norm means x is all zeros there: divide by the smallest positive value, giving 0.
    double tiny = x->result.type == dtype::half_type ? 5.960464477539063e-08
                  : x->result.type == dtype::bf16_type ? 9.183549615799121e-41
                  : x->result.type == dtype::double_type ? 4.9406564584124654e-324 : 1.401298464324817e-45;
    if (is_floating(x->result.type)) norm = c.add("max", {norm, splat(c, norm, tiny)});
    return {c.add("div", {x, c.broadcast_to(norm, x->result.lens)})};
}

// y = x / (bias + alpha/size * sum of x^2 over the `size` channels around c)^beta: the sum is
// an average pooling (padding counted) over a [N, 1, C, rest] view.
outputs lrn(node_context& c) {
    auto* x = c.input(0);
    auto l = x->result.lens;
    if (l.size() < 3) c.fail("X must have rank >= 3, got " + to_string(l));
    if (!c.has_attr("size")) c.fail("attribute 'size' is required");
    int64_t size = c.attr_int("size", 1);
    if (size < 1) c.fail("size must be positive, got " + std::to_string(size));
    int64_t rest = x->result.elements() / std::max<int64_t>(1, l[0] * l[1]);
    auto* sq = c.reshape(c.add("mul", {x, x}), {l[0], 1, l[1], rest});
    int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
    auto* avg = c.add("pooling", {sq}, attrs({{"mode", std::string("average")},
                                              {"padding", ints{lo, 0, hi, 0}},
                                              {"lengths", ints{size, 1}},
                                              {"count_include_pad", int64_t{1}}}));
    avg = c.reshape(avg, l);
    double alpha = c.attr_float("alpha", 1e-4), beta = c.attr_float("beta", 0.75), bias = c.attr_float("bias", 1.0);
    auto* base = c.add("add", {c.add("mul", {avg, splat(c, avg, alpha)}), splat(c, avg, bias)});
    return {c.add("div", {x, c.add("pow", {base, splat(c, base, beta)})})};
}

// |x|^p (p = 1 and 2 without pow).
instruction* abs_pow(node_context& c, instruction* x, int64_t p) {
    if (p == 1) return c.add("abs", {x});
    if (p == 2) return c.add("mul", {x, x});
    return c.add("pow", {c.add("abs", {x}), splat(c, x, static_cast<double>(p))});
}
instruction* root(node_context& c, instruction* x, int64_t p) {
    if (p == 1) return x;
    if (p == 2) return c.add("sqrt", {x});
    return c.add("pow", {x, splat(c, x, 1.0 / static_cast<double>(p))});
}

outputs global_lp_pool(node_context& c) {
    auto* x = c.input(0);
    if (rank_of(x) < 3) c.fail("X must have rank >= 3, got " + to_string(x->result.lens));
    int64_t p = c.attr_int("p", 2);
    auto* s = c.add("reduce_sum", {abs_pow(c, x, p)}, attrs({{"axes", range(2, rank_of(x))}}));
    return {root(c, s, p)};
}

// --- attention -----------------------------------------------------------------------------

// [B, S, heads*H] -> [B, heads, S, H]
instruction* split_heads(node_context& c, instruction* x, int64_t heads, const std::string& what) {
    auto l = x->result.lens;
    if (heads <= 0 || l[2] % heads != 0)
        c.fail(what + " hidden size " + std::to_string(l[2]) + " is not a multiple of the head count " + std::to_string(heads));
    auto* r = c.reshape(x, {l[0], l[1], heads, l[2] / heads});
    return c.add("transpose", {r}, attrs({{"permutation", ints{0, 2, 1, 3}}}));
}

const double neg_inf = -std::numeric_limits<double>::infinity();

outputs attention(node_context& c) {
    auto *q = c.input(0), *k = c.input(1), *v = c.input(2);
    int64_t r = rank_of(q);
    if (r != 3 && r != 4) c.fail("Q must have rank 3 or 4, got " + to_string(q->result.lens));
    if (rank_of(k) != r || rank_of(v) != r) c.fail("Q, K and V must have the same rank");
    dtype t = q->result.type;
    for (auto* x : {q, k, v})
        if (!is_floating(x->result.type))
            c.fail("Q, K and V must be floating-point tensors, got " + std::string(dtype_name(x->result.type)));
    if (r == 3) {
        if (!c.has_attr("q_num_heads") || !c.has_attr("kv_num_heads"))
            c.fail("3-D inputs need the attributes q_num_heads and kv_num_heads");
        int64_t qh = c.attr_int("q_num_heads", 1), kvh = c.attr_int("kv_num_heads", 1);
        q = split_heads(c, q, qh, "Q");
        k = split_heads(c, k, kvh, "K");
        v = split_heads(c, v, kvh, "V");
    }
    int64_t b = q->result.lens[0], qh = q->result.lens[1], sq = q->result.lens[2], hs = q->result.lens[3];
    int64_t kvh = k->result.lens[1];
    if (k->result.lens[0] != b || v->result.lens[0] != b || v->result.lens[1] != kvh || k->result.lens[3] != hs ||
        v->result.lens[2] != k->result.lens[2])
        c.fail("Q, K, V shapes do not agree: " + to_string(q->result.lens) + ", " + to_string(k->result.lens) + ", " +
               to_string(v->result.lens));
    int64_t past = 0;
    if (c.has_input(4)) {
        past = c.input(4)->result.lens.size() == 4 ? c.input(4)->result.lens[2] : 0;
        k = c.add("concat", {c.input(4), k}, attrs({{"axis", int64_t{2}}}));
    }
    if (c.has_input(5)) v = c.add("concat", {c.input(5), v}, attrs({{"axis", int64_t{2}}}));
    auto *present_k = k, *present_v = v;
    int64_t total = k->result.lens[2];

    // The additive bias [.., sq, total]: the mask (bool: 0 or -inf), causal -inf, padding.
    instruction* bias = nullptr;
    if (c.has_input(3)) {
        auto* m = c.input(3);
        if (m->result.type == dtype::bool_type) m = c.add("log", {convert_to(c, m, t)}); // true -> 0, false -> -inf
        else m = convert_to(c, m, t);
        auto ml = m->result.lens;
        if (ml.empty()) c.fail("attn_mask must not be a scalar");
        if (ml.back() < total) { // a shorter mask is padded with -inf
            auto pl = ml;
            pl.back() = total - ml.back();
            m = c.add("concat", {m, c.broadcast_to(c.scalar(t, neg_inf), pl)},
                      attrs({{"axis", static_cast<int64_t>(ml.size()) - 1}}));
        }
        bias = m;
    }
    bool causal = c.attr_int("is_causal", 0) != 0;
    std::vector<int64_t> nonpad;
    if (c.has_input(6)) {
        nonpad = c.const_ints(6, "nonpad_kv_seqlen");
        if (static_cast<int64_t>(nonpad.size()) != b) c.fail("nonpad_kv_seqlen must have one value per batch");
    }
    if (causal || !nonpad.empty()) {
        // [B, 1, sq, total]: key j is visible to query i iff j <= i + offset (causal) and j < nonpad[b].
        std::vector<float> cm(static_cast<std::size_t>(b * sq * total), 0.0f);
        for (int64_t bi = 0; bi < b; ++bi)
            for (int64_t i = 0; i < sq; ++i)
                for (int64_t j = 0; j < total; ++j) {
                    int64_t offset = !c.has_input(4) && !nonpad.empty() ? nonpad[bi] - sq : past;
                    bool hidden = (causal && j > i + offset) || (!nonpad.empty() && j >= nonpad[bi]);
                    if (hidden) cm[static_cast<std::size_t>((bi * sq + i) * total + j)] = -INFINITY;
                }
        auto* cl = typed_lit(c, t, {b, 1, sq, total}, cm);
        bias = bias ? bin(c, "add", bias, cl) : cl;
    }

    // Grouped-query attention: KV head h serves query heads h*g .. h*g+g-1.
    if (qh != kvh) {
        if (kvh == 0 || qh % kvh != 0) c.fail("q heads " + std::to_string(qh) + " are not a multiple of kv heads " + std::to_string(kvh));
        auto repeat = [&](instruction* x) {
            auto l = x->result.lens;
            auto* e = c.add("unsqueeze", {x}, attrs({{"axes", ints{2}}}));
            e = c.broadcast_to(e, {l[0], l[1], qh / kvh, l[2], l[3]});
            return c.reshape(e, {l[0], qh, l[2], l[3]});
        };
        k = repeat(k);
        v = repeat(v);
    }
    double scale = c.has_attr("scale") ? c.attr_float("scale", 1.0) : 1.0 / std::sqrt(static_cast<double>(hs));
    double s = std::sqrt(scale);
    auto* kt = c.add("transpose", {k}, attrs({{"permutation", ints{0, 1, 3, 2}}}));
    auto* qk = c.add("dot", {c.add("mul", {q, splat(c, q, s)}), c.add("mul", {kt, splat(c, kt, s)})});
    double softcap = c.attr_float("softcap", 0.0);
    if (softcap > 0) {
        auto* th = c.add("tanh", {c.add("div", {qk, splat(c, qk, softcap)})});
        qk = c.add("mul", {th, splat(c, th, softcap)});
    }
    auto* biased = bias ? bin(c, "add", qk, bias) : qk;
    if (biased->result.lens != qk->result.lens) c.fail("attn_mask does not broadcast to " + to_string(qk->result.lens));
    auto* sm_in = biased;
    if (c.has_attr("softmax_precision")) {
        auto p = dtype_from_onnx(static_cast<int>(c.attr_int("softmax_precision", 1)));
        if (!p || !is_floating(*p)) c.fail("softmax_precision must be a floating type");
        sm_in = convert_to(c, sm_in, *p);
    }
    auto* probs = convert_to(c, c.add("softmax", {sm_in}, attrs({{"axis", int64_t{3}}})), t);
    auto* y = c.add("dot", {probs, v});
    if (r == 3) {
        auto l = y->result.lens;
        y = c.reshape(c.add("transpose", {y}, attrs({{"permutation", ints{0, 2, 1, 3}}})), {l[0], l[2], l[1] * l[3]});
    }
    int64_t mode = c.attr_int("qk_matmul_output_mode", 0);
    instruction* qk_out = mode == 0 || mode == 1 ? qk : mode == 2 ? biased : mode == 3 ? probs : nullptr;
    if (!qk_out) c.fail("qk_matmul_output_mode must be 0 to 3, got " + std::to_string(mode));
    return {y, present_k, present_v, qk_out};
}

// --- losses --------------------------------------------------------------------------------

// loss[n, d...] = -x[n, t, d...] * w[t] (0 where t == ignore_index), reduced as asked.
outputs nll(node_context& c, instruction* x, instruction* target, instruction* weight) {
    auto xl = x->result.lens;
    if (xl.size() < 2) c.fail("input must have rank >= 2, got " + to_string(xl));
    ints tl = xl;
    tl.erase(tl.begin() + 1);
    if (target->result.lens != tl)
        c.fail("target " + to_string(target->result.lens) + " must be " + to_string(tl) + " for input " + to_string(xl));
    attributes sel;
    if (c.has_attr("ignore_index")) sel = attrs({{"ignore_index", c.attr_int("ignore_index", 0)}, {"has_ignore", int64_t{1}}});
    auto* picked = c.add("class_select", {x, target}, sel);
    instruction* w = weight ? weight : c.scalar(x->result.type, 1.0);
    if (weight && weight->result.lens != ints{xl[1]})
        c.fail("weight " + to_string(weight->result.lens) + " must be {" + std::to_string(xl[1]) + "}");
    if (weight && xl.size() > 2) w = c.add("unsqueeze", {w}, attrs({{"axes", range(1, static_cast<int64_t>(xl.size()) - 1)}}));
    w = c.add("class_select", {c.broadcast_to(w, xl), target}, sel);
    auto* loss = c.add("neg", {c.add("mul", {picked, w})});
    auto mode = c.attr_string("reduction", "mean");
    auto all = range(0, static_cast<int64_t>(tl.size()));
    auto total = [&](instruction* v) { return c.add("squeeze", {c.add("reduce_sum", {v}, attrs({{"axes", all}}))}, attrs({{"axes", all}})); };
    if (mode == "none") return {loss};
    if (mode == "sum") return {total(loss)};
    if (mode == "mean") return {c.add("div", {total(loss), total(w)})};
    c.fail("unknown reduction '" + mode + "'");
}

outputs nll_loss(node_context& c) {
    return nll(c, c.input(0), c.input(1), c.has_input(2) ? c.input(2) : nullptr);
}

outputs softmax_cross_entropy(node_context& c) {
    auto* x = c.input(0);
    if (rank_of(x) < 2) c.fail("scores must have rank >= 2, got " + to_string(x->result.lens));
    auto* lp = c.add("log_softmax", {x}, attrs({{"axis", int64_t{1}}}));
    auto out = nll(c, lp, c.input(1), c.has_input(2) ? c.input(2) : nullptr);
    return {out[0], lp};
}

} // namespace

MXC_ONNX_CONVERTERS(nn) {
    add_converter("ReduceSum", reduce({"", "reduce_sum", ""}, 13));
    add_converter("ReduceMean", reduce({"", "reduce_mean", ""}, 18));
    add_converter("ReduceMax", reduce({"", "reduce_max", ""}, 18));
    add_converter("ReduceMin", reduce({"", "reduce_min", ""}, 18));
    add_converter("ReduceProd", reduce({"", "reduce_prod", ""}, 18));
    add_converter("ReduceSumSquare", reduce({"square", "reduce_sum", ""}, 18));
    add_converter("ReduceL1", reduce({"abs", "reduce_sum", ""}, 18));
    add_converter("ReduceL2", reduce({"square", "reduce_sum", "sqrt"}, 18));
    add_converter("ReduceLogSum", reduce({"", "reduce_sum", "log"}, 18));
    add_converter("ReduceLogSumExp", reduce({"", "reduce_sum", "logsumexp"}, 18));
    add_converter("LayerNormalization", layer_norm, 17);
    add_converter("RMSNormalization", rms_norm, 23);
    add_converter("InstanceNormalization", instance_norm);
    add_converter("GroupNormalization", group_norm, 18);
    add_converter("MeanVarianceNormalization", mean_variance_norm, 9);
    add_converter("LpNormalization", lp_norm);
    add_converter("LRN", lrn);
    add_converter("GlobalLpPool", global_lp_pool, 2);
    add_converter("Attention", attention, 23);
    add_converter("NegativeLogLikelihoodLoss", nll_loss, 12);
    add_converter("SoftmaxCrossEntropyLoss", softmax_cross_entropy, 12);
}

} // namespace mxc::onnx_detail
