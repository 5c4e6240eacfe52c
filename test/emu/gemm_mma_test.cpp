// Test of the matrix-unit GEMM of templates/hip/gemm.hpp (gemm_mma_kernel: the fp16
// configurations, and gemm_mma_f32, 3xTF32 under emulated wmma): batched products of odd sizes (M, N not multiples of the block tile, K not
// a multiple of BK), operands row-major or transposed (the view's fast dim), with 16-byte
// vector loads or without (odd strides, a misaligned base), through the out.store contract;
// deep products through the pipelined loop of asynchronous copies (emulated but for MFMA), B
// along N or along K.
// Compared with a double-precision host product (tolerance: fp32 accumulation of exact fp16
// products; for fp32 operands with full 24-bit mantissas the same, which one TF32 product per
// step, off by up to 2^-11, would not meet). Built for the host emulator by test/unit/test_mma.cpp (generic, emulated wmma,
// emulated MFMA, warps of 32 and 64) and compiled for sm_90 and gfx90a there.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmath>
#include <type_traits>
#include <vector>

#include "templates/hip/gemm.hpp"
#include "hip_check.hpp"

using mxc::hip::gemm_strided_view;

// Matrix z of a batch: element (r, c) at p[z * sz + r * sr + c * sc], one element further for
// batch `odd` (a batch the launcher's check of the first and last ones does not see: not a
// vector view where the others are).
template <class E> struct test_source {
    const E* p;
    int64_t sr, sc, sz, odd = -1;
    MXC_HD gemm_strided_view<E> view(int64_t z) const {
        return mxc::hip::make_strided_view(p + z * sz + (z == odd ? 1 : 0), sr, sc);
    }
};
struct test_out {
    float* c;
    int64_t m, n;
    __device__ void store(int64_t z, int64_t r, int64_t j, float v) const { c[(z * m + r) * n + j] = v; }
};


static unsigned seed = 12345;
static mxc_half random_half() {
    seed = seed * 1664525u + 1013904223u;
    return mxc_half(static_cast<float>((seed >> 8) % 2001) / 1000.0f - 1.0f);
}
// in [-1, 1) with all 24 bits of the mantissa used
static float random_float() {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<float>(seed >> 8) / 8388608.0f - 1.0f;
}
template <class E> E random_elem() {
    if constexpr (std::is_same<E, float>::value) return random_float();
    else return random_half();
}
template <class Cfg> struct elem_of { using type = typename Cfg::elem; };
template <> struct elem_of<mxc::hip::gemm_auto> { using type = mxc_half; };

