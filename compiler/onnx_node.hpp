// Internal to the ONNX importer: what a node converter sees (compiler/onnx_ops.cpp) and the
// helpers it shares with the graph walker (compiler/onnx_import.cpp).
#pragma once
#include "ir/literal.hpp"
#include "ir/module.hpp"

#include <onnx/onnx_pb.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mxc::onnx_detail {

// A TensorProto as a literal; `what` names it in messages ("initializer 'w'").
literal tensor_to_literal(const onnx::TensorProto& t, const std::string& what);

// The shape of a TensorProto, and its byte size; throws on negative dims and 64-bit overflow.
shape tensor_shape(const onnx::TensorProto& t, const std::string& what, int64_t& bytes);

// A scalar (rank 0) literal of type t holding v.
literal scalar_literal(dtype t, double v);

struct node_context {
    module& m;
    const onnx::NodeProto& node;
    int64_t opset;
    std::string label;                 // "node 'conv1' (Conv, opset 13)"
    std::string origin;                // "Conv 'conv1'"
    std::vector<instruction*> in;      // one per node input; null for an omitted optional input

    [[noreturn]] void fail(const std::string& what) const;

    // Inputs.
    std::size_t num_inputs() const { return in.size(); }
    bool has_input(std::size_t i) const { return i < in.size() && in[i] != nullptr; }
    instruction* input(std::size_t i) const;                            // required: fails if absent
    const literal& const_input(std::size_t i, const std::string& what) const; // must be a literal
    std::vector<int64_t> const_ints(std::size_t i, const std::string& what) const;

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

// Converters register themselves at static-init time, one ONNX op type (default domain)
// each, with the opset range they implement; any compiler/onnx_ops*.cpp file may add some:
//   MXC_ONNX_CONVERTERS(math) { add_converter("Abs", unary("abs")); ... }
struct converter_entry {
    std::string op_type;
    converter convert;
    int64_t since_opset = 1;   // the first opset version handled
    int64_t until_opset = 0;   // the last one; 0: up to max_supported_opset
};
constexpr int64_t max_supported_opset = 28; // the newest in the ONNX 1.23 conformance data

void add_converter(const std::string& op_type, converter c, int64_t since_opset = 1, int64_t until_opset = 0);
const converter_entry* find_converter(const std::string& op_type);
std::vector<const converter_entry*> all_converters(); // sorted by op type

} // namespace mxc::onnx_detail

#define MXC_ONNX_CONVERTERS(id)                                                      \
    static void mxc_onnx_converters_##id();                                          \
    static const bool mxc_onnx_registered_##id = (mxc_onnx_converters_##id(), true); \
    static void mxc_onnx_converters_##id()

namespace mxc::onnx_detail {

} // namespace mxc::onnx_detail
