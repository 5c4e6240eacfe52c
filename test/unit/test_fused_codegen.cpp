// Fused kernels in generated code: a fused body is one expression inside one kernel (cpu and
// hip), and the reference kernel (the interpreted program) agrees with the unfused ops.
#include "codegen/emit.hpp"
#include "codegen/lower.hpp"
#include "ir/eval.hpp"
#include "ir/module.hpp"
#include "passes/pass_manager.hpp"

#include <gtest/gtest.h>

using namespace mxc;

namespace {
program small_chain() {
    program p;
    auto& m = p.main();
    auto* x = m.add_param("x", shape(dtype::float_type, {2, 3}));
    auto* y = m.add_param("y", shape(dtype::float_type, {2, 3}));
    auto* s = m.add("sub", {x, y});
    auto* e = m.add("erf", {s});
    auto* r = m.add("relu", {m.add("mul", {e, x})});
    m.add_return({r});
    return p;
}
} // namespace

TEST(fused_codegen, one_expression_in_one_kernel) {
    for (const char* target : {"cpu", "hip"}) {
        auto p = small_chain();
        run_passes(p, {"fuse-pointwise"});
        auto l = lower(p.main());
        ASSERT_EQ(l.kernels.size(), 1u);
        auto src = emit_model_source(l, "m", std::string(target) == "cpu" ? cpu_style() : hip_style());
        EXPECT_NE(src.find("return mxc_pw_relu{}(mxc_pw_mul{}(mxc_pw_erf{}(mxc_pw_sub{}(x[0], x[1])), x[0]));"),
                  std::string::npos)
            << src;
        EXPECT_NE(src.find(std::string("mxc::") + target + "::fused_pointwise_expr<float>(k"), std::string::npos);
        EXPECT_EQ(l.plan.arena_bytes, 0); // no intermediate buffer
    }
}

TEST(fused_codegen, reference_kernel_matches_unfused_ops) {
    auto p = small_chain();
    std::map<std::string, literal> in{
        {"x", literal::from<float>(dtype::float_type, {2, 3}, {-1.5f, -0.5f, 0.f, 0.25f, 1.f, 2.f})},
        {"y", literal::from<float>(dtype::float_type, {2, 3}, {0.5f, -1.f, 0.5f, -0.25f, 3.f, 1.f})}};
    auto before = evaluate(p.main(), in);
    run_passes(p, {"fuse-pointwise"});
    ASSERT_EQ(p.main().instructions.size(), 4u); // x, y, pointwise, @return
    auto after = evaluate(p.main(), in);
    EXPECT_EQ(before[0].to_doubles(), after[0].to_doubles());
}
