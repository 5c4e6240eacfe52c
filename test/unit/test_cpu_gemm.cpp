// The cpu blocked GEMM (templates/cpu/gemm.hpp) against a plain double loop: both kernels
// (base, and avx2 where this CPU has AVX2 and FMA), A read in place and packed (strided,
// half), partial strips (a last strip of at most gemm_tail_max columns as dot products when A
// is read in place, k with and without a remainder of the vector width), several depth
// slices, every block split gemm_plan can make (the
// results must not depend on it), and the fused epilogue's run() (templates/cpu/fused.hpp)
// against the same epilogue element by element.
#include "runtime-stub/thread_pool.hpp"
#include "templates/cpu/dot.hpp"
#include "templates/cpu/fused.hpp"
#include "templates/cpu/gemm.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

namespace {

using mxc::cpu::gemm_isa;

double value(uint32_t& seed) {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<double>((seed >> 8) % 2000) / 1000.0 - 1.0;
}

bool cpu_has_avx2() {
#if MXC_GEMM_AVX2
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
}

bool cpu_has_avx512() {
#if MXC_GEMM_AVX2
    __builtin_cpu_init();
    return cpu_has_avx2() && __builtin_cpu_supports("avx512f");
#else
    return false;
#endif
}

// y = A (m x k, element (i, j) at a[i * si + j * sj]) * B (k x n, row-major) + 1 through
// gemm_block on split sp (its kernel); returns y widened to double.
template <class T>
std::vector<double> run(const mxc::cpu::gemm_split& sp, int64_t k, const std::vector<T>& a, int64_t si, int64_t sj,
                        const std::vector<T>& b, int64_t ldy) {
    std::vector<T> y(static_cast<size_t>(sp.m * ldy), T(-7.0f));
    const mxc::cpu::gemm_pack_a_strided<T> pa{a.data(), si, sj};
    const mxc::cpu::gemm_pack_b_strided<T> pb{b.data(), sp.n, 1};
    const auto plus_one = [](mxc::cpu::compute_t<T> v, int64_t) { return v + 1; };
    for (int64_t blk = 0; blk < sp.blocks(); ++blk)
        mxc::cpu::gemm_block(sp, k, pa, pb, y.data(), ldy, 0, plus_one, blk);
    std::vector<double> out(y.size());
    for (size_t i = 0; i < y.size(); ++i) out[i] = mxc_to_double(y[i]);
    return out;
}

template <class T, gemm_isa I> void check(int64_t m, int64_t n, int64_t k, bool transposed_a, double tol) {
    using C = mxc::cpu::compute_t<T>;
    using S = mxc::cpu::gemm_shape<C>;
    uint32_t seed = uint32_t(m * 131 + n * 7 + k);
    std::vector<T> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n));
    for (auto& v : a) v = T(float(value(seed)));
    for (auto& v : b) v = T(float(value(seed)));
    const int64_t si = transposed_a ? 1 : k, sj = transposed_a ? m : 1, ldy = n + 3; // y rows with a gap
    std::vector<double> want(static_cast<size_t>(m * ldy), -7.0);
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            double s = 1;
            for (int64_t kk = 0; kk < k; ++kk)
                s += mxc_to_double(a[size_t(i * si + kk * sj)]) * mxc_to_double(b[size_t(kk * n + j)]);
            want[size_t(i * ldy + j)] = s;
        }
    std::vector<double> first;
    // every split: the largest blocks, and ever smaller ones down to one strip each way
    for (int64_t rows = S::mc / S::mr; rows >= 1; rows = rows > 1 ? rows / 3 : 0)
        for (int64_t cols = S::nc / S::nr; cols >= 1; cols = cols > 1 ? cols / 2 : 0) {
            const mxc::cpu::gemm_split sp(m, n, I, S::mr, S::nr, rows, cols);
            const std::vector<double> got = run<T>(sp, k, a, si, sj, b, ldy);
            for (size_t e = 0; e < got.size(); ++e) {
                const bool pad = int64_t(e) % ldy >= n;
                if (pad) ASSERT_EQ(got[e], -7.0) << "wrote past the row, element " << e;
                else ASSERT_NEAR(got[e], want[e], tol * (1 + std::fabs(want[e])))
                    << "m " << m << " n " << n << " k " << k << " element " << e << " split " << rows << "x" << cols;
            }
            if (first.empty()) first = got;
            else ASSERT_EQ(got, first) << "the split changed a result: m " << m << " n " << n << " k " << k;
        }
}

