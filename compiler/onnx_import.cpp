// ONNX import: the file, its tensors and the graph walk. Node converters are in
// compiler/onnx_ops.cpp.
#include "compiler/onnx_import.hpp"
#include "compiler/onnx_external.hpp"
#include "compiler/onnx_node.hpp"
#include "ir/error.hpp"
#include "templates/common/types.hpp"

#include <google/protobuf/stubs/logging.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <queue>
#include <set>
#include <sstream>
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
        if (static_cast<int64_t>(raw.size()) != bytes)
            throw error(what + " has " + std::to_string(raw.size()) + " bytes of raw data, but " + type_name + " " +
                        to_string(lens) + " needs " + std::to_string(bytes));
        return literal(s, std::vector<char>(raw.begin(), raw.end()));
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
        else x = static_cast<T>(v);
        std::memcpy(d.data(), &x, sizeof(T));
    });
    return literal(shape(t, {}), std::move(d));
}

} // namespace onnx_detail

using namespace onnx_detail;

namespace {

bool default_domain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

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

// Node indices in an order where every value is produced before it is used (the file's order
// when it already is one); fails on a cycle, a dangling input or a value produced twice.
std::vector<std::size_t> topological_order(const onnx::GraphProto& g, const std::set<std::string>& graph_values,
                                           const std::vector<std::string>& labels) {
    std::map<std::string, std::size_t> producer;
    for (int i = 0; i < g.node_size(); ++i)
        for (auto& o : g.node(i).output()) {
            if (o.empty()) continue;
            if (graph_values.count(o))
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
    for (std::size_t i = 0; i < n; ++i)
        for (auto& in : g.node(static_cast<int>(i)).input()) {
            if (in.empty() || graph_values.count(in)) continue;
            auto it = producer.find(in);
            if (it == producer.end())
                throw error(labels[i] + ": input '" + in +
                            "' is not a graph input, an initializer or the output of any node");
            users[it->second].push_back(i);
            ++waiting[i];
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

program import_model(const onnx::ModelProto& model, const std::string& what, const import_options& opts) {
    if (!model.has_graph() || model.ir_version() <= 0)
        throw error(what + " is not an ONNX model (no IR version or no graph)");
    int64_t opset = -1;
    for (auto& o : model.opset_import())
        if (default_domain(o.domain())) opset = o.version();
    if (opset < 0) {
        if (model.opset_import_size() > 0) throw error(what + " imports no opset of the default ONNX domain");
        opset = 1; // IR version < 3 models have no opset_import
    }
    if (opset > max_supported_opset) {
        throw error(what + " uses ONNX opset " + std::to_string(opset) + ", newer than the newest mxc supports (" +
                    std::to_string(max_supported_opset) + ")");
    }
    std::set<std::string> domains;
    for (auto& o : model.opset_import()) domains.insert(o.domain());

    auto& g = model.graph();
    if (g.sparse_initializer_size() > 0)
        throw error(what + ": sparse initializer '" + g.sparse_initializer(0).values().name() +
                    "' is not supported");
    std::map<std::string, const onnx::TensorProto*> inits;
    for (auto& t : g.initializer()) {
        if (t.name().empty()) throw error(what + ": an initializer has no name");
        if (!inits.emplace(t.name(), &t).second) throw error("initializer '" + t.name() + "' is defined twice");
    }

    program p;
    module& m = p.main();
    std::map<std::string, instruction*> values;
    std::set<std::string> graph_values;
    for (auto& [name, t] : inits) graph_values.insert(name);

    // Graph inputs that are not initializers become parameters.
    std::vector<std::string> unresolved;
    std::set<std::string> input_names;
    for (auto& vi : g.input()) {
        if (vi.name().empty()) throw error(what + ": a graph input has no name");
        if (!input_names.insert(vi.name()).second) throw error("graph input '" + vi.name() + "' is listed twice");
        graph_values.insert(vi.name());
        if (inits.count(vi.name())) continue;
        auto s = input_shape(vi, opts, unresolved);
        values[vi.name()] = m.add_param(vi.name(), s);
    }
    for (auto& [name, dims] : opts.input_dims)
        if (!values.count(name)) {
            std::string known;
            for (auto* prm : m.params()) known += (known.empty() ? "'" : ", '") + prm->param_name + "'";
            throw error("--input-dim @" + name + ": the model has no input '" + name + "' (its inputs: " +
                        (known.empty() ? "none" : known) + ")");
        }
    if (!unresolved.empty()) {
        std::string list;
        for (auto& u : unresolved) list += (list.empty() ? "" : ", ") + u;
        throw error("the model has dimensions that are not fixed: " + list +
                    "; give them with --input-dim @NAME D0 D1 ... or --batch N (for a first dim)");
    }

    // Check every node is supported before converting any.
    std::vector<std::string> labels;
    std::string unsupported;
    for (int i = 0; i < g.node_size(); ++i) {
        auto& n = g.node(i);
        labels.push_back(node_label(n, static_cast<std::size_t>(i), opset));
        std::string why;
        if (!default_domain(n.domain()))
            why = labels.back().substr(0, labels.back().find(" (")) + " (" + n.op_type() + " in " +
                  (domains.count(n.domain()) ? "domain '" : "unknown domain '") + n.domain() + "')";
        else if (auto* conv = find_converter(n.op_type()); !conv || opset < conv->since_opset ||
                 (conv->until_opset > 0 && opset > conv->until_opset))
            why = labels.back();
        if (!why.empty()) unsupported += (unsupported.empty() ? "" : ", ") + why;
    }
    if (!unsupported.empty()) throw error("unsupported operators: " + unsupported);

    auto value_of = [&](const std::string& name) -> instruction* {
        if (auto it = values.find(name); it != values.end()) return it->second;
        auto t = inits.find(name);
        if (t == inits.end()) return nullptr;
        std::string label = "initializer '" + name + "'";
        auto* l = m.add_literal(has_external_data(*t->second)
                                    ? external_tensor_to_literal(*t->second, label, opts.external_data)
                                    : tensor_to_literal(*t->second, label));
        l->origin = "initializer '" + name + "'";
        values[name] = l;
        return l;
    };

    for (auto i : topological_order(g, graph_values, labels)) {
        auto& n = g.node(static_cast<int>(i));
        node_context ctx{m, n, opset, labels[i], node_origin(n, i), {}};
        try {
            for (auto& in : n.input()) ctx.in.push_back(in.empty() ? nullptr : value_of(in));
            auto outs = find_converter(n.op_type())->convert(ctx);
            for (int k = 0; k < n.output_size(); ++k) {
                if (n.output(k).empty()) continue;
                if (static_cast<std::size_t>(k) >= outs.size() || !outs[static_cast<std::size_t>(k)])
                    ctx.fail("output " + std::to_string(k) + " ('" + n.output(k) + "') is not supported");
                values[n.output(k)] = outs[static_cast<std::size_t>(k)];
            }
        } catch (const error& e) {
            std::string msg = e.what();
            if (msg.rfind(ctx.label, 0) != 0) msg = ctx.label + ": " + msg;
            throw error(msg);
        }
    }

    std::vector<instruction*> outs;
    std::set<std::string> out_names;
    for (auto& o : g.output()) {
        if (!out_names.insert(o.name()).second) throw error("graph output '" + o.name() + "' is listed twice");
        auto* v = value_of(o.name());
        if (!v) throw error("graph output '" + o.name() + "' is not produced by any node, input or initializer");
        outs.push_back(v);
    }
    if (outs.empty()) throw error(what + ": the graph has no outputs");
    m.add_return(outs);
    remove_unused(m);
    return p;
}

} // namespace

program import_onnx_bytes(const std::string& bytes, const std::string& what, const import_options& opts) {
    if (bytes.size() > static_cast<std::size_t>(INT_MAX))
        throw error(what + " is larger than 2 GiB, which an ONNX protobuf cannot be");
    google::protobuf::SetLogHandler(nullptr); // parse problems are reported as one mxc error
    onnx::ModelProto model;
    if (bytes.empty() || !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
        throw error(what + " is not a valid ONNX model (the protobuf does not parse: truncated, or not an .onnx file)");
    return import_model(model, what, opts);
}

program import_onnx(const std::string& path, const import_options& opts) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw error("cannot open '" + path + "': " + std::strerror(errno));
    std::ostringstream ss;
    ss << f.rdbuf();
    if (f.bad()) throw error("cannot read '" + path + "'");
    import_options o = opts;
    o.external_data.model_dir = std::filesystem::absolute(path).parent_path().string();
    return import_onnx_bytes(ss.str(), "'" + path + "'", o);
}

} // namespace mxc
