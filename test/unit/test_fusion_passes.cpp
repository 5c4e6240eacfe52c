// fuse-reduce, eliminate-contiguous, merge-parallel-dots and fuse-epilogue (through a transpose) keep values: each pass's lit test
// program (test/lit/passes/<pass>.mxir, positive and negative cases) gives the same reference
// results before and after the pass, on random inputs. The lit tests check the rewrites'
// form; this checks their numbers (the fused kernels: layer_norm, rms_norm, softmax, gelu).
#include "ir/eval.hpp"
#include "ir/module.hpp"
#include "passes/pass_manager.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

using namespace mxc;

namespace {

program read_lit(const std::string& name) {
    std::ifstream f(std::string(MXC_SOURCE_DIR) + "/test/lit/passes/" + name + ".mxir");
    std::stringstream s;
    s << f.rdbuf();
    return parse_program(s.str());
}

void expect_same_results(const std::string& name, const std::vector<std::string>& passes, int changed_at_least) {
    program p = read_lit(name);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> real(-3, 3);
    std::map<std::string, literal> in;
    for (auto* x : p.main().params()) {
        std::vector<float> v(static_cast<std::size_t>(x->result.elements()));
        for (auto& e : v) e = real(rng);
        in.emplace(x->param_name, literal::from<float>(x->result.type, x->result.lens, v));
    }
    auto before = evaluate(p.main(), in);
    std::string text = print(p);
    run_passes(p, passes);
    // the pass did rewrite something (a test that cannot fail is no test)
    int changed = 0;
    std::istringstream a(text), b(print(p));
    for (std::string la, lb; std::getline(a, la) && std::getline(b, lb);) changed += la != lb;
    EXPECT_GE(changed, changed_at_least) << name;
    auto after = evaluate(p.main(), in);
    ASSERT_EQ(before.size(), after.size());
    for (std::size_t i = 0; i < before.size(); ++i) {
        auto x = before[i].to_doubles(), y = after[i].to_doubles();
        ASSERT_EQ(before[i].s.lens, after[i].s.lens) << name << " output " << i;
        for (std::size_t j = 0; j < x.size(); ++j)
            EXPECT_NEAR(y[j], x[j], 1e-5 + 1e-5 * std::fabs(x[j])) << name << " output " << i << " element " << j;
    }
}
} // namespace

TEST(fusion_passes, fuse_reduce_keeps_values) { expect_same_results("fuse-reduce", {"fuse-reduce", "dce"}, 7); }

TEST(fusion_passes, eliminate_contiguous_keeps_values) {
    expect_same_results("eliminate-contiguous", {"eliminate-contiguous", "dce"}, 3);
}

TEST(fusion_passes, merge_parallel_dots_keeps_values) {
    expect_same_results("merge-parallel-dots", {"merge-parallel-dots", "dce"}, 2);
}

TEST(fusion_passes, fuse_epilogue_through_a_transpose_keeps_values) {
    expect_same_results("fuse-epilogue-transpose", {"fuse-epilogue", "dce"}, 6);
}

TEST(fusion_passes, reshape_views_strided_input_or_says_why) {
    module m;
    auto* x = m.add_param("x", shape(dtype::float_type, {2, 3, 4}));
    auto* t = m.add("transpose", {x}, [] { attributes a; a.set("permutation", std::vector<int64_t>{1, 0, 2}); return a; }());
    attributes split;
    split.set("dims", std::vector<int64_t>{3, 2, 2, 2});
    EXPECT_EQ(m.add("reshape", {t}, split)->result.strides, (std::vector<int64_t>{4, 12, 2, 1}));
    attributes merge;
    merge.set("dims", std::vector<int64_t>{6, 4});
    EXPECT_THROW(m.add("reshape", {t}, merge), std::exception);
}
