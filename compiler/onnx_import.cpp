// ONNX import: the file, its tensors and the graph walk. Node converters are in
// compiler/onnx_ops.cpp.
#include "compiler/onnx_import.hpp"
#include "compiler/mapped_file.hpp"
#include "compiler/onnx_external.hpp"
#include "compiler/onnx_node.hpp"
#include "ir/error.hpp"
#include "ir/eval.hpp"
#include "ir/op.hpp"
#include "templates/common/types.hpp"

#include <google/protobuf/stubs/logging.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <set>
#include <type_traits>

namespace mxc {
namespace onnx_detail {

namespace {
// Appends `src` converted element by element to the storage type T.
template <class T, class Src> std::vector<char> convert_values(const Src& src) {
    std::vector<char> d(static_cast<std::size_t>(src.size()) * sizeof(T));
    for (int i = 0; i < src.size(); ++i) {
        T v;
        if constexpr (std::is_same_v<T, bool>) v = src[i] != 0;
        else v = static_cast<T>(src[i]);
        std::memcpy(d.data() + static_cast<std::size_t>(i) * sizeof(T), &v, sizeof(T));
    }
    return d;
}
} // namespace

shape tensor_shape(const onnx::TensorProto& t, const std::string& what, int64_t& bytes) {
    auto type = dtype_from_onnx(t.data_type());
    if (!type)
        throw error(what + " has element type " + std::string(onnx_type_name(t.data_type())) +
                    ", which mxc does not support");
    std::vector<int64_t> lens(t.dims().begin(), t.dims().end());
    int64_t n = 1;
    for (auto l : lens) {
        if (l < 0) throw error(what + " has a negative dimension in its shape " + to_string(lens));
        try {
            n = checked_mul(n, l);
        } catch (const error&) {
            throw error(what + ": the element count of shape " + to_string(lens) + " overflows 64 bits");
        }
    }
    try {
        bytes = checked_mul(n, static_cast<int64_t>(dtype_size(*type)));
    } catch (const error&) {
        throw error(what + ": the byte size of shape " + to_string(lens) + " overflows 64 bits");
    }
    return shape(*type, lens);
}

literal take_tensor_literal(onnx::TensorProto& t, const std::string& what) {
    if (!has_external_data(t) && t.has_raw_data()) {
        int64_t bytes = 0;
        shape s = tensor_shape(t, what, bytes);
        // as tensor_to_literal's raw case, where the bytes are the literal's (not packed sub-byte)
        if (static_cast<int64_t>(t.raw_data().size()) == bytes &&
            static_cast<int64_t>(onnx_packed_bytes(s.type, s.elements())) == bytes)
            return literal(s, std::move(*t.mutable_raw_data()));
    }
    return tensor_to_literal(t, what);
}

literal tensor_to_literal(const onnx::TensorProto& t, const std::string& what) {
    if (has_external_data(t))
        throw error(what + " keeps its data in an external file, which mxc reads only for initializers");
    int64_t bytes = 0;
    shape s = tensor_shape(t, what, bytes);
    const auto& lens = s.lens;
    const int64_t n = s.elements();
    auto type_name = std::string(onnx_type_name(t.data_type()));
    if (t.has_raw_data()) {
        auto& raw = t.raw_data();
        auto packed = static_cast<int64_t>(onnx_packed_bytes(s.type, n)); // sub-byte types arrive packed
        if (static_cast<int64_t>(raw.size()) != packed)
            throw error(what + " has " + std::to_string(raw.size()) + " bytes of raw data, but " + type_name + " " +
                        to_string(lens) + " needs " + std::to_string(packed));
        if (packed == bytes) return literal(s, std::vector<char>(raw.begin(), raw.end()));
        return literal(s, onnx_unpack(s.type, raw.data(), n));
    }
    if (is_low_precision(s.type)) {
        // int32_data holds one float8 bit pattern, or one packed byte of sub-byte elements, per value
        auto count_needed = static_cast<int64_t>(onnx_packed_bytes(s.type, n));
        if (t.int32_data_size() != count_needed)
            throw error(what + " has " + std::to_string(t.int32_data_size()) + " values in int32_data, but " + type_name +
                        " " + to_string(lens) + " needs " + std::to_string(count_needed));
        std::string packed;
        for (auto v : t.int32_data()) packed += static_cast<char>(v & 0xff);
        return literal(s, onnx_unpack(s.type, packed.data(), n));
    }
    std::vector<char> data;
    int count = 0;
    std::string field;
    auto take = [&](const auto& src, const char* name, auto conv) {
        count = src.size();
        field = name;
        if (count == n) data = conv(src);
    };
    using onnx::TensorProto;
    switch (t.data_type()) {
    case TensorProto::FLOAT: take(t.float_data(), "float_data", [](auto& v) { return convert_values<float>(v); }); break;
    case TensorProto::DOUBLE: take(t.double_data(), "double_data", [](auto& v) { return convert_values<double>(v); }); break;
    case TensorProto::INT64: take(t.int64_data(), "int64_data", [](auto& v) { return convert_values<int64_t>(v); }); break;
    case TensorProto::UINT64: take(t.uint64_data(), "uint64_data", [](auto& v) { return convert_values<uint64_t>(v); }); break;
    case TensorProto::UINT32: take(t.uint64_data(), "uint64_data", [](auto& v) { return convert_values<uint32_t>(v); }); break;
    case TensorProto::INT32: take(t.int32_data(), "int32_data", [](auto& v) { return convert_values<int32_t>(v); }); break;
    case TensorProto::INT16: take(t.int32_data(), "int32_data", [](auto& v) { return convert_values<int16_t>(v); }); break;
    case TensorProto::INT8: take(t.int32_data(), "int32_data", [](auto& v) { return convert_values<int8_t>(v); }); break;
    case TensorProto::UINT16: take(t.int32_data(), "int32_data", [](auto& v) { return convert_values<uint16_t>(v); }); break;
    case TensorProto::UINT8: take(t.int32_data(), "int32_data", [](auto& v) { return convert_values<uint8_t>(v); }); break;
    case TensorProto::BOOL: take(t.int32_data(), "int32_data", [](auto& v) { return convert_values<bool>(v); }); break;
    // float16 and bfloat16 keep their bits in the low 16 bits of int32_data
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16: take(t.int32_data(), "int32_data", [](auto& v) { return convert_values<uint16_t>(v); }); break;
    default: throw error(what + " has element type " + type_name + ", which mxc does not support");
    }
    if (count == 0 && n > 0) {
        // The values may sit in a field of another type: name it (a wrong field type).
        std::pair<int, const char*> others[] = {{t.float_data_size(), "float_data"}, {t.double_data_size(), "double_data"},
                                                {t.int32_data_size(), "int32_data"}, {t.int64_data_size(), "int64_data"},
                                                {t.uint64_data_size(), "uint64_data"}, {t.string_data_size(), "string_data"}};
        for (auto& [k, name] : others)
            if (k > 0)
                throw error(what + " keeps its values in " + name + ", but a " + type_name + " tensor keeps them in " +
                            field);
        throw error(what + " has no data (shape " + to_string(lens) + ")");
    }
    if (count != n)
        throw error(what + " has " + std::to_string(count) + " values in " + field + ", but " + type_name + " " +
                    to_string(lens) + " needs " + std::to_string(n));
    return literal(s, std::move(data));
}

literal scalar_literal(dtype t, double v) {
    std::vector<char> d(dtype_size(t));
    mxc_visit_dtype(static_cast<int>(t), [&](auto tag) {
        using T = decltype(tag);
        T x;
        if constexpr (std::is_same_v<T, mxc_half> || std::is_same_v<T, mxc_bf16>) x = T(static_cast<float>(v));
        else if constexpr (std::is_same_v<T, bool>) x = v != 0;
        else if constexpr (std::is_integral_v<T>) // saturated (NaN: 0): a double outside T's range converts to no value
            x = std::isnan(v) ? T(0)
                : v <= static_cast<double>(std::numeric_limits<T>::lowest()) ? std::numeric_limits<T>::lowest()
                : v >= static_cast<double>(std::numeric_limits<T>::max())    ? std::numeric_limits<T>::max()
                                                                             : static_cast<T>(v);
        else x = static_cast<T>(v);
        std::memcpy(d.data(), &x, sizeof(T));
    });
    return literal(shape(t, {}), std::move(d));
}

} // namespace onnx_detail

using namespace onnx_detail;

namespace {

bool default_domain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

// The converter registry's name of a node's op: "Op" in the default domain, else "domain::Op"
// (their opset ranges are versions of that domain).
std::string converter_key(const onnx::NodeProto& n) {
    return default_domain(n.domain()) ? n.op_type() : n.domain() + "::" + n.op_type();
}

// Whether a node of g or of its subgraphs is of the default domain.
bool uses_default_domain(const onnx::GraphProto& g) {
    for (auto& n : g.node()) {
        if (default_domain(n.domain())) return true;
        for (auto& a : n.attribute()) {
            if (a.has_g() && uses_default_domain(a.g())) return true;
            for (auto& sg : a.graphs())
                if (uses_default_domain(sg)) return true;
        }
    }
    return false;
}

std::string node_label(const onnx::NodeProto& n, std::size_t index, int64_t opset) {
    std::string who = n.name().empty() ? "#" + std::to_string(index) : "'" + n.name() + "'";
    return "node " + who + " (" + n.op_type() + ", opset " + std::to_string(opset) + ")";
}

std::string node_origin(const onnx::NodeProto& n, std::size_t index) {
    return n.op_type() + " " + (n.name().empty() ? "#" + std::to_string(index) : "'" + n.name() + "'");
}

// The shape of a graph input, with symbolic dims resolved from the options; unresolved dims
// are appended to `unresolved`.
shape input_shape(const onnx::ValueInfoProto& vi, const import_options& opts, std::vector<std::string>& unresolved) {
    const std::string what = "graph input '" + vi.name() + "'";
    if (!vi.has_type() || !vi.type().has_tensor_type())
        throw error(what + " is not a tensor (sequences, maps and optionals are not supported)");
    auto& tt = vi.type().tensor_type();
    auto type = dtype_from_onnx(tt.elem_type());
    if (!type)
        throw error(what + " has element type " + std::string(onnx_type_name(tt.elem_type())) +
                    ", which mxc does not support");
    auto given = opts.input_dims.find(vi.name());
    if (given != opts.input_dims.end()) {
        auto& dims = given->second;
        for (auto d : dims)
            if (d < 0) throw error("--input-dim @" + vi.name() + ": negative dimension " + std::to_string(d));
        if (tt.has_shape()) {
            auto& sh = tt.shape();
            if (sh.dim_size() != static_cast<int>(dims.size()))
                throw error("--input-dim @" + vi.name() + " gives " + std::to_string(dims.size()) +
                            " dims, but the model declares rank " + std::to_string(sh.dim_size()));
            for (int i = 0; i < sh.dim_size(); ++i)
                if (sh.dim(i).has_dim_value() && sh.dim(i).dim_value() != dims[static_cast<std::size_t>(i)])
                    throw error("--input-dim @" + vi.name() + ": axis " + std::to_string(i) + " is " +
                                std::to_string(dims[static_cast<std::size_t>(i)]) + ", but the model fixes it to " +
                                std::to_string(sh.dim(i).dim_value()));
        }
        shape s(*type, std::vector<int64_t>{});
        try {
            s = shape(*type, dims);
            s.bytes();
        } catch (const error&) {
            throw error("--input-dim @" + vi.name() + ": the byte size of shape " + to_string(dims) + " overflows 64 bits");
        }
        return s;
    }
    if (!tt.has_shape()) {
        unresolved.push_back("input '" + vi.name() + "' (no shape in the model)");
        return shape(*type, {});
    }
    std::vector<int64_t> lens;
    auto& sh = tt.shape();
    for (int i = 0; i < sh.dim_size(); ++i) {
        auto& d = sh.dim(i);
        if (d.has_dim_value()) {
            if (d.dim_value() < 0)
                throw error(what + " has a negative dimension " + std::to_string(d.dim_value()) + " at axis " +
                            std::to_string(i));
            lens.push_back(d.dim_value());
        } else if (i == 0 && opts.batch > 0) {
            lens.push_back(opts.batch);
        } else {
            unresolved.push_back("input '" + vi.name() + "' axis " + std::to_string(i) +
                                 (d.has_dim_param() && !d.dim_param().empty() ? " ('" + d.dim_param() + "')" : " (unknown)"));
            lens.push_back(1);
        }
    }
    try {
        shape s(*type, lens);
        s.bytes();
        return s;
    } catch (const error&) {
        throw error(what + ": the byte size of shape " + to_string(lens) + " overflows 64 bits");
    }
}

// Every value name the nodes of n's subgraphs read (some come from the enclosing graphs).
void subgraph_reads(const onnx::NodeProto& n, std::vector<std::string>& out) {
    auto graph = [&](const onnx::GraphProto& g) {
        for (auto& sn : g.node()) {
            for (auto& in : sn.input()) out.push_back(in);
            subgraph_reads(sn, out);
        }
    };
    for (auto& a : n.attribute()) {
        if (a.has_g()) graph(a.g());
        for (auto& g : a.graphs()) graph(g);
    }
}

// Node indices in an order where every value is produced before it is used (the file's order
// when it already is one); fails on a cycle, a dangling input or a value produced twice.
// `own`: the graph's inputs and initializers; `outer(name)`: whether an enclosing graph has it.
std::vector<std::size_t> topological_order(const onnx::GraphProto& g, const std::set<std::string>& own,
                                           const std::function<bool(const std::string&)>& outer,
                                           const std::vector<std::string>& labels) {
    std::map<std::string, std::size_t> producer;
    for (int i = 0; i < g.node_size(); ++i)
        for (auto& o : g.node(i).output()) {
            if (o.empty()) continue;
            if (own.count(o))
                throw error(labels[static_cast<std::size_t>(i)] + ": output '" + o +
                            "' has the same name as a graph input or initializer");
            auto [it, fresh] = producer.emplace(o, static_cast<std::size_t>(i));
            if (!fresh)
                throw error(labels[static_cast<std::size_t>(i)] + ": output '" + o + "' is also produced by " +
                            labels[it->second] + " (duplicate output name)");
        }
    std::size_t n = static_cast<std::size_t>(g.node_size());
    std::vector<std::vector<std::size_t>> users(n);
    std::vector<std::size_t> waiting(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        auto& node = g.node(static_cast<int>(i));
        for (auto& in : node.input()) {
            if (in.empty() || own.count(in)) continue;
            auto it = producer.find(in);
            if (it == producer.end()) {
                if (outer(in)) continue;
                throw error(labels[i] + ": input '" + in + "' is not a graph input, an initializer or the output of any node");
            }
            users[it->second].push_back(i);
            ++waiting[i];
        }
        std::vector<std::string> implicit; // what its subgraphs read from this graph
        subgraph_reads(node, implicit);
        std::sort(implicit.begin(), implicit.end());
        implicit.erase(std::unique(implicit.begin(), implicit.end()), implicit.end());
        for (auto& in : implicit)
            if (auto it = producer.find(in); it != producer.end() && it->second != i) {
                users[it->second].push_back(i);
                ++waiting[i];
            }
    }
    std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
    for (std::size_t i = 0; i < n; ++i)
        if (waiting[i] == 0) ready.push(i);
    std::vector<std::size_t> order;
    while (!ready.empty()) {
        auto i = ready.top();
        ready.pop();
        order.push_back(i);
        for (auto u : users[i])
            if (--waiting[u] == 0) ready.push(u);
    }
    if (order.size() != n) {
        std::string stuck;
        for (std::size_t i = 0; i < n; ++i)
            if (waiting[i] > 0) stuck += (stuck.empty() ? "" : ", ") + labels[i];
        throw error("the graph has a cycle: these nodes wait on each other: " + stuck);
    }
    return order;
}

// Removes what nobody uses: initializers and scalars left behind by folding during import
// (and nodes whose outputs reach no graph output).
void remove_unused(module& m) {
    std::map<const instruction*, int> uses;
    for (auto& i : m.instructions)
        for (auto* in : i.inputs) ++uses[in];
    for (auto it = m.instructions.end(); it != m.instructions.begin();) {
        --it;
        if (it->is_param() || it->is_return() || uses[&*it] > 0) continue;
        for (auto* in : it->inputs) --uses[in];
        it = m.instructions.erase(it);
    }
}

// The values a graph sees: its own, then those of the enclosing graphs.
struct scope {
    scope* parent = nullptr;
    std::map<std::string, onnx_value> values;
    std::map<std::string, const onnx::TensorProto*> inits; // made literals on first use
    const onnx_detail::external_data_options* external = nullptr; // where external weights may be read
    // The main graph's scope: its initializers are in the ModelProto import_model owns (not
    // const there) and each is made a literal once, so their raw data is taken, not copied.
    // (A subgraph's are copied: a subgraph may be converted more than once.)
    bool take_initializers = false;

