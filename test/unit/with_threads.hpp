// Shared by the cpu kernel tests that check results on several thread counts
// (test_cpu_depthwise_pool.cpp, test_cpu_elementwise.cpp).
#pragma once
#include "runtime-stub/thread_pool.hpp"

#include <gtest/gtest.h>

namespace mxc_test {

// Runs f with a pool of `threads` threads behind parallel_for (1: none).
template <class F> void with_threads(int threads, F f) {
    if (threads <= 1) return f();
    mxc_rt::thread_pool pool;
    ASSERT_TRUE(pool.start(threads));
    mxc::cpu::current_pool() = &pool.iface;
    f();
    mxc::cpu::current_pool() = nullptr;
}

} // namespace mxc_test
