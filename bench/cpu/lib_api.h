/* What the C benchmarks that load a library built by mxc share (time_lib.c, ab_lib.c,
 * mxc_node.c): the types of the C API's functions, found with dlsym (the header mxc writes
 * beside a library, included first as MXC_HEADER, names them after the model), the kernel
 * table of a --profile-hooks build, a clock and a median. */
#ifndef MXC_BENCH_LIB_API_H
#define MXC_BENCH_LIB_API_H
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef mxc_status (*create_fn)(mxc_model**, const mxc_options*);
typedef void (*destroy_fn)(mxc_model*);
typedef size_t (*count_fn)(const mxc_model*);
typedef mxc_status (*info_fn)(const mxc_model*, size_t, mxc_tensor_info*);
typedef mxc_status (*run_fn)(mxc_model*, const void* const*, void* const*);
typedef const char* (*error_fn)(const mxc_model*);
typedef mxc_status (*threads_fn)(mxc_model*, int);
/* the leading fields of mxc_kernel_info (runtime-stub/hooks.hpp), which the public header does
   not declare: a --profile-hooks build's NAME_kernel_info returns a pointer to one */
typedef struct {
    const char *name, *op, *text, *inputs, *output;
} kernel_info_head;
typedef size_t (*num_kernels_fn)(void);
typedef const kernel_info_head* (*kernel_info_fn)(size_t);
typedef mxc_status (*profile_fn)(mxc_model*, const void* const*, void* const*, double*, double*);

static inline double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static inline int cmp_ms(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

/* The contents of `file` where it holds exactly `bytes` bytes (malloc'd), else NULL; *got: the
   bytes it holds (up to bytes + 1) */
static inline char* read_input(const char* file, size_t bytes, size_t* got) {
    FILE* f = fopen(file, "rb");
    char* buf = malloc(bytes + 1);
    *got = f && buf ? fread(buf, 1, bytes + 1, f) : 0;
    if (f) fclose(f);
    if (*got == bytes) return buf;
    free(buf);
    return NULL;
}

/* sorts v */
static inline double median_ms(double* v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_ms);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
#endif