    onnx_value* find(const std::string& name, module& m) {
        if (auto it = values.find(name); it != values.end()) return &it->second;
        if (auto t = inits.find(name); t != inits.end()) {
            std::string label = "initializer '" + name + "'";
            auto* l = m.add_literal(has_external_data(*t->second) && external ? external_tensor_to_literal(*t->second, label, *external)
                                    : take_initializers ? take_tensor_literal(const_cast<onnx::TensorProto&>(*t->second), label)
                                                        : tensor_to_literal(*t->second, label));
            l->origin = "initializer '" + name + "'";
            return &(values[name] = onnx_value::of(l));
        }
        return parent ? parent->find(name, m) : nullptr;
    }
    bool has(const std::string& name) const {
        return values.count(name) || inits.count(name) || (parent && parent->has(name));
    }
};

// Rethrows e with `label: ` in front (unless it already starts so), keeping its type.
[[noreturn]] void rethrow_labelled(const error& e, const std::string& label) {
    std::string msg = e.what();
    if (msg.rfind(label, 0) != 0) msg = label + ": " + msg;
    if (auto* nc = dynamic_cast<const needs_constant_inputs*>(&e)) throw needs_constant_inputs(msg, nc->inputs);
    throw error(msg);
}

struct graph_importer {
    module& m;
    int64_t opset;
    std::set<std::string> domains;
    std::map<std::string, int64_t> domain_opsets; // the imported version of each other domain

