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

typedef mxc_status (*create_fn)(mxc_model**, const mxc_options*);
typedef void (*destroy_fn)(mxc_model*);
typedef size_t (*count_fn)(const mxc_model*);
typedef mxc_status (*info_fn)(const mxc_model*, size_t, mxc_tensor_info*);
typedef mxc_status (*run_fn)(mxc_model*, const void* const*, void* const*);
typedef const char* (*error_fn)(const mxc_model*);
typedef mxc_status (*threads_fn)(mxc_model*, int);

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

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
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
        FILE* f = fopen(argv[5 + i], "rb");
        char* buf = malloc(info.bytes + 1);
        size_t got = f ? fread(buf, 1, info.bytes + 1, f) : 0;
        if (!f || got != info.bytes) {
            fprintf(stderr, "time_lib: %s: input %s needs %zu bytes, the file has %zu\n", argv[5 + i], info.name, info.bytes, got);
            return 1;
        }
        fclose(f);
        in[i] = buf;
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
    qsort(t, (size_t)runs, sizeof *t, cmp);
    double median = runs % 2 ? t[runs / 2] : (t[runs / 2 - 1] + t[runs / 2]) / 2;
    printf("%.3f %.3f\n", median, t[0]);
    return 0;
}
