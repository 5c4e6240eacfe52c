// ONNX converters for math and attention-family ops. Compositions of existing IR ops:
// Einsum (diagonals, reductions, transposes and batched dots), RotaryEmbedding (gathered
// cos/sin caches, strided slices, mul/add), SwiGLU (pointwise), CausalConvWithState (concat
// of the past state, then a depthwise convolution), AffineGrid (a constant base grid times
// theta) and FlexAttention (domain ai.onnx.preview: dot/softmax/dot with its score_mod and
// prob_mod subgraphs converted in between). Det, RoiAlign, DeformConv and LinearAttention
// have IR ops of their own (ir/ops/linalg.cpp, roi_align.cpp, deform_conv.cpp,
// linear_attention.cpp).
#include "compiler/onnx_node.hpp"
#include "ir/error.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace mxc::onnx_detail {
namespace {

using outputs = std::vector<instruction*>;
using ints = std::vector<int64_t>;

int64_t rank_of(instruction* x) { return static_cast<int64_t>(x->result.rank()); }

ints range(int64_t from, int64_t to) {
    ints r;
    for (int64_t i = from; i < to; ++i) r.push_back(i);
    return r;
}

instruction* splat(node_context& c, instruction* like, double v) {
    return c.broadcast_to(c.scalar(like->result.type, v), like->result.lens);
}

instruction* bin(node_context& c, const std::string& op, instruction* a, instruction* b) {
    auto [x, y] = c.broadcast(a, b);
    return c.add(op, {x, y});
}

instruction* permute(node_context& c, instruction* x, ints perm) {
    if (perm == range(0, rank_of(x))) return x;
    return c.add("transpose", {x}, attrs({{"permutation", std::move(perm)}}));
}

// x[..., start : start + step * len : step] on `axis`.
instruction* slice_axis(node_context& c, instruction* x, int64_t axis, int64_t start, int64_t step, int64_t len) {
    auto lens = x->result.lens;
    ints starts(lens.size(), 0), steps(lens.size(), 1);
    starts[axis] = start;
    steps[axis] = step;
    if (start == 0 && step == 1 && len == lens[axis]) return x;
    lens[axis] = len;
    return c.add("slice", {x}, attrs({{"starts", starts}, {"steps", steps}, {"out_lens", lens}}));
}

instruction* concat(node_context& c, std::vector<instruction*> xs, int64_t axis) {
    return c.add("concat", std::move(xs), attrs({{"axis", axis}}));
}

// --- Einsum --------------------------------------------------------------------------------

// A label: a letter, or one axis of the ellipsis (ellipsis_label + its position counted
// from the first ellipsis axis of the widest operand).
constexpr int ellipsis_label = 1000;
using labels = std::vector<int>;

struct einsum_operand {
    instruction* x;
    labels l; // one per axis of x
};

struct einsum_term {
    labels letters;      // letters before the ellipsis, then after it
    int ellipsis_at = -1; // position of "..." among the letters, -1 if none
};

einsum_term parse_term(node_context& c, const std::string& s) {
    einsum_term t;
    for (std::size_t i = 0; i < s.size(); ++i) {
        char ch = s[i];
        if (ch == '.') {
            if (s.compare(i, 3, "...") != 0 || t.ellipsis_at >= 0)
                c.fail("equation term '" + s + "' has a stray '.' or more than one '...'");
            t.ellipsis_at = static_cast<int>(t.letters.size());
            i += 2;
        } else if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')) {
            t.letters.push_back(ch);
        } else {
            c.fail("equation term '" + s + "' has the character '" + std::string(1, ch) + "'");
        }
    }
    return t;
}

// The labels of a term for an operand of `rank` axes whose ellipsis spans `width` of the
// `max_width` ellipsis axes (aligned right, as numpy broadcasting).
labels term_labels(const einsum_term& t, int64_t width, int64_t max_width) {
    labels l(t.letters.begin(), t.letters.end());
    if (t.ellipsis_at < 0) return l;
    labels e;
    for (int64_t i = 0; i < width; ++i) e.push_back(ellipsis_label + static_cast<int>(max_width - width + i));
    l.insert(l.begin() + t.ellipsis_at, e.begin(), e.end());
    return l;
}

