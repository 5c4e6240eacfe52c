// ONNX node converters: each lowers one ONNX op (all the opset versions mxc knows) to the IR
// ops of docs/ir.md. Inputs that must be constant are literals by now: the node context folds
// instructions whose inputs are all literals as they are added.
#include "compiler/onnx_node.hpp"
#include "ir/error.hpp"
#include "templates/common/types.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>

namespace mxc::onnx_detail {
namespace {

using outputs = std::vector<instruction*>;
using ints = std::vector<int64_t>;

ints iota_from(int64_t from, int64_t to) {
    ints r;
    for (int64_t i = from; i < to; ++i) r.push_back(i);
    return r;
}

int64_t product(const ints& v, std::size_t from, std::size_t to) {
    int64_t p = 1;
    for (std::size_t i = from; i < to; ++i) p = checked_mul(p, v[i]);
    return p;
}

// Normalised, sorted, distinct axes.
ints sorted_axes(node_context& c, ints axes, int64_t rank, const std::string& what = "axis") {
    for (auto& a : axes) a = c.axis(a, rank, what);
    std::sort(axes.begin(), axes.end());
    if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) c.fail(what + "s repeat an axis");
    return axes;
}

// The lowest (or highest) value of a type: +-infinity for floating types.
literal limit_literal(dtype t, bool high) {
    if (is_floating(t)) return scalar_literal(t, high ? INFINITY : -INFINITY);
    std::vector<char> d(dtype_size(t));
    mxc_visit_dtype(static_cast<int>(t), [&](auto tag) {
        using T = decltype(tag);
        T v = high ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
        std::memcpy(d.data(), &v, sizeof(T));
    });
    return literal(shape(t, {}), std::move(d));
}

instruction* rank_at_least(node_context& c, std::size_t i, std::size_t rank, const std::string& what) {
    auto* x = c.input(i);
    if (x->result.rank() < rank)
        c.fail(what + " must have rank >= " + std::to_string(rank) + ", got " + to_string(x->result.lens));
    return x;
}

// --- elementwise -----------------------------------------------------------------------------

converter unary(std::string op) {
    return [op](node_context& c) -> outputs { return {c.add(op, {c.input(0)})}; };
}

converter binary(std::string op) {
    return [op](node_context& c) -> outputs {
        if (c.opset < 7 && c.has_attr("axis")) c.fail("legacy broadcasting with an 'axis' attribute is not supported");
        auto [a, b] = c.broadcast(c.input(0), c.input(1));
        return {c.add(op, {a, b})};
    };
}

// Max, Min, Sum: any number of inputs, folded left.
converter variadic(std::string op) {
    return [op](node_context& c) -> outputs {
        auto* acc = c.input(0);
        for (std::size_t i = 1; i < c.num_inputs(); ++i) {
            auto [a, b] = c.broadcast(acc, c.input(i));
            acc = c.add(op, {a, b});
        }
        return {acc};
    };
}

outputs pow_op(node_context& c) {
    auto* base = c.input(0);
    auto* e = c.input(1);
    if (e->result.type != base->result.type)
        e = c.add("convert", {e}, attrs({{"target_type", std::string(dtype_name(base->result.type))}}));
    auto [a, b] = c.broadcast(base, e);
    return {c.add("pow", {a, b})};
}

outputs clip(node_context& c) {
    auto* x = c.input(0);
    dtype t = x->result.type;
    instruction *lo = nullptr, *hi = nullptr;
    if (c.opset < 11) {
        lo = c.has_attr("min") ? c.scalar(t, c.attr_float("min", 0)) : c.lit(limit_literal(t, false));
        hi = c.has_attr("max") ? c.scalar(t, c.attr_float("max", 0)) : c.lit(limit_literal(t, true));
    } else {
        lo = c.has_input(1) ? c.input(1) : c.lit(limit_literal(t, false));
        hi = c.has_input(2) ? c.input(2) : c.lit(limit_literal(t, true));
        for (auto* b : {lo, hi})
            if (b->result.elements() != 1 || b->result.type != t)
                c.fail("min and max must be scalars of the input's type, got " + to_string(b->result));
    }
    return {c.add("clip", {x, c.broadcast_to(lo, x->result.lens), c.broadcast_to(hi, x->result.lens)})};
}

// --- convolution and pooling -----------------------------------------------------------------

// Explicit pads (begins then ends) from `pads` or `auto_pad`.
ints explicit_pads(node_context& c, const ints& in, const ints& k, const ints& strides, const ints& dil) {
    std::size_t sp = in.size();
    auto mode = c.attr_string("auto_pad", "NOTSET");
    if (mode == "NOTSET") {
        auto pads = c.attr_ints("pads", ints(2 * sp, 0));
        if (pads.size() != 2 * sp)
            c.fail("'pads' has " + std::to_string(pads.size()) + " values, expected " + std::to_string(2 * sp));
        for (auto p : pads)
            if (p < 0) c.fail("negative pad " + std::to_string(p));
        return pads;
    }
    if (mode == "VALID") return ints(2 * sp, 0);
    if (mode != "SAME_UPPER" && mode != "SAME_LOWER") c.fail("unknown auto_pad '" + mode + "'");
    ints pads(2 * sp);
    for (std::size_t i = 0; i < sp; ++i) {
        int64_t out = (in[i] + strides[i] - 1) / strides[i];
        int64_t extent = (k[i] - 1) * dil[i] + 1;
        int64_t total = std::max<int64_t>(0, (out - 1) * strides[i] + extent - in[i]);
        int64_t small = total / 2, big = total - small;
        pads[i] = mode == "SAME_UPPER" ? small : big;
        pads[i + sp] = mode == "SAME_UPPER" ? big : small;
    }
    return pads;
}

ints spatial_attr(node_context& c, const std::string& name, std::size_t sp, int64_t dflt) {
    auto v = c.attr_ints(name, ints(sp, dflt));
    if (v.size() != sp)
        c.fail("'" + name + "' has " + std::to_string(v.size()) + " values, expected " + std::to_string(sp));
    for (auto x : v)
        if (x < 1) c.fail("'" + name + "' must be positive, got " + to_string(v));
    return v;
}

outputs conv(node_context& c) {
    auto* x = rank_at_least(c, 0, 3, "X");
    auto* w = c.input(1);
    std::size_t sp = x->result.rank() - 2;
    if (w->result.rank() != x->result.rank())
        c.fail("W " + to_string(w->result.lens) + " must have the rank of X " + to_string(x->result.lens));
    ints k(w->result.lens.begin() + 2, w->result.lens.end());
    if (c.has_attr("kernel_shape") && c.attr_ints("kernel_shape") != k)
        c.fail("kernel_shape " + to_string(c.attr_ints("kernel_shape")) + " differs from W's spatial dims " + to_string(k));
    auto strides = spatial_attr(c, "strides", sp, 1);
    auto dil = spatial_attr(c, "dilations", sp, 1);
    ints in(x->result.lens.begin() + 2, x->result.lens.end());
    auto pads = explicit_pads(c, in, k, strides, dil);
    auto* y = c.add("convolution", {x, w},
                    attrs({{"padding", pads}, {"stride", strides}, {"dilation", dil}, {"group", c.attr_int("group", 1)}}));
    if (c.has_input(2)) {
        auto* b = c.input(2);
        int64_t m = y->result.lens[1];
        if (b->result.lens != ints{m}) c.fail("bias B " + to_string(b->result.lens) + " must be {" + std::to_string(m) + "}");
        auto* b4 = c.add("unsqueeze", {b}, attrs({{"axes", [&] { auto a = iota_from(1, static_cast<int64_t>(sp) + 2); a[0] = 0; return a; }()}}));
        y = c.add("add", {y, c.broadcast_to(b4, y->result.lens)});
    }
    return {y};
}

converter pool(std::string mode) {
    return [mode](node_context& c) -> outputs {
        auto* x = rank_at_least(c, 0, 3, "X");
        std::size_t sp = x->result.rank() - 2;
        if (!c.has_attr("kernel_shape")) c.fail("attribute 'kernel_shape' is required");
        auto k = spatial_attr(c, "kernel_shape", sp, 1);
        auto strides = spatial_attr(c, "strides", sp, 1);
        auto dil = spatial_attr(c, "dilations", sp, 1);
        ints in(x->result.lens.begin() + 2, x->result.lens.end());
        auto pads = explicit_pads(c, in, k, strides, dil);
        auto* y = c.add("pooling", {x}, attrs({{"mode", mode},
                                               {"padding", pads},
                                               {"stride", strides},
                                               {"lengths", k},
                                               {"dilation", dil},
                                               {"ceil_mode", c.attr_int("ceil_mode", 0)},
                                               {"count_include_pad", c.attr_int("count_include_pad", 0)}}));
        if (mode != "max" || c.node.output_size() < 2 || c.node.output(1).empty()) return {y};
        // MaxPool's Indices output (templates/common/pool_index.hpp).
        ints out(y->result.lens.begin() + 2, y->result.lens.end());
        return {y, c.add("max_pool_index", {x}, attrs({{"padding", pads}, {"stride", strides}, {"lengths", k}, {"dilation", dil},
                                                       {"out_lens", out}, {"storage_order", c.attr_int("storage_order", 0)}}))};
    };
}

converter global_pool(std::string op) {
    return [op](node_context& c) -> outputs {
        auto* x = rank_at_least(c, 0, 3, "X");
        return {c.add(op, {x}, attrs({{"axes", iota_from(2, static_cast<int64_t>(x->result.rank()))}}))};
    };
}

// Training mode (opset 14+): normalise with the batch's mean and population variance over every
// axis but 1; also outputs the running statistics, input * momentum + batch * (1 - momentum).
outputs batch_norm_training(node_context& c, instruction* x) {
    auto& l = x->result.lens;
    std::vector<int64_t> axes, per_channel(l.size(), 1);
    for (std::size_t i = 0; i < l.size(); ++i)
        if (i != 1) axes.push_back(static_cast<int64_t>(i));
    per_channel[1] = l[1];
    std::vector<instruction*> p; // scale, bias, mean, var as [1, C, 1...]
    for (std::size_t i = 1; i < 5; ++i) {
        auto* v = c.input(i);
        if (v->result.lens != std::vector<int64_t>{l[1]} || v->result.type != x->result.type)
            c.fail("input " + std::to_string(i) + " must be " + std::string(dtype_name(x->result.type)) + " [" +
                   std::to_string(l[1]) + "], got " + to_string(v->result));
        p.push_back(c.reshape(v, per_channel));
    }
    auto full = [&](instruction* v) { return c.broadcast_to(v, l); };
    auto k = [&](double v) { return c.broadcast_to(c.scalar(x->result.type, v), per_channel); };
    auto* mean = c.add("reduce_mean", {x}, attrs({{"axes", axes}}));
    auto* d = c.add("sub", {x, full(mean)});
    auto* var = c.add("reduce_mean", {c.add("mul", {d, d})}, attrs({{"axes", axes}}));
    auto* inv = c.add("div", {p[0], c.add("sqrt", {c.add("add", {var, k(c.attr_float("epsilon", 1e-5))})})});
    auto* y = c.add("add", {c.add("mul", {d, full(inv)}), full(p[1])});
    double mom = c.attr_float("momentum", 0.9);
    auto running = [&](instruction* old, instruction* batch) {
        auto* r = c.add("add", {c.add("mul", {old, k(mom)}), c.add("mul", {batch, k(1 - mom)})});
        return c.reshape(r, {l[1]});
    };
    return {y, running(p[2], mean), running(p[3], var)};
}

outputs batch_norm(node_context& c) {
    auto* x = rank_at_least(c, 0, 2, "X");
    if (c.attr_int("training_mode", 0) != 0) {
        if (c.opset < 14) c.fail("training_mode is an attribute of opset 14 and later");
        return batch_norm_training(c, x);
    }
    if (c.opset < 9 && c.attr_int("spatial", 1) != 1) c.fail("spatial=0 is not supported");
    return {c.add("batch_norm_inference", {x, c.input(1), c.input(2), c.input(3), c.input(4)},
                  attrs({{"epsilon", c.attr_float("epsilon", 1e-5)}}))};
}

// --- matrix products -------------------------------------------------------------------------

outputs matmul(node_context& c) {
    auto* a = c.input(0);
    auto* b = c.input(1);
    if (a->result.rank() == 0 || b->result.rank() == 0) c.fail("MatMul inputs must not be scalars");
    bool a1 = a->result.rank() == 1, b1 = b->result.rank() == 1;
    if (a1) a = c.add("unsqueeze", {a}, attrs({{"axes", ints{0}}}));
    if (b1) b = c.add("unsqueeze", {b}, attrs({{"axes", ints{1}}}));
    auto al = a->result.lens, bl = b->result.lens;
    if (al.back() != bl[bl.size() - 2])
        c.fail("inner dims differ: " + to_string(c.input(0)->result.lens) + " x " + to_string(c.input(1)->result.lens));
    auto batch = c.broadcast_lens(ints(al.begin(), al.end() - 2), ints(bl.begin(), bl.end() - 2));
    auto with = [&](ints l, int64_t r, int64_t cols) { l.push_back(r); l.push_back(cols); return l; };
    a = c.broadcast_to(a, with(batch, al[al.size() - 2], al.back()));
    b = c.broadcast_to(b, with(batch, bl[bl.size() - 2], bl.back()));
    auto* y = c.add("dot", {a, b});
    int64_t r = static_cast<int64_t>(y->result.rank());
    ints drop;
    if (a1) drop.push_back(r - 2);
    if (b1) drop.push_back(r - 1);
    if (!drop.empty()) y = c.add("squeeze", {y}, attrs({{"axes", drop}}));
    return {y};
}

outputs gemm(node_context& c) {
    auto* a = c.input(0);
    auto* b = c.input(1);
    if (a->result.rank() != 2 || b->result.rank() != 2)
        c.fail("A and B must be matrices, got " + to_string(a->result.lens) + " and " + to_string(b->result.lens));
    if (c.attr_int("transA", 0)) a = c.add("transpose", {a}, attrs({{"permutation", ints{1, 0}}}));
    if (c.attr_int("transB", 0)) b = c.add("transpose", {b}, attrs({{"permutation", ints{1, 0}}}));
    auto* y = c.add("dot", {a, b});
    dtype t = y->result.type;
    double alpha = c.attr_float("alpha", 1.0), beta = c.attr_float("beta", 1.0);
    if (alpha != 1.0) y = c.add("mul", {y, c.broadcast_to(c.scalar(t, alpha), y->result.lens)});
    if (c.has_input(2) && beta != 0.0) {
        auto* bias = c.input(2);
        if (c.broadcast_lens(bias->result.lens, y->result.lens) != y->result.lens)
            c.fail("C " + to_string(bias->result.lens) + " does not broadcast to " + to_string(y->result.lens));
        if (beta != 1.0) bias = c.add("mul", {bias, c.broadcast_to(c.scalar(t, beta), bias->result.lens)});
        y = c.add("add", {y, c.broadcast_to(bias, y->result.lens)});
    }
    return {y};
}

// --- shapes and data movement ----------------------------------------------------------------

outputs flatten(node_context& c) {
    auto* x = c.input(0);
    auto& l = x->result.lens;
    int64_t r = static_cast<int64_t>(l.size());
    int64_t axis = c.attr_int("axis", 1);
    if (axis < 0) axis += r;
    if (axis < 0 || axis > r) c.fail("axis " + std::to_string(c.attr_int("axis", 1)) + " is out of range for rank " + std::to_string(r));
    auto k = static_cast<std::size_t>(axis);
    return {c.reshape(x, {product(l, 0, k), product(l, k, l.size())})};
}

outputs reshape(node_context& c) {
    auto* x = c.input(0);
    ints want = c.opset < 5 ? c.attr_ints("shape") : c.const_ints(1, "target shape");
    bool allowzero = c.attr_int("allowzero", 0) != 0;
    auto& l = x->result.lens;
    int64_t total = x->result.elements(), known = 1;
    int infer = -1;
    ints dims = want;
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] == 0 && !allowzero) {
            if (i >= l.size()) c.fail("shape " + to_string(want) + " copies axis " + std::to_string(i) + " (a 0), but the input has rank " + std::to_string(l.size()));
            dims[i] = l[i];
        }
        if (dims[i] == -1) {
            if (infer >= 0) c.fail("shape " + to_string(want) + " has more than one -1");
            infer = static_cast<int>(i);
        } else if (dims[i] < 0) {
            c.fail("shape " + to_string(want) + " has an invalid dimension " + std::to_string(dims[i]));
        } else {
            known = checked_mul(known, dims[i]);
        }
    }
    if (infer >= 0) {
        if (known == 0 || total % known != 0)
            c.fail("cannot reshape " + to_string(l) + " to " + to_string(want) + ": the -1 cannot be inferred");
        dims[static_cast<std::size_t>(infer)] = total / known;
    } else if (known != total) {
        c.fail("cannot reshape " + to_string(l) + " (" + std::to_string(total) + " elements) to " + to_string(want));
    }
    return {c.reshape(x, dims)};
}

