/* A product-side program: links the library mxc generated from examples/cnn.onnx, runs it on
 * the bundled input and prints the top-5 classes. Only the generated header and library are
 * needed: no mxc, no ONNX, no model file at run time. */
#include "libcnn.h"

#include <stdio.h>
#include <stdlib.h>

static const char* const labels[10] = {"airplane", "automobile", "bird", "cat",  "deer",
                                       "dog",      "frog",       "horse", "ship", "truck"};

int main(int argc, char** argv) {
    const char* path = argc > 1 ? argv[1] : "examples/input.bin";
    mxc_model* model = NULL;
    if (cnn_create(&model, NULL) != MXC_OK) {
        fprintf(stderr, "create failed: %s\n", cnn_last_error(model));
        return 1;
    }
    mxc_tensor_info in_info, out_info;
    if (cnn_input_info(model, 0, &in_info) != MXC_OK || cnn_output_info(model, 0, &out_info) != MXC_OK) {
        fprintf(stderr, "info failed: %s\n", cnn_last_error(model));
        return 1;
    }
    float* input = malloc(in_info.bytes);
    float* probs = malloc(out_info.bytes);
    FILE* f = fopen(path, "rb");
    if (!f || fread(input, 1, in_info.bytes, f) != in_info.bytes) {
        fprintf(stderr, "cannot read %zu bytes of input from %s\n", (size_t)in_info.bytes, path);
        return 1;
    }
    fclose(f);

    const void* inputs[1] = {input};
    void* outputs[1] = {probs};
    if (cnn_run(model, inputs, outputs) != MXC_OK) {
        fprintf(stderr, "run failed: %s\n", cnn_last_error(model));
        return 1;
    }
    printf("input '%s' [%lld, %lld, %lld, %lld], workspace %zu bytes\n", in_info.name, (long long)in_info.dims[0],
           (long long)in_info.dims[1], (long long)in_info.dims[2], (long long)in_info.dims[3], cnn_workspace_bytes());
    size_t n = out_info.bytes / sizeof(float);
    int used[10] = {0};
    printf("top-5 classes:\n");
    for (int rank = 1; rank <= 5 && rank <= (int)n; ++rank) {
        int best = -1;
        for (size_t i = 0; i < n && i < 10; ++i)
            if (!used[i] && (best < 0 || probs[i] > probs[best])) best = (int)i;
        used[best] = 1;
        printf("  %d. %-10s %.4f\n", rank, labels[best], probs[best]);
    }
    cnn_destroy(model);
    free(input);
    free(probs);
    return 0;
}
