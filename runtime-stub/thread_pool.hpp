// The thread pool of one cpu library instance: threads - 1 workers (std::thread) started by
// <name>_set_num_threads and joined when the count changes or the instance is destroyed; the
// thread that calls run is the other one. Kernels reach it through mxc::cpu::parallel_for
// (templates/cpu/parallel.hpp): one job at a time, its items cut into a range per thread
// (below); the caller works too and returns when every worker has finished the job.
//
// A job's items are cut into `threads` ranges of consecutive items, range t for thread t (the
// caller is thread 0, worker i thread i). A thread runs its own range front to back, one item
// at a time, then helps with the others' (the next thread's first), taking half of what is left
// of a range from its back at a time, so that the owner keeps its front run. Consecutive
// kernels that cut their work alike (a 1x1 convolution's blocks of rows, then the depthwise
// convolution after it by channels) so give a thread the same channels, which it then reads
// from its own core's L2 (mxc perf on 2 threads: MobileNetV2 4.54-4.77 -> 4.17-4.56 ms,
// ResNet-50 33.8-34.8 -> 32.6-33.1), where shares taken from one counter (guided
// self-scheduling, until 2026-11-25) went to whichever thread came first.
//
// A run is a sequence of jobs (one per kernel, ResNet-50: 56), a few hundred microseconds to a
// few milliseconds each. A worker that slept on the condition variable between two of them
// would start each job late by the wake-up latency of a sleeping thread (tens of microseconds
// on a loaded or virtual machine), during which the caller works alone. So both sides first
// spin for a while (spin_us, checking an atomic: the next job's generation, or the count of
// items done) and only then block on the condition variable; between runs of the library the
// workers go to sleep after spin_us. A spinning thread yields its CPU now and then: the
// scheduler may have put two of the pool's threads on one CPU, and the one that spins would
// hold it for its time slice or its spin_us while the other, with items to run, waits.
//
// A pool of as many threads as the CPUs its creator may run on (Linux) binds worker i to the
// i-th of them; the caller's thread is left as it is. A smaller pool binds nothing: several of
// them (instances run side by side) would bind their workers to the same few CPUs, where the
// scheduler spreads them.
//
// A job ends when its items are done, not when every worker has seen it: a worker that has
// not claimed an item by the time the others have run them all is not waited for. A worker
// reads the job (fn, ctx, the ranges' bases, its count) only once it holds an item, which
// keeps the job from ending, and its claim read the range's word that the caller stored, with
// release, after it wrote them: a worker late for one job may so take items of the next one,
// and runs them as that job's.
//
// Why (a 2-vCPU KVM guest, AMD EPYC, Linux 6.18, 2026-11-26, bench/results/cpu-2026-11-26-
// session38.md): with runs 100 ms apart, a worker that slept between them was woken on the
// caller's CPU and stayed there for whole runs while the other vCPU idled, the two taking
// turns, and the caller waited for it at every job: MobileNetV2 on 2 threads took 12-14 ms,
// against 5.4 back to back and 10.1 on one thread. Yielding in the spins, 9.8-10.4 ms; not
// waiting for a worker that claimed nothing, 9.2; bound, 5.6-5.9 (the caller, unbound, is the
// one the scheduler moves).
#pragma once
#include "templates/cpu/parallel.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <vector>
#if defined(__linux__)
#include <sched.h>
#endif

namespace mxc_rt {

struct thread_pool {
    static constexpr int spin_us = 200; // how long a waiting side spins before it blocks

    std::mutex mu;
    std::condition_variable wake, done;
    std::vector<std::thread> workers;
    bool stop = false;                     // under mu
    std::atomic<bool> stopping{false};     // stop, for the spinning workers
    std::atomic<uint64_t> generation{0};   // counts jobs (written under mu)
    std::atomic<int64_t> finished{0};      // items of the current job done
    int64_t items = 0;                     // of the current job (the caller's)
    void (*fn)(void*, int64_t) = nullptr;  // the current job, with ctx and the ranges' bases: read by a worker
    void* ctx = nullptr;                   // only while it holds an item of the job
    // thread t's range: items base + [lo, hi), both in one word (lo in the high half) so that
    // the owner's take from the front and a helper's from the back are one compare-and-swap
    struct alignas(64) range {
        std::atomic<uint64_t> left{0};
        int64_t base = 0;
    };
    std::unique_ptr<range[]> ranges;
    static constexpr int64_t max_job = int64_t(1) << 31; // items a job's ranges address (larger jobs run in parts)
    mxc::cpu::pool_iface iface{this, 1, &thread_pool::run};

