// Internal to the ONNX importer: what a node converter sees (compiler/onnx_ops.cpp) and the
// helpers it shares with the graph walker (compiler/onnx_import.cpp).
#pragma once
#include "ir/literal.hpp"
#include "ir/module.hpp"

#include <onnx/onnx_pb.h>

#include <functional>
#include <memory>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mxc::onnx_detail {

// A TensorProto as a literal; `what` names it in messages ("initializer 'w'").
literal tensor_to_literal(const onnx::TensorProto& t, const std::string& what);
// The same, taking t's raw data (as the parser left it) instead of copying it: t's raw_data is
// left empty. A model's weights are then copied once on import (by the parser), not twice.
literal take_tensor_literal(onnx::TensorProto& t, const std::string& what);

// The shape of a TensorProto, and its byte size; throws on negative dims and 64-bit overflow.
shape tensor_shape(const onnx::TensorProto& t, const std::string& what, int64_t& bytes);

// A scalar (rank 0) literal of type t holding v.
literal scalar_literal(dtype t, double v);

// A graph value. A tensor, or a sequence of tensors (its length known at build time: a list
// of values), or an optional (known at build time to hold a tensor or a sequence, or none).
struct onnx_value {
    instruction* tensor = nullptr;                       // set for a tensor
    std::shared_ptr<std::vector<instruction*>> sequence; // set for a sequence
    bool optional = false;                               // none: neither of the above is set

    static onnx_value of(instruction* t) { return {t, nullptr, false}; }
    static onnx_value of_sequence(std::vector<instruction*> items) {
        return {nullptr, std::make_shared<std::vector<instruction*>>(std::move(items)), false};
    }
    bool empty() const { return !tensor && !sequence; }
};

// Converts a subgraph (an If branch, a Loop or Scan body) into the module: its inputs bound
// to `inputs`, the values of the enclosing graphs visible; returns its outputs.
using graph_runner = std::function<std::vector<onnx_value>(const onnx::GraphProto&, const std::vector<onnx_value>& inputs,
                                                           const std::string& what)>;

struct node_context {
    module& m;
    const onnx::NodeProto& node;
    int64_t opset;
    std::string label;                 // "node 'conv1' (Conv, opset 13)"
    std::string origin;                // "Conv 'conv1'"
    std::vector<instruction*> in;      // one per node input; null for an omitted optional input
                                       // (and for a sequence or optional: see `values`)
    std::vector<onnx_value> values;    // every input as a graph value (omitted: empty)
    graph_runner run_graph;            // for nodes with subgraph attributes
    // Converters whose outputs are sequences or optionals set these (one per node output)
    // and return no tensors.
    std::vector<onnx_value> value_outputs;

    [[noreturn]] void fail(const std::string& what) const;

    // Inputs.
    std::size_t num_inputs() const { return in.size(); }
    bool has_input(std::size_t i) const { return i < in.size() && in[i] != nullptr; }
    instruction* input(std::size_t i) const;                            // required: fails if absent
    const literal& const_input(std::size_t i, const std::string& what) const; // must be a literal
    std::vector<int64_t> const_ints(std::size_t i, const std::string& what) const;
    // The failure for a value needed at build time that is computed at run time: an
    // mxc::needs_constant_inputs naming the graph inputs it comes from (a plain error if none).
    [[noreturn]] void fail_not_constant(const instruction* x, const std::string& what) const;

    // Attributes.
    const onnx::AttributeProto* attr(const std::string& name) const;
    bool has_attr(const std::string& name) const { return attr(name) != nullptr; }
    int64_t attr_int(const std::string& name, int64_t dflt) const;
    double attr_float(const std::string& name, double dflt) const;
    std::string attr_string(const std::string& name, const std::string& dflt) const;
    std::vector<int64_t> attr_ints(const std::string& name, std::vector<int64_t> dflt = {}) const;
    std::optional<std::vector<int64_t>> attr_ints_opt(const std::string& name) const;

    // Emitting IR: origin set, errors prefixed with the node label, and folded into a literal
    // when every input is a literal (and folding does not grow the data).
    instruction* add(const std::string& op, std::vector<instruction*> inputs, attributes attrs = {});
    instruction* lit(literal l);
    instruction* scalar(dtype t, double v) { return lit(scalar_literal(t, v)); }

    // Common lowering steps.
    int64_t axis(int64_t a, int64_t rank, const std::string& what = "axis") const; // normalise a negative axis
    instruction* broadcast_to(instruction* x, const std::vector<int64_t>& lens);
    std::vector<int64_t> broadcast_lens(const std::vector<int64_t>& a, const std::vector<int64_t>& b) const;
    std::pair<instruction*, instruction*> broadcast(instruction* a, instruction* b); // numpy rules
    instruction* reshape(instruction* x, std::vector<int64_t> dims);   // contiguous first if needed
};

// attrs({{"axis", int64_t{1}}, ...})
inline attributes attrs(std::initializer_list<std::pair<std::string, attr_value>> items) {
    attributes a;
    for (auto& [n, v] : items) a.set(n, v);
    return a;
}

using converter = std::function<std::vector<instruction*>(node_context&)>;

// Converters register themselves at static-init time, one ONNX op type each, with the opset
// range they implement; any compiler/onnx_ops*.cpp file may add some:
//   MXC_ONNX_CONVERTERS(math) { add_converter("Abs", unary("abs")); ... }
// An op of another domain is registered as "domain::Op" (add_converter("ai.onnx.preview.training::Adam",
// ...)); its opset range is in versions of that domain, and its node_context's opset is the
// version of that domain the model imports.
struct converter_entry {
    std::string op_type;       // without the domain
    converter convert;
    int64_t since_opset = 1;   // the first opset version handled
    int64_t until_opset = 0;   // the last one; 0: up to max_supported_opset (other domains: no limit)
    std::string domain;        // "" for the default domain
};
constexpr int64_t max_supported_opset = 28; // the newest in the ONNX 1.23 conformance data

void add_converter(const std::string& op_type, converter c, int64_t since_opset = 1, int64_t until_opset = 0);
const converter_entry* find_converter(const std::string& op_type); // "Op" or "domain::Op"
std::vector<const converter_entry*> all_converters(); // the default domain's by op type, then the others by domain
std::vector<std::string> duplicate_converters();      // ops registered more than once (the first one is kept)

} // namespace mxc::onnx_detail

#define MXC_ONNX_CONVERTERS(id)                                                      \
    static void mxc_onnx_converters_##id();                                          \
    static const bool mxc_onnx_registered_##id = (mxc_onnx_converters_##id(), true); \
    static void mxc_onnx_converters_##id()

namespace mxc::onnx_detail {
// Replaces every call of a model-local function (ModelProto.functions, also inside subgraphs
// and other functions) by the nodes of its body: values renamed apart, attribute references
// resolved; compiler/onnx_functions.cpp.
void inline_functions(onnx::ModelProto& model);
} // namespace mxc::onnx_detail