outputs transpose(node_context& c) {
    auto* x = c.input(0);
    int64_t r = static_cast<int64_t>(x->result.rank());
    ints perm = c.attr_ints("perm", [&] { auto p = iota_from(0, r); std::reverse(p.begin(), p.end()); return p; }());
    ints sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    if (sorted != iota_from(0, r)) c.fail("perm " + to_string(perm) + " is not a permutation of rank " + std::to_string(r));
    if (perm == iota_from(0, r)) return {x};
    return {c.add("transpose", {x}, attrs({{"permutation", perm}}))};
}

outputs concat(node_context& c) {
    std::vector<instruction*> xs;
    for (std::size_t i = 0; i < c.num_inputs(); ++i) xs.push_back(c.input(i));
    if (xs.empty()) c.fail("needs at least one input");
    if (!c.has_attr("axis") && c.opset >= 4) c.fail("attribute 'axis' is required");
    int64_t axis = c.axis(c.attr_int("axis", 1), static_cast<int64_t>(xs[0]->result.rank()));
    if (xs.size() == 1) return {xs[0]};
    return {c.add("concat", xs, attrs({{"axis", axis}}))};
}

converter softmax(std::string op) {
    return [op](node_context& c) -> outputs {
        auto* x = c.input(0);
        auto l = x->result.lens;
        int64_t r = static_cast<int64_t>(l.size());
        if (r == 0) c.fail("input must not be a scalar");
        int64_t axis = c.axis(c.attr_int("axis", c.opset >= 13 ? -1 : 1), r);
        if (c.opset >= 13 || axis == r - 1) return {c.add(op, {x}, attrs({{"axis", axis}}))};
        // Before opset 13 the input is coerced to 2-D [prod(dims before axis), prod(the rest)].
        auto k = static_cast<std::size_t>(axis);
        auto* flat = c.reshape(x, {product(l, 0, k), product(l, k, l.size())});
        auto* y = c.add(op, {flat}, attrs({{"axis", int64_t{1}}}));
        return {c.reshape(y, l)};
    };
}

