// fuse-pointwise: chains and trees of elementwise ops become one `pointwise` instruction whose
// body is the whole expression (one generated kernel, no intermediate buffers). An
// elementwise producer is inlined into its consumer when the consumer is its only user (a
// value used twice is computed once, not duplicated) and the types agree. Lone ops are left
// as they are. Limits: fused_max_inputs inputs and fused_max_program program codes.
#include "passes/fusion.hpp"
#include "passes/pass_manager.hpp"

namespace mxc {
namespace {

void fuse_pointwise(module& m) {
    for (auto it = m.instructions.begin(); it != m.instructions.end(); ++it) {
        auto f = as_fusable(*it);
        if (!f) continue;
        std::vector<instruction*> inputs;
        std::vector<body_node> map;
        std::vector<instruction*> inlined;
        for (auto* p : f->inputs) {
            auto pf = p->result.type == it->result.type && only_user(m, p, &*it) ? as_fusable(*p) : std::nullopt;
            if (pf) {
                std::vector<body_node> pmap;
                for (auto* q : pf->inputs) pmap.push_back(input_node(input_index(inputs, q)));
                map.push_back(substitute(pf->body, pmap));
                inlined.push_back(p);
            } else {
                map.push_back(input_node(input_index(inputs, p)));
            }
        }
        if (inlined.empty()) continue;
        auto body = substitute(f->body, map);
        if (inputs.size() > fused_max_inputs || body_program(body).size() > fused_max_program) continue;
        attributes a;
        a.set("body", print_body(body));
        auto* fused = m.insert(it, "pointwise", inputs, a);
        fused->origin = it->origin;
        m.replace_uses(&*it, fused);
        it = std::prev(m.instructions.erase(it));
        for (auto* p : inlined)
            if (m.users(p).empty()) m.remove(p);
    }
}
} // namespace

MXC_REGISTER_PASS(fuse_pointwise) {
    return pass{"fuse-pointwise", "fuses chains and trees of elementwise ops into one pointwise kernel", fuse_pointwise};
}

} // namespace mxc
