// ONNX converters for quantization: QuantizeLinear (the quantize_linear IR op), and as
// compositions of IR ops DequantizeLinear, DynamicQuantizeLinear, MatMulInteger, ConvInteger,
// QLinearMatMul and QLinearConv. Integer products accumulate exactly in int32 (dot /
// convolution on int32); requantization multiplies by a_scale * b_scale / y_scale and ends in
// quantize_linear (round half to even, zero point, saturation).
#include "compiler/onnx_node.hpp"
#include "ir/error.hpp"

#include <algorithm>

namespace mxc::onnx_detail {
namespace {

using outputs = std::vector<instruction*>;
using ints = std::vector<int64_t>;

std::string name_of(dtype t) { return std::string(dtype_name(t)); }

instruction* convert_to(node_context& c, instruction* x, dtype t) {
    if (x->result.type == t) return x;
    return c.add("convert", {x}, attrs({{"target_type", name_of(t)}}));
}

// The quantized types: 8- and 16-bit integers, the 4- and 2-bit integers, float8 (not e8m0)
// and float4e2m1.
bool is_quant_type(dtype t) {
    if (t == dtype::int8_type || t == dtype::uint8_type || t == dtype::int16_type || t == dtype::uint16_type) return true;
    return is_low_precision(t) && t != dtype::float8e8m0_type;
}
const char* quant_types = "int8, uint8, int16, uint16, int4, uint4, int2, uint2, float8e4m3fn(uz), float8e5m2(fnuz), float4e2m1";

// A scale or zero point of QuantizeLinear / DequantizeLinear as a view with x's lens: a
// scalar (or one element) is per-tensor, a 1-D tensor is per-axis, a tensor of x's rank is
// blocked (block_size > 0: each value repeats block_size times along axis, the last block
// may be short).
instruction* expand_granular(node_context& c, instruction* v, const ints& lens, int64_t axis, int64_t block,
                             const std::string& what) {
    if (v->result.elements() == 1 && (v->result.rank() <= 1 || block == 0)) return c.broadcast_to(c.reshape(v, {}), lens);
    const auto r = static_cast<int64_t>(lens.size());
    axis = c.axis(axis, r);
    const auto a = static_cast<std::size_t>(axis);
    if (block <= 0) {
        if (v->result.lens != ints{lens[a]})
            c.fail(what + " " + to_string(v->result.lens) + " must be a scalar or {" + std::to_string(lens[a]) +
                   "} (per-axis on axis " + std::to_string(axis) + ")");
        ints dims(lens.size(), 1);
        dims[a] = lens[a];
        return c.broadcast_to(c.reshape(v, dims), lens);
    }
    const int64_t nb = (lens[a] + block - 1) / block;
    ints want = lens;
    want[a] = nb;
    if (v->result.lens != want)
        c.fail(what + " " + to_string(v->result.lens) + " must be " + to_string(want) + " for block_size " +
               std::to_string(block) + " on axis " + std::to_string(axis) + " of " + to_string(lens));
    ints rep = want;
    rep.insert(rep.begin() + axis + 1, block);
    auto* e = c.broadcast_to(c.add("unsqueeze", {v}, attrs({{"axes", ints{axis + 1}}})), rep);
    ints full = lens;
    full[a] = nb * block;
    auto* f = c.reshape(e, full);
    if (full[a] == lens[a]) return f;
    return c.add("slice", {f}, attrs({{"starts", ints(lens.size(), 0)}, {"steps", ints(lens.size(), 1)}, {"out_lens", lens}}));
}

// A zero point goes with its scale: the same shape, or one element each ({} and {1} mix in
// the ONNX tests).
bool same_granularity(instruction* zp, instruction* scale) {
    return zp->result.lens == scale->result.lens || (zp->result.elements() == 1 && scale->result.elements() == 1);
}

// The floating type the division / multiplication of a (de)quantization runs in: double if
// either side is double, else float (half and bfloat16 compute in float in mxc).
dtype compute_type(dtype a, dtype b) {
    return a == dtype::double_type || b == dtype::double_type ? dtype::double_type : dtype::float_type;
}

// quantize_linear of x (floating) with scale and zero point already of x's lens.
instruction* quantize(node_context& c, instruction* x, instruction* scale, instruction* zp, dtype f, bool saturate = true) {
    return c.add("quantize_linear", {convert_to(c, x, f), convert_to(c, scale, f), zp},
                 attrs({{"saturate", int64_t{saturate ? 1 : 0}}}));
}

outputs quantize_linear(node_context& c) {
    auto* x = c.input(0);
    auto* scale = c.input(1);
    if (!is_floating(x->result.type) && x->result.type != dtype::int32_type)
        c.fail("x must be a floating or int32 tensor, got " + name_of(x->result.type));
    if (!is_floating(scale->result.type) && scale->result.type != dtype::int32_type)
        c.fail("y_scale must be a floating or int32 tensor, got " + name_of(scale->result.type));
    const int64_t axis = c.opset >= 13 ? c.attr_int("axis", 1) : 1;
    const int64_t block = c.opset >= 21 ? c.attr_int("block_size", 0) : 0;
    if (block < 0) c.fail("block_size must be >= 0, got " + std::to_string(block));
    std::optional<dtype> out;
    if (c.opset >= 21 && c.attr_int("output_dtype", 0) != 0) {
        int64_t o = c.attr_int("output_dtype", 0);
        out = dtype_from_onnx(static_cast<int>(o));
        if (!out) c.fail("output_dtype " + std::string(onnx_type_name(static_cast<int>(o))) + " is not supported");
    }
    if (c.has_input(2)) {
        dtype zt = c.input(2)->result.type;
        if (out && *out != zt)
            c.fail("output_dtype " + name_of(*out) + " differs from y_zero_point's type " + name_of(zt));
        out = zt;
    }
    dtype t = out.value_or(dtype::uint8_type);
    if (!is_quant_type(t)) c.fail("quantizing to " + name_of(t) + " is not supported (" + quant_types + ")");
    auto& lens = x->result.lens;
    auto* zp = c.has_input(2) ? c.input(2) : c.scalar(t, 0);
    if (c.has_input(2) && !same_granularity(zp, scale))
        c.fail("y_zero_point " + to_string(zp->result.lens) + " must have y_scale's shape " + to_string(scale->result.lens));
    dtype f = compute_type(x->result.type, scale->result.type);
    if (c.opset >= 23 && c.attr_int("precision", 0) != 0) {
        auto p = dtype_from_onnx(static_cast<int>(c.attr_int("precision", 0)));
        if (!p || !is_floating(*p)) c.fail("precision must be a floating type");
        f = *p == dtype::double_type ? dtype::double_type : dtype::float_type;
    }
    return {quantize(c, x, expand_granular(c, scale, lens, axis, block, "y_scale"),
                     expand_granular(c, zp, lens, axis, block, "y_zero_point"), f,
                     c.opset < 19 || c.attr_int("saturate", 1) != 0)};
}

outputs dequantize_linear(node_context& c) {
    auto* x = c.input(0);
    auto* scale = c.input(1);
    dtype xt = x->result.type;
    if (!is_quant_type(xt) && xt != dtype::int32_type)
        c.fail("dequantizing " + name_of(xt) + " is not supported (int32, " + quant_types + ")");
    if (!is_floating(scale->result.type)) c.fail("x_scale must be floating, got " + name_of(scale->result.type));
    const int64_t axis = c.opset >= 13 ? c.attr_int("axis", 1) : 1;
    const int64_t block = c.opset >= 21 ? c.attr_int("block_size", 0) : 0;
    if (block < 0) c.fail("block_size must be >= 0, got " + std::to_string(block));
    dtype out = scale->result.type;
    if (c.opset >= 23 && c.attr_int("output_dtype", 0) != 0) {
        auto o = dtype_from_onnx(static_cast<int>(c.attr_int("output_dtype", 0)));
        if (!o || !is_floating(*o)) c.fail("output_dtype must be a floating type");
        out = *o;
    }
    dtype f = compute_type(scale->result.type, out);
    auto& lens = x->result.lens;
    auto* y = convert_to(c, x, f);
    if (c.has_input(2)) {
        auto* zp = c.input(2);
        if (zp->result.type != xt) c.fail("x_zero_point's type " + name_of(zp->result.type) + " differs from x's " + name_of(xt));
        if (!same_granularity(zp, scale))
            c.fail("x_zero_point " + to_string(zp->result.lens) + " must have x_scale's shape " + to_string(scale->result.lens));
        y = c.add("sub", {y, convert_to(c, expand_granular(c, zp, lens, axis, block, "x_zero_point"), f)});
    }
    y = c.add("mul", {y, convert_to(c, expand_granular(c, scale, lens, axis, block, "x_scale"), f)});
    return {convert_to(c, y, out)};
}

// DynamicQuantizeLinear: uint8 with scale = (max(0, max x) - min(0, min x)) / 255 (1 when
// that range is empty) and zero point rint(clip(-min(0, min x) / scale, 0, 255)).
outputs dynamic_quantize_linear(node_context& c) {
    auto* x = c.input(0);
    if (!is_floating(x->result.type)) c.fail("x must be floating, got " + name_of(x->result.type));
    if (x->result.elements() == 0) c.fail("x must not be empty (its range is undefined)");
    auto& lens = x->result.lens;
    ints all;
    for (int64_t i = 0; i < static_cast<int64_t>(lens.size()); ++i) all.push_back(i);
    const dtype f = dtype::float_type;
    auto* xf = convert_to(c, x, f);
    auto reduce = [&](const char* op) {
        auto* r = all.empty() ? xf : c.add(op, {xf}, attrs({{"axes", all}}));
        return c.reshape(r, {});
    };
    auto* zero = c.scalar(f, 0);
    auto* hi = c.add("max", {reduce("reduce_max"), zero});
    auto* lo = c.add("min", {reduce("reduce_min"), zero});
    auto* range = c.add("sub", {hi, lo});
    auto* empty = c.add("equal", {range, zero});
    auto* scale = c.add("where", {empty, c.scalar(f, 1), c.add("div", {range, c.scalar(f, 255)})});
    auto* zp0 = c.add("sub", {zero, c.add("div", {lo, scale})});
    auto* zpf = c.add("round", {c.add("clip", {zp0, zero, c.scalar(f, 255)})});
    auto* zp = convert_to(c, zpf, dtype::uint8_type);
    auto* y = quantize(c, xf, c.broadcast_to(scale, lens), c.broadcast_to(zp, lens), f);
    return {y, convert_to(c, scale, x->result.type), zp};
}

// v - zero_point in int32, zero_point a scalar or, when `row_axis` >= 0, a 1-D tensor along
// that axis of v (MatMulInteger's per-row A, ConvInteger's per-output-channel W).
instruction* minus_zero_point(node_context& c, instruction* v, std::size_t zp_input, int64_t per_axis,
                              const std::string& what) {
    auto* v32 = convert_to(c, v, dtype::int32_type);
    if (!c.has_input(zp_input)) return v32;
    auto* zp = c.input(zp_input);
    if (zp->result.type != v->result.type)
        c.fail(what + "'s type " + name_of(zp->result.type) + " differs from its tensor's " + name_of(v->result.type));
    auto& lens = v->result.lens;
    const auto r = static_cast<int64_t>(lens.size());
    instruction* z = nullptr;
    if (zp->result.elements() == 1) z = c.broadcast_to(c.reshape(zp, {}), lens);
    else if (per_axis >= 0 && per_axis < r && zp->result.lens == ints{lens[static_cast<std::size_t>(per_axis)]}) {
        ints dims(lens.size(), 1);
        dims[static_cast<std::size_t>(per_axis)] = lens[static_cast<std::size_t>(per_axis)];
        z = c.broadcast_to(c.reshape(zp, dims), lens);
    } else if (per_axis == r - 1 && zp->result.lens == ints{lens.back()}) { // per column of B
        z = c.broadcast_to(zp, lens);
    } else {
        c.fail(what + " " + to_string(zp->result.lens) + " must be a scalar or a 1-D tensor along axis " +
               std::to_string(per_axis) + " of " + to_string(lens));
    }
    return c.add("sub", {v32, convert_to(c, z, dtype::int32_type)});
}

void check_int8(node_context& c, instruction* v, const std::string& what) {
    dtype t = v->result.type;
    if (t != dtype::int8_type && t != dtype::uint8_type) c.fail(what + " must be int8 or uint8, got " + name_of(t));
}

// The int32 matrix product of (a - a_zero_point) and (b - b_zero_point) through the MatMul
// converter (numpy batching, 1-D operands).
instruction* integer_matmul(node_context& c, std::size_t a, std::size_t a_zp, std::size_t b, std::size_t b_zp) {
    auto* av = c.input(a);
    auto* bv = c.input(b);
    check_int8(c, av, "A");
    check_int8(c, bv, "B");
    const auto ra = static_cast<int64_t>(av->result.rank()), rb = static_cast<int64_t>(bv->result.rank());
    auto* a32 = minus_zero_point(c, av, a_zp, ra >= 2 ? ra - 2 : -1, "a_zero_point");
    auto* b32 = minus_zero_point(c, bv, b_zp, rb - 1, "b_zero_point");
    node_context sub = c;
    sub.in = {a32, b32};
    return find_converter("MatMul")->convert(sub)[0];
}

// The int32 convolution of (x - x_zero_point) and (w - w_zero_point) (+ bias) through the
// Conv converter (the same attributes).
instruction* integer_conv(node_context& c, std::size_t x, std::size_t x_zp, std::size_t w, std::size_t w_zp,
                          instruction* bias) {
    auto* xv = c.input(x);
    auto* wv = c.input(w);
    check_int8(c, xv, "x");
    check_int8(c, wv, "w");
    if (c.has_input(x_zp) && c.input(x_zp)->result.elements() != 1) c.fail("x_zero_point must be a scalar");
    node_context sub = c;
    sub.in = {minus_zero_point(c, xv, x_zp, -1, "x_zero_point"), minus_zero_point(c, wv, w_zp, 0, "w_zero_point")};
    if (bias) {
        if (bias->result.type != dtype::int32_type) c.fail("B must be int32, got " + name_of(bias->result.type));
        sub.in.push_back(bias);
    }
    return find_converter("Conv")->convert(sub)[0];
}

// y = quantize(acc * (a_scale * b_scale / y_scale)) with y's zero point: the multiplier is
// computed in the scales' type, the product in float (double for double scales). a_scale
// broadcasts as given (after `shape_a`), b_scale and y_scale as given.
instruction* requantize(node_context& c, instruction* acc, instruction* a_scale, instruction* b_scale,
                        instruction* y_scale, std::size_t y_zp, dtype fallback) {
    dtype st = a_scale->result.type;
    if (!is_floating(st) || b_scale->result.type != st || y_scale->result.type != st)
        c.fail("the scales must have one floating type, got " + name_of(a_scale->result.type) + ", " +
               name_of(b_scale->result.type) + " and " + name_of(y_scale->result.type));
    auto [as, bs] = c.broadcast(a_scale, b_scale);
    auto [ab, ys] = c.broadcast(c.add("mul", {as, bs}), y_scale);
    auto* mult = c.add("div", {ab, ys});
    dtype f = compute_type(st, st);
    auto lens = c.broadcast_lens(acc->result.lens, mult->result.lens);
    if (lens != acc->result.lens) c.fail("the scales " + to_string(mult->result.lens) + " do not broadcast to " + to_string(acc->result.lens));
    auto* v = c.add("mul", {convert_to(c, acc, f), c.broadcast_to(convert_to(c, mult, f), lens)});
    dtype t = c.has_input(y_zp) ? c.input(y_zp)->result.type : fallback;
    if (t != dtype::int8_type && t != dtype::uint8_type) c.fail("y_zero_point must be int8 or uint8, got " + name_of(t));
    instruction* zp = c.has_input(y_zp) ? c.input(y_zp) : c.scalar(t, 0);
    if (zp->result.elements() != 1) c.fail("y_zero_point must be a scalar, got " + to_string(zp->result.lens));
    auto* one = c.broadcast_to(c.scalar(f, 1), lens);
    return quantize(c, v, one, c.broadcast_to(c.reshape(zp, {}), lens), f);
}

// A per-row (a_scale [M] of A [..., M, K]) or scalar scale, shaped to broadcast against the
// [..., M, N] product.
instruction* row_scale(node_context& c, instruction* s, int64_t rank) {
    if (s->result.elements() == 1) return c.reshape(s, {});
    if (s->result.rank() == 1 && rank >= 2) return c.reshape(s, {s->result.lens[0], 1});
    return s;
}

outputs matmul_integer(node_context& c) { return {integer_matmul(c, 0, 2, 1, 3)}; }

outputs conv_integer(node_context& c) { return {integer_conv(c, 0, 2, 1, 3, nullptr)}; }

outputs qlinear_matmul(node_context& c) {
    auto* acc = integer_matmul(c, 0, 2, 3, 5);
    auto* as = row_scale(c, c.input(1), static_cast<int64_t>(c.input(0)->result.rank()));
    auto* bs = c.input(4)->result.elements() == 1 ? c.reshape(c.input(4), {}) : c.input(4);
    auto* ys = c.input(6)->result.elements() == 1 ? c.reshape(c.input(6), {}) : c.input(6);
    return {requantize(c, acc, as, bs, ys, 7, c.input(0)->result.type)};
}

outputs qlinear_conv(node_context& c) {
    auto* acc = integer_conv(c, 0, 2, 3, 5, c.has_input(8) ? c.input(8) : nullptr);
    const auto r = acc->result.rank();
    auto scalar_of = [&](std::size_t i, const std::string& what) {
        auto* s = c.input(i);
        if (s->result.elements() != 1) c.fail(what + " must be a scalar, got " + to_string(s->result.lens));
        return c.reshape(s, {});
    };
    auto* ws = c.input(4);
    if (ws->result.elements() == 1) ws = c.reshape(ws, {});
    else if (ws->result.rank() == 1 && ws->result.lens[0] == acc->result.lens[1]) {
        ints dims(r - 1, 1);
        dims[0] = ws->result.lens[0];
        ws = c.reshape(ws, dims);
    } else {
        c.fail("w_scale " + to_string(ws->result.lens) + " must be a scalar or one value per output channel");
    }
    return {requantize(c, acc, scalar_of(1, "x_scale"), ws, scalar_of(6, "y_scale"), 7, c.input(0)->result.type)};
}

} // namespace

MXC_ONNX_CONVERTERS(quant) {
    add_converter("QuantizeLinear", quantize_linear, 10);
    add_converter("DequantizeLinear", dequantize_linear, 10);
    add_converter("DynamicQuantizeLinear", dynamic_quantize_linear, 11);
    add_converter("MatMulInteger", matmul_integer, 10);
    add_converter("ConvInteger", conv_integer, 10);
    add_converter("QLinearMatMul", qlinear_matmul, 10);
    add_converter("QLinearConv", qlinear_conv, 10);
}

} // namespace mxc::onnx_detail
