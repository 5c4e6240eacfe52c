#include "test_ops_util.hpp"

#include <set>

using namespace mxc;
using namespace mxc::test;

TEST(ops_registry, every_op_of_docs_ir_md_is_defined) {
    std::set<std::string> want{"transpose", "multibroadcast", "reshape", "squeeze", "unsqueeze", "relu", "sigmoid",
                               "tanh", "neg", "abs", "exp", "log", "sqrt", "add", "sub", "mul", "div", "max", "min",
                               "pow", "clip", "convert", "contiguous", "convolution", "pooling", "reduce_mean",
                               "reduce_sum", "reduce_max", "reduce_min", "dot", "batch_norm_inference", "softmax",
                               "log_softmax", "concat", "gather"};
    for (auto& name : want) {
        auto* d = find_op(name);
        ASSERT_NE(d, nullptr) << name;
        EXPECT_FALSE(d->doc.empty()) << name;
        EXPECT_TRUE(d->compute_shape) << name;
        if (d->is_view) {
            EXPECT_TRUE(d->view_offset) << name;
            continue;
        }
        EXPECT_EQ(d->kernel, name) << name;
        EXPECT_TRUE(d->params) << name;
        EXPECT_NE(d->cpu[static_cast<std::size_t>(dtype::float_type)], nullptr) << name;
    }
}

TEST(ops_registry, a_small_network_verifies_and_evaluates) {
    module m;
    auto* x = m.add_param("x", shape(dtype::float_type, {1, 4, 6, 6}));
    auto* w = m.add_literal(literal::from<float>(dtype::float_type, {2, 2, 3, 3}, values(36)));
    auto* c = m.add("convolution", {x, w},
                    attrs({{"padding", std::vector<int64_t>{1, 1, 1, 1}}, {"stride", std::vector<int64_t>{2, 2}},
                           {"group", int64_t{2}}}));
    auto* p = m.add("pooling", {c},
                    attrs({{"mode", std::string("average")}, {"lengths", std::vector<int64_t>{2, 2}},
                           {"ceil_mode", int64_t{1}}}));
    auto* r = m.add("reduce_mean", {p}, attrs({{"axes", std::vector<int64_t>{2, 3}}}));
    auto* s = m.add("squeeze", {r}, attrs({{"axes", std::vector<int64_t>{2, 3}}}));
    auto* sm = m.add("softmax", {s});
    auto* cv = m.add("convert", {sm}, attrs({{"target_type", std::string("half_type")}}));
    m.add_return({cv});
    verify(m);
    auto y = evaluate(m, {{"x", literal::from<float>(dtype::float_type, {1, 4, 6, 6}, values(144, 3))}}).at(0);
    EXPECT_EQ(y.s, shape(dtype::half_type, {1, 2}));
    auto v = y.to_doubles();
    EXPECT_NEAR(v[0] + v[1], 1.0, 1e-3);
}
