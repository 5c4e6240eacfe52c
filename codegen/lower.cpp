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
    std::vector<const instruction*> in_blob; // in offset order
    int64_t weights_end = 0;
    for (auto& ins : m.instructions) {
        if (!used.count(&ins)) continue;
        if (!ins.lit.known())
            throw error("lower: literal " + to_string(ins.result) + " has no data (it was read from a digest)");
        weight_offset[&ins] = align_up(weights_end, l.weights_alignment);
        weights_end = weight_offset[&ins] + ins.lit.s.bytes();
        in_blob.push_back(&ins);
    }
    // one allocation, every byte written once (a 400 MB blob grown by insert is copied again at
    // every reallocation; zero-filled first, it is written twice)
    l.weights.reserve(static_cast<std::size_t>(align_up(weights_end, l.weights_alignment)));
    for (const instruction* ins : in_blob) {
        l.weights.append(static_cast<std::size_t>(weight_offset[ins]) - l.weights.size(), '\0');
        l.weights.append(ins->lit.data(), static_cast<std::size_t>(ins->lit.s.bytes()));
    }
    std::map<const instruction*, const buffer_plan*> plan_of;
    for (auto& b : l.plan.buffers) plan_of[b.ins] = &b;
    std::set<const instruction*> has_slices; // concats with an input written into its output
    for (auto& b : l.plan.buffers)
        if (b.slice_of >= 0) has_slices.insert(l.plan.buffers.at(static_cast<std::size_t>(b.slice_of)).ins);
    auto own_location = [&](const instruction* ins) -> location {
        if (auto it = output_index.find(ins); it != output_index.end()) return {location::output, it->second, 0};
        if (auto it = input_index.find(ins); it != input_index.end()) return {location::input, it->second, 0};
        if (ins->is_literal()) return {location::weights, 0, weight_offset.at(ins)};
        if (auto it = plan_of.find(ins); it != plan_of.end()) return {location::arena, 0, it->second->offset};
        throw error("lower: " + describe(*ins) + " has no buffer in the memory plan");
    };
    auto read_location = [&](const instruction* in) {
        auto [root, elem_off] = find_view_root(in);
        location loc = own_location(root);
        loc.offset += elem_off * static_cast<int64_t>(dtype_size(root->result.type));
        return loc;
    };

    for (auto& ins : m.instructions) {
        if (ins.is_builtin() || is_view(ins)) continue;
        auto& def = get_op(ins.op);
        if (def.kernel.empty()) throw error("lower: op " + describe(ins) + " has no kernel");
        dtype kt = def.type_from_input >= 0 ? ins.inputs.at(static_cast<std::size_t>(def.type_from_input))->result.type
                                            : ins.result.type;
        if (is_low_precision(kt) && !def.cpu[static_cast<std::size_t>(kt)])
            throw error("lower: op " + describe(ins) + " does not support " + std::string(dtype_name(kt)) +
                        " (low-precision types take only casts and data movement)");
        if (has_slices.count(&ins)) {
            // Copy the inputs that were not produced in their slices.
            location out = own_location(&ins);
            int64_t slice = 0;
            std::set<const instruction*> done;
            for (std::size_t j = 0; j < ins.inputs.size(); ++j) {
                auto* in = ins.inputs[j];
                auto it = plan_of.find(in);
                bool in_slice = it != plan_of.end() && it->second->slice_of >= 0 &&
                                l.plan.buffers[static_cast<std::size_t>(it->second->slice_of)].ins == &ins && !done.count(in);
                if (in_slice && it->second->slice_offset != slice)
                    throw error("lower: " + describe(ins) + ": input " + std::to_string(j) + " is planned at the wrong slice");
                done.insert(in);
                if (!in_slice) {
                    kernel_call k;
                    k.ins = &ins;
                    k.kernel = "contiguous";
                    k.type = in->result.type;
                    k.in = {read_location(in)};
                    k.in_shapes = {in->result};
                    k.out = out;
                    k.out.offset += slice;
                    k.out_shape = in->result.as_standard();
                    k.note = "copy of input " + std::to_string(j) + " into its slice";
                    l.kernels.push_back(std::move(k));
                }
                slice += in->result.bytes();
            }
            continue;
        }
        kernel_call k;
        k.ins = &ins;
        k.kernel = def.kernel;
        k.type = def.type_from_input >= 0 ? ins.inputs.at(static_cast<std::size_t>(def.type_from_input))->result.type
                                          : ins.result.type;
        k.cpu_template_ip = def.cpu_template_ip;
        if (def.source_type_from_input >= 0)
            k.source_type = ins.inputs.at(static_cast<std::size_t>(def.source_type_from_input))->result.type;
        for (auto* in : ins.inputs) {
            k.in.push_back(read_location(in));
            k.in_shapes.push_back(in->result);
        }
        k.out = own_location(&ins);
        k.out_shape = ins.result;
        if (k.out.kind != location::arena && k.out.kind != location::output)
            throw error("lower: " + describe(ins) + " writes neither the arena nor an output");
        if (def.params) k.params = def.params(ins.attrs, input_shapes(ins), ins.result);
        l.kernels.push_back(std::move(k));
    }
    l.weights.resize(static_cast<std::size_t>(align_up(static_cast<int64_t>(l.weights.size()), l.weights_alignment)), '\0');
    return l;
}

} // namespace mxc
