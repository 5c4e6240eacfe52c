/* A generic driver for any library mxc generated: loads it with dlopen, reads each input as
 * raw bytes from a file (sizes checked against <prefix>_input_info), runs it, and writes each
 * output as raw bytes to OUT_DIR/output_<i>.bin.
 * usage: harness LIB.so PREFIX OUT_DIR IN0.bin IN1.bin ... */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char* name;
    int dtype;
    size_t rank;
    int64_t dims[8];
    int64_t strides[8];
    size_t bytes;
} info_t;
typedef int (*create_fn)(void**, const void*);
typedef void (*destroy_fn)(void*);
typedef size_t (*count_fn)(const void*);
typedef int (*info_fn)(const void*, size_t, info_t*);
typedef int (*run_fn)(void*, const void* const*, void* const*);
typedef const char* (*error_fn)(const void*);

static void* sym(void* lib, const char* prefix, const char* name) {
    char full[256];
    snprintf(full, sizeof full, "%s_%s", prefix, name);
    void* p = dlsym(lib, full);
    if (!p) {
        fprintf(stderr, "harness: %s not found in the library\n", full);
        exit(1);
    }
    return p;
}

int main(int argc, char** argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: harness LIB.so PREFIX OUT_DIR IN0.bin ...\n");
        return 2;
    }
    void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "harness: %s\n", dlerror());
        return 1;
    }
    const char* prefix = argv[2];
    create_fn create = (create_fn)sym(lib, prefix, "create");
    destroy_fn destroy = (destroy_fn)sym(lib, prefix, "destroy");
    count_fn n_in = (count_fn)sym(lib, prefix, "num_inputs"), n_out = (count_fn)sym(lib, prefix, "num_outputs");
    info_fn in_info = (info_fn)sym(lib, prefix, "input_info"), out_info = (info_fn)sym(lib, prefix, "output_info");
    run_fn run = (run_fn)sym(lib, prefix, "run");
    error_fn last_error = (error_fn)sym(lib, prefix, "last_error");

    void* m = NULL;
    if (create(&m, NULL) != 0) {
        fprintf(stderr, "harness: create: %s\n", last_error(m));
        return 1;
    }
    size_t ni = n_in(m), no = n_out(m);
    if ((size_t)(argc - 4) != ni) {
        fprintf(stderr, "harness: the model has %zu inputs, %d given\n", ni, argc - 4);
        return 1;
    }
    const void** ins = calloc(ni + 1, sizeof(void*));
    void** outs = calloc(no + 1, sizeof(void*));
    for (size_t i = 0; i < ni; ++i) {
        info_t inf;
        in_info(m, i, &inf);
        void* buf = malloc(inf.bytes + 1);
        FILE* f = fopen(argv[4 + i], "rb");
        size_t got = f ? fread(buf, 1, inf.bytes + 1, f) : 0;
        if (f) fclose(f);
        if (got != inf.bytes) {
            fprintf(stderr, "harness: input %zu ('%s') needs %zu bytes, %s has %zu\n", i, inf.name, inf.bytes,
                    argv[4 + i], got);
            return 1;
        }
        ins[i] = buf;
    }
    for (size_t i = 0; i < no; ++i) {
        info_t inf;
        out_info(m, i, &inf);
        outs[i] = calloc(inf.bytes + 1, 1);
    }
    if (run(m, ins, outs) != 0) {
        fprintf(stderr, "harness: run: %s\n", last_error(m));
        return 1;
    }
    for (size_t i = 0; i < no; ++i) {
        info_t inf;
        out_info(m, i, &inf);
        char path[4096];
        snprintf(path, sizeof path, "%s/output_%zu.bin", argv[3], i);
        FILE* f = fopen(path, "wb");
        if (!f || fwrite(outs[i], 1, inf.bytes, f) != inf.bytes) {
            fprintf(stderr, "harness: cannot write %s\n", path);
            return 1;
        }
        fclose(f);
        printf("%s %zu bytes\n", inf.name, inf.bytes);
    }
    destroy(m);
    return 0;
}