template <class T, gemm_isa I> void check_shapes(double tol) {
    const int64_t shapes[][3] = {{1, 1, 1},    {5, 7, 3},     {6, 16, 8},  {7, 17, 9},   {13, 33, 300},
                                 {1, 100, 64}, {100, 1, 64},  {37, 70, 0}, {250, 40, 5}, {61, 129, 700},
                                 {20, 50, 37}, {9, 51, 13},   {45, 49, 300}};
    for (const auto& s : shapes) {
        check<T, I>(s[0], s[1], s[2], false, tol);
        check<T, I>(s[0], s[1], s[2], true, tol);
    }
}

// A larger than gemm_prefetch_a_bytes (1 MiB): its slices fetched ahead, the tail's rows in
// chunks (a last strip of 1 column), and without a tail.
template <gemm_isa I> void check_large_a() {
    check<float, I>(250, 49, 1100, false, 1e-5);
    check<float, I>(250, 64, 1100, false, 1e-5);
}

TEST(CpuGemm, BaseKernel) {
    check_large_a<gemm_isa::base>();
    check_shapes<float, gemm_isa::base>(1e-5);
    check_shapes<double, gemm_isa::base>(1e-12);
    check_shapes<mxc_half, gemm_isa::base>(2e-3);
}

TEST(CpuGemm, Avx2Kernel) {
    if (!cpu_has_avx2()) GTEST_SKIP() << "this CPU has no AVX2/FMA: the avx2 kernel cannot run here";
#if MXC_GEMM_AVX2
    check_large_a<gemm_isa::avx2>();
    check_shapes<float, gemm_isa::avx2>(1e-5);
    check_shapes<double, gemm_isa::avx2>(1e-12);
    check_shapes<mxc_bf16, gemm_isa::avx2>(1.6e-2);
#endif
}

// avx512 (float: four, three, two or one 16-wide strips at a time): right on every shape and split, and
// the same fused multiply-adds in the same order as avx2, so the very same results.
TEST(CpuGemm, Avx512Kernel) {
    if (!cpu_has_avx512()) GTEST_SKIP() << "this CPU has no AVX-512F: the avx512 kernel cannot run here";
#if MXC_GEMM_AVX2
    check_large_a<gemm_isa::avx512>();
    check_shapes<float, gemm_isa::avx512>(1e-5);
    check_shapes<double, gemm_isa::avx512>(1e-12); // (the avx2 kernel)
    check_shapes<mxc_half, gemm_isa::avx512>(2e-3);
    const int64_t shapes[][3] = {{13, 33, 300}, {61, 129, 700}, {45, 49, 300}, {7, 80, 9}, {12, 96, 520}};
    for (const auto& s : shapes) {
        const int64_t m = s[0], n = s[1], k = s[2];
        uint32_t seed = 99;
        std::vector<float> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n));
        for (auto& v : a) v = float(value(seed));
        for (auto& v : b) v = float(value(seed));
        using S = mxc::cpu::gemm_shape<float>;
        const mxc::cpu::gemm_split s512(m, n, gemm_isa::avx512, S::mr, S::nr, S::mc / S::mr, S::nc / S::nr),
            s2(m, n, gemm_isa::avx2, S::mr, S::nr, S::mc / S::mr, S::nc / S::nr);
        EXPECT_EQ(run<float>(s512, k, a, k, 1, b, n), run<float>(s2, k, a, k, 1, b, n)) << m << "x" << n << "x" << k;
        EXPECT_EQ(run<float>(s512, k, a, 1, m, b, n), run<float>(s2, k, a, 1, m, b, n)) << m << "x" << n << "x" << k << " (A packed)";
    }