    // The opset version a node is converted at: the model's default opset, or the version of
    // the node's domain (-1 when the model does not import it).
    int64_t version_of(const onnx::NodeProto& n) const {
        if (default_domain(n.domain())) return opset;
        auto it = domain_opsets.find(n.domain());
        return it == domain_opsets.end() ? -1 : it->second;
    }

    // The node's converter, if there is one for its domain and version.
    const converter_entry* converter_of(const onnx::NodeProto& n) const {
        int64_t v = version_of(n);
        auto* conv = find_converter(converter_key(n));
        if (!conv || v < conv->since_opset || (conv->until_opset > 0 && v > conv->until_opset)) return nullptr;
        return conv;
    }

    // The nodes of g and of its subgraphs that mxc cannot convert, as a list for a message.
    void find_unsupported(const onnx::GraphProto& g, std::string& list) const {
        for (int i = 0; i < g.node_size(); ++i) {
            auto& n = g.node(i);
            auto label = node_label(n, static_cast<std::size_t>(i), opset);
            std::string why;
            if (!converter_of(n))
                why = default_domain(n.domain()) ? label
                                                 : label.substr(0, label.find(" (")) + " (" + n.op_type() + " in " +
                                                       (domains.count(n.domain()) ? "domain '" : "unknown domain '") +
                                                       n.domain() + "')";
            if (!why.empty()) list += (list.empty() ? "" : ", ") + why;
            for (auto& a : n.attribute()) {
                if (a.has_g()) find_unsupported(a.g(), list);
                for (auto& sg : a.graphs()) find_unsupported(sg, list);
            }
        }
    }

