// convert-fp16 (mxc --fp16): the float32 computation runs in float16.
//
// - Weights: a float32 literal read by an op that goes to f16 is converted here, at compile
//   time (round to nearest even, as mxc_half). A literal with a finite value that does not
//   fit f16 (|v| >= 65520 rounds to inf) is not converted: the ops that read it stay f32
//   (e.g. the -3.4e38 attention-mask constant of exporters: as inf it would make 0 * inf =
//   NaN), so no weight changes meaning silently.
// - The API keeps its types: params and @return values stay float32; one `convert` per
//   graph input (to f16, before its first f16 user) and per output (back to f32).
// - Activations are f16 (half the arena). Every kernel computes in mxc_compute_t<T>, which
//   is float for mxc_half: dot / convolution accumulate in fp32, and softmax, log_softmax,
//   layer_norm, rms_norm and reduce_mean/max/min compute their statistics in
//   fp32 from f16 inputs, so they take f16 in and out (their outputs are bounded by their
//   inputs or normalised).
// - Kept in f32 (converts around them): ops whose output can leave the f16 range although
//   their inputs fit (reduce_sum, reduce_prod, cumulative, exp, pow); batch_norm_inference
//   (its mean and variance are statistics: a variance of 1e-5 is subnormal in f16, with 3
//   significant bits; fold-batchnorm has folded every batch norm that follows a conv); ops reading
//   coordinates whose f16 rounding moves sample points (grid_sample, roi_align, deform_conv);
//   det (cancellation); ops without an f16 kernel; ops with no float input (range, random,
//   shape-like math) and ops whose result is not float (comparisons, arg_max, top_k: their
//   inputs are converted back, exactly, so ties and selections are the f32 ones).
// - Views follow their input: a view of a converted value is an f16 view; a view of a
//   weight is rebuilt over the f16 weight (no convert kernel for a broadcast bias).
// - Finally convert(convert(x: f16 -> f32) -> f16) is x (exact: f16 -> f32 is exact), and
//   convert(convert(x -> f32) -> f16) of a non-f16 x is convert(x -> f16) (the same
//   arithmetic: every conversion to f16 goes through float).
//
// Runs after fuse-reduce (whose softmax / layer-norm patterns need one type throughout) and
// before fuse-pointwise / fuse-epilogue: the fused kernels are built over f16 ops, so a
// chain of pointwise ops keeps its intermediates in fp32 registers, and converts (a kernel
// of their own: fused kernels have one element type) stay at the f16/f32 boundaries only.
// Activations that overflow f16 at run time become inf, as IEEE says; `mxc verify --fp16`
// reports them (docs/fp16.md).
#include "ir/error.hpp"
#include "ir/half_convert.hpp"
#include "ir/op.hpp"
#include "passes/pass_manager.hpp"

#include <cmath>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace mxc {
namespace {

const std::set<std::string, std::less<>>& kept_f32() {
    static const std::set<std::string, std::less<>> ops = {
        "reduce_sum", "reduce_prod", "cumulative", "exp", "pow", "batch_norm_inference", "grid_sample", "roi_align", "deform_conv", "det"};
    return ops;
}

// The literal in f16 (ir/half_convert.hpp), or nullopt when a finite value does not fit.
std::optional<literal> to_half(const literal& l) {
    const int64_t n = l.s.elements();
    std::vector<char> bytes(static_cast<std::size_t>(n) * sizeof(mxc_half));
    auto* out = reinterpret_cast<mxc_half*>(bytes.data());
    static_assert(sizeof(mxc_half) == sizeof(uint16_t), "mxc_half is its bits");
    if (floats_to_half(l.as<float>(), reinterpret_cast<uint16_t*>(out), n)) return std::nullopt;
    return literal(shape(dtype::half_type, l.s.lens), std::move(bytes));
}

bool is_view_op(const instruction& ins) { return !ins.is_builtin() && get_op(ins.op).is_view; }

attributes with_target(attributes a, dtype t) {
    a.set("target_type", std::string(dtype_name(t)));
    return a;
}

struct converter {
    module& m;
    std::unordered_set<const instruction*> changed; // values this pass made f16
    std::unordered_map<const instruction*, instruction*> half, single;
    // literal -> its f16 form (nullopt: it does not fit), converted once: the check of a weight
    // and its conversion share it (BERT-base: 110M elements converted once, not twice)
    std::unordered_map<const instruction*, std::optional<literal>> converted;

    // A float32 weight (a literal, or views of one) whose values fit f16.
    bool is_weight(const instruction* v) {
        while (is_view_op(*v)) v = v->inputs[0];
        if (!v->is_literal() || v->result.type != dtype::float_type) return false;
        if (!v->lit.known()) return true;
        auto it = converted.find(v);
        if (it == converted.end()) it = converted.emplace(v, to_half(v->lit)).first;
        return it->second.has_value();
    }