// Takes the diagonal of every label repeated within one operand.
einsum_operand take_diagonals(node_context& c, einsum_operand o) {
    for (;;) {
        std::size_t i = 0, j = 0;
        for (i = 0; i < o.l.size(); ++i) {
            j = std::find(o.l.begin() + static_cast<long>(i) + 1, o.l.end(), o.l[i]) - o.l.begin();
            if (j < o.l.size()) break;
        }
        if (i == o.l.size()) return o;
        int64_t n = o.x->result.lens[i];
        if (o.x->result.lens[j] != n)
            c.fail("label '" + std::string(1, static_cast<char>(o.l[i])) + "' is repeated with lengths " +
                   std::to_string(n) + " and " + std::to_string(o.x->result.lens[j]));
        // Move axes i and j to the end, flatten them to n*n and take every (n+1)-th element.
        ints perm;
        labels rest;
        for (std::size_t a = 0; a < o.l.size(); ++a)
            if (a != i && a != j) {
                perm.push_back(static_cast<int64_t>(a));
                rest.push_back(o.l[a]);
            }
        perm.push_back(static_cast<int64_t>(i));
        perm.push_back(static_cast<int64_t>(j));
        auto* t = permute(c, o.x, perm);
        auto lens = t->result.lens;
        lens.pop_back();
        lens.back() = n * n;
        t = c.reshape(t, lens);
        o.x = slice_axis(c, t, static_cast<int64_t>(lens.size()) - 1, 0, n + 1, n);
        rest.push_back(o.l[i]);
        o.l = rest;
    }
}

// Sums the axes whose labels are not in `keep`.
einsum_operand sum_out(node_context& c, einsum_operand o, const std::set<int>& keep) {
    ints axes;
    labels rest;
    for (std::size_t a = 0; a < o.l.size(); ++a) {
        if (keep.count(o.l[a])) rest.push_back(o.l[a]);
        else axes.push_back(static_cast<int64_t>(a));
    }
    if (axes.empty()) return o;
    auto* s = c.add("reduce_sum", {o.x}, attrs({{"axes", axes}}));
    return {c.add("squeeze", {s}, attrs({{"axes", axes}})), rest};
}

// a * b summed over the labels they share that are not in `keep`: a batched dot of
// [batch, a-only, summed] by [batch, summed, b-only].
einsum_operand contract(node_context& c, einsum_operand a, einsum_operand b, const std::set<int>& keep) {
    labels batch, summed, a_only, b_only;
    std::map<int, int64_t> len;
    auto note = [&](int l, int64_t n) {
        auto [it, fresh] = len.emplace(l, n);
        if (fresh || it->second == n || n == 1) return;
        if (it->second != 1)
            c.fail("label '" + (l >= ellipsis_label ? std::string("...") : std::string(1, static_cast<char>(l))) +
                   "' has lengths " + std::to_string(it->second) + " and " + std::to_string(n));
        it->second = n;
    };
    for (std::size_t i = 0; i < a.l.size(); ++i) note(a.l[i], a.x->result.lens[i]);
    for (std::size_t i = 0; i < b.l.size(); ++i) note(b.l[i], b.x->result.lens[i]);
    auto in = [](const labels& l, int x) { return std::find(l.begin(), l.end(), x) != l.end(); };
    for (int l : a.l) {
        if (!in(b.l, l)) a_only.push_back(l);
        else if (keep.count(l)) batch.push_back(l);
        else summed.push_back(l);
    }
    for (int l : b.l)
        if (!in(a.l, l)) b_only.push_back(l);
    // Each operand in the order given, broadcast to the common lengths, flattened to 3-D.
    auto arrange = [&](einsum_operand& o, const std::vector<const labels*>& groups) {
        ints perm, lens, flat;
        for (auto* g : groups) {
            int64_t p = 1;
            for (int l : *g) {
                if (in(o.l, l)) {
                    perm.push_back(std::find(o.l.begin(), o.l.end(), l) - o.l.begin());
                    lens.push_back(len[l]);
                }
                p *= len[l];
            }
            flat.push_back(p);
        }
        auto* t = permute(c, o.x, perm);
        t = c.broadcast_to(t, lens);
        return c.reshape(t, flat);
    };
    auto* ax = arrange(a, {&batch, &a_only, &summed});
    auto* bx = arrange(b, {&batch, &summed, &b_only});
    auto* y = c.add("dot", {ax, bx});
    labels out = batch;
    out.insert(out.end(), a_only.begin(), a_only.end());
    out.insert(out.end(), b_only.begin(), b_only.end());
    ints lens;
    for (int l : out) lens.push_back(len[l]);
    return {c.reshape(y, lens), out};
}

