// The helpers node converters share: inputs, attributes, emitting IR with on-the-fly
// constant folding, broadcasting.
#include "compiler/onnx_node.hpp"
#include "compiler/onnx_import.hpp"
#include "ir/error.hpp"
#include "ir/eval.hpp"
#include "ir/op.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <set>

namespace mxc::onnx_detail {

void node_context::fail(const std::string& what) const { throw error(label + ": " + what); }

instruction* node_context::input(std::size_t i) const {
    if (!has_input(i)) {
        if (i < values.size() && !values[i].empty())
            fail("input " + std::to_string(i) + " ('" + node.input(static_cast<int>(i)) + "') is a sequence, not a tensor");
        fail("input " + std::to_string(i) + " is required but missing");
    }
    return in[i];
}

void node_context::fail_not_constant(const instruction* x, const std::string& what) const {
    // The graph inputs x is computed from.
    std::vector<std::string> names;
    std::set<const instruction*> seen;
    std::vector<const instruction*> todo{x};
    while (!todo.empty()) {
        auto* y = todo.back();
        todo.pop_back();
        if (!seen.insert(y).second) continue;
        if (y->is_param() && std::find(names.begin(), names.end(), y->param_name) == names.end())
            names.push_back(y->param_name);
        for (auto* i : y->inputs) todo.push_back(i);
    }
    std::string msg = label + ": " + what + " must be a constant, but it is computed at run time";
    if (names.empty()) throw error(msg);
    std::string list;
    for (auto& n : names) list += (list.empty() ? "'" : ", '") + n + "'";
    throw needs_constant_inputs(msg + " from graph input" + (names.size() > 1 ? "s " : " ") + list +
                                    " (bind at build time with --const-input NAME:VALUE)",
                                names);
}

const literal& node_context::const_input(std::size_t i, const std::string& what) const {
    auto* x = input(i);
    if (!x->is_literal())
        fail_not_constant(x, "input " + std::to_string(i) + " ('" + node.input(static_cast<int>(i)) + "', the " + what + ")");
    return x->lit;
}

std::vector<int64_t> node_context::const_ints(std::size_t i, const std::string& what) const {
    auto& l = const_input(i, what);
    if (!is_integral(l.s.type))
        fail("input " + std::to_string(i) + " (the " + what + ") must be an integer tensor, got " +
             std::string(dtype_name(l.s.type)));
    return l.to_ints();
}

const onnx::AttributeProto* node_context::attr(const std::string& name) const {
    for (auto& a : node.attribute())
        if (a.name() == name) return &a;
    return nullptr;
}

int64_t node_context::attr_int(const std::string& name, int64_t dflt) const {
    auto* a = attr(name);
    if (!a) return dflt;
    if (a->type() != onnx::AttributeProto::INT) fail("attribute '" + name + "' must be an int");
    return a->i();
}

double node_context::attr_float(const std::string& name, double dflt) const {
    auto* a = attr(name);
    if (!a) return dflt;
    if (a->type() != onnx::AttributeProto::FLOAT) fail("attribute '" + name + "' must be a float");
    // The shortest decimal that reads back as the float, so 1e-5f becomes 1e-05, not 9.99999974e-06.
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf - 1, a->f());
    *r.ptr = 0;
    return std::strtod(buf, nullptr);
}

std::string node_context::attr_string(const std::string& name, const std::string& dflt) const {
    auto* a = attr(name);
    if (!a) return dflt;
    if (a->type() != onnx::AttributeProto::STRING) fail("attribute '" + name + "' must be a string");
    return a->s();
}

