// How the time of one captured graph's run depends on its number of kernel nodes and on the
// size of their parameters: the question behind mxc's host overhead on the H200 (2026-11-26:
// 10-67 us a run, where the idle time between kernels was 7-17 us and CUPTI put the first
// kernel 48-120 us after the graph launch call, growing with the launches: 57 -> ~50 us,
// 105 -> ~95 us). Every mxc kernel takes its arguments by value (templates/hip/common.hpp,
// dev_args: about 1.8 KiB), so if the launch copies each node's parameters, a smaller
// argument block would cut the overhead.
//
// For N nodes of a one-block kernel whose parameter block is P bytes, captured from a stream,
// instantiated and uploaded once: the median over R runs of
//   wall   host time of cudaGraphLaunch + cudaStreamSynchronize
//   span   GPU time between events recorded before and after the launch
//   launch host time of the cudaGraphLaunch call alone
// and wall - span (what the host adds: launch latency and the synchronisation's wake-up), and
// the same N kernels launched one by one on the stream (no graph) for comparison.
//   nvcc -std=c++17 -O2 -arch=sm_90 bench/gpu/launch_latency.cu -o /tmp/launch_latency && /tmp/launch_latency [R]
// Prints one table row per (N, P), markdown.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                                  \
    do {                                                                                          \
        cudaError_t e_ = (x);                                                                     \
        if (e_ != cudaSuccess) {                                                                  \
            std::printf("FAIL: %s: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__);        \
            std::exit(1);                                                                         \
        }                                                                                         \
    } while (0)

template <int P> struct block_of {
    unsigned char bytes[P];
};

// Reads its parameter block's last byte (so that none of it is dead) and adds it to *sink.
template <int P> __global__ void node(block_of<P> b, int* sink) {
    if (threadIdx.x == 0) atomicAdd(sink, int(b.bytes[P - 1]));
}

double now_us() {
    using namespace std::chrono;
    return duration<double, std::micro>(steady_clock::now().time_since_epoch()).count();
}
double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

template <int P> void row(int n, int runs, cudaStream_t s, int* sink) {
    block_of<P> b{};
    b.bytes[P - 1] = 1;
    cudaGraph_t g = nullptr;
    cudaGraphExec_t exec = nullptr;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < n; ++i) node<P><<<1, 32, 0, s>>>(b, sink);
    CHECK(cudaStreamEndCapture(s, &g));
    CHECK(cudaGraphInstantiateWithFlags(&exec, g, 0));
    CHECK(cudaGraphUpload(exec, s));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    for (int i = 0; i < 20; ++i) CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    std::vector<double> wall, span, launch, direct;
    for (int r = 0; r < runs; ++r) {
        CHECK(cudaEventRecord(e0, s));
        const double t0 = now_us();
        CHECK(cudaGraphLaunch(exec, s));
        const double t1 = now_us();
        CHECK(cudaEventRecord(e1, s));
        CHECK(cudaStreamSynchronize(s));
        const double t2 = now_us();
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, e0, e1));
        wall.push_back(t2 - t0);
        launch.push_back(t1 - t0);
        span.push_back(1000.0 * ms);
    }
    for (int r = 0; r < runs; ++r) {
        const double t0 = now_us();
        for (int i = 0; i < n; ++i) node<P><<<1, 32, 0, s>>>(b, sink);
        CHECK(cudaStreamSynchronize(s));
        direct.push_back(now_us() - t0);
    }
    CHECK(cudaGetLastError());
    const double w = median(wall), sp = median(span);
    std::printf("| %d | %d | %.1f | %.1f | %.1f | %.1f | %.2f | %.1f |\n", n, P, w, sp, w - sp, median(launch), sp / n,
                median(direct));
    std::fflush(stdout);
    CHECK(cudaEventDestroy(e0));
    CHECK(cudaEventDestroy(e1));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(g));
}

int main(int argc, char** argv) {
    const int runs = argc > 1 ? std::atoi(argv[1]) : 200;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int* sink = nullptr;
    CHECK(cudaMalloc(&sink, sizeof(int)));
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, 0));
    int driver = 0, runtime = 0;
    CHECK(cudaDriverGetVersion(&driver));
    CHECK(cudaRuntimeGetVersion(&runtime));
    std::printf("device %s, driver %d, runtime %d, %d runs a row (medians, us)\n\n", prop.name, driver, runtime, runs);
    std::printf("| nodes | parameter bytes | wall | GPU span | wall - span | launch call | span / node | no graph: wall |\n");
    std::printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (int n : {1, 16, 57, 105, 200}) {
        row<16>(n, runs, s, sink);
        row<512>(n, runs, s, sink);
        row<1024>(n, runs, s, sink);
        row<2048>(n, runs, s, sink);
        row<4000>(n, runs, s, sink);
    }
    CHECK(cudaFree(sink));
    CHECK(cudaStreamDestroy(s));
    return 0;
}
