// Inlining of model-local ONNX functions (ModelProto.functions, as the PyTorch dynamo
// exporter writes them): every call node is replaced by the nodes of the function's body.
// Values internal to a call get a prefix of their own ("<function>#<call>/<name>"), the
// function's inputs and outputs become the call's, attribute references (ref_attr_name) take
// the call's attribute (absent when the call has none: the ONNX 1.12 protobuf mxc builds with
// has no FunctionProto.attribute_proto defaults), and calls inside bodies and subgraphs are
// expanded too.
#include "compiler/onnx_node.hpp"
#include "ir/error.hpp"

#include <map>
#include <set>

namespace mxc::onnx_detail {
namespace {

using nodes_t = google::protobuf::RepeatedPtrField<onnx::NodeProto>;
using function_key = std::pair<std::string, std::string>; // domain, name

constexpr int max_depth = 64;

std::string domain_of(const std::string& d) { return d == "ai.onnx" ? std::string() : d; }

struct inliner {
    std::map<function_key, const onnx::FunctionProto*> functions;
    int calls = 0;

    const onnx::FunctionProto* callee(const onnx::NodeProto& n) const {
        auto it = functions.find({domain_of(n.domain()), n.op_type()});
        return it == functions.end() ? nullptr : it->second;
    }

    // Appends the nodes of `in` to `out` with every call expanded.
    void expand(const nodes_t& in, nodes_t& out, int depth) {
        for (auto& node : in) {
            onnx::NodeProto n = node;
            for (auto& a : *n.mutable_attribute()) {
                if (a.has_g()) expand_graph(*a.mutable_g(), depth);
                for (auto& g : *a.mutable_graphs()) expand_graph(g, depth);
            }
            auto* f = callee(n);
            if (!f) {
                *out.Add() = std::move(n);
                continue;
            }
            if (depth >= max_depth)
                throw error("function '" + f->name() + "' calls itself, or functions nest deeper than " +
                            std::to_string(max_depth) + " levels");
            expand(body_of_call(*f, n), out, depth + 1);
        }
    }

    void expand_graph(onnx::GraphProto& g, int depth) {
        nodes_t out;
        expand(g.node(), out, depth);
        g.mutable_node()->Swap(&out);
    }

    // The body of f with its values renamed for the call n and its attribute references resolved.
    nodes_t body_of_call(const onnx::FunctionProto& f, const onnx::NodeProto& n) {
        std::string who = "call '" + n.name() + "' of function '" + f.name() + "'";
        if (n.input_size() > f.input_size())
            throw error(who + " has " + std::to_string(n.input_size()) + " inputs, the function takes " +
                        std::to_string(f.input_size()));
        if (n.output_size() > f.output_size())
            throw error(who + " has " + std::to_string(n.output_size()) + " outputs, the function gives " +
                        std::to_string(f.output_size()));
        std::string prefix = f.name() + "#" + std::to_string(++calls) + "/";
        std::map<std::string, std::string> rename;
        for (int k = 0; k < f.input_size(); ++k) rename[f.input(k)] = k < n.input_size() ? n.input(k) : "";
        for (int k = 0; k < f.output_size(); ++k) rename[f.output(k)] = k < n.output_size() ? n.output(k) : prefix + f.output(k);
        for (auto& b : f.node())
            for (auto& o : b.output())
                if (!o.empty() && !rename.count(o)) rename[o] = prefix + o;

        std::map<std::string, const onnx::AttributeProto*> given;
        for (auto& a : n.attribute()) given[a.name()] = &a;

        nodes_t body;
        for (auto& b : f.node()) {
            auto* c = body.Add();
            *c = b;
            if (!c->name().empty()) c->set_name(prefix + c->name());
            rename_node(*c, rename, given);
        }
        return body;
    }

    static void rename_values(google::protobuf::RepeatedPtrField<std::string>& names,
                              const std::map<std::string, std::string>& rename) {
        for (auto& v : names)
            if (auto it = rename.find(v); it != rename.end()) v = it->second;
    }

    // Renames the function-scope values node c reads and writes (also inside its subgraphs,
    // which may read them) and resolves its attribute references.
    static void rename_node(onnx::NodeProto& c, const std::map<std::string, std::string>& rename,
                            const std::map<std::string, const onnx::AttributeProto*>& given) {
        rename_values(*c.mutable_input(), rename);
        rename_values(*c.mutable_output(), rename);
        google::protobuf::RepeatedPtrField<onnx::AttributeProto> attrs;
        for (auto& a : c.attribute()) {
            if (a.ref_attr_name().empty()) {
                *attrs.Add() = a;
                continue;
            }
            auto it = given.find(a.ref_attr_name());
            if (it == given.end()) continue; // not given: the attribute is absent
            auto* r = attrs.Add();
            *r = *it->second;
            r->set_name(a.name());
        }
        c.mutable_attribute()->Swap(&attrs);
        for (auto& a : *c.mutable_attribute()) {
            auto graph = [&](onnx::GraphProto& g) {
                for (auto& sn : *g.mutable_node()) rename_node(sn, rename, given);
                for (auto& o : *g.mutable_output())
                    if (auto it = rename.find(o.name()); it != rename.end()) o.set_name(it->second);
            };
            if (a.has_g()) graph(*a.mutable_g());
            for (auto& g : *a.mutable_graphs()) graph(g);
        }
    }
};

} // namespace

void inline_functions(onnx::ModelProto& model) {
    if (model.functions_size() == 0) return;
    inliner in;
    for (auto& f : model.functions()) {
        function_key key{domain_of(f.domain()), f.name()};
        if (!in.functions.emplace(key, &f).second)
            throw error("function '" + f.name() + "' of domain '" + f.domain() + "' is defined twice");
    }
    in.expand_graph(*model.mutable_graph(), 0);
}

} // namespace mxc::onnx_detail
