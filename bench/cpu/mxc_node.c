/* A Node-API addon that runs a library built by mxc inside node, so that bench/cpu/vs_ort.js
 * can interleave its runs with ONNX Runtime's (onnxruntime-node) in one process: on a shared
 * or virtual machine whose speed moves from one second to the next, only runs side by side
 * compare. Built by vs_ort.js (cc -shared, the headers of Debian's nodejs package):
 *   const m = require('./mxc_node.node');
 *   const h = m.open(LIB.so, NAME, THREADS, [INPUT.bin, ...]);   // inputs: raw files, input order
 *   const ms = m.run(h);                                          // one run, its wall time in ms
 *   const k = m.kernels(h);  // a --profile-hooks build: [{name, op, output}] a kernel; else null
 *   const t = m.profile(h);  // such a build: one run, [wall ms, kernel 0 ms, kernel 1 ms, ...]
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

#include "lib_api.h"

typedef struct {
    mxc_model* m;
    run_fn run;
    error_fn last_error;
    const void** in;
    void** out;
    num_kernels_fn num_kernels; /* these three: a --profile-hooks build's, else NULL */
    kernel_info_fn kernel_info;
    profile_fn profile;
    double* kernel_ms;
} instance;

static napi_value fail(napi_env env, const char* fmt, const char* a, const char* b) {
    char msg[8448];
    snprintf(msg, sizeof msg, fmt, a, b);
    napi_throw_error(env, NULL, msg);
    return NULL;
}

static void* sym(void* lib, const char* name, const char* what) {
    char full[288];
    snprintf(full, sizeof full, "%s_%s", name, what);
    return dlsym(lib, full);
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
    h->num_kernels = (num_kernels_fn)sym(lib, name, "num_kernels");
    h->kernel_info = (kernel_info_fn)sym(lib, name, "kernel_info");
    h->profile = (profile_fn)sym(lib, name, "profile");
    if (h->num_kernels && h->kernel_info && h->profile) h->kernel_ms = calloc(h->num_kernels() + 1, sizeof *h->kernel_ms);
    else h->profile = NULL;
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
        size_t got;
        if (!(h->in[i] = read_input(file, bytes, &got)))
            return fail(env, "mxc_node.open: %s: not the byte size of input %s", file, input);
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

static instance* handle_arg(napi_env env, napi_callback_info cb, const char* fn);

static napi_value run_lib(napi_env env, napi_callback_info cb) {
    instance* h = handle_arg(env, cb, "run");
    if (!h) return NULL;
    double start = now_ms();
    if (h->run(h->m, h->in, h->out) != MXC_OK) return fail(env, "mxc_node.run: %s%s", h->last_error(h->m), "");
    napi_value ms;
    napi_create_double(env, now_ms() - start, &ms);
    return ms;
}

static instance* handle_arg(napi_env env, napi_callback_info cb, const char* fn) {
    size_t argc = 1;
    napi_value argv[1];
    napi_get_cb_info(env, cb, &argc, argv, NULL, NULL);
    instance* h = NULL;
    if (argc != 1 || napi_get_value_external(env, argv[0], (void**)&h) != napi_ok || !h) {
        fail(env, "mxc_node.%s: want the handle open returned%s", fn, "");
        return NULL;
    }
    return h;
}

static napi_value string_or_empty(napi_env env, const char* s) {
    napi_value v;
    napi_create_string_utf8(env, s ? s : "", NAPI_AUTO_LENGTH, &v);
    return v;
}

static napi_value kernels_lib(napi_env env, napi_callback_info cb) {
    instance* h = handle_arg(env, cb, "kernels");
    if (!h) return NULL;
    napi_value list;
    if (!h->profile) {
        napi_get_null(env, &list);
        return list;
    }
    size_t n = h->num_kernels();
    napi_create_array_with_length(env, n, &list);
    for (size_t i = 0; i < n; ++i) {
        const kernel_info_head* k = h->kernel_info(i);
        napi_value o;
        napi_create_object(env, &o);
        napi_set_named_property(env, o, "name", string_or_empty(env, k ? k->name : NULL));
        napi_set_named_property(env, o, "op", string_or_empty(env, k ? k->op : NULL));
        napi_set_named_property(env, o, "output", string_or_empty(env, k ? k->output : NULL));
        napi_set_element(env, list, (uint32_t)i, o);
    }
    return list;
}

static napi_value profile_lib(napi_env env, napi_callback_info cb) {
    instance* h = handle_arg(env, cb, "profile");
    if (!h) return NULL;
    if (!h->profile) return fail(env, "mxc_node.profile: the library has no profiling hooks (build it with --profile-hooks)%s%s", "", "");
    size_t n = h->num_kernels();
    double start = now_ms();
    if (h->profile(h->m, h->in, h->out, NULL, h->kernel_ms) != MXC_OK)
        return fail(env, "mxc_node.profile: %s%s", h->last_error(h->m), "");
    double wall = now_ms() - start;
    napi_value list, v;
    napi_create_array_with_length(env, n + 1, &list);
    napi_create_double(env, wall, &v);
    napi_set_element(env, list, 0, v);
    for (size_t i = 0; i < n; ++i) {
        napi_create_double(env, h->kernel_ms[i], &v);
        napi_set_element(env, list, (uint32_t)(i + 1), v);
    }
    return list;
}

static napi_value init(napi_env env, napi_value exports) {
    napi_value f;
    napi_create_function(env, "open", NAPI_AUTO_LENGTH, open_lib, NULL, &f);
    napi_set_named_property(env, exports, "open", f);
    napi_create_function(env, "run", NAPI_AUTO_LENGTH, run_lib, NULL, &f);
    napi_set_named_property(env, exports, "run", f);
    napi_create_function(env, "kernels", NAPI_AUTO_LENGTH, kernels_lib, NULL, &f);
    napi_set_named_property(env, exports, "kernels", f);
    napi_create_function(env, "profile", NAPI_AUTO_LENGTH, profile_lib, NULL, &f);
    napi_set_named_property(env, exports, "profile", f);
    return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
