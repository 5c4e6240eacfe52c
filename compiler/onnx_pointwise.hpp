// Pointwise arithmetic with numpy broadcasting for converters that compose formulas
// (recurrent nets, training optimizers); constants are made in the element type t.
#pragma once
#include "compiler/onnx_node.hpp"

#include <string>

namespace mxc::onnx_detail {

struct pw {
    node_context& c;
    dtype t;

    instruction* k(double v) { return c.scalar(t, v); }
    instruction* op(const std::string& name, instruction* a, instruction* b) {
        auto [x, y] = c.broadcast(a, b);
        return c.add(name, {x, y});
    }
    instruction* add(instruction* a, instruction* b) { return op("add", a, b); }
    instruction* sub(instruction* a, instruction* b) { return op("sub", a, b); }
    instruction* mul(instruction* a, instruction* b) { return op("mul", a, b); }
    instruction* div(instruction* a, instruction* b) { return op("div", a, b); }
    instruction* where(instruction* cond, instruction* a, instruction* b) {
        auto lens = c.broadcast_lens(cond->result.lens, c.broadcast_lens(a->result.lens, b->result.lens));
        return c.add("where", {c.broadcast_to(cond, lens), c.broadcast_to(a, lens), c.broadcast_to(b, lens)});
    }
};

} // namespace mxc::onnx_detail
