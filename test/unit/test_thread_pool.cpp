// The cpu libraries' thread pool (runtime-stub/thread_pool.hpp): every item of a job runs once,
// on 2 to 4 threads and for item counts around the take sizes; the takes are runs of
// consecutive items that shrink with what is left (guided self-scheduling).
#include "runtime-stub/thread_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace {

TEST(ThreadPool, TakeIsAShareOfWhatIsLeft) {
    using mxc_rt::thread_pool;
    EXPECT_EQ(thread_pool::take(0, 2), 0);
    EXPECT_EQ(thread_pool::take(1, 2), 1);
    EXPECT_EQ(thread_pool::take(7, 2), 1);
    EXPECT_EQ(thread_pool::take(8, 2), 2);
    EXPECT_EQ(thread_pool::take(1000, 2), 250);
    EXPECT_EQ(thread_pool::take(1000, 4), 125);
    EXPECT_EQ(thread_pool::take(5, 1), 2);
    // the takes of one thread alone over 196 items (MobileNetV2's 1x1 over 112x112, 2 threads):
    // 49, 36, 27, ... then single items; each at least one, never past the end
    int64_t left = 196, takes = 0;
    std::vector<int64_t> first;
    while (left > 0) {
        const int64_t c = thread_pool::take(left, 2);
        ASSERT_GE(c, 1);
        ASSERT_LE(c, left);
        if (first.size() < 3) first.push_back(c);
        left -= c;
        ++takes;
    }
    EXPECT_EQ(first, (std::vector<int64_t>{49, 36, 27}));
    EXPECT_LE(takes, 30);
}

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
            // a thread's items come in runs: at most one run per take, and the takes of all
            // threads together are about 2 x threads x ln(n) (items one by one: up to n - 1)
            if (n == 20011) EXPECT_LE(switches, 2 * threads * 12 + 2 * threads) << threads << " threads";
        }
    }
}

} // namespace
