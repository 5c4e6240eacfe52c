// The subset of the HIP runtime API that mxc's kernel templates and runtime stub use, mapped
// onto CUDA, for building the hip sources with nvcc (Debian's HIP nvidia_detail headers do not
// build against CUDA 13). Plain macros and inline functions; nothing else of HIP is provided.
#pragma once
#include <cuda_runtime.h>

#include <atomic>
#include <cstdlib>
#include <utility>

#ifndef __HIP_PLATFORM_NVIDIA__
#define __HIP_PLATFORM_NVIDIA__ 1
#endif

typedef cudaError_t hipError_t;
typedef cudaStream_t hipStream_t;
typedef cudaEvent_t hipEvent_t;
typedef cudaMemcpyKind hipMemcpyKind;
typedef cudaGraph_t hipGraph_t;
typedef cudaGraphExec_t hipGraphExec_t;
typedef cudaStreamCaptureMode hipStreamCaptureMode;

#define hipSuccess cudaSuccess
#define hipErrorOutOfMemory cudaErrorMemoryAllocation
#define hipErrorInvalidValue cudaErrorInvalidValue
#define hipErrorInvalidConfiguration cudaErrorInvalidConfiguration
#define hipErrorInvalidHandle cudaErrorInvalidResourceHandle
#define hipErrorIllegalState cudaErrorIllegalState
#define hipErrorNotReady cudaErrorNotReady
#define hipErrorLaunchFailure cudaErrorLaunchFailure
#define hipErrorStreamCaptureUnsupported cudaErrorStreamCaptureUnsupported
#define hipErrorStreamCaptureInvalidated cudaErrorStreamCaptureInvalidated
#define hipErrorStreamCaptureImplicit cudaErrorStreamCaptureImplicit
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipMemcpyHostToHost cudaMemcpyHostToHost
#define hipMemcpyDefault cudaMemcpyDefault
#define hipStreamDefault cudaStreamDefault
#define hipStreamNonBlocking cudaStreamNonBlocking
#define hipStreamCaptureModeGlobal cudaStreamCaptureModeGlobal
#define hipStreamCaptureModeThreadLocal cudaStreamCaptureModeThreadLocal
#define hipStreamCaptureModeRelaxed cudaStreamCaptureModeRelaxed

#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipHostMalloc cudaHostAlloc
#define hipHostFree cudaFreeHost
#define hipHostMallocDefault cudaHostAllocDefault
#define hipMemcpy cudaMemcpy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemset cudaMemset
#define hipMemsetAsync cudaMemsetAsync
#define hipStreamCreate cudaStreamCreate
#define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamSynchronize cudaStreamSynchronize
#define hipStreamBeginCapture cudaStreamBeginCapture
#define hipStreamEndCapture cudaStreamEndCapture
#define hipGraphInstantiateWithFlags cudaGraphInstantiateWithFlags
#define hipGraphLaunch cudaGraphLaunch
#define hipGraphDestroy cudaGraphDestroy
#define hipGraphExecDestroy cudaGraphExecDestroy
#define hipEventCreate cudaEventCreate
#define hipEventDestroy cudaEventDestroy
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventElapsedTime cudaEventElapsedTime
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipGetDevice cudaGetDevice
#define hipSetDevice cudaSetDevice
#define hipGetDeviceCount cudaGetDeviceCount
#define hipGetLastError cudaGetLastError
#define hipPeekAtLastError cudaPeekAtLastError
#define hipGetErrorString cudaGetErrorString
#define hipGetErrorName cudaGetErrorName
#define hipDeviceReset cudaDeviceReset

// Stream capture and graphs.
typedef cudaGraph_t hipGraph_t;
typedef cudaGraphExec_t hipGraphExec_t;
typedef cudaGraphNode_t hipGraphNode_t;
typedef cudaStreamCaptureMode hipStreamCaptureMode;
typedef cudaStreamCaptureStatus hipStreamCaptureStatus;
#define hipStreamCaptureModeGlobal cudaStreamCaptureModeGlobal
#define hipStreamCaptureModeThreadLocal cudaStreamCaptureModeThreadLocal
#define hipStreamCaptureModeRelaxed cudaStreamCaptureModeRelaxed
#define hipStreamCaptureStatusNone cudaStreamCaptureStatusNone
#define hipStreamCaptureStatusActive cudaStreamCaptureStatusActive
#define hipStreamCaptureStatusInvalidated cudaStreamCaptureStatusInvalidated
#define hipStreamBeginCapture cudaStreamBeginCapture
#define hipStreamEndCapture cudaStreamEndCapture
#define hipStreamIsCapturing cudaStreamIsCapturing
#define hipGraphGetNodes cudaGraphGetNodes
#define hipGraphInstantiateWithFlags cudaGraphInstantiateWithFlags
#define hipGraphLaunch cudaGraphLaunch
#define hipGraphExecDestroy cudaGraphExecDestroy
#define hipGraphDestroy cudaGraphDestroy
// HIP's form (error node and log buffer); CUDA 12+ takes flags instead.
inline hipError_t hipGraphInstantiate(hipGraphExec_t* exec, hipGraph_t graph, hipGraphNode_t* error_node = nullptr,
                                      char* log = nullptr, size_t log_size = 0) {
    (void)error_node;
    if (log && log_size) log[0] = 0;
    return cudaGraphInstantiate(exec, graph, 0);
}

