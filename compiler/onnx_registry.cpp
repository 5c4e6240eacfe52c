// The registry of ONNX node converters (filled at static-init time by MXC_ONNX_CONVERTERS).
#include "compiler/onnx_node.hpp"

#include <map>

namespace mxc::onnx_detail {
namespace {
std::map<std::string, converter_entry>& registry() {
    static std::map<std::string, converter_entry> r;
    return r;
}
} // namespace

void add_converter(const std::string& op_type, converter c, int64_t since_opset, int64_t until_opset) {
    registry().insert_or_assign(op_type, converter_entry{op_type, std::move(c), since_opset, until_opset, {}});
}

const converter_entry* find_converter(const std::string& op_type) {
    auto it = registry().find(op_type);
    return it == registry().end() ? nullptr : &it->second;
}

// Ops of other domains are kept in their own map, keyed by (domain, op type).
namespace {
std::map<std::pair<std::string, std::string>, converter_entry>& domain_registry() {
    static std::map<std::pair<std::string, std::string>, converter_entry> r;
    return r;
}
} // namespace

void add_domain_converter(const std::string& domain, const std::string& op_type, converter c, int64_t since_opset,
                          int64_t until_opset) {
    domain_registry().insert_or_assign({domain, op_type},
                                       converter_entry{op_type, std::move(c), since_opset, until_opset, domain});
}

const converter_entry* find_converter(const std::string& domain, const std::string& op_type) {
    if (domain.empty() || domain == "ai.onnx") return find_converter(op_type);
    auto it = domain_registry().find({domain, op_type});
    return it == domain_registry().end() ? nullptr : &it->second;
}

std::vector<const converter_entry*> all_converters() {
    std::vector<const converter_entry*> r;
    for (auto& [name, e] : registry()) r.push_back(&e);
    for (auto& [key, e] : domain_registry()) r.push_back(&e);
    return r;
}

} // namespace mxc::onnx_detail