// One product: A (m x k) row-major or transposed (k x m in memory), likewise B; `shift`
// elements of offset in both buffers (1: no 16-byte vectors); with `padded`, the rows in
// memory are rounded up to a multiple of 8 elements and the padding holds infinity (vectors that
// reach past the matrix edge must not count it); batch `odd` of both one element further
// (test_source). Through gemm_run (the launcher's choice of kernel and loop), or with Loop >= 0
// that gemm_mma_kernel's loop launched directly (gemm_loop), whatever the views.
template <class Cfg, int Loop = -1>
static int check(const char* name, int m, int n, int k, int z, bool ta, bool tb, int shift, bool padded = false,
                 int odd = -1) {
    using E = typename elem_of<Cfg>::type;
    auto up = [&](int x) { return padded ? (x + 7) / 8 * 8 : x; };
    const int64_t lda = up(ta ? m : k), ldb = up(tb ? k : n);
    const int64_t asz = (ta ? k : m) * lda, bsz = (tb ? n : k) * ldb;
    // batches `gap` elements apart with an odd one (gaps and row padding hold infinity)
    const int64_t gap = odd >= 0 ? 8 : 0, as = asz + gap, bs = bsz + gap;
    auto base = [&](int64_t q, int64_t size) { return shift + q * size + (q == odd ? 1 : 0); };
    std::vector<E> a(z * as + shift + 1, E(INFINITY)), b(z * bs + shift + 1, E(INFINITY));
    for (int q = 0; q < z; ++q) {
        for (int64_t e = 0; e < asz; ++e)
            if (e % lda < (ta ? m : k)) a[base(q, as) + e] = random_elem<E>();
        for (int64_t e = 0; e < bsz; ++e)
            if (e % ldb < (tb ? k : n)) b[base(q, bs) + e] = random_elem<E>();
    }
    std::vector<float> c(size_t(z) * m * n, -12345.0f);
    E *da = nullptr, *db = nullptr;
    float* dc = nullptr;
    CHECK(hipMalloc(reinterpret_cast<void**>(&da), a.size() * sizeof(E)));
    CHECK(hipMalloc(reinterpret_cast<void**>(&db), b.size() * sizeof(E)));
    CHECK(hipMalloc(reinterpret_cast<void**>(&dc), c.size() * sizeof(float)));
    CHECK(hipMemcpy(da, a.data(), a.size() * sizeof(E), hipMemcpyHostToDevice));
    CHECK(hipMemcpy(db, b.data(), b.size() * sizeof(E), hipMemcpyHostToDevice));
    CHECK(hipMemcpy(dc, c.data(), c.size() * sizeof(float), hipMemcpyHostToDevice));
    const test_source<E> sa{da + shift, ta ? 1 : lda, ta ? lda : 1, as, odd}, sb{db + shift, tb ? 1 : ldb, tb ? ldb : 1, bs, odd};
    const test_out out{dc, m, n};
    if constexpr (Loop < 0) {
        mxc::hip::gemm_run<E, Cfg>(m, n, k, z, sa, sb, out, 0); // Cfg's kernel (gemm_auto: gemm_pick's)
    } else {
        constexpr int shared = Cfg::dynamic_smem ? Cfg::smem_bytes : 0;
        mxc::hip::allow_dynamic_shared<mxc::hip::gemm_mma_kernel<Cfg, test_source<E>, test_source<E>, test_out, Loop>>(shared);
        const dim3 grid(unsigned((n + Cfg::BN - 1) / Cfg::BN), unsigned((m + Cfg::BM - 1) / Cfg::BM), unsigned(z));
        hipLaunchKernelGGL((mxc::hip::gemm_mma_kernel<Cfg, test_source<E>, test_source<E>, test_out, Loop>), grid,
                           dim3(Cfg::threads), shared, 0, int64_t(m), int64_t(n), int64_t(k), int64_t(0), int64_t(0), int64_t(z),
                           int64_t(k), sa, sb, out);
        CHECK(hipGetLastError());
    }
    CHECK(hipDeviceSynchronize());
    CHECK(hipMemcpy(c.data(), dc, c.size() * sizeof(float), hipMemcpyDeviceToHost));
    int bad = 0;
    double worst = 0;
    for (int q = 0; q < z; ++q)
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < n; ++j) {
                double ref = 0, mag = 0;
                for (int l = 0; l < k; ++l) {
                    const float x = a[base(q, as) + (ta ? l * lda + i : i * lda + l)];
                    const float y = b[base(q, bs) + (tb ? j * ldb + l : l * ldb + j)];
                    ref += double(x) * y;
                    mag += fabs(double(x) * y);
                }
                const float got = c[(size_t(q) * m + i) * n + j];
                const double err = fabs(got - ref);
                if (err / (mag + 1e-30) > worst) worst = err / (mag + 1e-30);
                if (!(err <= 1e-5 * mag + 1e-30) && bad++ < 5)
                    printf("  %s: c[%d][%d][%d] = %.7g, expected %.7g\n", name, q, i, j, got, ref);
            }
    printf("%s %dx%dx%d z=%d%s%s%s%s%s%s: %s (max relative error %.3g)\n", name, m, n, k, z, ta ? " A^T" : "", tb ? " B^T" : "",
           shift ? " unaligned" : "", padded ? " padded" : "", odd >= 0 ? " odd batch" : "",
           Loop == mxc::hip::gemm_loop_ring ? " ring loop" : Loop == mxc::hip::gemm_loop_staged ? " staged loop" : "",
           bad ? "FAIL" : "ok", worst);
    CHECK(hipFree(da));
    CHECK(hipFree(db));
    CHECK(hipFree(dc));
    return bad;
}