    // Converts the nodes of g (its inputs already in s) and returns its outputs. `where`
    // names the enclosing node of a subgraph ("" for the main graph).
    std::vector<onnx_value> convert_graph(const onnx::GraphProto& g, scope& s, const std::string& where) {
        if (g.sparse_initializer_size() > 0)
            throw error("sparse initializer '" + g.sparse_initializer(0).values().name() + "' is not supported");
        std::set<std::string> own;
        for (auto& vi : g.input()) own.insert(vi.name());
        for (auto& t : g.initializer()) {
            if (t.name().empty()) throw error("an initializer has no name");
            if (!s.inits.emplace(t.name(), &t).second && !s.values.count(t.name()))
                throw error("initializer '" + t.name() + "' is defined twice");
            own.insert(t.name());
        }
        std::vector<std::string> labels;
        for (int i = 0; i < g.node_size(); ++i)
            labels.push_back(node_label(g.node(i), static_cast<std::size_t>(i), version_of(g.node(i))) +
                             (where.empty() ? "" : " in " + where));
        auto outer = [&](const std::string& name) { return s.parent && s.parent->has(name); };
        for (auto i : topological_order(g, own, outer, labels)) convert_node(g.node(static_cast<int>(i)), i, labels[i], s);
        std::vector<onnx_value> outs;
        for (auto& o : g.output()) {
            auto* v = s.find(o.name(), m);
            if (!v)
                throw error("graph output '" + o.name() + "' is not produced by any node, input or initializer" +
                            (where.empty() ? "" : " (in " + where + ")"));
            outs.push_back(*v);
        }
        return outs;
    }

