// dce: removes instructions whose values are never used. Params (the model's inputs) and
// @return always stay.
#include "passes/pass_manager.hpp"

#include <iterator>
#include <unordered_map>

namespace mxc {
namespace {
void dce(module& m) {
    std::unordered_map<const instruction*, int> uses;
    for (auto& ins : m.instructions)
        for (auto* in : ins.inputs) ++uses[in];
    // Backwards, so that removing a user can make its inputs dead in the same sweep.
    for (auto it = m.instructions.end(); it != m.instructions.begin();) {
        --it;
        if (it->is_param() || it->is_return() || uses[&*it] > 0) continue;
        for (auto* in : it->inputs) --uses[in];
        it = m.instructions.erase(it);
    }
}
} // namespace

MXC_REGISTER_PASS(dce) { return pass{"dce", "removes instructions whose values are unused (keeps params and @return)", dce}; }

} // namespace mxc