// Kernel attributes (only the dynamic shared memory a kernel may take, past 48 KiB).
#define hipFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
inline hipError_t hipFuncSetAttribute(const void* kernel, cudaFuncAttribute attr, int value) {
    return cudaFuncSetAttribute(kernel, attr, value);
}

#define hipThreadIdx_x threadIdx.x
#define hipThreadIdx_y threadIdx.y
#define hipThreadIdx_z threadIdx.z
#define hipBlockIdx_x blockIdx.x
#define hipBlockIdx_y blockIdx.y
#define hipBlockIdx_z blockIdx.z
#define hipBlockDim_x blockDim.x
#define hipBlockDim_y blockDim.y
#define hipBlockDim_z blockDim.z
#define hipGridDim_x gridDim.x
#define hipGridDim_y gridDim.y
#define hipGridDim_z gridDim.z

#define HIP_KERNEL_NAME(...) __VA_ARGS__

// Programmatic dependent launch (templates/hip/common.hpp, grid_dependency_sync: every kernel
// waits for the one before it first): with MXC_PDL=1 in the environment (read once), on a
// device of compute capability 9.0 or later, each kernel is launched with the programmatic
// stream serialization attribute, so that it may be scheduled while the kernel before it
// finishes (in a captured graph as well: CUDA 12.3+ keeps the attribute as a programmatic
// edge). Off by default: on the H200 (2026-11-24, bench/results/gpu-2026-11-24) every batch-1
// model ran slower with it (ResNet-50 fp32 1.57 against 1.49 ms, MobileNetV2 fp32 0.88 against
// 0.79, ViT-B/16 fp32 5.40 against 4.58), when each kernel let the next be scheduled before it
// waited for its own predecessor (templates/hip/common.hpp: now the other way round, not yet
// timed). The device's capability is asked once per device.
inline bool mxc_pdl_allowed() {
    static const bool on = [] {
        const char* v = getenv("MXC_PDL");
        return v != nullptr && atoi(v) > 0;
    }();
    static std::atomic<int> major_of[64]; // 0: not asked yet
    int dev = 0;
    if (!on || cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) return false;
    int major = major_of[dev].load(std::memory_order_relaxed);
    if (major == 0) {
        if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess) return false;
        major_of[dev].store(major, std::memory_order_relaxed);
    }
    return major >= 9;
}
// A launch error is left for cudaGetLastError, as with <<<...>>>. Should the driver refuse the
// attribute (not supported, invalid value) where nothing failed before, the error is cleared
// and this and every later launch go without it: the attribute is an optimisation.
inline std::atomic<bool>& mxc_pdl_refused() {
    static std::atomic<bool> refused{false};
    return refused;
}
template <class... P, class... A>
inline void mxc_cuda_launch(void (*kernel)(P...), dim3 grid, dim3 block, size_t shared, cudaStream_t stream, const A&... args) {
    if (mxc_pdl_allowed() && !mxc_pdl_refused().load(std::memory_order_relaxed)) {
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attr[0].val.programmaticStreamSerializationAllowed = 1;
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = grid;
        cfg.blockDim = block;
        cfg.dynamicSmemBytes = shared;
        cfg.stream = stream;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        const cudaError_t before = cudaPeekAtLastError();
        const cudaError_t e = cudaLaunchKernelEx(&cfg, kernel, args...);
        if (e == cudaSuccess || before != cudaSuccess || (e != cudaErrorNotSupported && e != cudaErrorInvalidValue)) return;
        (void)cudaGetLastError();
        mxc_pdl_refused().store(true, std::memory_order_relaxed);
    }
    kernel<<<grid, block, shared, stream>>>(args...);
}

// hipLaunchKernelGGL(kernel, grid, block, shared_bytes, stream, args...)
#define hipLaunchKernelGGL(kernel, grid, block, shared, stream, ...) \
    mxc_cuda_launch(kernel, dim3(grid), dim3(block), size_t(shared), (stream), ##__VA_ARGS__)