#endif
}

// A stored as row panels (gemm_a_panels: the layout of gemm_panel_index, with a last panel of
// m % 6 rows, what codegen/conv_weights_panels.cpp writes): the same results as A read in place
// on every split and kernel, wherever the last strip is not a gemm_tail (A in place sums its
// few last columns in another order); everywhere the same as A packed (read transposed: the
// micro-kernel on every strip, as for the panels); and right against the double loop.
TEST(CpuGemm, RowPanels) {
    const int64_t shapes[][3] = {{6, 16, 8}, {13, 33, 300}, {61, 128, 700}, {250, 40, 5}, {20, 50, 37}, {45, 49, 300}, {7, 80, 9},
                                 {250, 64, 1100}}; // (the last: panels fetched ahead, A over 1 MiB)
    std::vector<gemm_isa> isas = {gemm_isa::base};
    if (cpu_has_avx2()) isas.push_back(gemm_isa::avx2);
    if (cpu_has_avx512()) isas.push_back(gemm_isa::avx512);
    using S = mxc::cpu::gemm_shape<float>;
    for (const auto& s : shapes)
        for (gemm_isa isa : isas)
            for (int64_t rows : {int64_t(40), int64_t(3)}) {
                const int64_t m = s[0], n = s[1], k = s[2];
                uint32_t seed = 5;
                std::vector<float> a(size_t(m * k)), b(size_t(k * n)), panels(size_t(m * k), NAN);
                for (auto& v : a) v = float(value(seed));
                for (auto& v : b) v = float(value(seed));
                for (int64_t i = 0; i < m; ++i)
                    for (int64_t kk = 0; kk < k; ++kk) panels[size_t(mxc::cpu::gemm_panel_index(i, kk, k, m))] = a[size_t(i * k + kk)];
                for (float v : panels) ASSERT_FALSE(std::isnan(v)) << "gemm_panel_index left a hole";
                const mxc::cpu::gemm_split sp(m, n, isa, S::mr, S::nr, rows, S::nc / S::nr);
                std::vector<float> yd(size_t(m * n)), yp(size_t(m * n)), yq(size_t(m * n)), at(size_t(m * k));
                for (int64_t i = 0; i < m; ++i)
                    for (int64_t kk = 0; kk < k; ++kk) at[size_t(kk * m + i)] = a[size_t(i * k + kk)];
                const auto plus_one = [](float v, int64_t) { return v + 1; };
                const mxc::cpu::gemm_pack_b_strided<float> pb{b.data(), n, 1};
                for (int64_t blk = 0; blk < sp.blocks(); ++blk) {
                    mxc::cpu::gemm_block(sp, k, mxc::cpu::gemm_pack_a_strided<float>{a.data(), k, 1}, pb, yd.data(), n, 0, plus_one, blk);
                    mxc::cpu::gemm_block(sp, k, mxc::cpu::gemm_a_panels<float>{panels.data(), k, m}, pb, yp.data(), n, 0, plus_one, blk);
                    mxc::cpu::gemm_block(sp, k, mxc::cpu::gemm_pack_a_strided<float>{at.data(), 1, m}, pb, yq.data(), n, 0, plus_one, blk);
                }
                const bool tail = n % S::nr != 0 && n % S::nr <= mxc::cpu::gemm_tail_max;
                for (int64_t i = 0; i < m; ++i)
                    for (int64_t j = 0; j < n; ++j) {
                        double want = 1;
                        for (int64_t kk = 0; kk < k; ++kk) want += double(a[size_t(i * k + kk)]) * double(b[size_t(kk * n + j)]);
                        const size_t e = size_t(i * n + j);
                        ASSERT_NEAR(yp[e], want, 1e-5 * (1 + std::fabs(want))) << m << "x" << n << "x" << k << " element " << e;
                        if (!tail) ASSERT_EQ(yp[e], yd[e]) << m << "x" << n << "x" << k << " element " << e << " isa " << int(isa);
                        ASSERT_EQ(std::memcmp(&yp[e], &yq[e], sizeof(float)), 0)
                            << m << "x" << n << "x" << k << " element " << e << " isa " << int(isa) << ": " << yp[e] << " packed A " << yq[e];
                    }
            }
}

