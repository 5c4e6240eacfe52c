#include "test_ops_util.hpp"

using namespace mxc;
using namespace mxc::test;

TEST(ops_views, transpose_permutes_lens_and_strides) {
    auto x = flit({2, 3}, {0, 1, 2, 3, 4, 5});
    auto y = run_op("transpose", {x}, attrs({{"permutation", std::vector<int64_t>{1, 0}}}));
    EXPECT_EQ(y.s.lens, (std::vector<int64_t>{3, 2}));
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{0, 3, 1, 4, 2, 5}));
    module m;
    auto* p = m.add_param("x", shape(dtype::float_type, {2, 3, 4}));
    auto* t = m.add("transpose", {p}, attrs({{"permutation", std::vector<int64_t>{2, 0, 1}}}));
    EXPECT_EQ(t->result, shape(dtype::float_type, {4, 2, 3}, {1, 12, 4}));
}

TEST(ops_views, transpose_errors) {
    shape s(dtype::float_type, {2, 3});
    EXPECT_NE(shape_error("transpose", {s}, attrs({{"permutation", std::vector<int64_t>{0, 0}}})).find("not a permutation"),
              std::string::npos);
    EXPECT_NE(shape_error("transpose", {s}, attrs({{"permutation", std::vector<int64_t>{0}}})).find("transpose:"),
              std::string::npos);
}

TEST(ops_views, multibroadcast) {
    module m;
    auto* p = m.add_param("x", shape(dtype::float_type, {3, 1}));
    auto* b = m.add("multibroadcast", {p}, attrs({{"out_lens", std::vector<int64_t>{2, 3, 4}}}));
    EXPECT_EQ(b->result, shape(dtype::float_type, {2, 3, 4}, {0, 1, 0}));
    auto y = run_op("multibroadcast", {flit({3, 1}, {1, 2, 3})}, attrs({{"out_lens", std::vector<int64_t>{2, 3, 2}}}));
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
    shape s(dtype::float_type, {3, 2});
    EXPECT_EQ(shape_error("multibroadcast", {s}, attrs({{"out_lens", std::vector<int64_t>{3, 4}}})),
              "multibroadcast: cannot broadcast {3, 2} to {3, 4}");
    EXPECT_NE(shape_error("multibroadcast", {s}, attrs({{"out_lens", std::vector<int64_t>{2}}})).find("fewer dims"),
              std::string::npos);
    EXPECT_NE(shape_error("multibroadcast", {s}, attrs({{"out_lens", std::vector<int64_t>{-1, 3, 2}}})).find("negative"),
              std::string::npos);
}

TEST(ops_views, reshape) {
    auto y = run_op("reshape", {flit({2, 3}, {0, 1, 2, 3, 4, 5})}, attrs({{"dims", std::vector<int64_t>{3, 1, 2}}}));
    EXPECT_EQ(y.s.lens, (std::vector<int64_t>{3, 1, 2}));
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{0, 1, 2, 3, 4, 5}));
    shape s(dtype::float_type, {2, 3});
    EXPECT_EQ(shape_error("reshape", {s}, attrs({{"dims", std::vector<int64_t>{4, 2}}})),
              "reshape: cannot reshape {2, 3} (6 elements) to {4, 2} (8 elements)");
    EXPECT_NE(shape_error("reshape", {s}, attrs({{"dims", std::vector<int64_t>{-1, 2}}})).find("negative"),
              std::string::npos);
    shape t(dtype::float_type, {3, 2}, {1, 3}); // a transposed view: merging its dims needs a copy
    EXPECT_NE(shape_error("reshape", {t}, attrs({{"dims", std::vector<int64_t>{6}}})).find("cannot be viewed as {6}"),
              std::string::npos);
}

TEST(ops_views, squeeze_unsqueeze) {
    module m;
    auto* p = m.add_param("x", shape(dtype::float_type, {1, 3, 1, 2}));
    EXPECT_EQ(m.add("squeeze", {p}, attrs({{"axes", std::vector<int64_t>{0, 2}}}))->result,
              shape(dtype::float_type, {3, 2}));
    EXPECT_EQ(m.add("squeeze", {p})->result, shape(dtype::float_type, {3, 2}));
    EXPECT_EQ(m.add("squeeze", {p}, attrs({{"axes", std::vector<int64_t>{2}}}))->result,
              shape(dtype::float_type, {1, 3, 2}, {6, 2, 1}));
    auto* q = m.add_param("y", shape(dtype::float_type, {3, 2}));
    auto* u = m.add("unsqueeze", {q}, attrs({{"axes", std::vector<int64_t>{0, 2, 4}}}));
    EXPECT_EQ(u->result.lens, (std::vector<int64_t>{1, 3, 1, 2, 1}));
    EXPECT_TRUE(u->result.standard());
    shape s(dtype::float_type, {1, 3});
    EXPECT_EQ(shape_error("squeeze", {s}, attrs({{"axes", std::vector<int64_t>{1}}})),
              "squeeze: axis 1 of {1, 3} does not have length 1");
    EXPECT_NE(shape_error("squeeze", {s}, attrs({{"axes", std::vector<int64_t>{2}}})).find("out of range"),
              std::string::npos);
    EXPECT_NE(shape_error("unsqueeze", {s}, attrs({{"axes", std::vector<int64_t>{1, 0}}})).find("sorted"),
              std::string::npos);
    EXPECT_NE(shape_error("unsqueeze", {s}, attrs({{"axes", std::vector<int64_t>{3}}})).find("out of range"),
              std::string::npos);
    auto y = run_op("unsqueeze", {flit({2}, {7, 8})}, attrs({{"axes", std::vector<int64_t>{1}}}));
    EXPECT_EQ(y.s.lens, (std::vector<int64_t>{2, 1}));
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{7, 8}));
}