    // The f16 version of float32 value v, inserted before `pos` (v's first f16 user).
    instruction* half_of(instruction* v, ins_iter pos) {
        if (auto it = half.find(v); it != half.end()) return it->second;
        instruction* h;
        if (v->is_literal() && v->lit.known()) {
            auto it = converted.find(v);
            if (it == converted.end() || !it->second) it = converted.insert_or_assign(v, to_half(v->lit)).first;
            h = m.insert_literal(pos, std::move(*it->second)); // half caches h: converted once
        } else if (v->is_literal()) { // a parsed digest: the shape only
            literal l;
            l.s = v->lit.s.with_type(dtype::half_type);
            l.digest_text = v->lit.digest_text;
            h = m.insert_literal(pos, l);
        } else if (is_view_op(*v) && is_weight(v)) {
            auto inputs = v->inputs;
            inputs[0] = half_of(v->inputs[0], pos);
            h = m.insert(pos, v->op, inputs, v->attrs);
        } else {
            h = m.insert(pos, "convert", {v}, with_target({}, dtype::half_type));
        }
        h->origin = v->is_param() ? "input '" + v->param_name + "'" : v->origin;
        changed.insert(h);
        return half[v] = h;
    }

    // The float32 version of f16 value v (made by this pass), before `pos`.
    instruction* single_of(instruction* v, ins_iter pos) {
        if (auto it = single.find(v); it != single.end()) return it->second;
        auto* s = m.insert(pos, "convert", {v}, with_target({}, dtype::float_type));
        s->origin = v->origin;
        return single[v] = s;
    }

    // Whether `ins` (a float32 op) runs in f16: it has an f16 kernel, some float input, every
    // float literal input fits, and its shape function accepts f16 inputs.
    bool goes_half(const instruction& ins) {
        if (ins.result.type != dtype::float_type || kept_f32().count(ins.op)) return false;
        auto& def = get_op(ins.op);
        if (!def.cpu[static_cast<std::size_t>(dtype::half_type)]) return false;
        std::vector<shape> in;
        bool any = false;
        for (auto* v : ins.inputs) {
            bool f = v->result.type == dtype::float_type;
            bool lit = f && [&] {
                auto* r = v;
                while (is_view_op(*r)) r = r->inputs[0];
                return r->is_literal();
            }();
            if (lit && !is_weight(v)) return false;
            any |= f || changed.count(v);
            in.push_back(f ? v->result.with_type(dtype::half_type) : v->result);
        }
        if (!any) return false;
        attributes a = ins.op == "convert" ? with_target(ins.attrs, dtype::half_type) : ins.attrs;
        try {
            return def.compute_shape(a, in).type == dtype::half_type;
        } catch (const error&) {
            return false;
        }
    }

    void run() {
        for (auto it = m.instructions.begin(); it != m.instructions.end(); ++it) {
            instruction& ins = *it;
            if (ins.is_param() || ins.is_literal() || changed.count(&ins)) continue;
            if (ins.is_return()) {
                for (auto*& v : ins.inputs)
                    if (changed.count(v)) v = single_of(v, it);
                continue;
            }
            auto& def = get_op(ins.op);
            if (def.is_view) {
                if (!changed.count(ins.inputs[0])) continue; // a view of an f32 value stays f32
                std::vector<shape> in;
                for (auto* v : ins.inputs) in.push_back(v->result);
                ins.result = def.compute_shape(ins.attrs, in);
                changed.insert(&ins);
                continue;
            }
            if (goes_half(ins)) {
                if (ins.op == "convert") ins.attrs = with_target(ins.attrs, dtype::half_type);
                for (auto*& v : ins.inputs)
                    if (v->result.type == dtype::float_type) v = half_of(v, it);
                std::vector<shape> in;
                for (auto* v : ins.inputs) in.push_back(v->result);
                ins.result = def.compute_shape(ins.attrs, in);
                changed.insert(&ins);
            } else if (ins.op == "convert") { // reads any type: from f16 as exactly as from its f32 copy
                ins.result = def.compute_shape(ins.attrs, {ins.inputs[0]->result});
            } else {
                for (auto*& v : ins.inputs)
                    if (changed.count(v)) v = single_of(v, it);
            }
        }
        remove_convert_pairs();
    }

    // convert(convert(x -> f32) -> f16): x itself when x is f16, else convert(x -> f16).
    void remove_convert_pairs() {
        auto target = [](const instruction* c) { return parse_dtype(c->attrs.get_string("target_type")); };
        for (auto it = m.instructions.begin(); it != m.instructions.end(); ++it) {
            if (it->op != "convert" || target(&*it) != dtype::half_type) continue;
            instruction* inner = it->inputs[0];
            if (inner->op != "convert" || target(inner) != dtype::float_type) continue;
            instruction* x = inner->inputs[0];
            if (x->result.type == dtype::half_type) {
                m.replace_uses(&*it, x);
            } else {
                it->inputs[0] = x;
            }
        }
        for (auto it = m.instructions.end(); it != m.instructions.begin();) { // the converts left unused
            --it;
            if (it->op == "convert" && m.users(&*it).empty()) it = m.instructions.erase(it);
        }
    }
};

void convert_fp16(module& m) {
    converter c{m, {}, {}, {}, {}};
    c.run();
}
} // namespace

MXC_REGISTER_PASS(convert_fp16) {
    return pass{"convert-fp16",
                "runs the float32 computation in float16: f16 weights and activations, f32 API and statistics",
                convert_fp16};
}

} // namespace mxc
