// Shared by the fusion passes (fuse_pointwise.cpp, fuse_epilogue.cpp): an instruction seen as
// an elementwise body over its inputs, and the limits every fused kernel keeps (the hip
// kernels copy at most 8 inputs and 48 integer parameters into their arguments).
#pragma once
#include "ir/module.hpp"
#include "ir/pointwise_body.hpp"

#include <algorithm>
#include <optional>

namespace mxc {

constexpr std::size_t fused_max_inputs = 8;
constexpr std::size_t fused_max_program = 40;

struct fusable {
    body_node body;
    std::vector<instruction*> inputs; // body input xN is inputs[N]
};

// An elementwise op of floating type (an op of MXC_PW_OPS or a `pointwise`) as a body.
inline std::optional<fusable> as_fusable(const instruction& ins) {
    if (ins.is_builtin() || !is_floating(ins.result.type) || is_low_precision(ins.result.type)) return std::nullopt;
    if (ins.op == "pointwise") return fusable{parse_body(ins.attrs.get_string("body")), ins.inputs};
    if (!is_body_op(ins.op) || !ins.attrs.items.empty()) return std::nullopt;
    body_node b;
    b.op = ins.op;
    for (std::size_t i = 0; i < ins.inputs.size(); ++i) {
        body_node x;
        x.input = static_cast<int>(i);
        b.args.push_back(x);
    }
    return fusable{b, ins.inputs};
}

// `b` with every input xN replaced by map[N].
inline body_node substitute(const body_node& b, const std::vector<body_node>& map) {
    if (b.op.empty()) return map.at(static_cast<std::size_t>(b.input));
    body_node r;
    r.op = b.op;
    for (auto& a : b.args) r.args.push_back(substitute(a, map));
    return r;
}

inline body_node input_node(int i) {
    body_node x;
    x.input = i;
    return x;
}

// The index of `v` in `inputs`, appended when new.
inline int input_index(std::vector<instruction*>& inputs, instruction* v) {
    auto it = std::find(inputs.begin(), inputs.end(), v);
    if (it != inputs.end()) return static_cast<int>(it - inputs.begin());
    inputs.push_back(v);
    return static_cast<int>(inputs.size() - 1);
}

// The op a convolution, transposed convolution or dot (or its fused form) becomes when
// fuse-epilogue joins an elementwise user to its store, else null.
inline const char* epilogue_fused_op(const std::string& op) {
    if (op == "convolution" || op == "fused_convolution") return "fused_convolution";
    if (op == "convolution_transpose" || op == "fused_convolution_transpose") return "fused_convolution_transpose";
    if (op == "dot" || op == "fused_dot") return "fused_dot";
    return nullptr;
}

// Whether `op` is such a fused op: inputs 2, 3, ... are its body's extra inputs, read at the
// element the kernel stores (so its output may overwrite them, never x or w).
inline bool has_epilogue_inputs(const std::string& op) {
    return op == "fused_convolution" || op == "fused_convolution_transpose" || op == "fused_dot";
}

// True when `user` is the only user of `v` (and `v` is not a model output).
inline bool only_user(const module& m, const instruction* v, const instruction* user) {
    auto u = m.users(v);
    return u.size() == 1 && u[0] == user;
}

} // namespace mxc
