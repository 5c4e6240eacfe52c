// The thread pool of one cpu library instance: threads - 1 workers (std::thread) started by
// <name>_set_num_threads and joined when the count changes or the instance is destroyed; the
// thread that calls run is the other one. Kernels reach it through mxc::cpu::parallel_for
// (templates/cpu/parallel.hpp): one job at a time, items handed out by an atomic counter, the
// caller works too and returns when every worker has finished the job.
//
// Each take is a run of consecutive items, a share of those left (1 / (2 x threads) of them,
// at least one: guided self-scheduling), so that a thread works on neighbouring items (the
// GEMM's column blocks: one thread's stores then stream along its rows, where items taken one
// by one left the threads writing alternate blocks of the same rows; MobileNetV2 on 2 threads
// 5.5-6.1 -> 4.8-5.4 ms) while the shares shrink towards the end as with single items.
//
// A run is a sequence of jobs (one per kernel, ResNet-50: 56), a few hundred microseconds to a
// few milliseconds each. A worker that slept on the condition variable between two of them
// would start each job late by the wake-up latency of a sleeping thread (tens of microseconds
// on a loaded or virtual machine), during which the caller works alone. So both sides first
// spin for a while (spin_us, checking an atomic: the next job's generation, or the count of
// workers still busy) and only then block on the condition variable; between runs of the
// library the workers go to sleep after spin_us.
#pragma once
#include "templates/cpu/parallel.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

namespace mxc_rt {

struct thread_pool {
    static constexpr int spin_us = 200; // how long a waiting side spins before it blocks

    std::mutex mu;
    std::condition_variable wake, done;
    std::vector<std::thread> workers;
    bool stop = false;                     // under mu
    std::atomic<bool> stopping{false};     // stop, for the spinning workers
    std::atomic<uint64_t> generation{0};   // counts jobs (written under mu); a worker runs each one once
    std::atomic<int> busy{0};              // workers not yet through the current job
    int64_t n = 0;                         // the current job (written under mu before its generation starts)
    void (*fn)(void*, int64_t) = nullptr;
    void* ctx = nullptr;
    std::atomic<int64_t> next{0};
    mxc::cpu::pool_iface iface{this, 1, &thread_pool::run};

    static void relax() {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause(); // (a builtin: <immintrin.h> would add half a second to every library's compile)
#else
        std::this_thread::yield();
#endif
    }

    // Spins until ready() or spin_us have passed; whether ready() held.
    template <class F> static bool spin(const F& ready) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(spin_us);
        for (unsigned i = 1;; ++i) {
            if (ready()) return true;
            relax();
            if (i % 64 == 0 && std::chrono::steady_clock::now() > until) return ready();
        }
    }

    // How many items one take claims when `left` are left (see the top).
    static int64_t take(int64_t left, int threads) {
        const int64_t share = left / (2 * int64_t(threads > 1 ? threads : 1));
        return share > 1 ? share : left > 0 ? 1 : 0;
    }

    void work() {
        int64_t i = next.load(std::memory_order_relaxed);
        while (i < n) {
            const int64_t c = take(n - i, iface.threads);
            if (!next.compare_exchange_weak(i, i + c, std::memory_order_relaxed)) continue;
            for (const int64_t end = i + c; i < end; ++i) fn(ctx, i);
            i = next.load(std::memory_order_relaxed);
        }
    }

    void loop() {
        uint64_t seen = 0; // not `generation`: a job may have started before this thread did
        for (;;) {
            if (!spin([&] { return stopping.load(std::memory_order_acquire) || generation.load(std::memory_order_acquire) != seen; })) {
                std::unique_lock<std::mutex> l(mu);
                wake.wait(l, [&] { return stop || generation.load(std::memory_order_relaxed) != seen; });
            }
            if (stopping.load(std::memory_order_acquire)) return;
            seen = generation.load(std::memory_order_acquire); // n, fn and ctx were written before it
            work();
            if (busy.fetch_sub(1, std::memory_order_acq_rel) == 1) { // the last worker through
                std::lock_guard<std::mutex> l(mu); // (the caller is spinning, or waits under mu)
                done.notify_one();
            }
        }
    }

    static void run(void* self, int64_t n, void (*fn)(void*, int64_t), void* ctx) {
        auto* p = static_cast<thread_pool*>(self);
        {
            std::lock_guard<std::mutex> l(p->mu);
            p->n = n;
            p->fn = fn;
            p->ctx = ctx;
            p->next.store(0, std::memory_order_relaxed);
            p->busy.store(static_cast<int>(p->workers.size()), std::memory_order_relaxed);
            p->generation.fetch_add(1, std::memory_order_release);
        }
        p->wake.notify_all();
        p->work();
        if (p->spin([&] { return p->busy.load(std::memory_order_acquire) == 0; })) return;
        std::unique_lock<std::mutex> l(p->mu);
        p->done.wait(l, [&] { return p->busy.load(std::memory_order_acquire) == 0; });
    }

    bool start(int threads) {
        try {
            for (int i = 1; i < threads; ++i) workers.emplace_back([this] { loop(); });
        } catch (...) {
            join();
            return false;
        }
        iface.threads = threads;
        return true;
    }

    void join() {
        {
            std::lock_guard<std::mutex> l(mu);
            stop = true;
            stopping.store(true, std::memory_order_release);
        }
        wake.notify_all();
        for (auto& t : workers) t.join();
        workers.clear();
    }

    ~thread_pool() { join(); }
};

} // namespace mxc_rt