outputs gather(node_context& c) {
    auto* data = c.input(0);
    auto* idx = c.input(1);
    int64_t r = static_cast<int64_t>(data->result.rank());
    if (r == 0) c.fail("data must not be a scalar");
    int64_t axis = c.axis(c.attr_int("axis", 0), r);
    if (idx->result.type != dtype::int32_type && idx->result.type != dtype::int64_type)
        c.fail("indices must be int32 or int64, got " + std::string(dtype_name(idx->result.type)));
    if (idx->is_literal()) {
        int64_t n = data->result.lens[static_cast<std::size_t>(axis)];
        for (auto i : idx->lit.to_ints())
            if (i < -n || i >= n) c.fail("index " + std::to_string(i) + " is out of range for axis " + std::to_string(axis) + " of length " + std::to_string(n));
        // one constant index (ViT's q, k, v = proj[0], proj[1], proj[2], its class token x[:, 0]):
        // a slice view of length 1, squeezed for a scalar index: no kernel, no copy
        if (idx->lit.known() && idx->result.elements() == 1 && idx->result.rank() <= 1) {
            int64_t i = idx->lit.to_ints()[0];
            if (i < 0) i += n;
            ints starts(static_cast<std::size_t>(r), 0), steps(static_cast<std::size_t>(r), 1), lens = data->result.lens;
            starts[static_cast<std::size_t>(axis)] = i;
            lens[static_cast<std::size_t>(axis)] = 1;
            auto* s = c.add("slice", {data}, attrs({{"starts", starts}, {"steps", steps}, {"out_lens", lens}}));
            if (idx->result.rank() == 1) return {s};
            return {c.add("squeeze", {s}, attrs({{"axes", ints{axis}}}))};
        }
    }
    return {c.add("gather", {data, idx}, attrs({{"axis", axis}}))};
}

