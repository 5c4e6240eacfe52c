// cse: common subexpression elimination. Two instructions with the same op, attributes and
// inputs compute the same value; so do two literals with equal shapes and bytes. Later
// duplicates are replaced by the first (and left for dce). Params are never merged.
#include "passes/pass_manager.hpp"
#include "ir/module.hpp"

#include <map>
#include <tuple>
#include <unordered_map>

namespace mxc {
namespace {
std::string key_of(const instruction& ins, const std::unordered_map<const instruction*, std::size_t>& id) {
    std::string k = ins.op + "|" + to_string(ins.result);
    for (auto& [n, v] : ins.attrs.items) k += "|" + n + "=" + to_string(v);
    for (auto* in : ins.inputs) k += "|" + std::to_string(id.at(in));
    if (ins.is_literal()) k += "|" + ins.lit.digest();
    return k;
}

void cse(module& m) {
    std::unordered_map<const instruction*, std::size_t> id;
    std::map<std::string, instruction*> seen;
    std::size_t n = 0;
    for (auto& ins : m.instructions) {
        if (!ins.is_param() && !ins.is_return() && (!ins.is_literal() || ins.lit.known())) {
            auto [it, fresh] = seen.emplace(key_of(ins, id), &ins);
            if (!fresh && (!ins.is_literal() || it->second->lit == ins.lit)) {
                m.replace_uses(&ins, it->second);
                id[&ins] = id.at(it->second);
                continue;
            }
        }
        id[&ins] = n++;
    }
}
} // namespace

MXC_REGISTER_PASS(cse) { return pass{"cse", "merges instructions that compute the same value", cse}; }

} // namespace mxc
