// The cpu libraries' thread pool (runtime-stub/thread_pool.hpp): every item of a job runs once,
// on 2 to 4 threads and for item counts around the thread counts; a thread's items come in runs
// (its own range from the front, halves of the others' from their backs); a worker late for a
// job runs what it claims as the job it claimed from.
#include "runtime-stub/thread_pool.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
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

// Jobs back to back, each of a few items and its own context: a worker late for one job (the
// job ends when its items are done, not when every worker has seen it) may take items of the
// next, and must run them as that job's: every item of every job runs once, with its job's
// context, and nothing of a job runs after it returned.
TEST(ThreadPool, LateWorkersRunTheJobTheyClaimFrom) {
    for (int threads : {2, 4}) {
        mxc_rt::thread_pool pool;
        ASSERT_TRUE(pool.start(threads));
        constexpr int jobs = 20000, most = 6;
        std::vector<std::atomic<int>> count(size_t(jobs) * most);
        struct ctx_t {
            std::atomic<int>* count;
        };
        std::vector<ctx_t> ctx(jobs);
        for (int j = 0; j < jobs; ++j) {
            const int64_t n = 1 + j % most;
            ctx[size_t(j)].count = &count[size_t(j) * most];
            pool.iface.run(pool.iface.self, n, [](void* c, int64_t i) { static_cast<ctx_t*>(c)->count[i].fetch_add(1); },
                           &ctx[size_t(j)]);
            for (int64_t i = 0; i < n; ++i)
                ASSERT_EQ(count[size_t(j) * most + size_t(i)].load(), 1) << "job " << j << " item " << i << ", " << threads << " threads";
        }
        for (int j = 0; j < jobs; ++j)
            for (int64_t i = 0; i < most; ++i)
                ASSERT_EQ(count[size_t(j) * most + size_t(i)].load(), i < 1 + j % most ? 1 : 0) << "job " << j << " item " << i;
    }
}

#if defined(__linux__)
// The threads each job's items ran on, and their affinity (items of a few microseconds each,
// jobs until every one of the pool's threads has run one, at most 50).
std::map<std::thread::id, std::vector<int>> affinity_by_thread(mxc_rt::thread_pool& pool, int threads) {
    const int64_t n = 128 * int64_t(threads);
    struct seen_t {
        std::thread::id who;
        std::vector<int> cpus;
    };
    std::vector<seen_t> seen(static_cast<size_t>(n));
    std::map<std::thread::id, std::vector<int>> by_thread;
    for (int round = 0; round < 50 && int(by_thread.size()) < threads; ++round) {
        pool.iface.run(pool.iface.self, n, [](void* c, int64_t i) {
            volatile double x = 1;
            for (int k = 0; k < 20000; ++k) x = x * 1.0000001;
            (*static_cast<std::vector<seen_t>*>(c))[size_t(i)] = {std::this_thread::get_id(), mxc_rt::thread_pool::allowed_cpus()};
        }, &seen);
        for (const seen_t& s : seen) by_thread[s.who] = s.cpus;
    }
    return by_thread;
}

// A pool of as many threads as the CPUs the creating thread may use binds worker i to the i-th
// of them; a smaller one binds none; the caller's thread keeps its own affinity either way.
TEST(ThreadPool, WorkersBoundToCpusOfTheirOwn) {
    const std::vector<int> cpus = mxc_rt::thread_pool::allowed_cpus();
    if (cpus.size() < 2) GTEST_SKIP() << "this thread may run on " << cpus.size() << " CPU(s): a pool would bind no worker";
    for (int threads : {int(cpus.size()), int(cpus.size()) - 1}) {
        if (threads < 2) continue; // (no worker)
        mxc_rt::thread_pool pool;
        ASSERT_TRUE(pool.start(threads));
        const auto by_thread = affinity_by_thread(pool, threads);
        ASSERT_EQ(int(by_thread.size()), threads) << "not every thread ran an item in 50 jobs";
        std::vector<int> bound;
        for (const auto& [who, mask] : by_thread) {
            if (who == std::this_thread::get_id()) {
                EXPECT_EQ(mask, cpus) << "the caller's affinity changed";
                continue;
            }
            if (threads < int(cpus.size())) {
                EXPECT_EQ(mask, cpus) << "a worker of a pool of " << threads << " threads on " << cpus.size() << " CPUs was bound";
                continue;
            }
            ASSERT_EQ(mask.size(), 1u) << "a worker not bound to one CPU";
            bound.push_back(mask[0]);
        }
        std::sort(bound.begin(), bound.end());
        if (threads == int(cpus.size())) EXPECT_EQ(bound, std::vector<int>(cpus.begin() + 1, cpus.end()));
    }
}
#endif

} // namespace
