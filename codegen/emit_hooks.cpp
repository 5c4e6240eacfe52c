// The parts of the model source that only profiling (--profile-hooks) and debug-trace
// (--debug-trace) builds contain: the kernel table the hooks and `mxc perf` read, with each
// kernel's IR text, shapes, FLOPs and bytes. The hooks themselves are runtime-stub/hooks.hpp.
#include "codegen/emit.hpp"
#include "ir/error.hpp"

#include <algorithm>
#include <sstream>
#include <unordered_map>

namespace mxc {

namespace {
double elements(const shape& s) { return static_cast<double>(s.elements()); }

std::string lens_text(const shape& s) {
    std::string r = "{";
    for (std::size_t i = 0; i < s.lens.size(); ++i) r += (i ? ", " : "") + std::to_string(s.lens[i]);
    return r + "}";
}
} // namespace

// Arithmetic operations of one call: exact for convolution, transposed convolution and dot (a
// multiply-add counts 2; fused ones add one per output element), attention's two products
// plus 5 per score, one per element read for reductions and pooling, one per output element
// for the rest, and zero for copies.
double kernel_flops(const kernel_call& k) {
    double out = elements(k.ins->result);
    // A fused convolution / transposed convolution / dot: the base op plus one operation per output element for the
    // epilogue.
    std::string op = k.ins->op;
    double epilogue = 0;
    if (op == "fused_convolution" || op == "fused_convolution_transpose" || op == "fused_dot") op = op.substr(6), epilogue = out;
    if (op == "convolution" && k.in_shapes.size() >= 2 && k.in_shapes[1].lens.size() >= 1 && k.in_shapes[1].lens[0] > 0)
        return 2 * out * elements(k.in_shapes[1]) / static_cast<double>(k.in_shapes[1].lens[0]) + epilogue;
    // each input element times the weights of its channel: [M/group, kernel...]
    if (op == "convolution_transpose" && k.in_shapes.size() >= 2 && k.in_shapes[1].lens.size() >= 1 && k.in_shapes[1].lens[0] > 0)
        return 2 * elements(k.in_shapes[0]) * elements(k.in_shapes[1]) / static_cast<double>(k.in_shapes[1].lens[0]) + epilogue;
    if (op == "dot" && !k.in_shapes.empty() && !k.in_shapes[0].lens.empty())
        return 2 * out * static_cast<double>(k.in_shapes[0].lens.back()) + epilogue;
    if (op == "attention" && k.in_shapes.size() >= 3 && k.in_shapes[1].lens.size() >= 2) {
        // the scores (2 D a product, one for the body and 4 for the softmax) and the values (2 Dv)
        const shape &q = k.in_shapes[0], &kt = k.in_shapes[1], &v = k.in_shapes[2];
        const double scores = elements(q) / static_cast<double>(std::max<int64_t>(1, q.lens.back())) *
                              static_cast<double>(kt.lens.back());
        return scores * (2 * static_cast<double>(q.lens.back()) + 5 + 2 * static_cast<double>(v.lens.back()));
    }
    if (op == "pooling" && k.params.ip.size() >= 2) {
        std::size_t s = (k.params.ip.size() - 2) / 5; // ip = [mode, include_pad, pads[2s], stride[s], lengths[s], dilation[s]]
        double window = 1;
        for (std::size_t i = 0; i < s; ++i) window *= static_cast<double>(k.params.ip[2 + 3 * s + i]);
        return out * window;
    }
    if (op.rfind("reduce_", 0) == 0 && !k.in_shapes.empty()) return elements(k.in_shapes[0]);
    if (op == "softmax" || op == "log_softmax") return 4 * out;
    if (op == "batch_norm_inference") return 2 * out;
    if (op == "contiguous" || op == "concat" || op == "gather" || op == "convert") return 0;
    return out;
}

// Bytes the kernel writes and reads (each input's addressed span once: a broadcast bias
// counts its own size, not the output's).
double kernel_bytes(const kernel_call& k) {
    double b = static_cast<double>(k.ins->result.bytes());
    for (auto& s : k.in_shapes) b += static_cast<double>(s.element_space()) * static_cast<double>(dtype_size(s.type));
    return b;
}

std::vector<kernel_note> kernel_notes(const module& m, const lowered_module& l) {
    auto names = instruction_names(m);
    std::istringstream text(print(m));
    std::string line;
    std::getline(text, line); // module: "main"
    std::unordered_map<const instruction*, kernel_note> by_ins;
    std::size_t i = 0;
    for (auto& ins : m.instructions) {
        kernel_note n{names[i++], ""};
        std::getline(text, n.text);
        by_ins[&ins] = n;
    }
    std::vector<kernel_note> r;
    for (auto& k : l.kernels) {
        auto it = by_ins.find(k.ins);
        if (it == by_ins.end()) throw error("internal: a kernel's instruction is not in the module");
        r.push_back(it->second);
    }
    return r;
}

std::string emit_kernel_table(const lowered_module& l, const std::vector<kernel_note>& notes) {
    if (notes.size() != l.kernels.size()) throw error("internal: kernel notes do not match the kernels");
    std::ostringstream o;
    o << "static const size_t num_kernels = " << l.kernels.size() << ";\n";
    o << "static const mxc_kernel_info kernel_table[] = {\n";
    for (std::size_t i = 0; i < l.kernels.size(); ++i) {
        auto& k = l.kernels[i];
        std::string inputs;
        for (std::size_t j = 0; j < k.in_shapes.size(); ++j) inputs += (j ? "; " : "") + lens_text(k.in_shapes[j]);
        char nums[96];
        std::snprintf(nums, sizeof nums, "%.17g, %.17g", kernel_flops(k), kernel_bytes(k));
        o << "    {" << c_string(notes[i].name) << ", " << c_string(k.ins->op) << ", " << c_string(notes[i].text) << ", "
          << c_string(inputs) << ", " << c_string(lens_text(k.ins->result)) << ", " << nums << ", "
          << static_cast<int>(k.ins->result.type) << ", " << k.ins->result.elements() << "},\n";
    }
    if (l.kernels.empty()) o << "    {\"\", \"\", \"\", \"\", \"\", 0, 0, 0, 0},\n";
    o << "};\n";
    return o.str();
}

} // namespace mxc