std::optional<std::vector<int64_t>> node_context::attr_ints_opt(const std::string& name) const {
    auto* a = attr(name);
    if (!a) return std::nullopt;
    if (a->type() != onnx::AttributeProto::INTS) fail("attribute '" + name + "' must be a list of ints");
    return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::vector<int64_t> node_context::attr_ints(const std::string& name, std::vector<int64_t> dflt) const {
    auto v = attr_ints_opt(name);
    return v ? *v : dflt;
}

instruction* node_context::lit(literal l) {
    auto* x = m.add_literal(std::move(l));
    x->origin = origin;
    return x;
}

namespace {
// The value of a literal, or of a view chain over literals (a broadcast scalar, a transposed
// weight); nothing for anything computed at run time. `root_elems` adds up the literal sizes.
std::optional<tensor> constant_value(const instruction* x, int64_t& root_elems) {
    if (x->is_literal()) {
        root_elems += x->result.elements();
        return tensor::of(x->lit);
    }
    if (x->is_builtin() || !get_op(x->op).is_view) return std::nullopt;
    std::vector<tensor> in;
    for (auto* i : x->inputs) {
        auto v = constant_value(i, root_elems);
        if (!v) return std::nullopt;
        in.push_back(*v);
    }
    return eval_instruction(*x, in);
}
} // namespace

instruction* node_context::add(const std::string& op, std::vector<instruction*> inputs, attributes attrs) {
    auto* ins = m.add(op, inputs, std::move(attrs));
    ins->origin = origin;
    // A broadcast stays a view; other ops whose inputs are all constant are folded, unless the
    // result is much larger than the literals it comes from.
    if (inputs.empty() || op == "multibroadcast") return ins;
    int64_t root_elems = 0;
    std::vector<tensor> values;
    for (auto* x : inputs) {
        auto v = constant_value(x, root_elems);
        if (!v) return ins;
        values.push_back(*v);
    }
    if (ins->result.elements() > std::max<int64_t>(root_elems, 1024)) return ins;
    literal folded;
    try {
        folded = eval_instruction(*ins, values).pack();
    } catch (const error&) {
        return ins; // no kernel for this type: the instruction stays, the passes may fold it
    }
    m.remove(ins);
    return lit(std::move(folded));
}

int64_t node_context::axis(int64_t a, int64_t rank, const std::string& what) const {
    if (a < -rank || a >= rank)
        fail(what + " " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
    return a < 0 ? a + rank : a;
}

std::vector<int64_t> node_context::broadcast_lens(const std::vector<int64_t>& a, const std::vector<int64_t>& b) const {
    std::size_t r = std::max(a.size(), b.size());
    std::vector<int64_t> out(r);
    for (std::size_t i = 0; i < r; ++i) {
        int64_t x = i < r - a.size() ? 1 : a[i - (r - a.size())];
        int64_t y = i < r - b.size() ? 1 : b[i - (r - b.size())];
        if (x != y && x != 1 && y != 1)
            fail("shapes " + to_string(a) + " and " + to_string(b) + " do not broadcast (axis " + std::to_string(i) +
                 ": " + std::to_string(x) + " vs " + std::to_string(y) + ")");
        out[i] = x == 1 ? y : x;
    }
    return out;
}

instruction* node_context::broadcast_to(instruction* x, const std::vector<int64_t>& lens) {
    if (x->result.lens == lens) return x;
    return add("multibroadcast", {x}, attrs({{"out_lens", lens}}));
}

std::pair<instruction*, instruction*> node_context::broadcast(instruction* a, instruction* b) {
    if (a->result.type != b->result.type)
        fail("inputs have different element types: " + std::string(dtype_name(a->result.type)) + " and " +
             std::string(dtype_name(b->result.type)));
    auto lens = broadcast_lens(a->result.lens, b->result.lens);
    return {broadcast_to(a, lens), broadcast_to(b, lens)};
}

instruction* node_context::reshape(instruction* x, std::vector<int64_t> dims) {
    if (x->result.lens == dims) return x;
    if (!x->result.standard()) x = add("contiguous", {x});
    return add("reshape", {x}, attrs({{"dims", std::move(dims)}}));
}

} // namespace mxc::onnx_detail