TEST(CpuGemm, PlanSplitsForThePool) {
    using mxc::cpu::gemm_plan;
    // no pool: the largest blocks
    const auto one = gemm_plan<float>(512, 49, 1);
    EXPECT_EQ(one.row_blocks, (one.row_strips + 39) / 40);
    EXPECT_EQ(one.col_blocks, 1);
    mxc_rt::thread_pool pool;
    ASSERT_TRUE(pool.start(2));
    mxc::cpu::current_pool() = &pool.iface;
    const auto two = gemm_plan<float>(512, 49, 1);
    const auto many = gemm_plan<float>(512, 49, 64); // 64 images: enough work already
    mxc::cpu::current_pool() = nullptr;
    EXPECT_GE(two.blocks(), 8) << "about four items per thread";
    EXPECT_EQ(many.blocks(), one.blocks());
    for (const auto& sp : {one, two}) { // the blocks tile the product exactly once
        std::vector<int> hit(512 * 49, 0);
        for (int64_t b = 0; b < sp.blocks(); ++b) {
            int64_t i0, i1, j0, j1;
            sp.block(b, i0, i1, j0, j1);
            for (int64_t i = i0; i < i1; ++i)
                for (int64_t j = j0; j < j1; ++j) ++hit[size_t(i * 49 + j)];
        }
        for (int h : hit) ASSERT_EQ(h, 1);
    }
}

// The fused epilogue over a run (one step per extra input within blocks where its offsets
// are linear) against the same epilogue element by element: y = acc * x1 + x2 with x1 a
// per-channel broadcast, x2 a transposed view, over an output [2, 3, 4, 5].
struct mul_add_body {
    template <class C> C operator()(const C* x) const { return x[0] * x[1] + x[2]; }
};

