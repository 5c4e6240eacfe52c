// ONNX Cast, CastLike and BitCast. Cast and CastLike become `convert` with the opset 19
// `saturate` and opset 25 `round_mode` attributes (they matter for float8/float4 targets
// only); BitCast (opset 26) becomes `bitcast` (the same bits, read as a type of equal width).
#include "compiler/onnx_node.hpp"
#include "ir/error.hpp"

namespace mxc::onnx_detail {
namespace {

using outputs = std::vector<instruction*>;

dtype target_type(node_context& c, const char* attr) {
    if (!c.has_attr(attr)) c.fail(std::string("attribute '") + attr + "' is required");
    auto to = c.attr_int(attr, 0);
    auto t = dtype_from_onnx(static_cast<int>(to));
    if (!t) c.fail("cannot cast to " + std::string(onnx_type_name(static_cast<int>(to))) + ": type not supported");
    return *t;
}

instruction* cast_to(node_context& c, instruction* x, dtype t) {
    auto saturate = c.attr_int("saturate", 1);
    if (saturate != 0 && saturate != 1) c.fail("attribute 'saturate' must be 0 or 1, got " + std::to_string(saturate));
    auto mode = c.attr_string("round_mode", "up");
    if (mode != "up" && mode != "down" && mode != "nearest")
        c.fail("attribute 'round_mode' must be up, down or nearest, got '" + mode + "'");
    if (t == x->result.type) return x;
    return c.add("convert", {x}, attrs({{"target_type", std::string(dtype_name(t))}, {"saturate", saturate},
                                        {"round_mode", mode}}));
}

outputs cast(node_context& c) { return {cast_to(c, c.input(0), target_type(c, "to"))}; }

outputs cast_like(node_context& c) { return {cast_to(c, c.input(0), c.input(1)->result.type)}; }

outputs bitcast(node_context& c) {
    auto* x = c.input(0);
    dtype t = target_type(c, "to");
    if (onnx_bits(t) != onnx_bits(x->result.type))
        c.fail("cannot bitcast " + std::string(dtype_name(x->result.type)) + " (" + std::to_string(onnx_bits(x->result.type)) +
               " bits) to " + std::string(dtype_name(t)) + " (" + std::to_string(onnx_bits(t)) + " bits): the widths differ");
    if (t == x->result.type) return {x};
    return {c.add("bitcast", {x}, attrs({{"target_type", std::string(dtype_name(t))}}))};
}

} // namespace

MXC_ONNX_CONVERTERS(cast) {
    add_converter("Cast", cast);
    add_converter("CastLike", cast_like);
    add_converter("BitCast", bitcast, 26);
}

} // namespace mxc::onnx_detail