// C = A B for one fp32 product on the device with configuration Cfg: A m x k row-major, B k x n
// row-major (tb: n x k, B transposed in memory).
template <class Cfg>
static std::vector<float> product_f32(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k, bool tb = false) {
    std::vector<float> c(size_t(m) * n, -12345.0f);
    float *da = nullptr, *db = nullptr, *dc = nullptr;
    CHECK(hipMalloc(reinterpret_cast<void**>(&da), a.size() * sizeof(float)));
    CHECK(hipMalloc(reinterpret_cast<void**>(&db), b.size() * sizeof(float)));
    CHECK(hipMalloc(reinterpret_cast<void**>(&dc), c.size() * sizeof(float)));
    CHECK(hipMemcpy(da, a.data(), a.size() * sizeof(float), hipMemcpyHostToDevice));
    CHECK(hipMemcpy(db, b.data(), b.size() * sizeof(float), hipMemcpyHostToDevice));
    const test_source<float> sa{da, k, 1, 0};
    const test_source<float> sb = tb ? test_source<float>{db, 1, k, 0} : test_source<float>{db, n, 1, 0};
    mxc::hip::gemm_run<float, Cfg>(m, n, k, 1, sa, sb, test_out{dc, m, n}, 0);
    CHECK(hipDeviceSynchronize());
    CHECK(hipMemcpy(c.data(), dc, c.size() * sizeof(float), hipMemcpyDeviceToHost));
    CHECK(hipFree(da));
    CHECK(hipFree(db));
    CHECK(hipFree(dc));
    return c;
}

// A NaN in A or B makes its row or column of C NaN whatever its payload (0x7fffffff, the
// NaN a GPU's arithmetic makes, rounds to -0 as a TF32 number: the 3xTF32 split must keep it
// in the small part); the rest of C finite.
template <class Cfg> static int check_nan(const char* name, uint32_t bits) {
    const int m = 20, n = 24, k = 40;
    std::vector<float> a(m * k), b(k * n);
    for (float& x : a) x = random_float();
    for (float& x : b) x = random_float();
    float nan;
    memcpy(&nan, &bits, sizeof nan);
    a[3 * k + 5] = nan;
    b[7 * n + 11] = nan;
    const std::vector<float> c = product_f32<Cfg>(a, b, m, n, k);
    int bad = 0;
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j)
            if (std::isnan(c[i * n + j]) != (i == 3 || j == 11) && bad++ < 5)
                printf("  %s: NaN 0x%08x: c[%d][%d] = %g\n", name, unsigned(bits), i, j, c[i * n + j]);
    printf("%s NaN 0x%08x in A and B: %s\n", name, unsigned(bits), bad ? "FAIL" : "ok");
    return bad;
}

