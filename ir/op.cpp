#include "ir/op.hpp"
#include "ir/error.hpp"

#include <algorithm>
#include <map>

namespace mxc {
namespace {
std::map<std::string, op_def, std::less<>>& registry() {
    static std::map<std::string, op_def, std::less<>> r;
    return r;
}
} // namespace

void register_op(op_def def) {
    auto name = def.name;
    registry().insert_or_assign(name, std::move(def));
}

const op_def* find_op(std::string_view name) {
    auto it = registry().find(name);
    return it == registry().end() ? nullptr : &it->second;
}

const op_def& get_op(std::string_view name) {
    if (auto* d = find_op(name)) return *d;
    throw error("unknown op '" + std::string(name) + "'");
}

std::vector<const op_def*> all_ops() {
    std::vector<const op_def*> r;
    for (auto& [n, d] : registry()) r.push_back(&d);
    return r;
}

attributes normalize_attributes(const op_def& def, attributes given) {
    attributes out;
    for (auto& spec : def.attrs) {
        if (!given.has(spec.name)) {
            out.set(spec.name, spec.default_value);
            continue;
        }
        attr_value v = given.at(spec.name);
        auto want = kind_of(spec.default_value);
        // Accept an integer where a float is wanted, and {} for any list.
        if (want == attr_kind::f && kind_of(v) == attr_kind::i) v = static_cast<double>(std::get<int64_t>(v));
        if (want == attr_kind::floats && kind_of(v) == attr_kind::ints) {
            auto& iv = std::get<std::vector<int64_t>>(v);
            v = std::vector<double>(iv.begin(), iv.end());
        }
        if (want == attr_kind::ints && kind_of(v) == attr_kind::floats && std::get<std::vector<double>>(v).empty())
            v = std::vector<int64_t>{};
        if (kind_of(v) != want)
            throw error(def.name + ": attribute '" + spec.name + "' has the wrong kind (" + to_string(v) + ")");
        out.set(spec.name, std::move(v));
    }
    for (auto& [n, v] : given.items)
        if (!out.has(n)) throw error(def.name + ": unknown attribute '" + n + "'");
    return out;
}

} // namespace mxc
