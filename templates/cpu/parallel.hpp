// parallel_for: how cpu kernels split their work over the thread pool of the library instance
// that runs them (runtime-stub/thread_pool.hpp). The generated run entry point points
// `current_pool()` at its instance's pool for the duration of one run, on the calling thread
// only (thread_local: concurrent instances on other threads do not see it, and pool workers
// see none, so nothing nests). Everywhere else (mxc's reference evaluator and constant
// folding, a library with one thread) parallel_for is a plain loop.
// Results never depend on the thread count: every item is computed the same way whoever runs it.
#pragma once
#include <stdint.h>

namespace mxc {
namespace cpu {

// Runs fn(ctx, i) for every i in [0, n) and returns when all are done.
struct pool_iface {
    void* self;
    int threads;
    void (*run)(void* self, int64_t n, void (*fn)(void*, int64_t), void* ctx);
};

inline const pool_iface*& current_pool() {
    static thread_local const pool_iface* p = nullptr;
    return p;
}

template <class F> void parallel_for(int64_t n, const F& f) {
    const pool_iface* p = current_pool();
    if (!p || p->threads <= 1 || n <= 1) {
        for (int64_t i = 0; i < n; ++i) f(i);
        return;
    }
    p->run(p->self, n, [](void* ctx, int64_t i) { (*static_cast<const F*>(ctx))(i); },
           const_cast<void*>(static_cast<const void*>(&f)));
}

} // namespace cpu
} // namespace mxc
