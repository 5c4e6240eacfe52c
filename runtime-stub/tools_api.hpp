// The entry points of profiling (MXC_PROFILE) and debug-trace (MXC_DEBUG_TRACE) builds, for
// `mxc perf`, `mxc run --io-dump` and `mxc verify`. Included at the end of runtime.hpp.
extern "C" {

MXC_API size_t MXC_FN(num_kernels)(void) { return mxc_gen::num_kernels; }

MXC_API const mxc_kernel_info* MXC_FN(kernel_info)(size_t i) {
    return i < mxc_gen::num_kernels ? &mxc_gen::kernel_table[i] : nullptr;
}

// How m's runs went so far: graphs captured, runs replayed from one, runs launched kernel by
// kernel (hip; all 0 for a cpu model). For tests and mxc perf.
MXC_API mxc_status MXC_FN(graph_stats)(const mxc_model* m, size_t* captures, size_t* replays, size_t* direct_runs) {
    if (mxc_status s = mxc_rt::check_model(m)) return s;
    if (!captures || !replays || !direct_runs)
        return mxc_rt::fail(const_cast<mxc_model*>(m), MXC_ERROR_INVALID_ARGUMENT, "graph_stats: a count pointer is NULL");
#if defined(MXC_TARGET_HIP)
    *captures = m->captures;
    *replays = m->replays;
    *direct_runs = m->direct_runs;
#else
    *captures = *replays = *direct_runs = 0;
#endif
    return MXC_OK;
}

#if defined(MXC_PROFILE)
static double mxc_tools_now_ms() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

// Times `iterations` plain runs as the host sees them (from the call to the outputs being
// ready): run_ms[i] for i < iterations. hip: the inputs are copied to the device once and the
// timed runs work on device memory, as in device-pointer mode (no copies: run time minus the
// kernels' time is the host's overhead); then the outputs are copied back to `outputs`.
MXC_API mxc_status MXC_FN(time_runs)(mxc_model* m, const void* const* inputs, void* const* outputs, int iterations,
                                     double* run_ms) {
    if (mxc_status s = check_run(m, inputs, outputs)) return s;
    if (iterations < 1 || !run_ms)
        return mxc_rt::fail(m, MXC_ERROR_INVALID_ARGUMENT, "time_runs: want iterations >= 1 and run_ms, got %d and %p",
                            iterations, static_cast<void*>(run_ms));
#if defined(MXC_TARGET_HIP)
    if (m->device_pointers) return mxc_rt::fail(m, MXC_ERROR_INVALID_ARGUMENT, "time_runs: needs an instance in offload mode");
    mxc_rt::device_guard g(m->device);
    const void* in[mxc_gen::num_inputs + 1];
    void* out[mxc_gen::num_outputs + 1];
    for (size_t i = 0; i < mxc_gen::num_inputs; ++i) in[i] = m->staged[i];
    for (size_t j = 0; j < mxc_gen::num_outputs; ++j) out[j] = m->staged[mxc_gen::num_inputs + j];
    hipError_t e = mxc_rt::copy_in(m, inputs, m->stream);
    if (e != hipSuccess) return mxc_rt::device_fail(m, e, "time_runs: cannot copy an input to the device");
    for (int i = 0; i < iterations; ++i) {
        double t = mxc_tools_now_ms();
        if (mxc_status s = mxc_rt::execute(m, in, out, nullptr, nullptr, false, true)) return s;
        run_ms[i] = mxc_tools_now_ms() - t;
    }
    if ((e = mxc_rt::copy_out(m, outputs, m->stream)) != hipSuccess || (e = hipStreamSynchronize(m->stream)) != hipSuccess)
        return mxc_rt::device_fail(m, e, "time_runs: cannot copy an output from the device");
#else
    for (int i = 0; i < iterations; ++i) {
        double t = mxc_tools_now_ms();
        if (mxc_status s = mxc_rt::execute(m, inputs, outputs, nullptr)) return s;
        run_ms[i] = mxc_tools_now_ms() - t;
    }
#endif
    return MXC_OK;
}

// Runs the model once, timing every kernel: start_ms[i] (from the start of the run, may be
// NULL) and time_ms[i] for i < num_kernels.
MXC_API mxc_status MXC_FN(profile)(mxc_model* m, const void* const* inputs, void* const* outputs, double* start_ms,
                                   double* time_ms) {
    if (mxc_status s = check_run(m, inputs, outputs)) return s;
    if (!time_ms) return mxc_rt::fail(m, MXC_ERROR_INVALID_ARGUMENT, "profile: time_ms is NULL");
    mxc_hooks h;
    memset(&h, 0, sizeof h);
    h.time_ms = time_ms;
#if defined(MXC_TARGET_HIP)
    mxc_rt::device_guard g(m->device);
    hipEvent_t events[2 * mxc_gen::num_kernels + 1];
    size_t made = 0;
    hipError_t e = hipSuccess;
    for (; made < 2 * mxc_gen::num_kernels + 1 && e == hipSuccess; ++made) e = hipEventCreate(&events[made]);
    if (e != hipSuccess) made--;
    mxc_status s = e == hipSuccess ? MXC_OK : mxc_rt::device_fail(m, e, "profile: cannot create events");
    h.events = events;
    hipEvent_t start = events[2 * mxc_gen::num_kernels];
    if (s == MXC_OK && (e = hipEventRecord(start, m->stream)) != hipSuccess)
        s = mxc_rt::device_fail(m, e, "profile: cannot record an event");
    if (s == MXC_OK) s = mxc_rt::execute(m, inputs, outputs, &h);
    if (s == MXC_OK && (e = hipStreamSynchronize(m->stream)) != hipSuccess) s = mxc_rt::device_fail(m, e, "profile");
    for (size_t i = 0; s == MXC_OK && i < mxc_gen::num_kernels; ++i) {
        float a = 0, b = 0;
        if ((e = hipEventElapsedTime(&a, start, events[2 * i])) != hipSuccess ||
            (e = hipEventElapsedTime(&b, events[2 * i], events[2 * i + 1])) != hipSuccess)
            s = mxc_rt::device_fail(m, e, "profile: cannot read the kernel times");
        if (start_ms) start_ms[i] = a;
        time_ms[i] = b;
    }
    for (size_t i = 0; i < made; ++i) (void)hipEventDestroy(events[i]);
    return s;
#else
    double start[mxc_gen::num_kernels + 1];
    h.start_ms = start_ms ? start_ms : start;
    h.run_start = mxc_hook::now_ms();
    return mxc_rt::execute(m, inputs, outputs, &h);
#endif
}
#endif

#if defined(MXC_DEBUG_TRACE)
// Runs the model once, handing every kernel's output (on the host) to `observe`.
MXC_API mxc_status MXC_FN(debug_run)(mxc_model* m, const void* const* inputs, void* const* outputs,
                                     mxc_observer observe, void* user) {
    if (mxc_status s = check_run(m, inputs, outputs)) return s;
    mxc_hooks h;
    memset(&h, 0, sizeof h);
    const char* level = getenv("MXC_TRACE_EVAL");
    h.trace = level ? atoi(level) : 0;
    h.observe = observe;
    h.user = user;
    mxc_status s = mxc_rt::execute(m, inputs, outputs, &h);
    free(h.host);
    return s;
}
#endif

} // extern "C"
