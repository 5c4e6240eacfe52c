// The thread pool of one cpu library instance: threads - 1 workers (std::thread) started by
// <name>_set_num_threads and joined when the count changes or the instance is destroyed; the
// thread that calls run is the other one. Kernels reach it through mxc::cpu::parallel_for
// (templates/cpu/parallel.hpp): one job at a time, items handed out by an atomic counter, the
// caller works too and returns when every worker has finished the job.
#pragma once
#include "templates/cpu/parallel.hpp"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

namespace mxc_rt {

struct thread_pool {
    std::mutex mu;
    std::condition_variable wake, done;
    std::vector<std::thread> workers;
    bool stop = false;
    uint64_t generation = 0; // counts jobs; a worker runs each one once
    int busy = 0;            // workers not yet through the current job
    int64_t n = 0;           // the current job (written under mu before a generation starts)
    void (*fn)(void*, int64_t) = nullptr;
    void* ctx = nullptr;
    std::atomic<int64_t> next{0};
    mxc::cpu::pool_iface iface{this, 1, &thread_pool::run};

    void work() {
        for (int64_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) fn(ctx, i);
    }

    void loop() {
        std::unique_lock<std::mutex> l(mu);
        uint64_t seen = 0; // not `generation`: a job may have started before this thread did
        for (;;) {
            wake.wait(l, [&] { return stop || generation != seen; });
            if (stop) return;
            seen = generation;
            l.unlock();
            work();
            l.lock();
            if (--busy == 0) done.notify_one();
        }
    }

    static void run(void* self, int64_t n, void (*fn)(void*, int64_t), void* ctx) {
        auto* p = static_cast<thread_pool*>(self);
        {
            std::lock_guard<std::mutex> l(p->mu);
            p->n = n;
            p->fn = fn;
            p->ctx = ctx;
            p->next = 0;
            p->busy = static_cast<int>(p->workers.size());
            ++p->generation;
        }
        p->wake.notify_all();
        p->work();
        std::unique_lock<std::mutex> l(p->mu);
        p->done.wait(l, [&] { return p->busy == 0; });
    }

    // Starts threads - 1 workers; false when the system refused a thread (none left running).
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
        }
        wake.notify_all();
        for (auto& t : workers) t.join();
        workers.clear();
    }

    ~thread_pool() { join(); }
};

} // namespace mxc_rt
