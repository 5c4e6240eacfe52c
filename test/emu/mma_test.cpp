// Test kernels of templates/hip/mma.hpp: one warp multiplies 16xK by Kx16 halves straight from
// global memory, and a block GEMM (64x64 block tile, four warps of 32x32, shared-memory staging
// with zero fill at the edges) of odd sizes. Results are compared with a double-precision host
// product; the tolerance is that of fp32 accumulation of exact fp16 products.
// Built for the host emulator by test/emu/mma.test (generic, emulated wmma, emulated MFMA),
// and compiled (not run) for sm_90 and gfx90a as a check that the vendor paths build.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "templates/hip/mma.hpp"
#include "hip_check.hpp"

#include <type_traits>

using mt = mxc::hip::mma_tile<mxc_half>;

__global__ void warp_size_kernel(int* out) { *out = warpSize; }

// c[16x16] = a[16xk] * b[kx16]; k a multiple of 16; one warp. BT: b holds B transposed
// (b[n][k], 16 x k, k fastest), loaded with mt::load_bt.
template <bool BT> __global__ void mma_warp_kernel(const mxc_half* a, const mxc_half* b, float* c, int k) {
    mt::frag_a fa;
    std::conditional_t<BT, mt::frag_bt, mt::frag_b> fb;
    mt::frag_acc acc;
    mt::zero(acc);
    for (int k0 = 0; k0 < k; k0 += mt::K) {
        mt::load_a(fa, a + k0, k);
        if constexpr (BT) mt::load_bt(fb, b + k0, k);
        else mt::load_b(fb, b + k0 * 16, 16);
        mt::mma(acc, fa, fb);
    }
    mt::store(c, 16, acc);
}

// c[m x n] = a[m x k] * b[k x n], all row-major; blocks of 4 warps, each block a 64x64 tile.
__global__ void mma_block_kernel(const mxc_half* a, const mxc_half* b, float* c, int m, int n, int k) {
    constexpr int bt = 64, lda = 16 + 8, ldb = bt + 8, ldc = bt + 4; // padded rows, 32-byte aligned tiles
    alignas(32) __shared__ mxc_half as[bt * lda];
    alignas(32) __shared__ mxc_half bs[16 * ldb];
    alignas(32) __shared__ float cs[bt * ldc];
    const int tid = threadIdx.x, nthreads = blockDim.x, warp = tid / warpSize;
    const int row0 = blockIdx.y * bt, col0 = blockIdx.x * bt;
    const int wr = (warp / 2) * 32, wc = (warp % 2) * 32; // this warp's 32x32 part of the block tile
    mt::frag_a fa;
    mt::frag_b fb;
    mt::frag_acc acc[2][2];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) mt::zero(acc[i][j]);
    for (int k0 = 0; k0 < k; k0 += 16) {
        for (int e = tid; e < bt * 16; e += nthreads) {
            const int r = e / 16, kk = e % 16, gr = row0 + r, gk = k0 + kk;
            as[r * lda + kk] = gr < m && gk < k ? a[gr * k + gk] : mxc_half(0.0f);
        }
        for (int e = tid; e < 16 * bt; e += nthreads) {
            const int kk = e / bt, cc = e % bt, gk = k0 + kk, gc = col0 + cc;
            bs[kk * ldb + cc] = gk < k && gc < n ? b[gk * n + gc] : mxc_half(0.0f);
        }
        mxc::hip::block_sync();
        for (int i = 0; i < 2; ++i) {
            mt::load_a(fa, as + (wr + 16 * i) * lda, lda);
            for (int j = 0; j < 2; ++j) {
                mt::load_b(fb, bs + wc + 16 * j, ldb);
                mt::mma(acc[i][j], fa, fb);
            }
        }
        mxc::hip::block_sync();
    }
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) mt::store(cs + (wr + 16 * i) * ldc + wc + 16 * j, ldc, acc[i][j]);
    mxc::hip::block_sync();
    for (int e = tid; e < bt * bt; e += nthreads) {
        const int r = e / bt, cc = e % bt;
        if (row0 + r < m && col0 + cc < n) c[(row0 + r) * n + col0 + cc] = cs[r * ldc + cc];
    }
}


template <class T> static T* to_device(const std::vector<T>& v) {
    T* p = nullptr;
    CHECK(hipMalloc(reinterpret_cast<void**>(&p), v.size() * sizeof(T)));
    CHECK(hipMemcpy(p, v.data(), v.size() * sizeof(T), hipMemcpyHostToDevice));
    return p;
}

