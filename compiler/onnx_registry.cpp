// The registry of ONNX node converters (filled at static-init time by MXC_ONNX_CONVERTERS).
#include "compiler/onnx_node.hpp"

#include <map>

namespace mxc::onnx_detail {
namespace {
std::map<std::string, converter_entry>& registry() {
    static std::map<std::string, converter_entry> r;
    return r;
}
std::vector<std::string>& duplicates() {
    static std::vector<std::string> d;
    return d;
}
} // namespace

void add_converter(const std::string& op_type, converter c, int64_t since_opset, int64_t until_opset) {
    auto sep = op_type.rfind("::");
    std::string domain = sep == std::string::npos ? "" : op_type.substr(0, sep);
    std::string op = sep == std::string::npos ? op_type : op_type.substr(sep + 2);
    // Registration runs before main: a second converter for the same op is kept out and
    // recorded (the unit tests fail on any), never silently replacing the first.
    if (!registry().emplace(op_type, converter_entry{op, std::move(c), since_opset, until_opset, domain}).second)
        duplicates().push_back(op_type);
}

const converter_entry* find_converter(const std::string& op_type) {
    auto it = registry().find(op_type);
    return it == registry().end() ? nullptr : &it->second;
}

std::vector<const converter_entry*> all_converters() {
    std::vector<const converter_entry*> r;
    for (auto& [name, e] : registry())
        if (e.domain.empty()) r.push_back(&e);
    for (auto& [name, e] : registry())
        if (!e.domain.empty()) r.push_back(&e);
    return r;
}

std::vector<std::string> duplicate_converters() { return duplicates(); }

} // namespace mxc::onnx_detail