outputs einsum(node_context& c) {
    std::string eq;
    for (char ch : c.attr_string("equation", "")) if (ch != ' ') eq += ch;
    if (!c.has_attr("equation")) c.fail("attribute 'equation' is required");
    auto arrow = eq.find("->");
    std::string lhs = eq.substr(0, arrow);
    std::vector<einsum_term> terms;
    for (std::size_t from = 0;;) {
        auto comma = lhs.find(',', from);
        terms.push_back(parse_term(c, lhs.substr(from, comma == std::string::npos ? std::string::npos : comma - from)));
        if (comma == std::string::npos) break;
        from = comma + 1;
    }
    if (terms.size() != c.num_inputs())
        c.fail("equation '" + eq + "' has " + std::to_string(terms.size()) + " terms for " +
               std::to_string(c.num_inputs()) + " inputs");
    int64_t max_width = 0;
    std::vector<int64_t> widths;
    for (std::size_t i = 0; i < terms.size(); ++i) {
        int64_t r = rank_of(c.input(i)), n = static_cast<int64_t>(terms[i].letters.size());
        int64_t w = terms[i].ellipsis_at >= 0 ? r - n : 0;
        if (w < 0 || (terms[i].ellipsis_at < 0 && r != n))
            c.fail("term " + std::to_string(i) + " of '" + eq + "' does not fit input " + std::to_string(i) + " of shape " +
                   to_string(c.input(i)->result.lens));
        widths.push_back(w);
        max_width = std::max(max_width, w);
    }
    std::vector<einsum_operand> ops;
    std::map<int, int> count;
    for (std::size_t i = 0; i < terms.size(); ++i) {
        auto l = term_labels(terms[i], widths[i], max_width);
        for (int x : l) ++count[x]; // a letter repeated within one term counts twice ("ii" is a trace)
        ops.push_back(take_diagonals(c, {c.input(i), l}));
    }
    // The output: as written, or (implicit) the ellipsis then the letters seen once, sorted.
    labels out;
    if (arrow != std::string::npos) {
        auto t = parse_term(c, eq.substr(arrow + 2));
        out = term_labels(t, t.ellipsis_at >= 0 ? max_width : 0, max_width);
        std::set<int> seen;
        for (int l : out) {
            if (!seen.insert(l).second) c.fail("output label '" + std::string(1, static_cast<char>(l)) + "' repeats");
            if (!count.count(l) && l < ellipsis_label)
                c.fail("output label '" + std::string(1, static_cast<char>(l)) + "' is in no input");
        }
    } else {
        for (int64_t i = 0; i < max_width; ++i) out.push_back(ellipsis_label + static_cast<int>(i));
        for (auto [l, n] : count)
            if (n == 1 && l < ellipsis_label) out.push_back(l);
    }
    // Left to right: each operand keeps the labels of the output and of the operands after it.
    auto needed_after = [&](std::size_t i) {
        std::set<int> keep(out.begin(), out.end());
        for (std::size_t j = i + 1; j < ops.size(); ++j) keep.insert(ops[j].l.begin(), ops[j].l.end());
        return keep;
    };
    auto acc = ops[0];
    for (std::size_t i = 1; i < ops.size(); ++i) {
        auto keep = needed_after(i);
        auto others = keep;
        others.insert(ops[i].l.begin(), ops[i].l.end());
        acc = sum_out(c, acc, others);
        auto next = ops[i];
        auto with_acc = keep;
        with_acc.insert(acc.l.begin(), acc.l.end());
        next = sum_out(c, next, with_acc);
        acc = contract(c, acc, next, keep);
    }
    acc = sum_out(c, acc, std::set<int>(out.begin(), out.end()));
    ints perm;
    for (int l : out) {
        auto it = std::find(acc.l.begin(), acc.l.end(), l);
        if (it == acc.l.end()) c.fail("output label is in no input"); // an ellipsis no input had
        perm.push_back(it - acc.l.begin());
    }
    return {permute(c, acc.x, perm)};
}

