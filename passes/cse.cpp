// cse: common subexpression elimination. Two instructions with the same op, attributes and
// inputs compute the same value; so do two literals with equal shapes and bytes. Later
// duplicates are replaced by the first (and left for dce). Params are never merged.
#include "passes/pass_manager.hpp"
#include "ir/module.hpp"

#include <cstring>
#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace mxc {
namespace {
// A literal's bytes as a key part: all of them up to 4 KiB, else 64 words spread over the
// buffer and its last word. Literals with the same key are compared whole before they merge
// (a key is a bucket, not a proof), so sampling only saves hashing every weight of a model
// (BERT-base: 435 MB, 70 ms a run of the pass where the full digest was the key).
std::string bytes_key(const literal& l) {
    const std::size_t n = l.bytes->size();
    if (n <= 4096) return l.digest();
    uint64_t h = 1469598103934665603ull;
    auto mix = [&](std::size_t at) {
        uint64_t w;
        std::memcpy(&w, l.data() + at, 8);
        h = (h ^ w) * 1099511628211ull;
    };
    for (std::size_t i = 0; i < 64; ++i) mix((n - 8) / 63 * i);
    mix(n - 8);
    return std::to_string(h);
}

std::string key_of(const instruction& ins, const std::unordered_map<const instruction*, std::size_t>& id) {
    std::string k = ins.op + "|" + to_string(ins.result);
    for (auto& [n, v] : ins.attrs.items) k += "|" + n + "=" + to_string(v);
    for (auto* in : ins.inputs) k += "|" + std::to_string(id.at(in));
    if (ins.is_literal()) k += "|" + bytes_key(ins.lit);
    return k;
}

void cse(module& m) {
    std::unordered_map<const instruction*, std::size_t> id;
    std::map<std::string, std::vector<instruction*>> seen; // key -> the distinct values with it
    std::size_t n = 0;
    for (auto& ins : m.instructions) {
        if (!ins.is_param() && !ins.is_return() && (!ins.is_literal() || ins.lit.known())) {
            std::vector<instruction*>& same_key = seen[key_of(ins, id)];
            instruction* first = nullptr;
            for (instruction* c : same_key)
                if (!ins.is_literal() || c->lit == ins.lit) first = c;
            if (first) {
                m.replace_uses(&ins, first);
                id[&ins] = id.at(first);
                continue;
            }
            same_key.push_back(&ins);
        }
        id[&ins] = n++;
    }
}
} // namespace

MXC_REGISTER_PASS(cse) { return pass{"cse", "merges instructions that compute the same value", cse}; }

} // namespace mxc
