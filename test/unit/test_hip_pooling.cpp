// The hip pooling kernel (templates/hip/pooling.hpp) on the host SIMT emulator against the
// per-element math it shares with the reference (mxc_pool_at, templates/common/pooling.hpp),
// bit for bit: the 2-d kernel (32-bit output index, the window row by row: max and average,
// padding, ceil mode, dilation, strided x, float and half) and the general one (1-d, 3-d).
// test_cpu_depthwise_pool.cpp checks mxc_pool_at itself against the cpu kernel.
#include <gtest/gtest.h>

#include <hip/hip_runtime.h> // the emulator (CMakeLists.txt puts runtime-stub/emu first)
#include "templates/hip/pooling.hpp"
#include "test/unit/pool_case.hpp"

#include <cstring>
#include <string>
#include <vector>

namespace {

using mxc_test::desc_of;
using mxc_test::extent;
using mxc_test::pool_case;

template <class T> void check_pool(const pool_case& c) {
    std::vector<int64_t> out, ip;
    mxc_test::pool_shape(c, out, ip);
    const size_t s = c.x.size() - 2;
    const mxc_desc xd = desc_of(c.x, c.gap), od = desc_of(out);
    ASSERT_EQ(mxc::hip::pooling2d_fits(xd, od), s == 2);
    std::vector<T> x(size_t(extent(xd)));
    uint32_t seed = 7;
    for (auto& v : x) {
        seed = seed * 1664525u + 1013904223u;
        v = T(float((seed >> 8) % 2000) / 1000.0f - 1.0f);
    }
    const int64_t n = mxc_elements(od);
    T *dx = nullptr, *dy = nullptr;
    ASSERT_EQ(hipMalloc(&dx, x.size() * sizeof(T)), hipSuccess);
    ASSERT_EQ(hipMalloc(&dy, size_t(n) * sizeof(T)), hipSuccess);
    ASSERT_EQ(hipMemcpy(dx, x.data(), x.size() * sizeof(T), hipMemcpyHostToDevice), hipSuccess);
    const void* in[1] = {dx};
    const mxc_kargs k = {1, in, &xd, dy, &od, ip.data(), int32_t(ip.size()), nullptr, 0, nullptr};
    mxc::hip::pooling<T>(k, hipStream_t{});
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
    std::vector<T> y(static_cast<size_t>(n), T(0.0f));
    ASSERT_EQ(hipMemcpy(y.data(), dy, y.size() * sizeof(T), hipMemcpyDeviceToHost), hipSuccess);
    (void)hipFree(dx);
    (void)hipFree(dy);
    for (int64_t e = 0; e < n; ++e) {
        const T want = T(mxc_pool_at(x.data(), xd, od, ip.data(), e));
        ASSERT_EQ(std::memcmp(&y[size_t(e)], &want, sizeof(T)), 0)
            << "element " << e << ": " << float(y[size_t(e)]) << " want " << float(want);
    }
}

void check_pool_all(const pool_case& c) {
    check_pool<float>(c);
    check_pool<mxc_half>(c);
}

} // namespace

TEST(HipPooling, TwoDimensional) {
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
    for (int64_t mode : {0, 1}) {
        check_pool_all({{2, 3, 12, 13}, mode, 0, 0, {1, 1}, {1, 1}, {2, 2}, {3, 3}, {1, 1}}); // ResNet's max pool
        check_pool_all({{1, 2, 7, 8}, mode, 0, 1, {1, 0}, {0, 1}, {2, 3}, {3, 2}, {1, 1}});   // ceil mode
        check_pool_all({{1, 2, 7, 8}, mode, 1, 1, {1, 0}, {0, 1}, {2, 3}, {3, 2}, {1, 1}});   // count_include_pad
        check_pool_all({{1, 2, 13, 14}, mode, 0, 0, {1, 2}, {0, 2}, {3, 3}, {2, 3}, {2, 2}}); // dilation, stride 3
        check_pool_all({{1, 2, 5, 6}, mode, 1, 0, {2, 2}, {2, 2}, {1, 1}, {2, 2}, {1, 1}});   // all-padding windows
        check_pool_all({{3, 5, 5, 9}, mode, 0, 0, {1, 1}, {1, 1}, {2, 2}, {3, 3}, {1, 1}, 2}); // strided x
        check_pool_all({{1, 1, 1, 1}, mode, 0, 0, {0, 0}, {0, 0}, {1, 1}, {1, 1}, {1, 1}});
    }
}

TEST(HipPooling, OtherRanks) {
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
    for (int64_t mode : {0, 1}) {
        check_pool_all({{2, 3, 17}, mode, 1, 1, {1}, {2}, {2}, {4}, {1}});
        check_pool_all({{1, 2, 4, 5, 6}, mode, 0, 0, {1, 0, 1}, {0, 1, 1}, {1, 2, 2}, {2, 3, 3}, {1, 1, 1}});
    }
}
