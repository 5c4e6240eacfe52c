// The pass manager and the first passes (dce, constant-fold).
#include "ir/error.hpp"
#include "ir/eval.hpp"
#include "ir/module.hpp"
#include "passes/pass_manager.hpp"

#include <gtest/gtest.h>

#include <sstream>

using namespace mxc;

namespace {

// A pass that breaks the module (a wrong result shape), to check verify_each.
MXC_REGISTER_PASS(test_break_shapes) {
    return pass{"test-break-shapes", "test only: corrupts a result shape", [](module& m) {
                    for (auto& ins : m.instructions)
                        if (!ins.is_builtin()) ins.result.lens.push_back(2);
                }};
}

pass_options checked() {
    pass_options o;
    o.verify_each = true;
    return o;
}

program parse(const std::string& body) { return parse_program("module: \"main\"\n" + body); }

literal floats(std::vector<int64_t> lens, std::vector<float> v) {
    return literal::from<float>(dtype::float_type, std::move(lens), v);
}

} // namespace

TEST(pass_manager, default_pipeline_is_registered) {
    for (auto& n : default_pipeline()) EXPECT_NE(find_pass(n), nullptr) << n;
    EXPECT_NE(find_pass("dce"), nullptr);
    EXPECT_NE(find_pass("constant-fold"), nullptr);
}

TEST(pass_manager, unknown_pass_lists_the_known_ones) {
    program p;
    try {
        run_passes(p, {"dce", "nope"}, checked());
        FAIL();
    } catch (const error& e) {
        std::string msg = e.what();
        EXPECT_NE(msg.find("unknown pass 'nope'"), std::string::npos) << msg;
        EXPECT_NE(msg.find("constant-fold, "), std::string::npos) << msg;
        EXPECT_NE(msg.find(", dce, "), std::string::npos) << msg;
    }
}

TEST(pass_manager, verify_each_names_the_pass) {
    auto p = parse("x = @param:x -> float_type, {2}, {1}\ny = relu(x) -> float_type, {2}, {1}\nr = @return(y)\n");
    try {
        run_passes(p, {"dce", "test-break-shapes"}, checked());
        FAIL();
    } catch (const error& e) {
        EXPECT_EQ(std::string(e.what()).rfind("after pass 'test-break-shapes': verify:", 0), 0u) << e.what();
    }
}

TEST(pass_manager, print_after_and_timing) {
    auto p = parse("x = @param:x -> float_type, {2}, {1}\ny = relu(x) -> float_type, {2}, {1}\nr = @return(y)\n");
    std::ostringstream out;
    auto o = checked();
    o.report = &out;
    o.print_after = {"dce"};
    o.time_passes = true;
    run_passes(p, {"constant-fold", "dce"}, o);
    auto s = out.str();
    EXPECT_EQ(s.find("# after pass 'constant-fold'"), std::string::npos);
    EXPECT_EQ(s.rfind("# after pass 'dce'\nmodule: \"main\"\n", 0), 0u) << s;
    EXPECT_NE(s.find("  constant-fold\n"), std::string::npos) << s;
    EXPECT_NE(s.find("  total\n"), std::string::npos) << s;
}

TEST(dce, removes_dead_chains_and_keeps_params) {
    auto p = parse("x = @param:x -> float_type, {2}, {1}\n"
                   "u = @param:u -> float_type, {2}, {1}\n"
                   "d1 = relu(x) -> float_type, {2}, {1}\n"
                   "d2 = add(d1,u) -> float_type, {2}, {1}\n"
                   "y = relu(x) -> float_type, {2}, {1}\n"
                   "r = @return(y)\n");
    run_passes(p, {"dce"}, checked());
    EXPECT_EQ(print(p), "module: \"main\"\n"
                        "x = @param:x -> float_type, {2}, {1}\n"
                        "u = @param:u -> float_type, {2}, {1}\n"
                        "main:@0 = relu(x) -> float_type, {2}, {1}\n"
                        "main:@1 = @return(main:@0)\n");
    auto before = print(p);
    run_passes(p, {"dce"}, checked());
    EXPECT_EQ(print(p), before);
}

TEST(constant_fold, folds_and_preserves_results) {
    module m;
    auto* x = m.add_param("x", shape(dtype::float_type, {2, 3}));
    auto* a = m.add_literal(floats({3, 2}, {1, -2, 3, -4, 5, -6}));
    auto* t = m.add("transpose", {a}, {{{"permutation", std::vector<int64_t>{1, 0}}}});
    auto* r = m.add("relu", {t});
    auto* s = m.add_literal(floats({3}, {1, 2, 3}));
    auto* b = m.add("multibroadcast", {s}, {{{"out_lens", std::vector<int64_t>{2, 3}}}});
    auto* k = m.add("add", {r, b});
    auto* y = m.add("add", {x, k});
    m.add_return({y, t});

    std::map<std::string, literal> in{{"x", floats({2, 3}, {0.5, 0.5, 0.5, -1, -1, -1})}};
    auto expected = evaluate(m, in);
    program p;
    *p.modules[0] = std::move(m);
    run_passes(p, {"constant-fold", "dce"}, checked());
    auto& folded = p.main();
    EXPECT_EQ(evaluate(folded, in), expected);
    // What is left: the param, two literals (the packed transpose, the folded sum), add, @return.
    int literals = 0, kernels = 0;
    for (auto& ins : folded.instructions) {
        literals += ins.is_literal();
        kernels += !ins.is_builtin();
    }
    EXPECT_EQ(literals, 2);
    EXPECT_EQ(kernels, 1);
}

TEST(constant_fold, leaves_unknown_and_param_inputs) {
    auto text = "module: \"main\"\n"
                "x = @param:x -> float_type, {2}, {1}\n"
                "main:@0 = @literal[digest=0000000000000001] -> float_type, {2}, {1}\n"
                "main:@1 = relu(main:@0) -> float_type, {2}, {1}\n"
                "main:@2 = relu(x) -> float_type, {2}, {1}\n"
                "main:@3 = @return(main:@1,main:@2)\n";
    auto p = parse_program(text);
    run_passes(p, {"constant-fold"}, checked());
    EXPECT_EQ(print(p), text);
}