// --- RotaryEmbedding -----------------------------------------------------------------------

outputs rotary_embedding(node_context& c) {
    auto* x = c.input(0);
    int64_t r = rank_of(x);
    auto xl = x->result.lens;
    if (r != 3 && r != 4) c.fail("input must have rank 3 or 4, got " + to_string(xl));
    if (r == 3) { // [B, S, N*H] -> [B, N, S, H]
        int64_t heads = c.attr_int("num_heads", 0);
        if (heads <= 0 || xl[2] % heads != 0)
            c.fail("a 3-D input needs num_heads dividing its hidden size " + std::to_string(xl[2]) + ", got " +
                   std::to_string(heads));
        x = permute(c, c.reshape(x, {xl[0], xl[1], heads, xl[2] / heads}), {0, 2, 1, 3});
    }
    auto l = x->result.lens; // [B, N, S, H]
    int64_t b = l[0], n = l[1], s = l[2], h = l[3];
    int64_t rd = c.attr_int("rotary_embedding_dim", 0);
    if (rd == 0) rd = h;
    if (rd < 0 || rd > h || rd % 2 != 0)
        c.fail("rotary_embedding_dim " + std::to_string(rd) + " must be even and at most the head size " + std::to_string(h));
    int64_t half = rd / 2;
    // The caches as [B, S, >= rd/2], then [B, N, S, rd/2].
    auto cache = [&](std::size_t i, const std::string& what) {
        auto* v = c.input(i);
        if (v->result.type != x->result.type) c.fail(what + " must have the input's element type");
        if (c.has_input(3)) {
            auto* p = c.input(3);
            if (p->result.lens != ints{b, s}) c.fail("position_ids must be " + to_string(ints{b, s}) + ", got " + to_string(p->result.lens));
            if (rank_of(v) != 2) c.fail(what + " must be 2-D with position_ids, got " + to_string(v->result.lens));
            v = c.add("gather", {v, p}, attrs({{"axis", int64_t{0}}}));
        }
        if (rank_of(v) != 3 || v->result.lens[0] != b || v->result.lens[1] != s || v->result.lens[2] < half)
            c.fail(what + " " + to_string(v->result.lens) + " does not fit batch " + std::to_string(b) + ", sequence " +
                   std::to_string(s) + " and rotary dim " + std::to_string(rd));
        v = slice_axis(c, v, 2, 0, 1, half);
        return c.broadcast_to(c.add("unsqueeze", {v}, attrs({{"axes", ints{1}}})), {b, n, s, half});
    };
    auto* cos = cache(1, "cos_cache");
    auto* sin = cache(2, "sin_cache");
    bool interleaved = c.attr_int("interleaved", 0) != 0;
    auto* x1 = interleaved ? slice_axis(c, x, 3, 0, 2, half) : slice_axis(c, x, 3, 0, 1, half);
    auto* x2 = interleaved ? slice_axis(c, x, 3, 1, 2, half) : slice_axis(c, x, 3, half, 1, half);
    auto* real = c.add("sub", {c.add("mul", {cos, x1}), c.add("mul", {sin, x2})});
    auto* imag = c.add("add", {c.add("mul", {sin, x1}), c.add("mul", {cos, x2})});
    instruction* y = nullptr;
    if (interleaved) {
        auto pair = [&](instruction* v) { return c.add("unsqueeze", {v}, attrs({{"axes", ints{4}}})); };
        y = c.reshape(concat(c, {pair(real), pair(imag)}, 4), {b, n, s, rd});
    } else {
        y = concat(c, {real, imag}, 3);
    }
    if (rd < h) y = concat(c, {y, slice_axis(c, x, 3, rd, 1, h - rd)}, 3);
    if (r == 3) y = c.reshape(permute(c, y, {0, 2, 1, 3}), xl);
    return {y};
}

