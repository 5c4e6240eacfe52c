#include "test_ops_util.hpp"

using namespace mxc;
using namespace mxc::test;

TEST(ops_concat, along_axis_1_with_a_view) {
    // [2,1] ++ transpose([2,2]) ++ [2,3] along axis 1
    auto y = run_module({flit({2, 1}, {1, 2}), flit({2, 2}, {3, 4, 5, 6}), flit({2, 3}, {7, 8, 9, 10, 11, 12})},
                        [](module& m, std::vector<instruction*>& p) {
                            auto* t = m.add("transpose", {p[1]}, attrs({{"permutation", std::vector<int64_t>{1, 0}}}));
                            return m.add("concat", {p[0], t, p[2]}, attrs({{"axis", int64_t{1}}}));
                        });
    EXPECT_EQ(y.s.lens, (std::vector<int64_t>{2, 6}));
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{1, 3, 5, 7, 8, 9, 2, 4, 6, 10, 11, 12}));
}

TEST(ops_concat, int64_axis_0) {
    auto y = run_op("concat", {ilit({2}, {1, 2}), ilit({1}, {-3}), ilit({0}, {})});
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{1, 2, -3}));
}

TEST(ops_concat, shape_errors) {
    shape a(dtype::float_type, {2, 3}), b(dtype::float_type, {3, 3});
    EXPECT_NE(shape_error("concat", {a, b}, attrs({{"axis", int64_t{1}}})).find("same type and lens except along axis 1"),
              std::string::npos);
    EXPECT_EQ(shape_error("concat", {a, b}, attrs({{"axis", int64_t{2}}})), "concat: axis 2 is out of range for {2, 3}");
    EXPECT_TRUE(shape_error("concat", {a, b}).empty());
}

TEST(ops_gather, axis_0_negative_indices) {
    auto data = flit({3, 2}, {1, 2, 3, 4, 5, 6});
    auto y = run_op("gather", {data, ilit({2, 2}, {0, -1, 2, 1})});
    EXPECT_EQ(y.s.lens, (std::vector<int64_t>{2, 2, 2}));
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{1, 2, 5, 6, 5, 6, 3, 4}));
}

TEST(ops_gather, axis_1_int32_indices_and_scalar_index) {
    auto data = flit({2, 3}, {1, 2, 3, 4, 5, 6});
    auto y = run_op("gather", {data, literal::from<int32_t>(dtype::int32_type, {2}, {2, -3})}, attrs({{"axis", int64_t{1}}}));
    EXPECT_EQ(y.s.lens, (std::vector<int64_t>{2, 2}));
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{3, 1, 6, 4}));
    // A scalar index removes the axis (the shape-subgraph pattern: Shape -> Gather).
    auto s = run_op("gather", {ilit({4}, {1, 3, 224, 224}), ilit({}, {1})});
    EXPECT_EQ(s.s.lens, (std::vector<int64_t>{}));
    EXPECT_EQ(s.to_doubles(), (std::vector<double>{3}));
}

TEST(ops_gather, out_of_range_gives_zero) {
    auto y = run_op("gather", {flit({2}, {7, 8}), ilit({3}, {5, -3, 1})});
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{0, 0, 8}));
}

TEST(ops_gather, strided_data) {
    auto y = run_module({flit({2, 3}, {1, 2, 3, 4, 5, 6}), ilit({1}, {2})}, [](module& m, std::vector<instruction*>& p) {
        auto* t = m.add("transpose", {p[0]}, attrs({{"permutation", std::vector<int64_t>{1, 0}}}));
        return m.add("gather", {t, p[1]});
    });
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{3, 6}));
}

TEST(ops_gather, shape_errors) {
    shape d(dtype::float_type, {2, 3});
    EXPECT_EQ(shape_error("gather", {d, shape(dtype::float_type, {1})}), "gather: indices must be int32 or int64, got float_type");
    EXPECT_NE(shape_error("gather", {d, shape(dtype::int64_type, {1})}, attrs({{"axis", int64_t{2}}})).find("out of range"),
              std::string::npos);
}
