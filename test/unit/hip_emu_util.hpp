// Helpers of the unit tests that run hip kernel templates on the host SIMT emulator
// (test_hip_row_kernels.cpp, test_hip_attention.cpp): a descriptor from lens and strides, and
// a vector copied into emulated device memory.
#pragma once
#include <gtest/gtest.h>

#include <hip/hip_runtime.h> // the emulator (CMakeLists.txt puts runtime-stub/emu first)
#include "templates/common/abi.hpp"

#include <vector>

namespace mxc::test {

inline mxc_desc desc(std::vector<int64_t> lens, std::vector<int64_t> strides) {
    mxc_desc d{};
    d.rank = int32_t(lens.size());
    for (int i = 0; i < d.rank; ++i) {
        d.lens[i] = lens[size_t(i)];
        d.strides[i] = strides[size_t(i)];
    }
    return d;
}

template <class T> T* to_device(const std::vector<T>& v) {
    T* p = nullptr;
    EXPECT_EQ(hipMalloc(&p, v.size() * sizeof(T)), hipSuccess);
    EXPECT_EQ(hipMemcpy(p, v.data(), v.size() * sizeof(T), hipMemcpyHostToDevice), hipSuccess);
    return p;
}

} // namespace mxc::test