// --- SwiGLU --------------------------------------------------------------------------------

outputs swiglu(node_context& c) { // a * sigmoid(alpha * a) * b
    auto* a = c.input(0);
    if (!is_floating(a->result.type)) c.fail("inputs must be floating point");
    double alpha = c.attr_float("alpha", 1.0);
    auto* z = alpha == 1.0 ? a : c.add("mul", {a, splat(c, a, alpha)});
    auto* gate = c.add("mul", {a, c.add("sigmoid", {z})});
    return {bin(c, "mul", gate, c.input(1))};
}

// --- CausalConvWithState -------------------------------------------------------------------

// y = activation(depthwise_conv(concat(past_state, x)) + bias); present_state = the last
// K - 1 steps of that concatenation.
outputs causal_conv_with_state(node_context& c) {
    auto *x = c.input(0), *w = c.input(1);
    auto xl = x->result.lens, wl = w->result.lens;
    if (xl.size() != 3) c.fail("input must be [batch, channels, length], got " + to_string(xl));
    int64_t b = xl[0], ch = xl[1], k = wl.size() == 3 ? wl[2] : 0;
    if (wl.size() != 3 || wl[0] != ch || wl[1] != 1 || k < 1)
        c.fail("weight must be [" + std::to_string(ch) + ", 1, kernel], got " + to_string(wl));
    if (w->result.type != x->result.type) c.fail("weight must have the input's element type");
    instruction* past = nullptr;
    if (c.has_input(3)) {
        past = c.input(3);
        if (past->result.lens != ints{b, ch, k - 1})
            c.fail("past_state must be " + to_string(ints{b, ch, k - 1}) + ", got " + to_string(past->result.lens));
    } else {
        past = c.broadcast_to(c.scalar(x->result.type, 0.0), {b, ch, k - 1});
    }
    auto* padded = k > 1 ? concat(c, {past, x}, 2) : x;
    auto* y = c.add("convolution", {padded, w}, attrs({{"group", ch}}));
    if (c.has_input(2)) {
        auto* bias = c.input(2);
        if (bias->result.lens != ints{ch}) c.fail("bias must be {" + std::to_string(ch) + "}, got " + to_string(bias->result.lens));
        y = c.add("add", {y, c.broadcast_to(c.add("unsqueeze", {bias}, attrs({{"axes", ints{1}}})), y->result.lens)});
    }
    auto act = c.attr_string("activation", "none");
    if (act == "silu" || act == "swish") y = c.add("mul", {y, c.add("sigmoid", {y})});
    else if (act != "none") c.fail("unknown activation '" + act + "' (none, silu or swish)");
    int64_t total = padded->result.lens[2];
    auto* present = k > 1 ? slice_axis(c, padded, 2, total - (k - 1), 1, k - 1) : past;
    return {y, present};
}


// --- LinearAttention -----------------------------------------------------------------------

instruction* convert_to(node_context& c, instruction* x, dtype t) {
    if (x->result.type == t) return x;
    return c.add("convert", {x}, attrs({{"target_type", std::string(dtype_name(t))}}));
}