static std::vector<mxc_half> random_halves(size_t n, unsigned& seed) {
    std::vector<mxc_half> v(n);
    for (auto& x : v) {
        seed = seed * 1664525u + 1013904223u;
        x = mxc_half(static_cast<float>((seed >> 8) % 2001) / 1000.0f - 1.0f);
    }
    return v;
}

// Compares c with the double product of a (m x k) and b (k x n); returns the number of bad entries.
static int compare(const char* name, const std::vector<mxc_half>& a, const std::vector<mxc_half>& b,
                   const std::vector<float>& c, int m, int n, int k) {
    int bad = 0;
    double worst = 0;
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            double ref = 0, mag = 0;
            for (int q = 0; q < k; ++q) {
                const double p = static_cast<double>(static_cast<float>(a[i * k + q])) * static_cast<float>(b[q * n + j]);
                ref += p;
                mag += fabs(p);
            }
            const double err = fabs(c[i * n + j] - ref), tol = 1e-5 * mag + 1e-30;
            if (err / (mag + 1e-30) > worst) worst = err / (mag + 1e-30);
            if (!(err <= tol) && bad++ < 5) printf("  %s: c[%d][%d] = %.7g, expected %.7g\n", name, i, j, c[i * n + j], ref);
        }
    printf("%s %dx%dx%d: %s (max relative error %.3g)\n", name, m, n, k, bad ? "FAIL" : "ok", worst);
    return bad;
}

// With the argument "misaligned": one warp op on an A tile that is not 32-byte aligned (the
// emulated wmma must reject it; the other paths do not care).
int main(int argc, char** argv) {
    const bool misaligned = argc > 1 && std::string(argv[1]) == "misaligned";
    unsigned seed = 12345;
    int* dw = nullptr;
    int warp = 0;
    CHECK(hipMalloc(reinterpret_cast<void**>(&dw), sizeof(int)));
    hipLaunchKernelGGL(warp_size_kernel, dim3(1), dim3(1), 0, 0, dw);
    CHECK(hipMemcpy(&warp, dw, sizeof(int), hipMemcpyDeviceToHost));
    printf("warp size %d\n", warp);
    int bad = 0;
    { // one warp, k = 48
        const int k = 48;
        auto a = random_halves(16 * k + 8, seed), b = random_halves(k * 16, seed); // + 8: room for the misaligned case
        std::vector<float> c(16 * 16, -1.0f);
        mxc_half *da = to_device(a), *db = to_device(b);
        float* dc = to_device(c);
        hipLaunchKernelGGL(mma_warp_kernel<false>, dim3(1), dim3(warp), 0, 0, da + (misaligned ? 8 : 0), db, dc, k);
        if (misaligned) {
            CHECK(hipDeviceSynchronize());
            printf("misaligned tile accepted\n");
            return 0;
        }
        CHECK(hipMemcpy(c.data(), dc, c.size() * sizeof(float), hipMemcpyDeviceToHost));
        bad += compare("warp", a, b, c, 16, 16, k);
        std::vector<mxc_half> bt(16 * k); // b transposed
        for (int q = 0; q < k; ++q)
            for (int j = 0; j < 16; ++j) bt[j * k + q] = b[q * 16 + j];
        mxc_half* dbt = to_device(bt);
        hipLaunchKernelGGL(mma_warp_kernel<true>, dim3(1), dim3(warp), 0, 0, da, dbt, dc, k);
        CHECK(hipMemcpy(c.data(), dc, c.size() * sizeof(float), hipMemcpyDeviceToHost));
        bad += compare("warp B^T", a, b, c, 16, 16, k);
    }
    const int sizes[][3] = {{64, 64, 40}, {100, 72, 40}, {17, 130, 9}};
    for (auto& s : sizes) { // blocks of four warps; edges in m, n and k
        const int m = s[0], n = s[1], k = s[2];
        auto a = random_halves(static_cast<size_t>(m) * k, seed), b = random_halves(static_cast<size_t>(k) * n, seed);
        std::vector<float> c(static_cast<size_t>(m) * n, -1.0f);
        mxc_half *da = to_device(a), *db = to_device(b);
        float* dc = to_device(c);
        hipLaunchKernelGGL(mma_block_kernel, dim3((n + 63) / 64, (m + 63) / 64), dim3(4 * warp), 0, 0, da, db, dc, m, n, k);
        CHECK(hipMemcpy(c.data(), dc, c.size() * sizeof(float), hipMemcpyDeviceToHost));
        bad += compare("block", a, b, c, m, n, k);
    }
    printf(bad ? "FAILED\n" : "PASSED\n");
    return bad ? 1 : 0;
}
