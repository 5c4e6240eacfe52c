// ONNX converters for the recurrent nets RNN, GRU and LSTM, unrolled over the (static)
// sequence: the input projection of every step is one `dot`, each step one `dot` with the
// recurrence weights and pointwise gate math. Directions forward, reverse, bidirectional;
// layout 0/1; sequence_lens (a build-time constant) masks the steps past a batch entry's end.
#include "compiler/onnx_node.hpp"
#include "compiler/onnx_pointwise.hpp"
#include "ir/error.hpp"

#include <algorithm>
#include <cctype>

namespace mxc::onnx_detail {
namespace {

using outputs = std::vector<instruction*>;
using ints = std::vector<int64_t>;


// x[..., start : start + len, ...] along `axis` (a view).
instruction* slice_axis(node_context& c, instruction* x, int64_t axis, int64_t start, int64_t len) {
    auto& l = x->result.lens;
    if (start == 0 && len == l[static_cast<std::size_t>(axis)]) return x;
    ints starts(l.size(), 0), steps(l.size(), 1), lens = l;
    starts[static_cast<std::size_t>(axis)] = start;
    lens[static_cast<std::size_t>(axis)] = len;
    return c.add("slice", {x}, attrs({{"starts", starts}, {"steps", steps}, {"out_lens", lens}}));
}

// Row d of a [directions, ...] tensor, without the leading axis.
instruction* direction_row(node_context& c, instruction* x, int64_t d) {
    auto lens = x->result.lens;
    lens.erase(lens.begin());
    return c.reshape(slice_axis(c, x, 0, d, 1), lens);
}

// --- activations -----------------------------------------------------------------------------

struct activation {
    std::string name; // lower case
    double alpha = 0, beta = 0;
};

bool takes_alpha(const std::string& n) {
    return n == "affine" || n == "leakyrelu" || n == "thresholdedrelu" || n == "scaledtanh" || n == "hardsigmoid" || n == "elu";
}
bool takes_beta(const std::string& n) { return n == "affine" || n == "scaledtanh" || n == "hardsigmoid"; }

// The activations of every direction (`per_direction` each): the attribute or the defaults;
// activation_alpha / activation_beta are consumed in order by the functions that take them,
// missing ones take the defaults of the ONNX operator of the same name.
std::vector<activation> activations(node_context& c, const std::vector<std::string>& defaults, int64_t directions) {
    std::vector<std::string> names;
    if (auto* a = c.attr("activations")) {
        if (a->type() != onnx::AttributeProto::STRINGS) c.fail("attribute 'activations' must be a list of strings");
        names.assign(a->strings().begin(), a->strings().end());
        if (names.size() == defaults.size() && directions == 2) names.insert(names.end(), names.begin(), names.end());
        if (names.size() != defaults.size() * static_cast<std::size_t>(directions))
            c.fail("attribute 'activations' must name " + std::to_string(defaults.size() * static_cast<std::size_t>(directions)) +
                   " functions, got " + std::to_string(names.size()));
    } else {
        for (int64_t d = 0; d < directions; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
    }
    auto floats = [&](const char* n) {
        std::vector<double> v;
        if (auto* a = c.attr(n)) {
            if (a->type() != onnx::AttributeProto::FLOATS) c.fail("attribute '" + std::string(n) + "' must be a list of floats");
            v.assign(a->floats().begin(), a->floats().end());
        }
        return v;
    };
    auto alphas = floats("activation_alpha"), betas = floats("activation_beta");
    std::size_t ai = 0, bi = 0;
    std::vector<activation> r;
    for (auto& n : names) {
        activation a;
        for (char ch : n) a.name += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        static const std::vector<std::string> known = {"relu", "tanh", "sigmoid", "affine", "leakyrelu", "thresholdedrelu",
                                                       "scaledtanh", "hardsigmoid", "elu", "softsign", "softplus"};
        if (std::find(known.begin(), known.end(), a.name) == known.end()) c.fail("unknown activation function '" + n + "'");
        double da = a.name == "leakyrelu" ? 0.01 : a.name == "hardsigmoid" ? 0.2 : 1.0;
        double db = a.name == "hardsigmoid" ? 0.5 : a.name == "affine" ? 0.0 : 1.0;
        a.alpha = takes_alpha(a.name) && ai < alphas.size() ? alphas[ai++] : da;
        a.beta = takes_beta(a.name) && bi < betas.size() ? betas[bi++] : db;
        r.push_back(a);
    }
    return r;
}

instruction* activate(pw& p, const activation& a, instruction* x) {
    auto& c = p.c;
    auto zero = [&] { return p.k(0); };
    if (a.name == "relu" || a.name == "tanh" || a.name == "sigmoid" || a.name == "softsign" || a.name == "softplus")
        return c.add(a.name, {x});
    if (a.name == "affine") return p.add(p.mul(p.k(a.alpha), x), p.k(a.beta));
    if (a.name == "leakyrelu") return p.where(p.op("greater_or_equal", x, zero()), x, p.mul(p.k(a.alpha), x));
    if (a.name == "thresholdedrelu") return p.where(p.op("greater", x, p.k(a.alpha)), x, zero());
    if (a.name == "scaledtanh") return p.mul(p.k(a.alpha), c.add("tanh", {p.mul(p.k(a.beta), x)}));
    if (a.name == "hardsigmoid") return p.op("max", zero(), p.op("min", p.k(1), p.add(p.mul(p.k(a.alpha), x), p.k(a.beta))));
    // elu
    return p.where(p.op("greater_or_equal", x, zero()), x, p.mul(p.k(a.alpha), p.sub(c.add("exp", {x}), p.k(1))));
}

// --- the unrolled recurrence -----------------------------------------------------------------

enum class cell { rnn, gru, lstm };

struct recurrence {
    node_context& c;
    pw p;
    cell kind;
    int64_t gates, hidden, seq, batch;
    ints lens;            // sequence_lens per batch entry (seq each when absent)
    double clip = 0;      // 0: none
    bool linear_before_reset = false, input_forget = false;

    instruction* clipped(instruction* x) {
        if (clip <= 0) return x;
        return c.add("clip", {x, c.broadcast_to(p.k(-clip), x->result.lens), c.broadcast_to(p.k(clip), x->result.lens)});
    }
    instruction* gate(instruction* x, int64_t g) { return slice_axis(c, x, 1, g * hidden, hidden); }
    instruction* valid_mask(int64_t step) { // [batch, 1]: step < lens[b]
        std::vector<uint8_t> v;
        for (auto l : lens) v.push_back(step < l ? 1 : 0);
        return c.lit(literal::from<uint8_t>(dtype::bool_type, {batch, 1}, v));
    }
    bool full() const {
        return std::all_of(lens.begin(), lens.end(), [&](int64_t l) { return l == seq; });
    }

    // One direction: x [seq, batch, I], w [G*H, I], r [G*H, H], b [2*G*H] or null, h0/c0
    // [batch, H] or null, peep [3H] or null, acts f, g(, h). Returns Y steps (by time), Y_h, Y_c.
    struct result {
        std::vector<instruction*> y; // [batch, H] per time step
        instruction *h, *cell;
    };
    result run(instruction* x, instruction* w, instruction* r, instruction* b, instruction* h0, instruction* c0,
               instruction* peep, const std::vector<activation>& act, bool reverse) {
        int64_t gh = gates * hidden, in = x->result.lens[2];
        auto* wt = c.add("transpose", {w}, attrs({{"permutation", ints{1, 0}}}));
        auto* rt = c.add("transpose", {r}, attrs({{"permutation", ints{1, 0}}}));
        // Input projection of every step, with the biases that add up outside the gates.
        auto* xw = c.add("dot", {c.reshape(x, {seq * batch, in}), wt});
        instruction* rbh = nullptr;
        if (b) {
            auto* wb = slice_axis(c, b, 0, 0, gh);
            auto* rb = slice_axis(c, b, 0, gh, gh);
            if (kind == cell::gru && linear_before_reset) {
                rbh = slice_axis(c, rb, 0, 2 * hidden, hidden);
                rb = c.add("concat", {slice_axis(c, rb, 0, 0, 2 * hidden), c.broadcast_to(p.k(0), {hidden})},
                           attrs({{"axis", int64_t{0}}}));
            }
            xw = p.add(xw, p.add(wb, rb));
        }
        auto* zeros = c.broadcast_to(p.k(0), {batch, hidden});
        instruction* h = h0 ? h0 : zeros;
        instruction* cs = c0 ? c0 : zeros;
        bool uniform = full();
        std::vector<instruction*> hs; // H after iteration k
        for (int64_t k = 0; k < seq; ++k) {
            // The input of iteration k: time k (forward), else the k-th from each entry's end.
            instruction* xk;
            if (!reverse || uniform) {
                xk = c.reshape(slice_axis(c, xw, 0, (reverse ? seq - 1 - k : k) * batch, batch), {batch, gh});
            } else {
                ints idx;
                for (int64_t e = 0; e < batch; ++e)
                    idx.push_back(std::max<int64_t>(lens[static_cast<std::size_t>(e)] - 1 - k, 0) * batch + e);
                xk = c.add("gather", {xw, c.lit(literal::from<int64_t>(dtype::int64_type, {batch}, idx))},
                           attrs({{"axis", int64_t{0}}}));
            }
            auto [h2, c2] = step(xk, h, cs, rt, rbh, peep, act);
            if (!uniform) {
                auto* valid = valid_mask(k);
                h2 = p.where(valid, h2, h);
                if (c2) c2 = p.where(valid, c2, cs);
            }
            h = h2;
            if (c2) cs = c2;
            hs.push_back(h);
        }
        result res{{}, h, cs};
        for (int64_t tt = 0; tt < seq; ++tt) {
            instruction* y;
            if (!reverse) {
                y = hs[static_cast<std::size_t>(tt)];
            } else if (uniform) {
                y = hs[static_cast<std::size_t>(seq - 1 - tt)];
            } else {
                // Y[t, b] = the H of iteration lens[b] - 1 - t.
                std::vector<instruction*> parts;
                for (auto* v : hs) parts.push_back(c.add("unsqueeze", {v}, attrs({{"axes", ints{0}}})));
                auto* all = c.reshape(parts.size() == 1 ? parts[0] : c.add("concat", parts, attrs({{"axis", int64_t{0}}})),
                                      {seq * batch, hidden});
                ints idx;
                for (int64_t e = 0; e < batch; ++e)
                    idx.push_back(std::max<int64_t>(lens[static_cast<std::size_t>(e)] - 1 - tt, 0) * batch + e);
                y = c.add("gather", {all, c.lit(literal::from<int64_t>(dtype::int64_type, {batch}, idx))},
                          attrs({{"axis", int64_t{0}}}));
            }
            if (!uniform) y = p.where(valid_mask(tt), y, zeros);
            res.y.push_back(y);
        }
        return res;
    }

    // One step from the projected input xk [batch, G*H]: the new H (and C for LSTM).
    std::pair<instruction*, instruction*> step(instruction* xk, instruction* h, instruction* cs, instruction* rt,
                                               instruction* rbh, instruction* peep, const std::vector<activation>& act) {
        auto f = [&](instruction* v) { return activate(p, act[0], clipped(v)); };
        auto g = [&](instruction* v) { return activate(p, act[1], clipped(v)); };
        if (kind == cell::rnn) return {f(p.add(xk, c.add("dot", {h, rt}))), nullptr};
        if (kind == cell::gru) {
            instruction *z, *rg, *hh;
            if (linear_before_reset) {
                auto* hr = c.add("dot", {h, rt});
                z = f(p.add(gate(xk, 0), gate(hr, 0)));
                rg = f(p.add(gate(xk, 1), gate(hr, 1)));
                auto* hrh = rbh ? p.add(gate(hr, 2), rbh) : gate(hr, 2);
                hh = g(p.add(gate(xk, 2), p.mul(rg, hrh)));
            } else {
                auto* hr = c.add("dot", {h, slice_axis(c, rt, 1, 0, 2 * hidden)});
                z = f(p.add(gate(xk, 0), gate(hr, 0)));
                rg = f(p.add(gate(xk, 1), gate(hr, 1)));
                auto* rh = c.add("dot", {p.mul(rg, h), slice_axis(c, rt, 1, 2 * hidden, hidden)});
                hh = g(p.add(gate(xk, 2), rh));
            }
            return {p.add(hh, p.mul(z, p.sub(h, hh))), nullptr}; // (1 - z) hh + z h
        }
        // LSTM, gates i, o, f, c; peepholes i, o, f.
        auto* pre = p.add(xk, c.add("dot", {h, rt}));
        auto peephole = [&](int64_t k, instruction* v) { return peep ? p.mul(slice_axis(c, peep, 0, k * hidden, hidden), v) : nullptr; };
        auto with = [&](instruction* a, instruction* b) { return b ? p.add(a, b) : a; };
        auto* i = f(with(gate(pre, 0), peephole(0, cs)));
        auto* fg = input_forget ? p.sub(p.k(1), i) : f(with(gate(pre, 2), peephole(2, cs)));
        auto* cc = g(gate(pre, 3));
        auto* c2 = p.add(p.mul(fg, cs), p.mul(i, cc));
        auto* o = f(with(gate(pre, 1), peephole(1, c2)));
        return {p.mul(o, activate(p, act[2], c2)), c2};
    }
};

converter recurrent(cell kind) {
    return [kind](node_context& c) -> outputs {
        int64_t gates = kind == cell::rnn ? 1 : kind == cell::gru ? 3 : 4;
        auto* x = c.input(0);
        auto* w = c.input(1);
        auto* r = c.input(2);
        auto t = x->result.type;
        if (!is_floating(t)) c.fail("X must be a float tensor");
        int64_t layout = c.attr_int("layout", 0);
        if (layout != 0 && layout != 1) c.fail("layout must be 0 or 1, got " + std::to_string(layout));
        if (x->result.rank() != 3) c.fail("X must have rank 3, got " + to_string(x->result.lens));
        if (layout == 1) x = c.add("transpose", {x}, attrs({{"permutation", ints{1, 0, 2}}}));
        int64_t seq = x->result.lens[0], batch = x->result.lens[1], in = x->result.lens[2];
        auto dir = c.attr_string("direction", "forward");
        if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
            c.fail("direction must be forward, reverse or bidirectional, got '" + dir + "'");
        int64_t nd = dir == "bidirectional" ? 2 : 1;
        if (r->result.rank() != 3 || r->result.lens[0] != nd || r->result.lens[1] % gates != 0)
            c.fail("R must be [" + std::to_string(nd) + ", " + std::to_string(gates) + "*hidden_size, hidden_size], got " +
                   to_string(r->result.lens));
        int64_t hidden = c.attr_int("hidden_size", r->result.lens[2]);
        auto expect = [&](instruction* v, ints lens, const std::string& what) {
            if (v->result.lens != lens || v->result.type != t)
                c.fail(what + " must be " + std::string(dtype_name(t)) + " " + to_string(lens) + ", got " + to_string(v->result));
        };
        expect(w, {nd, gates * hidden, in}, "W");
        expect(r, {nd, gates * hidden, hidden}, "R");
        instruction* b = c.has_input(3) ? c.input(3) : nullptr;
        if (b) expect(b, {nd, 2 * gates * hidden}, "B");
        recurrence rc{c, pw{c, t}, kind, gates, hidden, seq, batch, ints(static_cast<std::size_t>(batch), seq)};
        if (c.has_input(4)) {
            rc.lens = c.const_ints(4, "sequence_lens");
            if (static_cast<int64_t>(rc.lens.size()) != batch)
                c.fail("sequence_lens must have " + std::to_string(batch) + " entries, got " + std::to_string(rc.lens.size()));
            for (auto l : rc.lens)
                if (l < 1 || l > seq) c.fail("sequence_lens entry " + std::to_string(l) + " is outside [1, " + std::to_string(seq) + "]");
        }
        auto state = [&](std::size_t i, const char* what) -> instruction* {
            if (!c.has_input(i)) return nullptr;
            auto* v = c.input(i);
            if (layout == 1) {
                expect(v, {batch, nd, hidden}, what);
                return c.add("transpose", {v}, attrs({{"permutation", ints{1, 0, 2}}}));
            }
            expect(v, {nd, batch, hidden}, what);
            return v;
        };
        auto* h0 = state(5, "initial_h");
        instruction *c0 = nullptr, *peep = nullptr;
        if (kind == cell::lstm) {
            c0 = state(6, "initial_c");
            if (c.has_input(7)) {
                peep = c.input(7);
                expect(peep, {nd, 3 * hidden}, "P");
            }
            rc.input_forget = c.attr_int("input_forget", 0) != 0;
        }
        if (kind == cell::gru) rc.linear_before_reset = c.attr_int("linear_before_reset", 0) != 0;
        if (c.has_attr("clip")) {
            rc.clip = c.attr_float("clip", 0);
            if (!(rc.clip > 0)) c.fail("clip must be positive");
        }
        std::vector<std::string> defaults = kind == cell::rnn   ? std::vector<std::string>{"Tanh"}
                                            : kind == cell::gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                                : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
        auto acts = activations(c, defaults, nd);

        std::vector<instruction*> ys, hs, cs;
        for (int64_t d = 0; d < nd; ++d) {
            auto row = [&](instruction* v) { return v ? direction_row(c, v, d) : nullptr; };
            std::vector<activation> act(acts.begin() + static_cast<std::ptrdiff_t>(d) * static_cast<std::ptrdiff_t>(defaults.size()),
                                        acts.begin() + static_cast<std::ptrdiff_t>(d + 1) * static_cast<std::ptrdiff_t>(defaults.size()));
            bool reverse = dir == "reverse" || d == 1;
            auto res = rc.run(x, row(w), row(r), row(b), row(h0), row(c0), row(peep), act, reverse);
            // Y of this direction: [seq, 1, batch, H].
            std::vector<instruction*> steps;
            for (auto* y : res.y) steps.push_back(c.add("unsqueeze", {y}, attrs({{"axes", ints{0, 1}}})));
            ys.push_back(steps.size() == 1 ? steps[0] : c.add("concat", steps, attrs({{"axis", int64_t{0}}})));
            hs.push_back(c.add("unsqueeze", {res.h}, attrs({{"axes", ints{0}}})));
            if (kind == cell::lstm) cs.push_back(c.add("unsqueeze", {res.cell}, attrs({{"axes", ints{0}}})));
        }
        auto join = [&](std::vector<instruction*> v, int64_t axis) {
            return v.size() == 1 ? v[0] : c.add("concat", v, attrs({{"axis", axis}}));
        };
        auto* y = join(ys, 1);   // [seq, nd, batch, H]
        auto* yh = join(hs, 0);  // [nd, batch, H]
        if (layout == 1) {
            y = c.add("transpose", {y}, attrs({{"permutation", ints{2, 0, 1, 3}}}));
            yh = c.add("transpose", {yh}, attrs({{"permutation", ints{1, 0, 2}}}));
        }
        if (kind != cell::lstm) return {y, yh};
        auto* yc = join(cs, 0);
        if (layout == 1) yc = c.add("transpose", {yc}, attrs({{"permutation", ints{1, 0, 2}}}));
        return {y, yh, yc};
    };
}

} // namespace

MXC_ONNX_CONVERTERS(recurrent) {
    add_converter("RNN", recurrent(cell::rnn));
    add_converter("GRU", recurrent(cell::gru));
    add_converter("LSTM", recurrent(cell::lstm));
}

} // namespace mxc::onnx_detail
