/* A Node-API addon that runs a library built by mxc inside node, so that bench/cpu/vs_ort.js
 * can interleave its runs with ONNX Runtime's (onnxruntime-node) in one process: on a shared
 * or virtual machine whose speed moves from one second to the next, only runs side by side
 * compare. Built by vs_ort.js (cc -shared, the headers of Debian's nodejs package):
 *   const m = require('./mxc_node.node');
 *   const h = m.open(LIB.so, NAME, THREADS, [INPUT.bin, ...]);   // inputs: raw files, input order
 *   const ms = m.run(h);                                          // one run, its wall time in ms
 * The functions are found with dlsym (the header names them after the model). Errors throw.
 * The instance lives as long as the process. */
#include <dlfcn.h>
#include <node_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include MXC_HEADER

typedef mxc_status (*create_fn)(mxc_model**, const mxc_options*);
typedef size_t (*count_fn)(const mxc_model*);
typedef mxc_status (*info_fn)(const mxc_model*, size_t, mxc_tensor_info*);
typedef mxc_status (*run_fn)(mxc_model*, const void* const*, void* const*);
typedef const char* (*error_fn)(const mxc_model*);
typedef mxc_status (*threads_fn)(mxc_model*, int);

typedef struct {
    mxc_model* m;
    run_fn run;
    error_fn last_error;
    const void** in;
    void** out;
} instance;

static napi_value fail(napi_env env, const char* fmt, const char* a, const char* b) {
    char msg[512];
    snprintf(msg, sizeof msg, fmt, a, b);
    napi_throw_error(env, NULL, msg);
    return NULL;
}

static void* sym(void* lib, const char* name, const char* what) {
    char full[256];
    snprintf(full, sizeof full, "%s_%s", name, what);
    return dlsym(lib, full);
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* the byte size of input or output i (and its name), (size_t)-1 if the library has none */
static size_t info_bytes(info_fn f, const mxc_model* m, size_t i, const char** name) {
    mxc_tensor_info info;
    if (f(m, i, &info) != MXC_OK) return (size_t)-1;
    *name = info.name;
    return info.bytes;
}

static napi_value open_lib(napi_env env, napi_callback_info cb) {
    size_t argc = 4;
    napi_value argv[4];
    napi_get_cb_info(env, cb, &argc, argv, NULL, NULL);
    if (argc != 4) return fail(env, "mxc_node.open: want (lib, name, threads, [inputs])%s%s", "", "");
    char path[4096], name[256];
    size_t len;
    int32_t threads;
    if (napi_get_value_string_utf8(env, argv[0], path, sizeof path, &len) != napi_ok ||
        napi_get_value_string_utf8(env, argv[1], name, sizeof name, &len) != napi_ok ||
        napi_get_value_int32(env, argv[2], &threads) != napi_ok)
        return fail(env, "mxc_node.open: want (lib: string, name: string, threads: number, inputs)%s%s", "", "");
    void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) return fail(env, "mxc_node.open: %s%s", dlerror(), "");
    create_fn create = (create_fn)sym(lib, name, "create");
    count_fn num_in = (count_fn)sym(lib, name, "num_inputs"), num_out = (count_fn)sym(lib, name, "num_outputs");
    info_fn in_info = (info_fn)sym(lib, name, "input_info"), out_info = (info_fn)sym(lib, name, "output_info");
    threads_fn set_threads = (threads_fn)sym(lib, name, "set_num_threads");
    instance* h = calloc(1, sizeof *h);
    h->run = (run_fn)sym(lib, name, "run");
    h->last_error = (error_fn)sym(lib, name, "last_error");
    if (!create || !num_in || !num_out || !in_info || !out_info || !set_threads || !h->run || !h->last_error)
        return fail(env, "mxc_node.open: %s has no model named %s", path, name);
    if (create(&h->m, NULL) != MXC_OK) return fail(env, "mxc_node.open: %s: create failed%s", path, "");
    if (set_threads(h->m, threads) != MXC_OK) return fail(env, "mxc_node.open: set_num_threads: %s%s", h->last_error(h->m), "");
    uint32_t files = 0;
    napi_get_array_length(env, argv[3], &files);
    size_t ni = num_in(h->m), no = num_out(h->m);
    if (files != ni) return fail(env, "mxc_node.open: %s wants one input file per input (%s)", path, "count differs");
    h->in = calloc(ni + 1, sizeof *h->in);
    h->out = calloc(no + 1, sizeof *h->out);
    for (uint32_t i = 0; i < files; ++i) {
        napi_value v;
        char file[4096];
        napi_get_element(env, argv[3], i, &v);
        if (napi_get_value_string_utf8(env, v, file, sizeof file, &len) != napi_ok)
            return fail(env, "mxc_node.open: an input file name is not a string%s%s", "", "");
        const char* input = "";
        size_t bytes = info_bytes(in_info, h->m, i, &input);
        FILE* f = fopen(file, "rb");
        char* buf = malloc(bytes + 1);
        size_t got = f ? fread(buf, 1, bytes + 1, f) : 0;
        if (f) fclose(f);
        if (got != bytes) return fail(env, "mxc_node.open: %s: not the byte size of input %s", file, input);
        h->in[i] = buf;
    }
    for (size_t j = 0; j < no; ++j) {
        const char* output = "";
        size_t bytes = info_bytes(out_info, h->m, j, &output);
        h->out[j] = malloc(bytes ? bytes : 1);
    }
    napi_value ext;
    napi_create_external(env, h, NULL, NULL, &ext);
    return ext;
}

static napi_value run_lib(napi_env env, napi_callback_info cb) {
    size_t argc = 1;
    napi_value argv[1];
    napi_get_cb_info(env, cb, &argc, argv, NULL, NULL);
    instance* h = NULL;
    if (argc != 1 || napi_get_value_external(env, argv[0], (void**)&h) != napi_ok || !h)
        return fail(env, "mxc_node.run: want the handle open returned%s%s", "", "");
    double start = now_ms();
    if (h->run(h->m, h->in, h->out) != MXC_OK) return fail(env, "mxc_node.run: %s%s", h->last_error(h->m), "");
    napi_value ms;
    napi_create_double(env, now_ms() - start, &ms);
    return ms;
}

static napi_value init(napi_env env, napi_value exports) {
    napi_value f;
    napi_create_function(env, "open", NAPI_AUTO_LENGTH, open_lib, NULL, &f);
    napi_set_named_property(env, exports, "open", f);
    napi_create_function(env, "run", NAPI_AUTO_LENGTH, run_lib, NULL, &f);
    napi_set_named_property(env, exports, "run", f);
    return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