// Infinities and a finite operand whose TF32 rounding overflows (FLT_MAX: big inf, small -inf)
// give IEEE's results: C[i][j] as a double product of the same operands classifies it (inf of
// its sign, NaN, or finite and within the tolerance). 3xTF32 gives NaN for every product of an
// infinity, and gemm_mma_kernel works the NaN sums out again (mma_tile<float>::nan_recheck);
// before, an infinity's small part was 0, and the row of A's infinity still came out NaN
// wherever B's element was a TF32 number (0.5 here) or its small part of the other sign than
// its big one (about half the columns), the row of FLT_MAX everywhere.
template <class Cfg> static int check_inf(const char* name, bool tb) {
    const int m = 40, n = 72, k = 90;
    std::vector<float> a(m * k), b(k * n);
    for (float& x : a) x = random_float();
    for (float& x : b) x = random_float();
    auto bat = [&](int r, int j) -> float& { return tb ? b[j * k + r] : b[r * n + j]; };
    a[3 * k + 5] = INFINITY;
    a[9 * k + 5] = -INFINITY;
    a[21 * k + 33] = 3.4028235e38f; // FLT_MAX
    a[30 * k + 60] = -INFINITY;
    a[30 * k + 61] = INFINITY; // row 30: inf - inf (NaN) where both B elements share a sign
    bat(7, 11) = -INFINITY;
    bat(5, 20) = 0.5f;         // a TF32 number: inf x 0.5 was NaN
    bat(5, 40) = 0.0f;         // inf x 0 is NaN
    bat(33, 50) = 0.5f;
    const std::vector<float> c = product_f32<Cfg>(a, b, m, n, k, tb);
    int bad = 0, special = 0;
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            double ref = 0.0, mag = 0.0;
            for (int q = 0; q < k; ++q) {
                ref += double(a[i * k + q]) * double(bat(q, j));
                mag += std::fabs(double(a[i * k + q]) * double(bat(q, j)));
            }
            const float got = c[i * n + j];
            const bool ok = std::isnan(ref) ? std::isnan(got)
                            : std::isinf(ref) ? got == float(ref)
                                              : std::isfinite(got) && std::fabs(got - ref) <= 1e-5 * mag + 1e-30;
            special += !std::isfinite(ref);
            if (!ok && bad++ < 5) printf("  %s: c[%d][%d] = %g, expected %g\n", name, i, j, got, ref);
        }
    printf("%s infinities and FLT_MAX%s: %s (%d results not finite)\n", name, tb ? " B^T" : "", bad ? "FAIL" : "ok", special);
    return bad;
}

// A deep product of positive operands (every sum grows, K = 3072: ViT-B/16's fc2), against a
// double product, within 4e-6 of each result: about what an fp32 FMA loop in K order gives
// (its roundings to nearest mostly cancel). The matrix unit's sums truncate (the emulator's
// wmma too, runtime-stub/emu/mma.hpp): one running sum through the 1152 products of three
// TF32 mma a k step lost about half an ulp of itself to each, 2.7e-5 of it in all here (4.1e-5 on the
// H200, 2026-11-26, 3.1e-3 of -76.27 at K = 3072), so the kernel adds each k-tile's products
// to its sums with rounding (mma_tile<float>::rz_sums).
template <class Cfg> static int check_deep(const char* name, int k) {
    const int m = 40, n = 72;
    std::vector<float> a(m * k), b(k * n);
    for (float& x : a) x = 0.5f * (random_float() + 1.0f);
    for (float& x : b) x = 0.5f * (random_float() + 1.0f);
    const std::vector<float> c = product_f32<Cfg>(a, b, m, n, k);
    int bad = 0;
    double worst = 0;
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            double ref = 0.0;
            for (int q = 0; q < k; ++q) ref += double(a[i * k + q]) * double(b[q * n + j]);
            const double err = std::fabs(c[i * n + j] - ref) / ref;
            if (err > worst) worst = err;
            if (!(err <= 4e-6) && bad++ < 5) printf("  %s: c[%d][%d] = %.9g, expected %.9g\n", name, i, j, c[i * n + j], ref);
        }
    printf("%s %dx%dx%d of positive operands: %s (max relative error %.3g)\n", name, m, n, k, bad ? "FAIL" : "ok", worst);
    return bad;
}

