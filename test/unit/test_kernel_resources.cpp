// The per-kernel resource report (compiler/kernel_resources.cpp) read from the compilers' own
// output: ptxas -v lines (entry kernels only: a non-entry function's frame is not a kernel's)
// and clang's kernel-resource-usage remarks, as nvcc 13 and clang-15 print them.
#include "compiler/kernel_resources.hpp"

#include <gtest/gtest.h>

using namespace mxc;

TEST(KernelResources, ReadsPtxasReports) {
    const std::string out =
        "ptxas info    : 0 bytes gmem\n"
        "ptxas info    : Function properties for _Z6helperv\n"
        "    96 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
        "ptxas info    : Compiling entry function '_ZN3mxc3hip13rows_per_warpINS0_11norm_row_fnIfLb0EEEEEvNS0_8dev_argsElT_' for 'sm_90'\n"
        "ptxas info    : Function properties for _ZN3mxc3hip13rows_per_warpINS0_11norm_row_fnIfLb0EEEEEvNS0_8dev_argsElT_\n"
        "    528 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 134 registers, used 0 barriers, 528 bytes cumulative stack size\n"
        "ptxas info    : Compiling entry function '_Z1kv' for 'sm_90'\n"
        "ptxas info    : Function properties for _Z1kv\n"
        "    0 bytes stack frame, 44 bytes spill stores, 40 bytes spill loads\n"
        "ptxas info    : Used 64 registers, used 1 barriers, 17408 bytes smem\n";
    auto ks = parse_kernel_resources(out);
    ASSERT_EQ(ks.size(), 2u);
    EXPECT_EQ(ks[0].kernel, "_ZN3mxc3hip13rows_per_warpINS0_11norm_row_fnIfLb0EEEEEvNS0_8dev_argsElT_");
    EXPECT_EQ(ks[0].registers, 134);
    EXPECT_EQ(ks[0].stack, 528);
    EXPECT_EQ(ks[0].spill_stores, 0);
    EXPECT_EQ(ks[1].registers, 64);
    EXPECT_EQ(ks[1].stack, 0);
    EXPECT_EQ(ks[1].spill_stores, 44);
    EXPECT_EQ(ks[1].spill_loads, 40);
    EXPECT_EQ(ks[1].shared, 17408);
    EXPECT_EQ(ks[1].agprs, -1);
    EXPECT_EQ(demangle_kernel(ks[1].kernel), "k()");
    const std::string summary = kernel_resources_summary(ks);
    EXPECT_NE(summary.find("2 kernels, at most 134 registers (mxc::hip::rows_per_warp<mxc::hip::norm_row_fn<float, false> >)"),
              std::string::npos)
        << summary;
    EXPECT_NE(summary.find("528 bytes of stack, 0 of spill stores: mxc::hip::rows_per_warp"), std::string::npos) << summary;
}

TEST(KernelResources, ReadsClangRemarks) {
    const std::string out =
        "./templates/hip/common.hpp:135:1: remark: Function Name: _Z1kv [-Rpass-analysis=kernel-resource-usage]\n"
        "template <class F> __global__ void for_each_index(dev_args a, int64_t n, F f) {\n"
        "^\n"
        "./templates/hip/common.hpp:135:1: remark:     SGPRs: 54 [-Rpass-analysis=kernel-resource-usage]\n"
        "./templates/hip/common.hpp:135:1: remark:     VGPRs: 156 [-Rpass-analysis=kernel-resource-usage]\n"
        "./templates/hip/common.hpp:135:1: remark:     AGPRs: 4 [-Rpass-analysis=kernel-resource-usage]\n"
        "./templates/hip/common.hpp:135:1: remark:     ScratchSize [bytes/lane]: 112 [-Rpass-analysis=kernel-resource-usage]\n"
        "./templates/hip/common.hpp:135:1: remark:     Occupancy [waves/SIMD]: 3 [-Rpass-analysis=kernel-resource-usage]\n"
        "./templates/hip/common.hpp:135:1: remark:     SGPRs Spill: 0 [-Rpass-analysis=kernel-resource-usage]\n"
        "./templates/hip/common.hpp:135:1: remark:     VGPRs Spill: 12 [-Rpass-analysis=kernel-resource-usage]\n"
        "./templates/hip/common.hpp:135:1: remark:     LDS Size [bytes/block]: 2048 [-Rpass-analysis=kernel-resource-usage]\n";
    auto ks = parse_kernel_resources(out);
    ASSERT_EQ(ks.size(), 1u);
    EXPECT_EQ(ks[0].registers, 156);
    EXPECT_EQ(ks[0].agprs, 4);
    EXPECT_EQ(ks[0].stack, 112);
    EXPECT_EQ(ks[0].spill_stores, 12);
    EXPECT_EQ(ks[0].shared, 2048);
    EXPECT_EQ(ks[0].occupancy, 3);
    // a kernel in two translation units is one kernel; an output without a report has none
    std::vector<kernel_resource> all;
    merge_kernel_resources(all, ks);
    merge_kernel_resources(all, ks);
    EXPECT_EQ(all.size(), 1u);
    EXPECT_TRUE(parse_kernel_resources("warning: something\n").empty());
    EXPECT_NE(kernel_resources_json(all).find("\"stack_bytes\": 112"), std::string::npos);
    EXPECT_EQ(kernel_resources_json({}), "[]");
}
