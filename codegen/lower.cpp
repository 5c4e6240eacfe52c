#include "codegen/lower.hpp"
#include "ir/error.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

namespace mxc {

namespace {
std::string describe(const instruction& ins) {
    return ins.op + (ins.origin.empty() ? "" : " (from " + ins.origin + ")");
}

std::vector<shape> input_shapes(const instruction& ins) {
    std::vector<shape> r;
    for (auto* i : ins.inputs) r.push_back(i->result);
    return r;
}

int64_t align_up(int64_t n, int64_t a) { return (n + a - 1) / a * a; }

} // namespace

// Every value returned must be computed by its own kernel: copy the others.
void make_outputs_kernels(module& m) {
    auto* ret = m.return_ins();
    if (!ret) throw error("lower: the module has no @return");
    if (ret->inputs.empty()) throw error("lower: the model has no outputs");
    std::set<const instruction*> seen;
    for (auto*& out : ret->inputs) {
        bool copy = out->is_param() || out->is_literal() || is_view(*out) || seen.count(out);
        if (copy) out = m.insert(m.iter(ret), "contiguous", {out});
        seen.insert(out);
    }
}

bool is_view(const instruction& ins) { return !ins.is_builtin() && get_op(ins.op).is_view; }

view_root find_view_root(const instruction* ins) {
    int64_t off = 0;
    while (is_view(*ins)) {
        auto& def = get_op(ins->op);
        if (def.view_offset) off += def.view_offset(ins->attrs, input_shapes(*ins));
        ins = ins->inputs.at(0);
    }
    return {ins, off};
}

lowered_module lower(module& m) {
    make_outputs_kernels(m);
    memory_plan plan = plan_memory(m, 256);
    validate_memory_plan(m, plan);
    return lower_planned(m, std::move(plan));
}

lowered_module lower_planned(const module& m, memory_plan plan) {
    lowered_module l;
    l.plan = std::move(plan);

    std::map<const instruction*, int> input_index, output_index;
    for (auto* p : m.params()) {
        input_index[p] = static_cast<int>(l.inputs.size());
        l.inputs.push_back(p);
    }
    l.output_names = m.output_names;
    for (auto* o : m.outputs()) {
        output_index[o] = static_cast<int>(l.outputs.size());
        l.outputs.push_back(o);
    }

    // The weights blob: every literal a kernel reads (directly or through views), in module order.
    std::set<const instruction*> used;
    for (auto& ins : m.instructions)
        if (!ins.is_builtin() && !is_view(ins))
            for (auto* in : ins.inputs)
                if (auto* root = find_view_root(in).root; root->is_literal()) used.insert(root);
    std::map<const instruction*, int64_t> weight_offset;
    for (auto& ins : m.instructions) {
        if (!used.count(&ins)) continue;
        if (!ins.lit.known())
            throw error("lower: literal " + to_string(ins.result) + " has no data (it was read from a digest)");
        int64_t off = align_up(static_cast<int64_t>(l.weights.size()), l.weights_alignment);
        l.weights.resize(static_cast<std::size_t>(off), 0);
        l.weights.insert(l.weights.end(), ins.lit.data(), ins.lit.data() + ins.lit.s.bytes());
        weight_offset[&ins] = off;
    }
    auto own_location = [&](const instruction* ins) -> location {
        if (auto it = output_index.find(ins); it != output_index.end()) return {location::output, it->second, 0};
        if (auto it = input_index.find(ins); it != input_index.end()) return {location::input, it->second, 0};
        if (ins->is_literal()) return {location::weights, 0, weight_offset.at(ins)};
        if (auto* b = l.plan.find(ins)) return {location::arena, 0, b->offset};
        throw error("lower: " + describe(*ins) + " has no buffer in the memory plan");
    };

    for (auto& ins : m.instructions) {
        if (ins.is_builtin() || is_view(ins)) continue;
        auto& def = get_op(ins.op);
        if (def.kernel.empty()) throw error("lower: op " + describe(ins) + " has no kernel");
        kernel_call k;
        k.ins = &ins;
        k.kernel = def.kernel;
        k.type = def.type_from_input >= 0 ? ins.inputs.at(static_cast<std::size_t>(def.type_from_input))->result.type
                                          : ins.result.type;
        for (auto* in : ins.inputs) {
            auto [root, elem_off] = find_view_root(in);
            location loc = own_location(root);
            loc.offset += elem_off * static_cast<int64_t>(dtype_size(root->result.type));
            k.in.push_back(loc);
            k.in_shapes.push_back(in->result);
        }
        k.out = own_location(&ins);
        if (k.out.kind != location::arena && k.out.kind != location::output)
            throw error("lower: " + describe(ins) + " writes neither the arena nor an output");
        if (def.params) k.params = def.params(ins.attrs, input_shapes(ins), ins.result);
        l.kernels.push_back(std::move(k));
    }
    l.weights.resize(static_cast<std::size_t>(align_up(static_cast<int64_t>(l.weights.size()), l.weights_alignment)), 0);
    return l;
}

} // namespace mxc