int main() {
    using mxc::hip::gemm_mma_large;
    using mxc::hip::gemm_mma_small;
    int bad = 0;
    bad += check<gemm_mma_large>("large", 128, 128, 64, 1, false, false, 0);  // whole tiles, vectors
    bad += check<gemm_mma_large>("large", 130, 136, 72, 2, false, false, 0);  // edges in M, N, K; batched
    bad += check<gemm_mma_large>("large", 129, 200, 37, 1, true, false, 0);   // A transposed, odd K (no vectors)
    bad += check<gemm_mma_large>("large", 72, 144, 40, 2, false, true, 1);    // B transposed, misaligned
    bad += check<gemm_mma_large>("large", 40, 24, 8, 1, true, true, 0);      // one partial tile, K < 16
    bad += check<gemm_mma_large>("large", 131, 133, 45, 2, false, false, 0, true); // vectors over the K and N edges
    bad += check<gemm_mma_large>("large", 77, 130, 21, 1, false, true, 0, true);  // K the fast dim of both
    bad += check<gemm_mma_small>("small", 64, 64, 32, 1, false, false, 0);
    bad += check<gemm_mma_small>("small", 50, 61, 27, 2, true, true, 0, true);
    bad += check<gemm_mma_small>("small", 70, 33, 45, 3, false, true, 0);
    bad += check<gemm_mma_small>("small", 17, 130, 96, 1, true, false, 0);
    bad += check<gemm_mma_small>("small", 100, 72, 40, 1, false, false, 1);
    // both operands 16-byte vectors along their rows: the pipelined loop where there are
    // asynchronous copies (many k-tiles through the ring of stages; fewer tiles than stages;
    // vectors over the M, N and K edges)
    bad += check<gemm_mma_small>("small", 96, 136, 1000, 1, false, false, 0);
    bad += check<gemm_mma_small>("small", 70, 72, 75, 2, false, false, 0, true);
    bad += check<gemm_mma_small>("small", 64, 64, 8, 1, false, false, 0, true);
    bad += check<gemm_mma_small>("small", 33, 40, 203, 3, false, false, 0, true);
    // B's rows along K (B^T in memory, 16-byte vectors along K): the pipelined loop stages B
    // transposed (n-major) and loads its fragments as such
    bad += check<gemm_mma_small>("small", 96, 136, 1000, 1, false, true, 0);
    bad += check<gemm_mma_small>("small", 70, 72, 75, 2, false, true, 0, true);
    bad += check<gemm_mma_small>("small", 64, 64, 8, 1, false, true, 0, true);
    bad += check<gemm_mma_small>("small", 33, 130, 203, 3, false, true, 0, true);
    // gemm_mma_large_ring: the large tile with four stages in 80 KiB of dynamic shared memory;
    // the pipelined loop (B along N or along K; fewer k-tiles than stages; edges), and the
    // register-staged one in the same memory (transposed A, misaligned)
    using mxc::hip::gemm_mma_large_ring;
    bad += check<gemm_mma_large_ring>("large-ring", 256, 136, 1000, 1, false, false, 0);
    bad += check<gemm_mma_large_ring>("large-ring", 131, 133, 75, 2, false, false, 0, true);
    bad += check<gemm_mma_large_ring>("large-ring", 200, 260, 456, 1, false, true, 0);
    bad += check<gemm_mma_large_ring>("large-ring", 77, 130, 21, 1, false, true, 0, true);
    bad += check<gemm_mma_large_ring>("large-ring", 129, 200, 37, 1, true, false, 0);
    bad += check<gemm_mma_large_ring>("large-ring", 72, 144, 40, 2, false, true, 1);
    bad += check<mxc::hip::gemm_auto>("auto", 65, 70, 50, 2, false, false, 0);
    // fp32 operands (gemm_mma_f32): the register-staged loop (transposed A, misaligned, odd
    // strides), the pipelined one (both operands vectors along their rows, B along N or K),
    // edges in M, N and K, batches, deep K
    using mxc::hip::gemm_mma_f32;
    bad += check<gemm_mma_f32>("f32", 64, 64, 16, 1, false, false, 0);
    bad += check<gemm_mma_f32>("f32", 130, 72, 45, 2, false, false, 0, true);
    bad += check<gemm_mma_f32>("f32", 96, 136, 1000, 1, false, false, 0);
    bad += check<gemm_mma_f32>("f32", 96, 136, 1000, 1, false, true, 0);
    bad += check<gemm_mma_f32>("f32", 33, 130, 203, 3, false, true, 0, true);
    bad += check<gemm_mma_f32>("f32", 50, 61, 27, 2, true, true, 0, true);
    bad += check<gemm_mma_f32>("f32", 70, 33, 45, 3, true, false, 1);
    bad += check<gemm_mma_f32>("f32", 17, 20, 6, 1, false, false, 0);
    // fp32 on 8 warps (the tuning candidate mma:64x64x16/2x4; gemm_mma_f32 took 8 warps of 32 x 16
    // until 2026-11-28) and 4 warps of 64 x 32 (mma:128x64x16/4x4x128)
    // and 32 deep (gemm_mma_f32_deep: 72 KiB of dynamic shared memory)
    using mxc::hip::gemm_mma_f32_deep;
    bad += check<gemm_mma_f32_deep>("f32-deep", 96, 136, 1000, 1, false, true, 0);
    bad += check<gemm_mma_f32_deep>("f32-deep", 33, 130, 203, 3, false, false, 0, true);
    bad += check<gemm_mma_f32_deep>("f32-deep", 70, 33, 45, 3, true, false, 1);
    bad += check<gemm_mma_f32_deep, mxc::hip::gemm_loop_ring>("f32-deep", 70, 33, 45, 3, true, false, 1);
    for (uint32_t bits : {0x7fffffffu, 0x7fc00000u, 0xffc00000u, 0x7f800001u}) bad += check_nan<gemm_mma_f32_deep>("f32-deep", bits);
    bad += check_inf<gemm_mma_f32_deep>("f32-deep", false);
    bad += check_inf<gemm_mma_f32_deep>("f32-deep", true);
    bad += check_inf<gemm_mma_f32>("f32", false);
    bad += check_deep<gemm_mma_f32_deep>("f32-deep", 3072);
    bad += check_deep<gemm_mma_f32>("f32", 3072);
    using f32_8_warps = mxc::hip::gemm_mma_config<64, 64, 2, 1, 16, 4, float>;
    using f32_wide = mxc::hip::gemm_mma_config<128, 64, 4, 2, 16, 4, float, 128>;
    bad += check<f32_8_warps>("f32-8-warps", 130, 72, 45, 2, false, false, 0, true);
    bad += check<f32_8_warps>("f32-8-warps", 96, 136, 1000, 1, false, true, 0);
    bad += check<f32_wide>("f32-wide", 197, 72, 45, 2, false, false, 0, true);
    bad += check<f32_wide>("f32-wide", 96, 136, 300, 1, true, true, 0);
    // the loop the launcher picks on the host (gemm_ring_views), and each kernel's loop whatever
    // the views: a batch past the host's checks that is not a vector view takes the ring
    // kernel's fallback; the ring kernel with views that are not vectors (transposed A,
    // misaligned) runs the fallback in every block; the staged kernel with vector views
    using mxc::hip::gemm_loop_ring;
    using mxc::hip::gemm_loop_staged;
#if defined(MXC_MMA_GENERIC) // (302 blocks: minutes under the emulated wmma; the loops do not depend on the mma path)
    bad += check<gemm_mma_small>("small", 20, 24, 40, 302, false, false, 0, false, 300);
    bad += check<gemm_mma_f32>("f32", 20, 24, 40, 302, false, true, 0, false, 300);
#endif
    bad += check<gemm_mma_small, gemm_loop_ring>("small", 70, 33, 45, 3, true, false, 0);
    bad += check<gemm_mma_small, gemm_loop_ring>("small", 100, 72, 40, 2, false, false, 1);
    bad += check<gemm_mma_large_ring, gemm_loop_ring>("large-ring", 131, 133, 75, 2, true, true, 0, true);
    bad += check<gemm_mma_f32, gemm_loop_ring>("f32", 70, 33, 45, 3, true, false, 1);
    bad += check<gemm_mma_small, gemm_loop_staged>("small", 96, 136, 200, 1, false, false, 0);
    bad += check<gemm_mma_large_ring, gemm_loop_staged>("large-ring", 131, 133, 75, 2, false, true, 0, true);
    bad += check<gemm_mma_f32, gemm_loop_staged>("f32", 33, 130, 203, 3, false, false, 0, true);
    printf(bad ? "FAILED\n" : "PASSED\n");
    return bad ? 1 : 0;
}
