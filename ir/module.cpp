#include "ir/module.hpp"
#include "ir/error.hpp"
#include "ir/op.hpp"

#include <algorithm>
#include <unordered_set>

namespace mxc {

namespace {
std::vector<shape> input_shapes(const std::vector<instruction*>& inputs) {
    std::vector<shape> r;
    r.reserve(inputs.size());
    for (auto* i : inputs) r.push_back(i->result);
    return r;
}

void check_input_count(const op_def& def, std::size_t n) {
    if (static_cast<int>(n) < def.min_inputs || (def.max_inputs >= 0 && static_cast<int>(n) > def.max_inputs)) {
        std::string want = def.max_inputs < 0 ? "at least " + std::to_string(def.min_inputs)
                           : def.min_inputs == def.max_inputs
                               ? std::to_string(def.min_inputs)
                               : std::to_string(def.min_inputs) + " to " + std::to_string(def.max_inputs);
        throw error(def.name + ": expects " + want + " inputs, got " + std::to_string(n));
    }
}

instruction make_op(const std::string& op, std::vector<instruction*> inputs, attributes attrs) {
    auto& def = get_op(op);
    check_input_count(def, inputs.size());
    instruction ins;
    ins.op = op;
    ins.attrs = normalize_attributes(def, std::move(attrs));
    ins.result = def.compute_shape(ins.attrs, input_shapes(inputs));
    ins.inputs = std::move(inputs);
    return ins;
}
} // namespace

instruction* module::add_param(const std::string& pname, const shape& s) {
    instruction ins;
    ins.op = "@param";
    ins.param_name = pname;
    ins.result = s;
    // params go before everything else except other params
    auto pos = std::find_if(instructions.begin(), instructions.end(), [](auto& i) { return !i.is_param(); });
    return &*instructions.insert(pos, std::move(ins));
}

instruction* module::add_literal(literal l) { return insert_literal(instructions.end(), std::move(l)); }

instruction* module::insert_literal(ins_iter pos, literal l) {
    instruction ins;
    ins.op = "@literal";
    ins.result = l.s;
    ins.lit = std::move(l);
    return &*instructions.insert(pos, std::move(ins));
}

instruction* module::add(const std::string& op, std::vector<instruction*> inputs, attributes attrs) {
    return insert(instructions.end(), op, std::move(inputs), std::move(attrs));
}

instruction* module::insert(ins_iter pos, const std::string& op, std::vector<instruction*> inputs, attributes attrs) {
    return &*instructions.insert(pos, make_op(op, std::move(inputs), std::move(attrs)));
}

instruction* module::add_return(std::vector<instruction*> outs) {
    instruction ins;
    ins.op = "@return";
    ins.inputs = std::move(outs);
    instructions.push_back(std::move(ins));
    return &instructions.back();
}

ins_iter module::iter(const instruction* ins) {
    for (auto it = instructions.begin(); it != instructions.end(); ++it)
        if (&*it == ins) return it;
    throw error("instruction is not in module '" + name + "'");
}

void module::replace_uses(instruction* from, instruction* to) {
    for (auto& i : instructions)
        for (auto*& in : i.inputs)
            if (in == from) in = to;
}

std::vector<instruction*> module::users(const instruction* ins) const {
    std::vector<instruction*> r;
    for (auto& i : instructions)
        if (std::find(i.inputs.begin(), i.inputs.end(), ins) != i.inputs.end())
            r.push_back(const_cast<instruction*>(&i));
    return r;
}

void module::remove(instruction* ins) {
    if (!users(ins).empty()) throw error("cannot remove " + ins->op + ": it still has users");
    instructions.erase(iter(ins));
}

std::vector<instruction*> module::params() const {
    std::vector<instruction*> r;
    for (auto& i : instructions)
        if (i.is_param()) r.push_back(const_cast<instruction*>(&i));
    return r;
}

instruction* module::find_param(const std::string& pname) const {
    for (auto& i : instructions)
        if (i.is_param() && i.param_name == pname) return const_cast<instruction*>(&i);
    return nullptr;
}

instruction* module::return_ins() const {
    for (auto& i : instructions)
        if (i.is_return()) return const_cast<instruction*>(&i);
    return nullptr;
}

std::vector<instruction*> module::outputs() const {
    auto* r = return_ins();
    return r ? r->inputs : std::vector<instruction*>{};
}

void verify(const module& m) {
    std::unordered_set<const instruction*> seen;
    std::unordered_set<std::string> param_names;
    int n = 0, returns = 0;
    for (auto& ins : m.instructions) {
        auto where = [&] { return "verify: instruction " + std::to_string(n) + " (" + ins.op + "): "; };
        for (auto* in : ins.inputs)
            if (!seen.count(in)) throw error(where() + "uses a value that is not defined before it");
        if (returns) throw error(where() + "comes after @return");
        if (ins.is_param()) {
            if (ins.param_name.empty() || !param_names.insert(ins.param_name).second)
                throw error(where() + "empty or duplicate parameter name '" + ins.param_name + "'");
            if (!ins.inputs.empty()) throw error(where() + "a parameter has no inputs");
        } else if (ins.is_literal()) {
            if (ins.lit.s != ins.result) throw error(where() + "literal shape differs from result shape");
        } else if (ins.is_return()) {
            ++returns;
        } else {
            auto& def = get_op(ins.op);
            check_input_count(def, ins.inputs.size());
            auto attrs = normalize_attributes(def, ins.attrs);
            if (!(attrs == ins.attrs)) throw error(where() + "attributes are not normalized");
            auto s = def.compute_shape(ins.attrs, input_shapes(ins.inputs));
            if (s != ins.result)
                throw error(where() + "result shape " + to_string(ins.result) + " differs from the computed " +
                            to_string(s));
        }
        for (auto l : ins.result.lens)
            if (l < 0) throw error(where() + "negative dimension");
        seen.insert(&ins);
        ++n;
    }
}

} // namespace mxc
