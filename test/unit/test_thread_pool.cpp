// The cpu libraries' thread pool (runtime-stub/thread_pool.hpp): every item of a job runs once,
// on 2 to 4 threads and for item counts around the thread counts; a thread's items come in runs
// (its own range from the front, halves of the others' from their backs).
#include "runtime-stub/thread_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace {

TEST(ThreadPool, EveryItemOnceAndInRuns) {
    for (int threads : {2, 3, 4}) {
        mxc_rt::thread_pool pool;
        ASSERT_TRUE(pool.start(threads));
        for (int64_t n : {0, 1, 2, 3, 5, 7, 8, 9, 16, 17, 100, 1000, 20011}) {
            std::vector<std::atomic<int>> count(size_t(n > 0 ? n : 1));
            std::vector<std::thread::id> who(size_t(n > 0 ? n : 1));
            struct ctx_t {
                std::vector<std::atomic<int>>* count;
                std::vector<std::thread::id>* who;
            } ctx{&count, &who};
            pool.iface.run(pool.iface.self, n, [](void* c, int64_t i) {
                auto* x = static_cast<ctx_t*>(c);
                (*x->count)[size_t(i)].fetch_add(1);
                (*x->who)[size_t(i)] = std::this_thread::get_id();
            }, &ctx);
            int64_t switches = 0;
            for (int64_t i = 0; i < n; ++i) {
                ASSERT_EQ(count[size_t(i)].load(), 1) << "item " << i << " of " << n << " on " << threads << " threads";
                if (i > 0 && who[size_t(i)] != who[size_t(i - 1)]) ++switches;
            }
            // a thread's items come in runs: each range is its owner's run from the front and the
            // helpers' runs from the back, each taking at least half of what was left: at most
            // 2 + 2 x log2(range) switches a range (items handed out one by one: up to n - 1)
            if (n == 20011) EXPECT_LE(switches, threads * (2 + 2 * 13)) << threads << " threads";
        }
    }
}

} // namespace
