/* create fails cleanly when memory can't be had: the allocation functions the library uses
 * (calloc for the instance, aligned_alloc for the arena) are interposed here and made to fail.
 * Expects MXC_ERROR_OUT_OF_MEMORY with a message (or a NULL instance when even the instance
 * could not be allocated), never a crash. Links against libcnn.so (--name cnn). */
#include "libcnn.h"

#include <stdio.h>
#include <string.h>

extern void* __libc_calloc(size_t, size_t);
extern void* __libc_memalign(size_t, size_t);
static int fail_calloc, fail_aligned;

void* calloc(size_t n, size_t size) { return fail_calloc ? NULL : __libc_calloc(n, size); }
void* aligned_alloc(size_t align, size_t size) { return fail_aligned ? NULL : __libc_memalign(align, size); }

int main(void) {
    int bad = 0;
    mxc_model* m = (mxc_model*)1;
    fail_calloc = 1;
    mxc_status s = cnn_create(&m, NULL);
    fail_calloc = 0;
    if (s != MXC_ERROR_OUT_OF_MEMORY || m != NULL || strlen(cnn_last_error(m)) == 0) {
        fprintf(stderr, "instance allocation failure: status %d\n", (int)s);
        bad = 1;
    }
    cnn_destroy(m);
    fail_aligned = 1;
    s = cnn_create(&m, NULL);
    fail_aligned = 0;
    if (s != MXC_ERROR_OUT_OF_MEMORY || m == NULL || !strstr(cnn_last_error(m), "arena")) {
        fprintf(stderr, "arena allocation failure: status %d, message '%s'\n", (int)s, m ? cnn_last_error(m) : "");
        bad = 1;
    }
    const void* in[1] = {NULL};
    void* out[1] = {NULL};
    if (m && cnn_run(m, in, out) != MXC_ERROR_INVALID_ARGUMENT) bad = 1; /* a failed instance cannot run */
    cnn_destroy(m);
    if (cnn_create(&m, NULL) != MXC_OK) bad = 1; /* and memory back: it works again */
    cnn_destroy(m);
    printf("out-of-memory create: %s\n", bad ? "FAILED" : "clean errors");
    return bad;
}