// The recurrence runs in the linear_attention op (ir/ops/linear_attention.cpp), one
// (batch, KV head, value column) at a time; its packed result is taken apart with views.
outputs linear_attention(node_context& c) {
    auto *q = c.input(0), *k = c.input(1), *v = c.input(2);
    for (auto* x : {q, k, v})
        if (rank_of(x) != 3) c.fail("query, key and value must be [batch, steps, heads * size], got " + to_string(x->result.lens));
    if (!c.has_attr("q_num_heads") || !c.has_attr("kv_num_heads")) c.fail("attributes q_num_heads and kv_num_heads are required");
    int64_t hq = c.attr_int("q_num_heads", 0), hkv = c.attr_int("kv_num_heads", 0);
    if (hq <= 0 || hkv <= 0 || hq % hkv != 0 || q->result.lens[2] % hq != 0 || v->result.lens[2] % hkv != 0)
        c.fail("query " + to_string(q->result.lens) + " and value " + to_string(v->result.lens) + " do not fit " +
               std::to_string(hq) + " query and " + std::to_string(hkv) + " KV heads");
    int64_t b = q->result.lens[0], t = q->result.lens[1], g = hq / hkv, dk = q->result.lens[2] / hq, dv = v->result.lens[2] / hkv;
    auto rule = c.attr_string("update_rule", "gated_delta");
    bool gated = rule == "gated" || rule == "gated_delta", delta = rule == "delta" || rule == "gated_delta";
    if (!gated && !delta && rule != "linear") c.fail("unknown update_rule '" + rule + "'");
    std::vector<instruction*> in{q, k, v};
    ints full{b, hkv, dk, dv};
    if (c.has_input(3)) {
        if (c.input(3)->result.lens != full)
            c.fail("past_state must be " + to_string(full) + ", got " + to_string(c.input(3)->result.lens));
        in.push_back(c.input(3));
    } else {
        in.push_back(c.broadcast_to(c.scalar(q->result.type, 0.0), full));
    }
    if (gated && !c.has_input(4)) c.fail("update_rule '" + rule + "' needs the input decay");
    if (delta && !c.has_input(5)) c.fail("update_rule '" + rule + "' needs the input beta");
    if (gated) in.push_back(c.input(4));
    if (delta) in.push_back(c.input(5));
    double scale = c.has_attr("scale") ? c.attr_float("scale", 1.0) : 1.0 / std::sqrt(static_cast<double>(dk));
    auto* r = c.add("linear_attention", in,
                    attrs({{"q_num_heads", hq}, {"kv_num_heads", hkv}, {"update_rule", rule}, {"scale", scale}}));
    // [B, Hkv, dv, T*g] -> [B, Hkv, dv, T, g] -> [B, T, Hkv, g, dv] -> [B, T, Hq*dv]
    instruction* y = nullptr;
    if (t == 0) {
        y = c.broadcast_to(c.scalar(q->result.type, 0.0), {b, 0, hq * dv});
    } else {
        y = c.reshape(slice_axis(c, r, 3, 0, 1, t * g), {b, hkv, dv, t, g});
        y = c.reshape(permute(c, y, {0, 3, 1, 4, 2}), {b, t, hq * dv});
    }
    auto* state = permute(c, slice_axis(c, r, 3, t * g, 1, dk), {0, 1, 3, 2});
    return {y, state};
}

// --- AffineGrid ----------------------------------------------------------------------------