TEST(CpuGemm, FusedEpilogueRunMatchesElementwise) {
    mxc_desc od{}, bias{}, view{};
    od.rank = bias.rank = view.rank = 4;
    const int64_t lens[4] = {2, 3, 4, 5};
    int64_t packed = 1;
    for (int d = 3; d >= 0; --d) {
        od.lens[d] = bias.lens[d] = view.lens[d] = lens[d];
        od.strides[d] = packed;
        packed *= lens[d];
    }
    bias.strides[1] = 1; // [1, 3, 1, 1] broadcast
    view.strides[0] = 60, view.strides[1] = 1, view.strides[2] = 3, view.strides[3] = 12; // dims 1..3 transposed
    std::vector<float> b1(3), v2(120), acc(120);
    uint32_t seed = 5;
    for (auto& v : b1) v = float(value(seed));
    for (auto& v : v2) v = float(value(seed));
    for (auto& v : acc) v = float(value(seed));
    mxc_desc in_desc[4] = {od, od, bias, view};
    const void* in[4] = {nullptr, nullptr, b1.data(), v2.data()};
    std::vector<float> want(120), got(120, 0.f);
    mxc_kargs k{};
    k.in = in;
    k.in_desc = in_desc;
    k.n_in = 4;
    k.out_desc = &od;
    mxc::cpu::epilogue_of<float, mul_add_body> one{k, mul_add_body{}};
    for (int64_t e = 0; e < 120; ++e) want[size_t(e)] = one(acc[size_t(e)], e);
    for (int64_t e = 0; e < 120; ++e) // the element-wise values against the formula
        ASSERT_FLOAT_EQ(want[size_t(e)], acc[size_t(e)] * b1[size_t(e / 20 % 3)] +
                                             v2[size_t(e / 60 * 60 + e / 20 % 3 + e / 5 % 4 * 3 + e % 5 * 12)]);
    // runs of every length from every start, crossing dims
    for (int64_t len : {1, 3, 5, 7, 20, 21, 60, 120})
        for (int64_t e0 = 0; e0 + len <= 120; e0 += 7) {
            mxc::cpu::epilogue_of<float, mul_add_body> runner{k, mul_add_body{}};
            std::fill(got.begin(), got.end(), 0.f);
            mxc::cpu::epilogue_store(runner, acc.data() + e0, got.data() + e0, e0, len);
            for (int64_t e = e0; e < e0 + len; ++e)
                ASSERT_EQ(got[size_t(e)], want[size_t(e)]) << "run at " << e0 << " of " << len << ", element " << e;
        }
    // blocks of rows (run_rows, as gemm_block stores them: row r of the block at e0 + r * ldy,
    // its accumulators at r * 7): rows along dim 2 (ldy 5) and dim 1 (ldy 20), within the dim,
    // past its end (into the next channel or image) and runs that overrun a row (both: row by row)
    for (int64_t ldy : {5, 20, 3})
        for (int64_t len : {1, 2, 5})
            for (int64_t rows : {1, 2, 3, 4})
                for (int64_t e0 = 0; e0 + (rows - 1) * ldy + len <= 120; e0 += 3) {
                    mxc::cpu::epilogue_of<float, mul_add_body> runner{k, mul_add_body{}};
                    std::vector<float> block(size_t(rows * 7));
                    for (int64_t r = 0; r < rows; ++r)
                        for (int64_t i = 0; i < len; ++i) block[size_t(r * 7 + i)] = acc[size_t(e0 + r * ldy + i)];
                    std::fill(got.begin(), got.end(), 0.f);
                    mxc::cpu::epilogue_store_rows(runner, static_cast<const float*>(block.data()), 7, got.data() + e0, ldy, e0, len,
                                                  rows);
                    for (int64_t r = 0; r < rows; ++r)
                        for (int64_t i = 0; i < len; ++i) {
                            const int64_t e = e0 + r * ldy + i;
                            ASSERT_EQ(got[size_t(e)], want[size_t(e)])
                                << "rows of " << len << " at " << e0 << ", ldy " << ldy << ", row " << r << ", element " << e;
                        }
                }
}

// A block's rows through a body that names its input count (as generated bodies do: the rows
// in one call, run_rows_fast, where every extra input has unit or zero step along the row)
// against the same epilogue element by element: y = max(acc * x1 + x2, 0) with x1 a
// per-channel broadcast and x2 packed, or x2 a strided view (row by row), over [2, 6, 4, 8];
// rows along the channels (ldy 32: the bias steps from row to row) and along dim 2 (ldy 8:
// it does not), with and without the residual.
template <int N> struct named_body {
    static constexpr int inputs = N;
    template <class C> C operator()(const C* x) const {
        C v = N > 1 ? x[0] * x[1] : x[0];
        if (N > 2) v = v + x[2];
        return v > C(0) ? v : C(0);
    }
};