outputs unsqueeze(node_context& c) {
    auto* x = c.input(0);
    ints axes;
    if (c.opset >= 13) axes = c.const_ints(1, "axes");
    else if (c.has_attr("axes")) axes = c.attr_ints("axes");
    else c.fail("attribute 'axes' is required");
    axes = sorted_axes(c, axes, static_cast<int64_t>(x->result.rank() + axes.size()));
    if (axes.empty()) return {x};
    return {c.add("unsqueeze", {x}, attrs({{"axes", axes}}))};
}

outputs squeeze(node_context& c) {
    auto* x = c.input(0);
    auto& l = x->result.lens;
    std::optional<ints> given;
    if (c.opset >= 13) {
        if (c.has_input(1)) given = c.const_ints(1, "axes");
    } else {
        given = c.attr_ints_opt("axes");
    }
    ints axes;
    if (given) {
        axes = sorted_axes(c, *given, static_cast<int64_t>(l.size()));
        for (auto a : axes)
            if (l[static_cast<std::size_t>(a)] != 1) c.fail("cannot squeeze axis " + std::to_string(a) + " of " + to_string(l) + ": its length is not 1");
    } else {
        for (std::size_t i = 0; i < l.size(); ++i)
            if (l[i] == 1) axes.push_back(static_cast<int64_t>(i));
    }
    if (axes.empty()) return {x};
    return {c.add("squeeze", {x}, attrs({{"axes", axes}}))};
}