// grid[n, (d,) h, w] = theta[n] @ (x_w, y_h, (z_d,) 1): the normalised base coordinates are a
// build-time constant [points, r + 1], multiplied by theta[n] transposed.
outputs affine_grid(node_context& c) {
    auto* theta = c.input(0);
    auto size = c.const_ints(1, "size");
    if (size.size() != 4 && size.size() != 5) c.fail("size must have 4 or 5 values, got " + to_string(size));
    int64_t r = static_cast<int64_t>(size.size()) - 2, n = size[0];
    if (theta->result.lens != ints{n, r, r + 1})
        c.fail("theta must be " + to_string(ints{n, r, r + 1}) + " for size " + to_string(size) + ", got " + to_string(theta->result.lens));
    if (!is_floating(theta->result.type)) c.fail("theta must be floating point");
    bool align = c.attr_int("align_corners", 0) != 0;
    ints spatial(size.begin() + 2, size.end()); // D, H, W or H, W
    int64_t points = 1;
    for (auto l : spatial) {
        if (l <= 0) c.fail("size " + to_string(size) + " must be positive");
        points *= l;
    }
    auto coord = [&](int64_t i, int64_t len) {
        if (align) return len == 1 ? -1.0 : -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(len - 1);
        return (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(len) - 1.0;
    };
    std::vector<double> base;
    for (int64_t p = 0; p < points; ++p) {
        ints idx(static_cast<std::size_t>(r));
        for (int64_t a = r - 1, rest = p; a >= 0; --a) {
            idx[a] = rest % spatial[a];
            rest /= spatial[a];
        }
        for (int64_t a = r - 1; a >= 0; --a) base.push_back(coord(idx[a], spatial[a])); // x (width) first
        base.push_back(1.0);
    }
    auto* bl = c.lit(literal::from<double>(dtype::double_type, {1, points, r + 1}, base));
    bl = convert_to(c, bl, theta->result.type);
    auto* y = c.add("dot", {c.reshape(c.broadcast_to(bl, {n, points, r + 1}), {n, points, r + 1}), permute(c, theta, {0, 2, 1})});
    ints out{n};
    out.insert(out.end(), spatial.begin(), spatial.end());
    out.push_back(r);
    return {c.reshape(y, out)};
}


// --- Det -----------------------------------------------------------------------------------

outputs det(node_context& c) {
    auto* x = c.input(0);
    if (rank_of(x) < 2 || x->result.lens[x->result.rank() - 1] != x->result.lens[x->result.rank() - 2])
        c.fail("X must be [..., n, n], got " + to_string(x->result.lens));
    return {c.add("det", {x})};
}


// --- RoiAlign ------------------------------------------------------------------------------

outputs roi_align(node_context& c) {
    // Opset 10 knows only the legacy "output_half_pixel" coordinates; 16 adds "half_pixel", the default.
    auto ctm = c.attr_string("coordinate_transformation_mode", c.opset >= 16 ? "half_pixel" : "output_half_pixel");
    if (ctm != "half_pixel" && ctm != "output_half_pixel")
        c.fail("coordinate_transformation_mode must be half_pixel or output_half_pixel, got '" + ctm + "'");
    return {c.add("roi_align", {c.input(0), c.input(1), c.input(2)},
                  attrs({{"mode", c.attr_string("mode", "avg")},
                         {"half_pixel", int64_t{ctm == "half_pixel"}},
                         {"output_height", c.attr_int("output_height", 1)},
                         {"output_width", c.attr_int("output_width", 1)},
                         {"sampling_ratio", c.attr_int("sampling_ratio", 0)},
                         {"spatial_scale", c.attr_float("spatial_scale", 1.0)}}))};
}


// --- DeformConv ----------------------------------------------------------------------------

outputs deform_conv(node_context& c) {
    auto *x = c.input(0), *w = c.input(1);
    if (rank_of(x) != 4 || rank_of(w) != 4)
        c.fail("only 2 spatial dims are supported: X " + to_string(x->result.lens) + ", W " + to_string(w->result.lens));
    auto ks = c.attr_ints("kernel_shape", {w->result.lens[2], w->result.lens[3]});
    if (ks != ints{w->result.lens[2], w->result.lens[3]})
        c.fail("kernel_shape " + to_string(ks) + " does not match W " + to_string(w->result.lens));
    std::vector<instruction*> in{x, w, c.input(2)};
    if (c.has_input(4)) in.push_back(c.input(4));
    auto* y = c.add("deform_conv", in,
                    attrs({{"padding", c.attr_ints("pads", {0, 0, 0, 0})},
                           {"stride", c.attr_ints("strides", {1, 1})},
                           {"dilation", c.attr_ints("dilations", {1, 1})},
                           {"group", c.attr_int("group", 1)},
                           {"offset_group", c.attr_int("offset_group", 1)}}));
    if (c.has_input(3)) {
        auto* b = c.input(3);
        int64_t m = y->result.lens[1];
        if (b->result.lens != ints{m}) c.fail("B must be {" + std::to_string(m) + "}, got " + to_string(b->result.lens));
        y = c.add("add", {y, c.broadcast_to(c.add("unsqueeze", {b}, attrs({{"axes", ints{1, 2}}})), y->result.lens)});
    }
    return {y};
}


// --- FlexAttention (ai.onnx.preview) -------------------------------------------------------

// softmax((Q sqrt(scale)) (K sqrt(scale))^T, modified by score_mod) modified by prob_mod, times
// V; KV heads shared by contiguous groups of query heads. Half-precision scores go through the
// softmax in float (or in softmax_precision).
outputs flex_attention(node_context& c) {
    auto *q = c.input(0), *k = c.input(1), *v = c.input(2);
    for (auto* x : {q, k, v})
        if (rank_of(x) != 4) c.fail("Q, K and V must be 4-D, got " + to_string(x->result.lens));
    auto ql = q->result.lens, kl = k->result.lens, vl = v->result.lens;
    int64_t b = ql[0], hq = ql[1], hkv = kl[1];
    if (kl[0] != b || vl[0] != b || vl[1] != hkv || kl[3] != ql[3] || vl[2] != kl[2] || hkv <= 0 || hq % hkv != 0)
        c.fail("Q " + to_string(ql) + ", K " + to_string(kl) + " and V " + to_string(vl) + " do not fit together");
    dtype t = q->result.type;
    if (!is_floating(t) || k->result.type != t || v->result.type != t) c.fail("Q, K and V must share one floating type");
    if (hq != hkv) { // [B, Hkv, S, E] -> [B, Hkv, g, S, E] -> [B, Hq, S, E]
        auto repeat = [&](instruction* x) {
            auto l = x->result.lens;
            auto* e = c.broadcast_to(c.add("unsqueeze", {x}, attrs({{"axes", ints{2}}})), {l[0], l[1], hq / hkv, l[2], l[3]});
            return c.reshape(e, {l[0], hq, l[2], l[3]});
        };
        k = repeat(k);
        v = repeat(v);
    }
    double scale = c.has_attr("scale") ? c.attr_float("scale", 1.0) : 1.0 / std::sqrt(static_cast<double>(ql[3]));
    double s = std::sqrt(scale);
    auto* kt = permute(c, k, {0, 1, 3, 2});
    auto* scores = c.add("dot", {c.add("mul", {q, splat(c, q, s)}), c.add("mul", {kt, splat(c, kt, s)})});
    dtype st = t == dtype::half_type || t == dtype::bf16_type ? dtype::float_type : t;
    if (c.has_attr("softmax_precision")) {
        auto p = dtype_from_onnx(static_cast<int>(c.attr_int("softmax_precision", 1)));
        if (!p || !is_floating(*p)) c.fail("softmax_precision must be a floating type");
        st = *p;
    }
    scores = convert_to(c, scores, st);
    // A modifier subgraph: one tensor in, one tensor of the same shape and type out.
    auto modify = [&](const std::string& name, instruction* x) {
        auto* a = c.attr(name);
        if (!a) return x;
        if (a->type() != onnx::AttributeProto::GRAPH) c.fail("attribute '" + name + "' must be a graph");
        if (a->g().input_size() != 1 || a->g().output_size() != 1) c.fail(name + " must have one input and one output");
        auto outs = c.run_graph(a->g(), {onnx_value::of(x)}, name);
        auto* y = outs.empty() ? nullptr : outs[0].tensor;
        if (!y || y->result.lens != x->result.lens || y->result.type != x->result.type)
            c.fail(name + " must return a tensor " + to_string(x->result.lens) + " of " + std::string(dtype_name(x->result.type)));
        return y;
    };
    scores = modify("score_mod", scores);
    auto* probs = modify("prob_mod", c.add("softmax", {scores}, attrs({{"axis", int64_t{3}}})));
    return {convert_to(c, c.add("dot", {probs, convert_to(c, v, st)}), t)};
}

} // namespace

MXC_ONNX_CONVERTERS(math) {
    add_converter("Einsum", einsum, 12);
    add_converter("RotaryEmbedding", rotary_embedding, 23);
    add_converter("SwiGLU", swiglu, 28);
    add_converter("CausalConvWithState", causal_conv_with_state, 27);
    add_converter("LinearAttention", linear_attention, 27);
    add_converter("AffineGrid", affine_grid, 20);
    add_converter("Det", det, 11);
    add_converter("RoiAlign", roi_align, 10);
    add_converter("DeformConv", deform_conv, 19);
    add_converter("ai.onnx.preview::FlexAttention", flex_attention);
}

} // namespace mxc::onnx_detail
