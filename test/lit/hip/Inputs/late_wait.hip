// test/lit/hip/grid-sync.test: one kernel reads before it waits, one waits first.
__global__ void copy_late(const float* in, float* out) {
    __shared__ float s[32];
    s[threadIdx.x] = in[threadIdx.x];
    grid_dependency_sync();
    out[threadIdx.x] = s[threadIdx.x];
}
__device__ void helper(float*);
__global__ void copy_early(const float* in, float* out) {
    __shared__ float s[32];
    grid_dependency_sync();
    s[threadIdx.x] = in[threadIdx.x];
    out[threadIdx.x] = s[threadIdx.x];
}