outputs expand(node_context& c) {
    auto* x = c.input(0);
    auto lens = c.broadcast_lens(x->result.lens, c.const_ints(1, "shape"));
    return {c.broadcast_to(x, lens)};
}

// --- constants and identities ----------------------------------------------------------------

outputs constant(node_context& c) {
    auto has = [&](const char* n) { return c.has_attr(n); };
    if (has("value")) {
        auto* a = c.attr("value");
        if (a->type() != onnx::AttributeProto::TENSOR) c.fail("attribute 'value' must be a tensor");
        return {c.lit(tensor_to_literal(a->t(), c.label + ": the value"))};
    }
    if (has("value_float")) return {c.scalar(dtype::float_type, c.attr_float("value_float", 0))};
    if (has("value_int")) return {c.lit(literal::from<int64_t>(dtype::int64_type, {}, {c.attr_int("value_int", 0)}))};
    if (has("value_ints")) {
        auto v = c.attr_ints("value_ints");
        return {c.lit(literal::from<int64_t>(dtype::int64_type, {static_cast<int64_t>(v.size())}, v))};
    }
    if (has("value_floats")) {
        auto& f = c.attr("value_floats")->floats();
        std::vector<float> v(f.begin(), f.end());
        return {c.lit(literal::from<float>(dtype::float_type, {static_cast<int64_t>(v.size())}, v))};
    }
    for (auto n : {"sparse_value", "value_string", "value_strings"})
        if (has(n)) c.fail("attribute '" + std::string(n) + "' is not supported");
    c.fail("has no value attribute");
}