    void convert_node(const onnx::NodeProto& n, std::size_t index, const std::string& label, scope& s) {
        node_context ctx{m, n, version_of(n), label, node_origin(n, index), {}, {}, {}, {}};
        try {
            for (auto& in : n.input()) {
                onnx_value v;
                if (!in.empty()) {
                    auto* found = s.find(in, m);
                    if (!found) ctx.fail("input '" + in + "' is not a graph input, an initializer or the output of any node");
                    v = *found;
                }
                ctx.in.push_back(v.tensor);
                ctx.values.push_back(v);
            }
            ctx.run_graph = [this, &s, &label](const onnx::GraphProto& g, const std::vector<onnx_value>& inputs,
                                               const std::string& what) {
                if (static_cast<std::size_t>(g.input_size()) != inputs.size())
                    throw error(what + " has " + std::to_string(g.input_size()) + " inputs, " +
                                std::to_string(inputs.size()) + " are given");
                scope child{&s, {}, {}, s.external};
                for (int k = 0; k < g.input_size(); ++k) child.values[g.input(k).name()] = inputs[static_cast<std::size_t>(k)];
                return convert_graph(g, child, what + " of " + label.substr(0, label.find(" (")));
            };
            auto outs = converter_of(n)->convert(ctx);
            for (int k = 0; k < n.output_size(); ++k) {
                if (n.output(k).empty()) continue;
                auto uk = static_cast<std::size_t>(k);
                if (uk < ctx.value_outputs.size()) {
                    s.values[n.output(k)] = ctx.value_outputs[uk];
                    continue;
                }
                if (uk >= outs.size() || !outs[uk])
                    ctx.fail("output " + std::to_string(k) + " ('" + n.output(k) + "') is not supported");
                (void)outs[uk]->result.bytes(); // a size that overflows is this node's error, not a later one's
                s.values[n.output(k)] = onnx_value::of(outs[uk]);
            }
        } catch (const error& e) {
            rethrow_labelled(e, ctx.label);
        }
    }
};

// A --const-input value as the literal of graph input vi: converted to the declared element
// type, given the declared shape when the element counts agree.
instruction* bind_constant_input(module& m, const onnx::ValueInfoProto& vi, const literal& value) {
    const std::string what = "--const-input " + vi.name();
    if (!vi.has_type() || !vi.type().has_tensor_type()) throw error(what + ": the input is not a tensor");
    auto& tt = vi.type().tensor_type();
    auto type = dtype_from_onnx(tt.elem_type());
    if (!type)
        throw error(what + ": the input has element type " + std::string(onnx_type_name(tt.elem_type())) +
                    ", which mxc does not support");
    auto* x = m.add_literal(value);
    if (value.s.type != *type) {
        auto* c = m.add("convert", {x}, attrs({{"target_type", std::string(dtype_name(*type))}}));
        auto converted = eval_instruction(*c, {tensor::of(x->lit)}).pack();
        m.remove(c);
        m.remove(x);
        x = m.add_literal(converted);
    }
    if (tt.has_shape()) {
        std::vector<int64_t> lens;
        bool known = true;
        for (auto& d : tt.shape().dim()) {
            known = known && d.has_dim_value();
            lens.push_back(d.dim_value());
        }
        if (known && lens != x->result.lens) {
            if (shape(*type, lens).elements() != x->result.elements())
                throw error(what + ": the model declares shape " + to_string(lens) + ", the value has shape " +
                            to_string(x->result.lens));
            literal reshaped(shape(*type, lens), std::vector<char>(x->lit.data(), x->lit.data() + x->lit.s.bytes()));
            m.remove(x);
            x = m.add_literal(reshaped);
        } else if (!known && tt.shape().dim_size() != static_cast<int>(x->result.rank())) {
            throw error(what + ": the model declares rank " + std::to_string(tt.shape().dim_size()) +
                        ", the value has shape " + to_string(x->result.lens));
        }
    }
    x->origin = "input '" + vi.name() + "' (bound at build time)";
    return x;
}

program import_model(onnx::ModelProto& model, const std::string& what, const import_options& opts) {
    if (!model.has_graph() || model.ir_version() <= 0)
        throw error(what + " is not an ONNX model (no IR version or no graph)");
    int64_t opset = -1;
    for (auto& o : model.opset_import())
        if (default_domain(o.domain())) opset = o.version();
    if (opset < 0) {
        // IR version < 3 models have no opset_import; a model of other domains only (training
        // ops) needs no default opset.
        if (model.opset_import_size() > 0 && uses_default_domain(model.graph()))
            throw error(what + " imports no opset of the default ONNX domain");
        opset = 1;
    }
    if (opset > max_supported_opset) {
        throw error(what + " uses ONNX opset " + std::to_string(opset) + ", newer than the newest mxc supports (" +
                    std::to_string(max_supported_opset) + ")");
    }
    inline_functions(model);

    program p;
    module& m = p.main();
    graph_importer gi{m, opset, {}, {}};
    for (auto& o : model.opset_import()) {
        gi.domains.insert(o.domain());
        if (!default_domain(o.domain())) gi.domain_opsets[o.domain()] = o.version();
    }
    auto& g = model.graph();
    if (g.sparse_initializer_size() > 0)
        throw error(what + ": sparse initializer '" + g.sparse_initializer(0).values().name() +
                    "' is not supported");
    std::set<std::string> init_names;
    for (auto& t : g.initializer()) {
        if (t.name().empty()) throw error(what + ": an initializer has no name");
        if (!init_names.insert(t.name()).second) throw error("initializer '" + t.name() + "' is defined twice");
    }

    // Graph inputs that are not initializers become parameters (or literals: --const-input).
    scope top;
    top.external = &opts.external_data;
    top.take_initializers = true;
    std::vector<std::string> unresolved;
    std::set<std::string> input_names;
    for (auto& vi : g.input()) {
        if (vi.name().empty()) throw error(what + ": a graph input has no name");
        if (!input_names.insert(vi.name()).second) throw error("graph input '" + vi.name() + "' is listed twice");
        if (auto c = opts.constant_inputs.find(vi.name()); c != opts.constant_inputs.end()) {
            top.values[vi.name()] = onnx_value::of(bind_constant_input(m, vi, c->second));
            continue;
        }
        if (init_names.count(vi.name())) continue;
        auto s = input_shape(vi, opts, unresolved);
        top.values[vi.name()] = onnx_value::of(m.add_param(vi.name(), s));
    }
    auto known_inputs = [&] {
        std::string known;
        for (auto& vi : g.input())
            if (!init_names.count(vi.name())) known += (known.empty() ? "'" : ", '") + vi.name() + "'";
        return known.empty() ? std::string("none") : known;
    };
    for (auto& [name, dims] : opts.input_dims)
        if (!top.values.count(name))
            throw error("--input-dim @" + name + ": the model has no input '" + name + "' (its inputs: " +
                        known_inputs() + ")");
    for (auto& [name, value] : opts.constant_inputs)
        if (!input_names.count(name))
            throw error("--const-input " + name + ": the model has no input '" + name + "' (its inputs: " +
                        known_inputs() + ")");
    if (!unresolved.empty()) {
        std::string list;
        for (auto& u : unresolved) list += (list.empty() ? "" : ", ") + u;
        throw error("the model has dimensions that are not fixed: " + list +
                    "; give them with --input-dim @NAME D0 D1 ... or --batch N (for a first dim)");
    }

    // Check every node is supported before converting any.
    std::string unsupported;
    gi.find_unsupported(g, unsupported);
    if (!unsupported.empty()) throw error("unsupported operators: " + unsupported);

    std::set<std::string> out_names;
    for (auto& o : g.output())
        if (!out_names.insert(o.name()).second) throw error("graph output '" + o.name() + "' is listed twice");
    if (g.output_size() == 0) throw error(what + ": the graph has no outputs");
    auto values = gi.convert_graph(g, top, "");
    std::vector<instruction*> outs;
    for (std::size_t k = 0; k < values.size(); ++k) {
        if (!values[k].tensor || values[k].optional)
            throw error("graph output '" + g.output(static_cast<int>(k)).name() +
                        "' is a sequence or an optional; mxc libraries return tensors only");
        outs.push_back(values[k].tensor);
        m.output_names.push_back(g.output(static_cast<int>(k)).name());
    }
    m.add_return(outs);
    remove_unused(m);
    return p;
}

} // namespace

namespace {
// The model's bytes parsed (no copy of them is made: the initializers' data is copied once,
// by the parser) and imported.
program import_onnx_data(const char* data, std::size_t size, const std::string& what, const import_options& opts) {
    if (size > static_cast<std::size_t>(INT_MAX))
        throw error(what + " is larger than 2 GiB, which an ONNX protobuf cannot be");
    google::protobuf::SetLogHandler(nullptr); // parse problems are reported as one mxc error
    onnx::ModelProto model;
    if (size == 0 || !model.ParseFromArray(data, static_cast<int>(size)))
        throw error(what + " is not a valid ONNX model (the protobuf does not parse: truncated, or not an .onnx file)");
    return import_model(model, what, opts);
}

} // namespace

program import_onnx_bytes(const std::string& bytes, const std::string& what, const import_options& opts) {
    return import_onnx_data(bytes.data(), bytes.size(), what, opts);
}

program import_onnx(const std::string& path, const import_options& opts) {
    mapped_file f(path);
    import_options o = opts;
    o.external_data.model_dir = std::filesystem::absolute(path).parent_path().string();
    return import_onnx_data(f.data(), f.size(), "'" + path + "'", o);
}

} // namespace mxc

namespace mxc {
std::vector<onnx_op_support> supported_onnx_ops() {
    std::vector<onnx_op_support> r;
    for (auto* c : onnx_detail::all_converters())
        r.push_back({c->op_type, c->since_opset, c->until_opset > 0 ? c->until_opset : onnx_detail::max_supported_opset,
                     c->domain});
    return r;
}

literal read_tensor_proto(const std::string& bytes, const std::string& what, std::string* name) {
    google::protobuf::SetLogHandler(nullptr);
    onnx::TensorProto t;
    if (bytes.size() > static_cast<std::size_t>(INT_MAX) || !t.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
        throw error(what + " is not a serialized ONNX TensorProto (the protobuf does not parse)");
    if (name) *name = t.name();
    return tensor_to_literal(t, what);
}
} // namespace mxc