template <int N> void check_named_rows(bool strided_residual) {
    mxc_desc od{}, bias{}, res{};
    od.rank = bias.rank = res.rank = 4;
    const int64_t lens[4] = {2, 6, 4, 8}, count = 384;
    int64_t packed = 1;
    for (int d = 3; d >= 0; --d) {
        od.lens[d] = bias.lens[d] = res.lens[d] = lens[d];
        od.strides[d] = res.strides[d] = packed;
        packed *= lens[d];
    }
    bias.strides[1] = 1; // [1, 6, 1, 1] broadcast
    if (strided_residual) res.strides[3] = 2, res.strides[2] = 16, res.strides[1] = 64, res.strides[0] = 384; // every other element
    std::vector<float> b1(6), r2(static_cast<size_t>(2 * count)), acc(static_cast<size_t>(count));
    uint32_t seed = 9;
    for (auto& v : b1) v = float(value(seed));
    for (auto& v : r2) v = float(value(seed));
    for (auto& v : acc) v = float(value(seed));
    mxc_desc in_desc[4] = {od, od, bias, res};
    const void* in[4] = {nullptr, nullptr, b1.data(), r2.data()};
    mxc_kargs k{};
    k.in = in;
    k.in_desc = in_desc;
    k.n_in = N + 1;
    k.out_desc = &od;
    std::vector<float> want(static_cast<size_t>(count)), got(static_cast<size_t>(count));
    mxc::cpu::epilogue_of<float, named_body<N>> one{k, named_body<N>{}};
    for (int64_t e = 0; e < count; ++e) {
        want[size_t(e)] = one(acc[size_t(e)], e);
        float v = acc[size_t(e)]; // the element-wise values against the formula
        if (N > 1) v *= b1[size_t(e / 32 % 6)];
        if (N > 2) v += r2[size_t(strided_residual ? 2 * e : e)];
        ASSERT_EQ(want[size_t(e)], v > 0.f ? v : 0.f) << "element " << e;
    }
    for (int64_t ldy : {32, 8})
        for (int64_t len : {1, 5, 8})
            for (int64_t rows : {1, 2, 3, 6})
                for (int64_t e0 = 0; e0 + (rows - 1) * ldy + len <= count; e0 += 5) {
                    mxc::cpu::epilogue_of<float, named_body<N>> runner{k, named_body<N>{}};
                    std::vector<float> block(size_t(rows * 9));
                    for (int64_t r = 0; r < rows; ++r)
                        for (int64_t i = 0; i < len; ++i) block[size_t(r * 9 + i)] = acc[size_t(e0 + r * ldy + i)];
                    std::fill(got.begin(), got.end(), -7.f);
                    mxc::cpu::epilogue_store_rows(runner, static_cast<const float*>(block.data()), 9, got.data() + e0, ldy, e0, len,
                                                  rows);
                    for (int64_t e = 0; e < count; ++e) {
                        const int64_t r = (e - e0) / ldy, i = (e - e0) % ldy;
                        const bool inside = e >= e0 && r < rows && i < len;
                        ASSERT_EQ(got[size_t(e)], inside ? want[size_t(e)] : -7.f)
                            << N - 1 << " extra inputs, rows of " << len << " at " << e0 << ", ldy " << ldy << ", element " << e;
                    }
                }
}

TEST(CpuGemm, FusedEpilogueRowsOfNamedBody) {
    check_named_rows<1>(false);
    check_named_rows<2>(false);
    check_named_rows<3>(false);
    check_named_rows<3>(true);
}

// Every count of extra inputs (the counts with their own loop and the generic one): y = acc +
// sum of the extra inputs, alternately broadcast per channel and packed.
template <int J> struct sum_body {
    template <class C> C operator()(const C* x) const {
        C s = x[0];
        for (int j = 1; j <= J; ++j) s += x[j] * C(j);
        return s;
    }
};