outputs identity(node_context& c) {
    if (!c.values.empty() && (c.values[0].sequence || c.values[0].optional)) c.value_outputs = {c.values[0]}; // a sequence or an optional
    else return {c.input(0)};
    return {};
}

outputs dropout(node_context& c) {
    auto* x = c.input(0);
    if (c.opset >= 12 && c.has_input(2)) {
        auto v = c.const_input(2, "training_mode").to_ints();
        if (!v.empty() && v[0] != 0) {
            // Training with ratio 0 drops nothing; any other ratio draws a random mask.
            double ratio = 0.5;
            if (c.has_input(1)) {
                auto r = c.const_input(1, "ratio").to_doubles();
                if (r.size() != 1) c.fail("the ratio must be a scalar");
                ratio = r[0];
            }
            if (ratio != 0)
                c.fail("training_mode=true with ratio " + std::to_string(ratio) +
                       " drops elements at random (a seed-dependent mask): not supported");
        }
    }
    if (c.opset < 7 && c.attr_int("is_test", 0) == 0 && c.node.output_size() > 1 && !c.node.output(1).empty())
        c.fail("the mask of a training-mode Dropout is not supported");
    // In inference nothing is dropped: the mask is all true.
    auto* mask = c.broadcast_to(c.lit(scalar_literal(dtype::bool_type, 1)), x->result.lens);
    return {x, mask};
}

