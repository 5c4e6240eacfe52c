// The tuning database (codegen/tuning.hpp): what a tuning run writes reads back the same, and
// the GEMM problems of dot and convolution kernels.
#include "codegen/tuning.hpp"
#include "ir/error.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

using namespace mxc;

namespace {
kernel_call call(const std::string& kernel, dtype t, std::vector<std::vector<int64_t>> in, std::vector<int64_t> out,
                 std::vector<int64_t> ip = {}) {
    kernel_call k;
    k.kernel = kernel;
    k.type = t;
    for (auto& l : in) k.in_shapes.push_back(shape(t, l));
    k.out_shape = shape(t, out);
    k.params.ip = ip;
    return k;
}
} // namespace

TEST(Tuning, WrittenDatabaseReadsBack) {
    tuning_db db;
    db.put({{"fused_dot", dtype::half_type, 128, 1000, 2048, 1}, "sm_90", {64, 64, 8, 4, 4}, 12.5, ""});
    db.put({{"convolution", dtype::float_type, 64, 3136, 576, 1}, "gfx90a", {128, 128, 8, 8, 8}, -1, ""});
    db.put({{"convolution", dtype::float_type, 64, 3136, 576, 1}, "gfx90a", {16, 128, 16, 2, 4}, 3, ""}); // replaces
    std::string path = ::testing::TempDir() + "/mxc_tuning_roundtrip.tsv";
    std::ofstream(path) << db.text();
    tuning_db back = tuning_db::load(path);
    std::remove(path.c_str());
    EXPECT_EQ(back.size(), 2u);
    const tuning_entry* d = back.find({"dot", dtype::half_type, 128, 1000, 2048, 1}, "sm_90");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->tile.text(), "64x64x8/4x4");
    EXPECT_DOUBLE_EQ(d->us, 12.5);
    const tuning_entry* c = back.find({"fused_convolution", dtype::float_type, 64, 3136, 576, 1}, "gfx90a");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->tile.cpp_type(), "mxc::hip::gemm_config<16, 128, 16, 2, 4>");
    EXPECT_EQ(back.find({"dot", dtype::half_type, 128, 1000, 2048, 1}, "gfx90a"), nullptr);
    EXPECT_EQ(back.find({"dot", dtype::float_type, 128, 1000, 2048, 1}, "sm_90"), nullptr);
}

TEST(Tuning, GemmProblems) {
    // batched dot [3, 4, 16, 32] x [3, 4, 32, 8]: M 16, N 8, K 32, Z 12
    auto d = gemm_problem_of(call("dot", dtype::float_type, {{3, 4, 16, 32}, {3, 4, 32, 8}}, {3, 4, 16, 8}));
    ASSERT_TRUE(d);
    EXPECT_EQ(d->text(), "16x8x32x12");
    // conv x [2, 64, 56, 56], w [128, 32, 3, 3], group 2, out [2, 128, 28, 28]:
    // M 64, N 2 * 784, K 32 * 9, Z 2
    auto c = gemm_problem_of(call("fused_convolution", dtype::half_type, {{2, 64, 56, 56}, {128, 32, 3, 3}},
                                  {2, 128, 28, 28}, {2, 1, 1, 2, 2, 1, 1}));
    ASSERT_TRUE(c);
    EXPECT_EQ(c->op, "convolution");
    EXPECT_EQ(c->text(), "64x1568x288x2");
    // depthwise 2-d: a direct kernel; integer dot: not the GEMM engine; other ops: none
    EXPECT_FALSE(gemm_problem_of(call("convolution", dtype::float_type, {{1, 8, 6, 6}, {8, 1, 3, 3}}, {1, 8, 4, 4},
                                      {8, 0, 0, 1, 1, 1, 1})));
    EXPECT_FALSE(gemm_problem_of(call("dot", dtype::int32_type, {{4, 4}, {4, 4}}, {4, 4})));
    EXPECT_FALSE(gemm_problem_of(call("add", dtype::float_type, {{4, 4}, {4, 4}}, {4, 4})));
}