    // The CPUs this thread may run on, in order (empty where unknown).
    static std::vector<int> allowed_cpus() {
        std::vector<int> cpus;
#if defined(__linux__)
        cpu_set_t set;
        if (sched_getaffinity(0, sizeof set, &set) == 0)
            for (int c = 0; c < CPU_SETSIZE; ++c)
                if (CPU_ISSET(c, &set)) cpus.push_back(c);
#endif
        return cpus;
    }

    // Binds the calling thread to CPU `cpu`; false where it could not.
    static bool bind_to(int cpu) {
#if defined(__linux__)
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        return sched_setaffinity(0, sizeof set, &set) == 0;
#else
        (void)cpu;
        return false;
#endif
    }

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
            if (i % 64 == 0) {
                if (std::chrono::steady_clock::now() > until) return ready();
                std::this_thread::yield(); // (returns at once where nothing else waits for this CPU)
            }
        }
    }

    // Claims items of range r: one from the front (its owner) or half of what is left from the
    // back (a helper); [first, first + count) of the job, false when the range is empty.
    bool claim(range& r, bool owner, int64_t& first, int64_t& count) {
        uint64_t s = r.left.load(std::memory_order_relaxed);
        for (;;) {
            const uint64_t lo = s >> 32, hi = s & 0xffffffffu;
            if (lo >= hi) return false;
            const uint64_t c = owner ? 1 : (hi - lo + 1) / 2;
            const uint64_t next = owner ? ((lo + 1) << 32) | hi : (lo << 32) | (hi - c);
            if (r.left.compare_exchange_weak(s, next, std::memory_order_acquire, std::memory_order_relaxed)) {
                first = r.base + int64_t(owner ? lo : hi - c);
                count = int64_t(c);
                return true;
            }
        }
    }

    // Runs items until none is left to claim; true when this thread finished a job's last one.
    bool work(int self) {
        const int t = iface.threads;
        int64_t first, count;
        bool last = false;
        for (int k = 0; k < t; ++k) {
            range& r = ranges[(self + k) % t];
            while (claim(r, k == 0, first, count)) {
                const int64_t n = items; // (read while an item is held: the job cannot end)
                for (int64_t i = first; i < first + count; ++i) fn(ctx, i);
                last = finished.fetch_add(count, std::memory_order_acq_rel) + count == n;
            }
        }
        return last;
    }

    void loop(int self) {
        uint64_t seen = 0; // not `generation`: a job may have started before this thread did
        for (;;) {
            if (!spin([&] { return stopping.load(std::memory_order_acquire) || generation.load(std::memory_order_acquire) != seen; })) {
                std::unique_lock<std::mutex> l(mu);
                wake.wait(l, [&] { return stop || generation.load(std::memory_order_relaxed) != seen; });
            }
            if (stopping.load(std::memory_order_acquire)) return;
            seen = generation.load(std::memory_order_acquire); // the ranges were written before it
            if (work(self)) { // a job's last item
                std::lock_guard<std::mutex> l(mu); // (the caller is spinning, or waits under mu)
                done.notify_one();
            }
        }
    }

    static void run(void* self, int64_t n, void (*fn)(void*, int64_t), void* ctx) {
        auto* p = static_cast<thread_pool*>(self);
        for (int64_t at = 0; at < n; at += max_job) p->run_part(at, n - at < max_job ? n - at : max_job, fn, ctx);
    }
    // items [offset, offset + n) of a job, n <= max_job
    void run_part(int64_t offset, int64_t n, void (*f)(void*, int64_t), void* c) {
        {
            std::lock_guard<std::mutex> l(mu);
            fn = f;
            ctx = c;
            items = n;
            finished.store(0, std::memory_order_relaxed);
            const int t = iface.threads;
            for (int k = 0; k < t; ++k) {
                const int64_t lo = n * k / t, hi = n * (k + 1) / t;
                ranges[k].base = offset + lo;
                // [0, hi - lo) (a worker late for the last job may claim from it: release)
                ranges[k].left.store(uint64_t(hi - lo), std::memory_order_release);
            }
            generation.fetch_add(1, std::memory_order_release);
        }
        wake.notify_all();
        work(0);
        const auto over = [&] { return finished.load(std::memory_order_acquire) == n; };
        if (spin(over)) return;
        std::unique_lock<std::mutex> l(mu);
        done.wait(l, over);
    }

    bool start(int threads) {
        try {
            ranges.reset(new range[size_t(threads > 1 ? threads : 1)]);
            const std::vector<int> cpus = allowed_cpus();
            const bool bind = int(cpus.size()) == threads;
            for (int i = 1; i < threads; ++i) {
                const int cpu = bind ? cpus[size_t(i)] : -1;
                workers.emplace_back([this, i, cpu] {
                    if (cpu >= 0) bind_to(cpu); // (unbound where it fails: it runs all the same)
                    loop(i);
                });
            }
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