outputs shape_of(node_context& c) {
    auto& l = c.input(0)->result.lens;
    int64_t r = static_cast<int64_t>(l.size());
    auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + r : v, int64_t{0}, r); };
    int64_t start = clamp(c.attr_int("start", 0)), end = clamp(c.attr_int("end", r));
    ints v;
    for (int64_t i = start; i < end; ++i) v.push_back(l[static_cast<std::size_t>(i)]);
    return {c.lit(literal::from<int64_t>(dtype::int64_type, {static_cast<int64_t>(v.size())}, v))};
}

} // namespace

MXC_ONNX_CONVERTERS(core) {
    add_converter("Abs", unary("abs"));
    add_converter("Add", binary("add"));
    add_converter("AveragePool", pool("average"));
    add_converter("BatchNormalization", batch_norm);
    add_converter("Clip", clip);
    add_converter("Concat", concat);
    add_converter("Constant", constant);
    add_converter("Conv", conv);
    add_converter("Div", binary("div"));
    add_converter("Dropout", dropout);
    add_converter("Erf", unary("erf"));
    add_converter("Exp", unary("exp"));
    add_converter("Expand", expand);
    add_converter("Flatten", flatten);
    add_converter("Gather", gather);
    add_converter("Gemm", gemm);
    add_converter("GlobalAveragePool", global_pool("reduce_mean"));
    add_converter("GlobalMaxPool", global_pool("reduce_max"));
    add_converter("Identity", identity);
    add_converter("Log", unary("log"));
    add_converter("LogSoftmax", softmax("log_softmax"));
    add_converter("MatMul", matmul);
    add_converter("Max", variadic("max"));
    add_converter("MaxPool", pool("max"));
    add_converter("Min", variadic("min"));
    add_converter("Mul", binary("mul"));
    add_converter("Neg", unary("neg"));
    add_converter("Pow", pow_op);
    add_converter("Relu", unary("relu"));
    add_converter("Reshape", reshape);
    add_converter("Shape", shape_of);
    add_converter("Sigmoid", unary("sigmoid"));
    add_converter("Softmax", softmax("softmax"));
    add_converter("Sqrt", unary("sqrt"));
    add_converter("Squeeze", squeeze);
    add_converter("Sub", binary("sub"));
    add_converter("Sum", variadic("add"));
    add_converter("Tanh", unary("tanh"));
    add_converter("Transpose", transpose);
    add_converter("Unsqueeze", unsqueeze);
}

} // namespace mxc::onnx_detail
