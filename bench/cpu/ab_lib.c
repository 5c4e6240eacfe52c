/* A/B of two libraries of the same model (two builds of one `mxc --emit-src` output, or two
 * mxc versions), in one process, their runs interleaved: pair i runs A then B (odd i: B then
 * A), so that both runs of a pair see the same machine. On a shared or virtual machine whose
 * speed moves by tens of percent from one second to the next, the ratio of a pair's two runs
 * holds still where each library's own median does not (session 37: MobileNetV2 on two
 * threads, medians of consecutive rounds of `mxc perf` 6.4 to 8.5 ms).
 *   ab_lib LIB_A.so LIB_B.so NAME RUNS WARMUP INPUT.bin...
 * Inputs as for time_lib (raw files, one per input, in the library's input order; both
 * libraries must have the same inputs). $MXC_THREADS: both instances' thread count (default 1;
 * $MXC_THREADS_A or $MXC_THREADS_B: one side's, e.g. one library on 1 and 2 threads);
 * $FLUSH=MB: a write of that many MiB before every run (untimed). Between two runs the process
 * sleeps 1 ms (untimed), longer than a pool's workers spin after their last job
 * (runtime-stub/thread_pool.hpp): the other library's workers are asleep, not spinning on the
 * cores the next run needs; each run so starts its workers as a first run after a pause does.
 * Prints "median_a_ms median_b_ms ratio lo hi": ratio = the median over the pairs of B / A
 * (below 1: B is faster), [lo, hi] the order statistics around it that bound the median with
 * about 95% confidence (n/2 -+ sqrt(n), the sign test's interval).
 * AB_PROFILE=1 (both built with `mxc --profile-hooks`, the same kernels): the runs time every
 * kernel too, and a line per kernel follows: "index op output median_a_ms median_b_ms ratio lo
 * hi", its ratio over the same pairs. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include MXC_HEADER

#include "lib_api.h"

struct side {
    const char* path;
    void* lib;
    mxc_model* m;
    run_fn run;
    error_fn last_error;
    void** out;
    profile_fn profile; /* AB_PROFILE: the run with kernel times (into kernel_ms) */
    size_t kernels;
    double* kernel_ms;
};

static void* sym(const struct side* s, const char* name, const char* what) {
    char full[256];
    snprintf(full, sizeof full, "%s_%s", name, what);
    void* p = dlsym(s->lib, full);
    if (!p) {
        fprintf(stderr, "ab_lib: %s not found in %s\n", full, s->path);
        exit(1);
    }
    return p;
}

/* opens one library and makes its instance; its input count must be `inputs` */
static void open_side(struct side* s, const char* name, size_t inputs, const char* threads_var) {
    s->lib = dlopen(s->path, RTLD_NOW | RTLD_LOCAL);
    if (!s->lib) {
        fprintf(stderr, "ab_lib: %s\n", dlerror());
        exit(1);
    }
    if (((create_fn)sym(s, name, "create"))(&s->m, NULL) != MXC_OK) {
        fprintf(stderr, "ab_lib: %s: create failed\n", s->path);
        exit(1);
    }
    s->last_error = (error_fn)sym(s, name, "last_error");
    const char* threads = getenv(threads_var);
    if (!threads) threads = getenv("MXC_THREADS");
    if (threads && ((threads_fn)sym(s, name, "set_num_threads"))(s->m, atoi(threads)) != MXC_OK) {
        fprintf(stderr, "ab_lib: %s: set_num_threads: %s\n", s->path, s->last_error(s->m));
        exit(1);
    }
    size_t ni = ((count_fn)sym(s, name, "num_inputs"))(s->m), no = ((count_fn)sym(s, name, "num_outputs"))(s->m);
    if (ni != inputs) {
        fprintf(stderr, "ab_lib: %s has %zu inputs, %zu files given\n", s->path, ni, inputs);
        exit(1);
    }
    s->out = calloc(no, sizeof *s->out);
    for (size_t i = 0; i < no; ++i) {
        mxc_tensor_info info;
        ((info_fn)sym(s, name, "output_info"))(s->m, i, &info);
        s->out[i] = malloc(info.bytes ? info.bytes : 1);
    }
    s->run = (run_fn)sym(s, name, "run");
    const char* prof = getenv("AB_PROFILE");
    if (prof && atoi(prof)) {
        s->profile = (profile_fn)sym(s, name, "profile");
        s->kernels = ((num_kernels_fn)sym(s, name, "num_kernels"))();
        s->kernel_ms = calloc(s->kernels + 1, sizeof *s->kernel_ms);
    }
}

