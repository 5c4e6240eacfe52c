/* Concurrency test of a generated cpu library (examples/cnn.onnx compiled with --name cnn):
 * several threads, each with its own instance, run different inputs at the same time, and
 * one more instance is shared by two threads under a lock (serialised use is allowed). The
 * odd threads' instances and the shared one run with their own thread pools
 * (cnn_set_num_threads 2 and 3). Every output must be byte-identical to a single-threaded run. Built with -fsanitize=thread by
 * test/e2e/library_sanitizers.sh. usage: threads INPUT.bin */
#include "libcnn.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { THREADS = 4, INPUTS = 6, ROUNDS = 3 };
static size_t in_bytes, out_bytes;
static float* inputs[INPUTS];
static float* expected[INPUTS];
static mxc_model* shared;
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;

static int run_one(mxc_model* m, int k, float* out) {
    const void* in[1] = {inputs[k]};
    void* outs[1] = {out};
    if (cnn_run(m, in, outs) != MXC_OK) {
        fprintf(stderr, "run failed: %s\n", cnn_last_error(m));
        return 1;
    }
    return 0;
}

static void* worker(void* arg) {
    long id = (long)arg;
    long bad = 0;
    mxc_model* m = NULL;
    if (cnn_create(&m, NULL) != MXC_OK) {
        fprintf(stderr, "create failed: %s\n", cnn_last_error(m));
        cnn_destroy(m);
        return (void*)1;
    }
    if (id % 2 && cnn_set_num_threads(m, 2) != MXC_OK) {
        fprintf(stderr, "set_num_threads failed: %s\n", cnn_last_error(m));
        cnn_destroy(m);
        return (void*)1;
    }
    float* out = malloc(out_bytes);
    for (int r = 0; r < ROUNDS; ++r)
        for (int i = 0; i < INPUTS; ++i) {
            int k = (int)((i + id) % INPUTS);
            if (run_one(m, k, out) || memcmp(out, expected[k], out_bytes) != 0) ++bad;
            if (id < 2) { /* two threads also take turns on the shared instance */
                pthread_mutex_lock(&shared_lock);
                if (run_one(shared, k, out) || memcmp(out, expected[k], out_bytes) != 0) ++bad;
                pthread_mutex_unlock(&shared_lock);
            }
        }
    free(out);
    cnn_destroy(m);
    return (void*)bad;
}

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    mxc_model* m = NULL;
    mxc_tensor_info ii, oi;
    if (cnn_create(&m, NULL) != MXC_OK || cnn_input_info(m, 0, &ii) != MXC_OK || cnn_output_info(m, 0, &oi) != MXC_OK) {
        fprintf(stderr, "setup failed: %s\n", cnn_last_error(m));
        return 1;
    }
    in_bytes = ii.bytes;
    out_bytes = oi.bytes;
    FILE* f = fopen(argv[1], "rb");
    float* base = malloc(in_bytes);
    if (!f || fread(base, 1, in_bytes, f) != in_bytes) return 1;
    fclose(f);
    for (int k = 0; k < INPUTS; ++k) { /* different inputs: the base scaled and shifted */
        inputs[k] = malloc(in_bytes);
        expected[k] = malloc(out_bytes);
        for (size_t j = 0; j < in_bytes / sizeof(float); ++j) inputs[k][j] = base[j] * (1.0f + 0.25f * k) - 0.1f * k;
        if (run_one(m, k, expected[k])) return 1;
    }
    if (memcmp(expected[0], expected[1], out_bytes) == 0) {
        fprintf(stderr, "different inputs gave the same output: the test would prove nothing\n");
        return 1;
    }
    if (cnn_set_num_threads(m, -1) == MXC_OK) {
        fprintf(stderr, "set_num_threads accepted -1\n");
        return 1;
    }
    if (cnn_create(&shared, NULL) != MXC_OK || cnn_set_num_threads(shared, 3) != MXC_OK) return 1;
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; ++i) pthread_create(&t[i], NULL, worker, (void*)i);
    long bad = 0;
    for (int i = 0; i < THREADS; ++i) {
        void* r;
        pthread_join(t[i], &r);
        bad += (long)r;
    }
    cnn_destroy(shared);
    cnn_destroy(m);
    printf("%d threads x %d runs: %ld mismatches\n", THREADS, ROUNDS * INPUTS, bad);
    return bad != 0;
}