template <int J> void check_extra_inputs() {
    mxc_desc od{}, bias{};
    od.rank = bias.rank = 3;
    const int64_t lens[3] = {3, 40, 700}; // pieces longer than the 256-element chunk
    for (int d = 0; d < 3; ++d) od.lens[d] = bias.lens[d] = lens[d];
    od.strides[2] = 1, od.strides[1] = 700, od.strides[0] = 28000;
    bias.strides[1] = 1;
    const int64_t count = 3 * 40 * 700;
    uint32_t seed = 11;
    std::vector<std::vector<float>> data(J + 2);
    std::vector<mxc_desc> desc(J + 2, od);
    std::vector<const void*> in(J + 2, nullptr);
    for (int j = 2; j < J + 2; ++j) {
        data[size_t(j)].resize(size_t(j % 2 ? 40 : count));
        for (auto& v : data[size_t(j)]) v = float(value(seed));
        if (j % 2) desc[size_t(j)] = bias;
        in[size_t(j)] = data[size_t(j)].data();
    }
    std::vector<float> acc(static_cast<size_t>(count)), got(static_cast<size_t>(count));
    for (auto& v : acc) v = float(value(seed));
    mxc_kargs k{};
    k.in = in.data();
    k.in_desc = desc.data();
    k.n_in = J + 2;
    k.out_desc = &od;
    mxc::cpu::epilogue_of<float, sum_body<J>> runner{k, sum_body<J>{}};
    for (int64_t e0 = 0; e0 < count; e0 += 700) mxc::cpu::epilogue_store(runner, acc.data() + e0, got.data() + e0, e0, 700);
    for (int64_t e = 0; e < count; ++e) {
        float want = acc[size_t(e)];
        for (int j = 2; j < J + 2; ++j) want += data[size_t(j)][size_t(j % 2 ? e / 700 % 40 : e)] * float(j - 1);
        ASSERT_EQ(got[size_t(e)], want) << J << " extra inputs, element " << e;
    }
}

TEST(CpuGemm, FusedEpilogueRunEveryInputCount) {
    check_extra_inputs<0>();
    check_extra_inputs<1>();
    check_extra_inputs<2>();
    check_extra_inputs<3>();
    check_extra_inputs<5>();
}

// dot with one row per product and b shared along a batch dim (the folded form: that dim
// becomes the rows) against mxc_dot_at, the per-element formula, with and without a pool.
TEST(CpuGemm, DotFoldsSharedBatchIntoRows) {
    const int64_t B0 = 2, B1 = 37, K = 19, N = 23;
    mxc_desc ad{}, bd{}, od{};
    ad.rank = bd.rank = od.rank = 4;
    const int64_t al[4] = {B0, B1, 1, K}, bl[4] = {B0, B1, K, N}, ol[4] = {B0, B1, 1, N};
    // a: dims 1 and 0 swapped in memory; b: shared along dim 1 (stride 0)
    const int64_t as[4] = {K, B0 * K, K, 1}, bs[4] = {K * N, 0, N, 1};
    int64_t packed = 1;
    for (int d = 3; d >= 0; --d) {
        ad.lens[d] = al[d], bd.lens[d] = bl[d], od.lens[d] = ol[d];
        ad.strides[d] = as[d], bd.strides[d] = bs[d];
        od.strides[d] = packed;
        packed *= ol[d];
    }
    std::vector<float> a(size_t(B0 * B1 * K)), b(size_t(B0 * K * N));
    uint32_t seed = 3;
    for (auto& v : a) v = float(value(seed));
    for (auto& v : b) v = float(value(seed));
    for (int threads : {1, 2}) {
        mxc_rt::thread_pool pool;
        if (threads > 1) {
            ASSERT_TRUE(pool.start(threads));
            mxc::cpu::current_pool() = &pool.iface;
        }
        std::vector<float> y(size_t(packed), -1.f);
        const mxc_desc in_desc[2] = {ad, bd};
        const void* in[2] = {a.data(), b.data()};
        mxc_kargs k{};
        k.n_in = 2;
        k.in = in;
        k.in_desc = in_desc;
        k.out = y.data();
        k.out_desc = &od;
        mxc::cpu::dot<float>(k);
        mxc::cpu::current_pool() = nullptr;
        for (int64_t o = 0; o < packed; ++o)
            ASSERT_NEAR(y[size_t(o)], mxc_dot_at(a.data(), ad, b.data(), bd, od, o), 1e-5) << "element " << o;
    }
}

} // namespace