static double timed_run(const struct side* s, const void** in, volatile char* flush, size_t flush_bytes) {
    const char* gap_us = getenv("AB_GAP_US");
    const long us = gap_us ? atol(gap_us) : 1000;
    const struct timespec gap = {us / 1000000, us % 1000000 * 1000};
    if (us > 0) nanosleep(&gap, NULL);
    for (size_t q = 0; flush && q < flush_bytes; q += 64) flush[q]++;
    double start = now_ms();
    if (s->profile ? s->profile(s->m, in, s->out, NULL, s->kernel_ms) != MXC_OK : s->run(s->m, in, s->out) != MXC_OK) {
        fprintf(stderr, "ab_lib: %s: run failed: %s\n", s->path, s->last_error(s->m));
        exit(1);
    }
    return now_ms() - start;
}

int main(int argc, char** argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: ab_lib LIB_A.so LIB_B.so NAME RUNS WARMUP INPUT.bin...\n");
        return 2;
    }
    struct side a = {.path = argv[1]}, b = {.path = argv[2]};
    const char* name = argv[3];
    int runs = atoi(argv[4]), warmup = atoi(argv[5]);
    if (runs < 1 || warmup < 0) {
        fprintf(stderr, "ab_lib: want RUNS >= 1 and WARMUP >= 0, got %s and %s\n", argv[4], argv[5]);
        return 2;
    }
    size_t ni = (size_t)(argc - 6);
    open_side(&a, name, ni, "MXC_THREADS_A");
    open_side(&b, name, ni, "MXC_THREADS_B");
    const void** in = calloc(ni ? ni : 1, sizeof *in);
    for (size_t i = 0; i < ni; ++i) {
        mxc_tensor_info info;
        ((info_fn)sym(&a, name, "input_info"))(a.m, i, &info);
        size_t got;
        if (!(in[i] = read_input(argv[6 + i], info.bytes, &got))) {
            fprintf(stderr, "ab_lib: %s: input %s needs %zu bytes, the file has %zu\n", argv[6 + i], info.name, info.bytes, got);
            return 1;
        }
    }
    const char* flush_mb = getenv("FLUSH");
    size_t flush_bytes = flush_mb ? (size_t)atoi(flush_mb) << 20 : 0;
    volatile char* flush = flush_bytes ? calloc(flush_bytes, 1) : NULL;
    double *ta = calloc((size_t)runs, sizeof *ta), *tb = calloc((size_t)runs, sizeof *tb),
           *ratio = calloc((size_t)runs, sizeof *ratio);
    if (a.profile && a.kernels != b.kernels) {
        fprintf(stderr, "ab_lib: AB_PROFILE: %s has %zu kernels, %s %zu\n", a.path, a.kernels, b.path, b.kernels);
        return 1;
    }
    /* kernel k of run r: ka[k * runs + r], kb likewise */
    double *ka = a.profile ? calloc(a.kernels * (size_t)runs, sizeof *ka) : NULL,
           *kb = a.profile ? calloc(a.kernels * (size_t)runs, sizeof *kb) : NULL;
    for (int r = -warmup; r < runs; ++r) {
        double x, y;
        if (r & 1) {
            y = timed_run(&b, in, flush, flush_bytes);
            x = timed_run(&a, in, flush, flush_bytes);
        } else {
            x = timed_run(&a, in, flush, flush_bytes);
            y = timed_run(&b, in, flush, flush_bytes);
        }
        if (r < 0) continue;
        ta[r] = x;
        tb[r] = y;
        ratio[r] = y / x;
        for (size_t k = 0; ka && k < a.kernels; ++k) {
            ka[k * (size_t)runs + (size_t)r] = a.kernel_ms[k];
            kb[k * (size_t)runs + (size_t)r] = b.kernel_ms[k];
        }
    }
    int half = (int)ceil(sqrt((double)runs)), lo = runs / 2 - half, hi = (runs - 1) / 2 + half;
    if (lo < 0) lo = 0;
    if (hi > runs - 1) hi = runs - 1;
    double ma = median_ms(ta, runs), mb = median_ms(tb, runs), mr = median_ms(ratio, runs);
    printf("%.3f %.3f %.4f %.4f %.4f\n", ma, mb, mr, ratio[lo], ratio[hi]);
    kernel_info_fn info = a.profile ? (kernel_info_fn)sym(&a, name, "kernel_info") : NULL;
    for (size_t k = 0; ka && k < a.kernels; ++k) {
        double *xa = ka + k * (size_t)runs, *xb = kb + k * (size_t)runs;
        for (int r = 0; r < runs; ++r) ratio[r] = xa[r] > 0 ? xb[r] / xa[r] : 1;
        const kernel_info_head* ki = info(k);
        ma = median_ms(xa, runs), mb = median_ms(xb, runs), mr = median_ms(ratio, runs);
        printf("%zu %s %s %.4f %.4f %.4f %.4f %.4f\n", k, ki && ki->op ? ki->op : "?", ki && ki->output ? ki->output : "?", ma, mb,
               mr, ratio[lo], ratio[hi]);
    }
    return 0;
}
