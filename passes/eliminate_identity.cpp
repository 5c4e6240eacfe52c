// eliminate-identity: removes instructions that compute their input unchanged: a `convert` to
// the type it already has and a `contiguous` of a value that is already standard (packed).
// (ONNX Identity, inference Dropout and no-op Cast already produce no instruction at import.)
// The removed instructions are left for dce.
#include "passes/pass_manager.hpp"

namespace mxc {
namespace {
bool is_identity(const instruction& ins) {
    if (ins.op == "convert") return ins.inputs[0]->result.type == ins.result.type && ins.inputs[0]->result.standard();
    if (ins.op == "contiguous") return ins.inputs[0]->result.standard();
    return false;
}

void eliminate_identity(module& m) {
    for (auto& ins : m.instructions)
        if (is_identity(ins)) m.replace_uses(&ins, ins.inputs[0]);
}
} // namespace

MXC_REGISTER_PASS(eliminate_identity) {
    return pass{"eliminate-identity", "removes no-op converts and contiguous copies of standard values",
                eliminate_identity};
}

} // namespace mxc
