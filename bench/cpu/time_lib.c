/* Times a library built by mxc: median (and min) of RUNS runs after WARMUP untimed ones, in
 * milliseconds, on inputs read from raw files (one per input, in the library's input order;
 * each must have exactly the input's byte size).
 *   time_lib LIB.so NAME RUNS WARMUP INPUT.bin...
 * $MXC_THREADS: the instance's thread count (<name>_set_num_threads; default 1).
 * $FLUSH=MB: before each run (untimed), write a buffer of that many MiB, so that the caches
 * hold none of the run's data, as inside a model for a layer timed alone (its input and
 * output last touched a run and megabytes of other layers before).
 * Prints "median_ms min_ms". Used by bench/cpu/run.sh. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* the types of the C API: the header mxc wrote beside any library (run.sh passes it) */
#include MXC_HEADER

#include "lib_api.h"

static void* sym(void* lib, const char* name, const char* what) {
    char full[256];
    snprintf(full, sizeof full, "%s_%s", name, what);
    void* p = dlsym(lib, full);
    if (!p) {
        fprintf(stderr, "time_lib: %s not found in the library\n", full);
        exit(1);
    }
    return p;
}

int main(int argc, char** argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: time_lib LIB.so NAME RUNS WARMUP INPUT.bin...\n");
        return 2;
    }
    void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "time_lib: %s\n", dlerror());
        return 1;
    }
    const char* name = argv[2];
    int runs = atoi(argv[3]), warmup = atoi(argv[4]);
    mxc_model* m = NULL;
    if (((create_fn)sym(lib, name, "create"))(&m, NULL) != MXC_OK) {
        fprintf(stderr, "time_lib: create failed\n");
        return 1;
    }
    error_fn last_error = (error_fn)sym(lib, name, "last_error");
    const char* threads = getenv("MXC_THREADS");
    if (threads && ((threads_fn)sym(lib, name, "set_num_threads"))(m, atoi(threads)) != MXC_OK) {
        fprintf(stderr, "time_lib: set_num_threads: %s\n", last_error(m));
        return 1;
    }
    size_t ni = ((count_fn)sym(lib, name, "num_inputs"))(m), no = ((count_fn)sym(lib, name, "num_outputs"))(m);
    if ((int)ni != argc - 5) {
        fprintf(stderr, "time_lib: the library has %zu inputs, %d files given\n", ni, argc - 5);
        return 1;
    }
    const void** in = calloc(ni, sizeof *in);
    void** out = calloc(no, sizeof *out);
    for (size_t i = 0; i < ni; ++i) {
        mxc_tensor_info info;
        ((info_fn)sym(lib, name, "input_info"))(m, i, &info);
        size_t got;
        if (!(in[i] = read_input(argv[5 + i], info.bytes, &got))) {
            fprintf(stderr, "time_lib: %s: input %s needs %zu bytes, the file has %zu\n", argv[5 + i], info.name, info.bytes, got);
            return 1;
        }
    }
    for (size_t i = 0; i < no; ++i) {
        mxc_tensor_info info;
        ((info_fn)sym(lib, name, "output_info"))(m, i, &info);
        out[i] = malloc(info.bytes ? info.bytes : 1);
    }
    run_fn run = (run_fn)sym(lib, name, "run");
    double* t = calloc((size_t)runs, sizeof *t);
    const char* flush_mb = getenv("FLUSH");
    size_t flush_bytes = flush_mb ? (size_t)atoi(flush_mb) << 20 : 0;
    volatile char* flush = flush_bytes ? calloc(flush_bytes, 1) : NULL;
    for (int r = -warmup; r < runs; ++r) {
        for (size_t q = 0; flush && q < flush_bytes; q += 64) flush[q]++;
        double start = now_ms();
        if (run(m, in, out) != MXC_OK) {
            fprintf(stderr, "time_lib: run failed: %s\n", last_error(m));
            return 1;
        }
        if (r >= 0) t[r] = now_ms() - start;
    }
    double median = median_ms(t, runs);
    printf("%.3f %.3f\n", median, t[0]);
    return 0;
}
