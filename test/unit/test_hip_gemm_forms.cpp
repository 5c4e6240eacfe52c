// The hip launchers' choice arguments on the host SIMT emulator (runtime-stub/emu): the
// run-time rule (gemm_auto, MXC_CONV_AUTO: hand-written calls), a named preset, and a
// convolution form that does not fit the descriptors (it must fall back to the per-output
// kernel, not compute garbage), each against the reference math of templates/common.
#include <gtest/gtest.h>

#include <hip/hip_runtime.h> // the emulator (CMakeLists.txt puts runtime-stub/emu first)
#include "templates/hip/convolution.hpp"
#include "templates/hip/dot.hpp"
#include "templates/hip/fused.hpp"

#include <cmath>
#include <vector>

namespace {

std::vector<float> ramp(size_t n, float scale) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = scale * float(int(i * 7 % 13) - 6);
    return v;
}

mxc_desc packed(std::vector<int64_t> lens) {
    mxc_desc d{};
    d.rank = int32_t(lens.size());
    int64_t s = 1;
    for (int i = d.rank - 1; i >= 0; --i) {
        d.lens[i] = lens[size_t(i)];
        d.strides[i] = s;
        s *= lens[size_t(i)];
    }
    return d;
}

// Runs launcher `run` on a, b (host vectors of T copied to the device) into an output of od.
// scratch_bytes > 0: the kernel gets that much scratch (split-K): its fix-up counters zero (as a
// library clears them once per run), the partial sums filled with NaN first (a partial sum the
// fix-up reads before a block wrote it shows).
template <class T, class Run>
std::vector<T> run_kernel(Run run, const std::vector<T>& a, const std::vector<T>& b, const mxc_desc ins[2],
                          const mxc_desc& od, const std::vector<int64_t>& ip, int64_t scratch_bytes = 0) {
    T *da = nullptr, *db = nullptr, *dy = nullptr;
    void* scratch = nullptr;
    if (scratch_bytes > 0) {
        EXPECT_EQ(hipMalloc(&scratch, size_t(scratch_bytes)), hipSuccess);
        EXPECT_EQ(hipMemset(scratch, 0xff, size_t(scratch_bytes)), hipSuccess);
        EXPECT_EQ(hipMemset(scratch, 0, size_t(mxc_gemm_split_counter_bytes)), hipSuccess); // the counters (as the library's run)
    }
    const int64_t n = mxc_elements(od);
    const size_t e = sizeof(T);
    EXPECT_EQ(hipMalloc(&da, a.size() * e), hipSuccess);
    EXPECT_EQ(hipMalloc(&db, b.size() * e), hipSuccess);
    EXPECT_EQ(hipMalloc(&dy, size_t(n) * e), hipSuccess);
    EXPECT_EQ(hipMemcpy(da, a.data(), a.size() * e, hipMemcpyHostToDevice), hipSuccess);
    EXPECT_EQ(hipMemcpy(db, b.data(), b.size() * e, hipMemcpyHostToDevice), hipSuccess);
    const void* p[] = {da, db};
    const mxc_kargs k = {2, p, ins, dy, &od, ip.empty() ? nullptr : ip.data(), int32_t(ip.size()), nullptr, 0, scratch};
    run(k, hipStream_t{});
    EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
    std::vector<T> y(static_cast<size_t>(n));
    EXPECT_EQ(hipMemcpy(y.data(), dy, size_t(n) * e, hipMemcpyDeviceToHost), hipSuccess);
    (void)hipFree(da);
    (void)hipFree(db);
    (void)hipFree(dy);
    if (scratch) (void)hipFree(scratch);
    return y;
}

void expect_near_all(const std::vector<float>& got, const std::vector<float>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-4f) << "element " << i;
}

} // namespace

TEST(HipGemmForms, DotRuleAtRunTimeAndNamedPreset) {
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
    const mxc_desc ins[2] = {packed({2, 20, 13}), packed({2, 13, 9})}, od = packed({2, 20, 9});
    const auto a = ramp(2 * 20 * 13, 0.25f), b = ramp(2 * 13 * 9, 0.5f);
    std::vector<float> want(2 * 20 * 9);
    for (size_t i = 0; i < want.size(); ++i) want[i] = mxc_dot_at(a.data(), ins[0], b.data(), ins[1], od, int64_t(i));
    expect_near_all(run_kernel(mxc::hip::dot<float>, a, b, ins, od, {}), want); // gemm_auto
    expect_near_all(run_kernel(mxc::hip::dot<float, mxc::hip::gemm_small_n>, a, b, ins, od, {}), want);
}

// Split-K (gemm_split): K cut into slices whose partial tiles go through the scratch and are
// added by the last block of each output tile; against the reference math, with slices that do not divide K (the
// last one shorter), more slices than K steps allow, batches, and without scratch (unsplit).
TEST(HipGemmForms, SplitKDotMatchesTheReference) {
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
    using medium3 = mxc::hip::gemm_split<mxc::hip::gemm_medium, 3>;
    using small_m5 = mxc::hip::gemm_split<mxc::hip::gemm_small_m, 5>;
    for (int64_t kd : {1, 8, 70, 200}) {
        const mxc_desc ins[2] = {packed({3, 20, kd}), packed({3, kd, 9})}, od = packed({3, 20, 9});
        const auto a = ramp(size_t(3 * 20 * kd), 0.25f), b = ramp(size_t(3 * kd * 9), 0.5f);
        std::vector<float> want(3 * 20 * 9);
        for (size_t i = 0; i < want.size(); ++i) want[i] = mxc_dot_at(a.data(), ins[0], b.data(), ins[1], od, int64_t(i));
        const int64_t bytes3 = mxc::hip::gemm_split_scratch_bytes<float>(20, 9, kd, 3, 3, mxc::hip::gemm_medium::BK);
        const int64_t bytes5 = mxc::hip::gemm_split_scratch_bytes<float>(20, 9, kd, 3, 5, mxc::hip::gemm_small_m::BK);
        EXPECT_EQ(bytes3, mxc_gemm_split_counter_bytes + mxc_gemm_slices(kd, 3, 8) * 3 * 20 * 9 * 4);
        SCOPED_TRACE("k = " + std::to_string(kd));
        expect_near_all(run_kernel(mxc::hip::dot<float, medium3>, a, b, ins, od, {}, bytes3), want);
        expect_near_all(run_kernel(mxc::hip::dot<float, small_m5>, a, b, ins, od, {}, bytes5), want);
        expect_near_all(run_kernel(mxc::hip::dot<float, medium3>, a, b, ins, od, {}), want); // no scratch: unsplit
        // gemm_large's one-loop kernels: the ring (k 8 and 200: vector rows) or the staged loop
        using large3 = mxc::hip::gemm_split<mxc::hip::gemm_large, 3>;
        const int64_t bytes_l = mxc::hip::gemm_split_scratch_bytes<float>(20, 9, kd, 3, 3, mxc::hip::gemm_large::BK);
        expect_near_all(run_kernel(mxc::hip::dot<float, large3>, a, b, ins, od, {}, bytes_l), want);
    }
    { // 13 slices: the fix-up adds them 8 at a time (slice 0, then 1-8, then 9-12)
        using medium16 = mxc::hip::gemm_split<mxc::hip::gemm_medium, 16>;
        const int64_t kd = 600;
        ASSERT_EQ(mxc_gemm_slices(kd, 16, mxc::hip::gemm_medium::BK), 13);
        const mxc_desc ins[2] = {packed({2, 20, kd}), packed({2, kd, 9})}, od = packed({2, 20, 9});
        const auto a = ramp(size_t(2 * 20 * kd), 0.25f), b = ramp(size_t(2 * kd * 9), 0.5f);
        std::vector<float> want(2 * 20 * 9);
        for (size_t i = 0; i < want.size(); ++i) want[i] = mxc_dot_at(a.data(), ins[0], b.data(), ins[1], od, int64_t(i));
        const int64_t bytes = mxc::hip::gemm_split_scratch_bytes<float>(20, 9, kd, 2, 16, mxc::hip::gemm_medium::BK);
        expect_near_all(run_kernel(mxc::hip::dot<float, medium16>, a, b, ins, od, {}, bytes), want);
    }
    // the slices: whole K steps, none empty, covering K
    EXPECT_EQ(mxc_gemm_slice_depth(70, 3, 8), 24);
    EXPECT_EQ(mxc_gemm_slices(70, 3, 8), 3);
    EXPECT_EQ(mxc_gemm_slices(8, 3, 8), 1);
    EXPECT_EQ(mxc_gemm_slices(17, 3, 8), 3); // 8 + 8 + 1
    // the rule: a device-filling product is not split, a deep one on few tiles is
    EXPECT_EQ(mxc_gemm_splits(mxc_gemm_preset_tile(MXC_GEMM_MEDIUM), 1024, 1024, 4096, 1), 1);
    EXPECT_EQ(mxc_gemm_splits(mxc_gemm_preset_tile(MXC_GEMM_MEDIUM), 512, 49, 4608, 1), 32); // 8 tiles: 33, at most 32
    EXPECT_EQ(mxc_gemm_splits(mxc_gemm_preset_tile(MXC_GEMM_MEDIUM), 256, 196, 2304, 1), 17); // 16 tiles
    EXPECT_EQ(mxc_gemm_splits(mxc_gemm_preset_tile(MXC_GEMM_MEDIUM), 64, 64, 64, 1), 1); // one K step
    // one wave and a small second one (133 to 198 tiles): two slices; one full wave or more: none
    EXPECT_EQ(mxc_gemm_splits(mxc_gemm_preset_tile(MXC_GEMM_MEDIUM), 197, 2304, 768, 1), 2); // 144 tiles
    EXPECT_EQ(mxc_gemm_splits(mxc_gemm_preset_tile(MXC_GEMM_MEDIUM), 197, 3072, 768, 1), 2); // 192
    EXPECT_EQ(mxc_gemm_splits(mxc_gemm_preset_tile(MXC_GEMM_MEDIUM), 64 * 11, 64 * 18, 768, 1), 2); // 198
    EXPECT_EQ(mxc_gemm_splits(mxc_gemm_preset_tile(MXC_GEMM_MEDIUM), 64 * 11, 64 * 12, 768, 1), 1); // 132
    EXPECT_EQ(mxc_gemm_splits(mxc_gemm_preset_tile(MXC_GEMM_MEDIUM), 64 * 11, 64 * 18 + 1, 768, 1), 1); // 209
    EXPECT_EQ(mxc_gemm_splits(mxc_gemm_preset_tile(MXC_GEMM_MEDIUM), 197, 2304, 240, 1), 1); // 15 K steps: two slices would be under 8 steps each
}

// Split-K's fix-up counters: a launch leaves them zero, so that the next split product of a
// run (here: the same one, three times on one scratch that nobody clears in between) finds
// them ready; and a product with more output tiles than counters runs unsplit, leaving the
// scratch untouched.
TEST(HipGemmForms, SplitKCountersReturnToZeroAndManyTilesRunUnsplit) {
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
    using medium2 = mxc::hip::gemm_split<mxc::hip::gemm_medium, 2>;
    auto launch = [](int64_t z, int64_t m, int64_t n, int64_t kd, void* scratch, int64_t scratch_bytes) {
        const mxc_desc ins[2] = {packed({z, m, kd}), packed({z, kd, n})}, od = packed({z, m, n});
        const auto a = ramp(size_t(z * m * kd), 0.25f), b = ramp(size_t(z * kd * n), 0.5f);
        std::vector<float> want(size_t(z * m * n));
        for (size_t i = 0; i < want.size(); ++i) want[i] = mxc_dot_at(a.data(), ins[0], b.data(), ins[1], od, int64_t(i));
        float *da = nullptr, *db = nullptr, *dy = nullptr;
        EXPECT_EQ(hipMalloc(&da, a.size() * 4), hipSuccess);
        EXPECT_EQ(hipMalloc(&db, b.size() * 4), hipSuccess);
        EXPECT_EQ(hipMalloc(&dy, want.size() * 4), hipSuccess);
        EXPECT_EQ(hipMemcpy(da, a.data(), a.size() * 4, hipMemcpyHostToDevice), hipSuccess);
        EXPECT_EQ(hipMemcpy(db, b.data(), b.size() * 4, hipMemcpyHostToDevice), hipSuccess);
        EXPECT_EQ(hipMemset(dy, 0xff, want.size() * 4), hipSuccess); // NaN: an unwritten output shows
        const void* p[] = {da, db};
        const mxc_kargs k = {2, p, ins, dy, &od, nullptr, 0, nullptr, 0, scratch};
        mxc::hip::dot<float, medium2>(k, hipStream_t{});
        EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
        std::vector<float> y(want.size());
        EXPECT_EQ(hipMemcpy(y.data(), dy, y.size() * 4, hipMemcpyDeviceToHost), hipSuccess);
        expect_near_all(y, want);
        std::vector<unsigned char> s(static_cast<size_t>(scratch_bytes));
        EXPECT_EQ(hipMemcpy(s.data(), scratch, s.size(), hipMemcpyDeviceToHost), hipSuccess);
        (void)hipFree(da);
        (void)hipFree(db);
        (void)hipFree(dy);
        return s;
    };
    // 3 batches of 70 x 90 (2 x 2 tiles of 64: 12 counters), K = 64 in 2 slices of 32
    int64_t bytes = mxc::hip::gemm_split_scratch_bytes<float>(70, 90, 64, 3, 2, mxc::hip::gemm_medium::BK);
    void* scratch = nullptr;
    ASSERT_EQ(hipMalloc(&scratch, size_t(bytes)), hipSuccess);
    ASSERT_EQ(hipMemset(scratch, 0xff, size_t(bytes)), hipSuccess);
    ASSERT_EQ(hipMemset(scratch, 0, size_t(mxc_gemm_split_counter_bytes)), hipSuccess);
    for (int run = 0; run < 3; ++run) {
        SCOPED_TRACE("launch " + std::to_string(run));
        const auto s = launch(3, 70, 90, 64, scratch, bytes);
        for (int64_t i = 0; i < mxc_gemm_split_counter_bytes; ++i) ASSERT_EQ(s[size_t(i)], 0) << "counter byte " << i;
        // the partials were written (not NaN any more): the product did run split
        EXPECT_NE(s[size_t(mxc_gemm_split_counter_bytes) + 3], 0xff);
    }
    (void)hipFree(scratch);
    // 257 batches of one 2 x 3 tile: more tiles than counters, so unsplit, the scratch as it was
    bytes = mxc::hip::gemm_split_scratch_bytes<float>(2, 3, 16, 257, 2, mxc::hip::gemm_medium::BK);
    ASSERT_EQ(hipMalloc(&scratch, size_t(bytes)), hipSuccess);
    ASSERT_EQ(hipMemset(scratch, 0xff, size_t(bytes)), hipSuccess);
    const auto s = launch(257, 2, 3, 16, scratch, bytes);
    for (size_t i = 0; i < s.size(); ++i) ASSERT_EQ(s[i], 0xff) << "scratch byte " << i;
    (void)hipFree(scratch);
}

// A product whose b is the same matrix along some batch dims runs those batches as rows
// (mxc_dot_fold_of): all batches (a [seq, 1, features] projection), some of them (attention's
// probabilities x values with the heads' transpose in the views), and not at all when the rows
// do not step evenly or b differs in every batch.
TEST(HipGemmForms, DotFoldsBroadcastBatchesIntoRows) {
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
    struct fold_case {
        mxc_desc a, b, o;
        bool ok;
        int64_t rows, batches;
    };
    auto with_strides = [](mxc_desc d, std::vector<int64_t> st) {
        for (size_t i = 0; i < st.size(); ++i) d.strides[i] = st[i];
        return d;
    };
    std::vector<fold_case> cases;
    // [seq 7, 1, 13] x broadcast [13, 9]: 7 rows, 1 batch
    cases.push_back({packed({7, 1, 13}), with_strides(packed({7, 13, 9}), {0, 9, 1}), packed({7, 1, 9}), true, 7, 1});
    // [7, 3, 13] rows across batches: 21 rows
    cases.push_back({packed({7, 3, 13}), with_strides(packed({7, 13, 9}), {0, 9, 1}), packed({7, 3, 9}), true, 21, 1});
    // attention: a = probabilities [1, seq 6, heads 4, 1, seq 6] as a view of [heads, seq, seq];
    // b = values [1, seq (broadcast), heads, seq, hd 5] as a view of [seq, heads * hd]; the output
    // [1, seq, heads, 1, hd] packed: 6 rows (seq) in 4 batches (heads)
    cases.push_back({with_strides(packed({1, 6, 4, 1, 6}), {144, 6, 36, 6, 1}), with_strides(packed({1, 6, 4, 6, 5}), {120, 0, 5, 20, 1}),
                     packed({1, 6, 4, 1, 5}), true, 6, 4});
    // rows that do not step evenly through a (batches 48 apart, 3 rows of 13): no fold
    cases.push_back({with_strides(packed({7, 3, 13}), {48, 13, 1}), with_strides(packed({7, 13, 9}), {0, 9, 1}), packed({7, 3, 9}), false, 0, 0});
    // b differs in every batch: no fold
    cases.push_back({packed({7, 3, 13}), packed({7, 13, 9}), packed({7, 3, 9}), false, 0, 0});
    for (const fold_case& fc : cases) {
        const mxc_desc ins[2] = {fc.a, fc.b};
        const mxc_dot_fold f = mxc_dot_fold_of(ins[0], ins[1], fc.o);
        ASSERT_EQ(f.ok, fc.ok);
        if (f.ok) {
            EXPECT_EQ(f.rows, fc.rows);
            EXPECT_EQ(f.batches, fc.batches);
        }
        const auto a = ramp(size_t(mxc_desc_extent(ins[0])), 0.25f), b = ramp(size_t(mxc_desc_extent(ins[1])), 0.5f);
        std::vector<float> want(size_t(mxc_elements(fc.o)));
        for (size_t i = 0; i < want.size(); ++i) want[i] = mxc_dot_at(a.data(), ins[0], b.data(), ins[1], fc.o, int64_t(i));
        expect_near_all(run_kernel(mxc::hip::dot<float, mxc::hip::gemm_small_m>, a, b, ins, fc.o, {}), want);
        expect_near_all(run_kernel(mxc::hip::dot<float>, a, b, ins, fc.o, {}), want);
        using split = mxc::hip::gemm_split<mxc::hip::gemm_medium, 2>;
        const int64_t rows = f.ok ? f.rows : fc.o.lens[fc.o.rank - 2], z = mxc_elements(fc.o) / (rows * fc.o.lens[fc.o.rank - 1]);
        expect_near_all(run_kernel(mxc::hip::dot<float, split>, a, b, ins, fc.o, {},
                                   mxc::hip::gemm_split_scratch_bytes<float>(rows, fc.o.lens[fc.o.rank - 1], ins[0].lens[ins[0].rank - 1], z, 2, 8)),
                        want);
    }
}

TEST(HipGemmForms, SplitKConvolutionAndHalfMatchTheReference) {
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
    // 3x3 im2col, 2 groups, 2 images; K = 3 * 9 = 27 per group
    const mxc_desc ins[2] = {packed({2, 6, 7, 5}), packed({4, 3, 3, 3})}, od = packed({2, 4, 7, 5});
    const std::vector<int64_t> ip = {2, 1, 1, 1, 1, 1, 1};
    const auto x = ramp(2 * 6 * 7 * 5, 0.25f), w = ramp(4 * 3 * 9, 0.5f);
    std::vector<float> want(2 * 4 * 7 * 5);
    for (size_t i = 0; i < want.size(); ++i) want[i] = mxc_conv_at(x.data(), ins[0], w.data(), ins[1], od, ip.data(), int64_t(i));
    using split4 = mxc::hip::gemm_split<mxc::hip::gemm_medium, 4>;
    const int64_t bytes = mxc::hip::gemm_split_scratch_bytes<float>(2, 2 * 35, 27, 2, 4, 8);
    expect_near_all(run_kernel(mxc::hip::convolution<float, split4, MXC_CONV_GEMM_IM2COL>, x, w, ins, od, ip, bytes), want);
    // the matrix-unit kernel of half, split in 3 (K = 100: slices of 64 and 36 at BK = 64)
    const mxc_desc hins[2] = {packed({40, 100}), packed({100, 24})}, hod = packed({40, 24});
    std::vector<mxc_half> ha, hb;
    for (float v : ramp(40 * 100, 0.125f)) ha.push_back(mxc_half(v));
    for (float v : ramp(100 * 24, 0.125f)) hb.push_back(mxc_half(v));
    using mma3 = mxc::hip::gemm_split<mxc::hip::gemm_mma_small, 3>;
    const auto got = run_kernel(mxc::hip::dot<mxc_half, mma3>, ha, hb, hins, hod, {},
                                mxc::hip::gemm_split_scratch_bytes<mxc_half>(40, 24, 100, 1, 3, mxc::hip::gemm_mma_small::BK));
    ASSERT_EQ(mxc_gemm_slices(100, 3, mxc::hip::gemm_mma_small::BK), 2);
    ASSERT_EQ(got.size(), size_t(40 * 24));
    for (int64_t i = 0; i < 40 * 24; ++i) {
        const float ref = mxc_dot_at(ha.data(), hins[0], hb.data(), hins[1], hod, i);
        ASSERT_NEAR(float(got[size_t(i)]), ref, 1e-2f * (1.0f + std::fabs(ref))) << "element " << i;
    }
}

TEST(HipGemmForms, ConvolutionFormThatDoesNotFitFallsBackToPerOutput) {
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
    // 3x3, padded: mxc_conv_pick says im2col
    const mxc_desc ins[2] = {packed({1, 3, 6, 5}), packed({4, 3, 3, 3})}, od = packed({1, 4, 6, 5});
    const std::vector<int64_t> ip = {1, 1, 1, 1, 1, 1, 1};
    ASSERT_EQ(mxc_conv_pick(ins[0], ins[1], od, ip.data()), MXC_CONV_GEMM_IM2COL);
    const auto x = ramp(3 * 6 * 5, 0.25f), w = ramp(4 * 3 * 9, 0.5f);
    std::vector<float> want(4 * 6 * 5);
    for (size_t i = 0; i < want.size(); ++i)
        want[i] = mxc_conv_at(x.data(), ins[0], w.data(), ins[1], od, ip.data(), int64_t(i));
    expect_near_all(run_kernel(mxc::hip::convolution<float>, x, w, ins, od, ip), want); // MXC_CONV_AUTO
    expect_near_all(run_kernel(mxc::hip::convolution<float, mxc::hip::gemm_medium, MXC_CONV_GEMM_IM2COL>, x, w, ins, od, ip),
                    want);
    // the 1x1 GEMM would read x as a plain matrix: wrong for a 3x3 kernel; the check runs per output
    expect_near_all(run_kernel(mxc::hip::convolution<float, mxc::hip::gemm_medium, MXC_CONV_GEMM_1X1>, x, w, ins, od, ip),
                    want);
    expect_near_all(run_kernel(mxc::hip::convolution<float, mxc::hip::dw_wide, MXC_CONV_DEPTHWISE>, x, w, ins, od, ip),
                    want);
    expect_near_all(run_kernel(mxc::hip::convolution<float, void, MXC_CONV_PER_OUTPUT>, x, w, ins, od, ip), want);
}

namespace {

// The convolution views' 32-bit index math (conv_geom::small, host-built fast divisions)
// against their int64 path, element by element, on x = 1, 2, 3, ... (every offset distinct).
struct conv_case {
    std::vector<int64_t> x, w, y, ip;
    bool transposed;
    std::vector<int64_t> xstrides = {}; // empty: packed
};

struct last_put {
    int64_t* e;
    void put(int64_t i, float) const { *e = i; }
};

void expect_same_index_math(const conv_case& cc) {
    mxc_desc ins[2] = {packed(cc.x), packed(cc.w)};
    for (size_t i = 0; i < cc.xstrides.size(); ++i) ins[0].strides[i] = cc.xstrides[i];
    const mxc_desc od = packed(cc.y);
    const mxc_kargs k = {2, nullptr, ins, nullptr, &od, cc.ip.data(), int32_t(cc.ip.size()), nullptr, 0};
    mxc::hip::conv_geom g = mxc::hip::make_conv_geom(k);
    ASSERT_TRUE(g.small);
    const int64_t group = cc.ip[0];
    if (cc.transposed) { // as convolution_transpose
        g.transposed = 1;
        g.cg = ins[0].lens[1] / group;
        g.mg = ins[1].lens[1];
    }
    mxc::hip::conv_geom g64 = g;
    g64.small = 0;
    std::vector<float> x(size_t(mxc_desc_extent(ins[0])));
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(i + 1);
    const int64_t cols = od.lens[0] * g.plane, kdim = g.cg * g.kn;
    int64_t nonzero = 0;
    for (int64_t z = 0; z < group; ++z) {
        const auto v32 = mxc::hip::conv_im2col_source<float, mxc::hip::conv_index_32>{x.data(), g}.view(z);
        const auto v64 = mxc::hip::conv_im2col_source<float, mxc::hip::conv_index_64>{x.data(), g64}.view(z);
        for (int64_t kk = 0; kk < kdim; ++kk)
            for (int64_t j = 0; j < cols; ++j) {
                ASSERT_EQ(v32.at(kk, j), v64.at(kk, j)) << "group " << z << " B(" << kk << ", " << j << ")";
                nonzero += v32.at(kk, j) != 0.0f;
            }
    }
    EXPECT_GT(nonzero, 0);
    // the hoisted form (gemm.hpp's per-column state): at_col(kk, col(j, cols)) == at(kk, j), and
    // zero for columns past the matrix (a GEMM tile's edge); with the per-row state too (1-d and
    // 2-d, not transposed): at_rc(row(kk), col(j, cols)), the same
    int64_t hoisted_nonzero = 0, row_nonzero = 0;
    for (int64_t z = 0; z < group; ++z) {
        const auto v = mxc::hip::conv_im2col_source<float, mxc::hip::conv_index_32>{x.data(), g}.view(z);
        ASSERT_EQ(v.cols(), g.s <= 3);
        ASSERT_EQ(v.rows(), g.s <= 2 && !cc.transposed);
        if (!v.cols()) continue;
        for (int64_t j = 0; j < cols + 3; ++j) {
            const auto st = v.col(j, cols);
            for (int64_t kk = 0; kk < kdim; ++kk) {
                const float want = j < cols ? v.at(kk, j) : 0.0f;
                ASSERT_EQ(v.at_col(kk, st), want) << "group " << z << " hoisted B(" << kk << ", " << j << ")";
                hoisted_nonzero += want != 0.0f;
                if (v.rows()) {
                    ASSERT_EQ(v.at_rc(v.row(kk), st), want) << "group " << z << " row-state B(" << kk << ", " << j << ")";
                    row_nonzero += want != 0.0f;
                }
            }
        }
    }
    if (g.s <= 3) EXPECT_EQ(hoisted_nonzero, nonzero);
    if (g.s <= 2 && !cc.transposed) EXPECT_EQ(row_nonzero, nonzero);
    int64_t e32 = -1, e64 = -1;
    const mxc::hip::conv_out<last_put, mxc::hip::conv_index_32> o32{{&e32}, g.mg, g.mtot, g.plane, g.plane_d, 1};
    const mxc::hip::conv_out<last_put, mxc::hip::conv_index_64> o64{{&e64}, g.mg, g.mtot, g.plane, g.plane_d, 0};
    for (int64_t z = 0; z < group; ++z)
        for (int64_t i = 0; i < g.mg; ++i)
            for (int64_t j = 0; j < cols; ++j) {
                o32.store(z, i, j, 0.0f);
                o64.store(z, i, j, 0.0f);
                ASSERT_EQ(e32, e64) << "output (" << z << ", " << i << ", " << j << ")";
            }
    if (cc.transposed) { // the weights as A: A(i, (c, k)) = w[g * cg + c, i, k]
        std::vector<float> w(size_t(mxc_elements(ins[1])));
        for (size_t i = 0; i < w.size(); ++i) w[i] = float(i + 1);
        const int64_t ws0 = ins[1].strides[0], ws1 = ins[1].strides[1];
        for (int64_t z = 0; z < group; ++z) {
            const auto a32 = mxc::hip::conv_tw_source<float, mxc::hip::conv_index_32>{w.data(), g.cg, ws0, ws1, g.kn, g.kn_d, 1}.view(z);
            const auto a64 = mxc::hip::conv_tw_source<float, mxc::hip::conv_index_64>{w.data(), g.cg, ws0, ws1, g.kn, g.kn_d, 0}.view(z);
            for (int64_t i = 0; i < g.mg; ++i)
                for (int64_t kk = 0; kk < kdim; ++kk) ASSERT_EQ(a32.at(i, kk), a64.at(i, kk)) << "A(" << i << ", " << kk << ")";
        }
    } else { // the 1x1 view's addresses (whatever the kernel size: only the index math is compared)
        for (int64_t z = 0; z < group; ++z) {
            const auto b32 = mxc::hip::conv_1x1_source<float, mxc::hip::conv_index_32>{x.data(), g.cg, g.xs0, g.xs1, g.plane, g.plane_d, 1}.view(z);
            const auto b64 = mxc::hip::conv_1x1_source<float, mxc::hip::conv_index_64>{x.data(), g.cg, g.xs0, g.xs1, g.plane, g.plane_d, 0}.view(z);
            for (int64_t c = 0; c < g.cg; ++c)
                for (int64_t j = 0; j < cols; ++j) ASSERT_EQ(b32.ptr(c, j), b64.ptr(c, j)) << "B(" << c << ", " << j << ")";
        }
    }
}

} // namespace

TEST(HipGemmForms, ConvolutionIndexMathIn32BitsEqualsInt64) {
    // ip = [group, pads (begin), strides, dilations]
    // 3x3 same, 2 images
    expect_same_index_math({{2, 3, 7, 9}, {4, 3, 3, 3}, {2, 4, 7, 9}, {1, 1, 1, 1, 1, 1, 1}, false});
    // 2 groups, stride 2, dilation 2, pad 2, 3x2 kernel
    expect_same_index_math({{2, 4, 11, 10}, {6, 2, 3, 2}, {2, 6, 6, 6}, {2, 2, 2, 2, 2, 2, 2}, false});
    // 1-d, stride 3, pad 2; 1-d, dilation 3, pad 4
    expect_same_index_math({{3, 2, 17}, {5, 2, 4}, {3, 5, 6}, {1, 2, 3, 1}, false});
    expect_same_index_math({{2, 3, 13}, {4, 3, 3}, {2, 4, 15}, {1, 4, 1, 3}, false});
    // 3-d, strides 1, 2, 1
    expect_same_index_math({{1, 2, 5, 6, 7}, {3, 2, 2, 3, 2}, {1, 3, 6, 3, 8}, {1, 1, 1, 1, 1, 2, 1, 1, 1, 1}, false});
    // x a strided view (a slice of a larger tensor)
    expect_same_index_math({{2, 3, 6, 5}, {2, 3, 3, 3}, {2, 2, 4, 3}, {1, 0, 0, 1, 1, 1, 1}, false, {400, 100, 12, 2}});
    // transposed: stride 2, pad 1, 3x3 (out = (in - 1) * 2 - 2 + 3); 2 groups, dilation 2
    expect_same_index_math({{2, 4, 5, 6}, {4, 3, 3, 3}, {2, 3, 9, 11}, {1, 1, 1, 2, 2, 1, 1}, true});
    expect_same_index_math({{1, 4, 4, 3}, {4, 2, 2, 3}, {1, 4, 7, 8}, {2, 0, 1, 2, 2, 2, 2}, true});
    // 1-d transposed, stride 3, dilation 2; 3-d transposed, strides 2, 1, 3
    expect_same_index_math({{2, 2, 5}, {2, 3, 3}, {2, 3, 15}, {1, 1, 3, 2}, true});
    expect_same_index_math({{1, 2, 3, 4, 3}, {2, 2, 2, 2, 3}, {1, 2, 6, 5, 9}, {1, 0, 0, 0, 2, 1, 3, 1, 1, 1}, true});
    // 4 spatial dims: beyond the hoisted form's (cols() false), the plain form still checked
    expect_same_index_math({{1, 2, 3, 3, 3, 4}, {2, 2, 2, 2, 2, 2}, {1, 2, 2, 2, 2, 3}, {1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}, false});
}

namespace {
__global__ void vector_copy(const float* x, float* y) {
    using vec = mxc::hip::gemm_vec<float, 4>;
    mxc::hip::vector_store(y, mxc::hip::vector_load<vec>(x));
}
} // namespace

// A GPU faults on a misaligned vector access and the host does not: the emulator must fail the
// launch as the GPU would (templates/hip/common.hpp, check_vector_aligned).
TEST(HipGemmForms, MisalignedVectorAccessFailsTheLaunch) {
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
    float *x = nullptr, *y = nullptr;
    ASSERT_EQ(hipMalloc(&x, 64), hipSuccess);
    ASSERT_EQ(hipMalloc(&y, 64), hipSuccess);
    hipLaunchKernelGGL(vector_copy, dim3(1), dim3(1), 0, hipStream_t{}, x, y);
    EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
    hipLaunchKernelGGL(vector_copy, dim3(1), dim3(1), 0, hipStream_t{}, x + 1, y); // load 4 bytes off
    EXPECT_EQ(hipDeviceSynchronize(), hipErrorLaunchFailure);
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
    hipLaunchKernelGGL(vector_copy, dim3(1), dim3(1), 0, hipStream_t{}, x, y + 2); // store 8 bytes off
    EXPECT_EQ(hipDeviceSynchronize(), hipErrorLaunchFailure);
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
}

namespace {

// A half convolution through launcher `run` (the matrix-unit kernel's B loads use the hoisted
// im2col form) against mxc_conv_at in float on the same half-exact inputs.
template <class Run>
void expect_half_conv(Run run, const std::vector<int64_t>& xl, const std::vector<int64_t>& wl, const std::vector<int64_t>& yl,
                      const std::vector<int64_t>& ip, mxc_conv_form form = MXC_CONV_GEMM_IM2COL) {
    const mxc_desc ins[2] = {packed(xl), packed(wl)}, od = packed(yl);
    const auto xf = ramp(size_t(mxc_elements(ins[0])), 0.25f), wf = ramp(size_t(mxc_elements(ins[1])), 0.125f);
    const std::vector<mxc_half> xh(xf.begin(), xf.end()), wh(wf.begin(), wf.end());
    const int64_t n = mxc_elements(od);
    ASSERT_EQ(mxc_conv_pick(ins[0], ins[1], od, ip.data()), form);
    const std::vector<mxc_half> y = run_kernel(run, xh, wh, ins, od, ip);
    for (int64_t i = 0; i < n; ++i) {
        const float want = mxc_conv_at(xf.data(), ins[0], wf.data(), ins[1], od, ip.data(), i);
        ASSERT_NEAR(float(y[size_t(i)]), want, 0.01f * std::fabs(want) + 0.01f) << "output " << i;
    }
}

} // namespace

// Columns past the tile edge (N = 126, 90), K not a multiple of BK = 32, stride, dilation, groups.
TEST(HipGemmForms, HalfConvolutionOnTheMatrixUnitKernel) {
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
    using mxc::hip::convolution;
    const std::vector<int64_t> same = {1, 1, 1, 1, 1, 1, 1}, strided = {2, 2, 2, 2, 2, 2, 2};
    expect_half_conv(convolution<mxc_half, mxc::hip::gemm_mma_small, MXC_CONV_GEMM_IM2COL>, {2, 5, 9, 7}, {6, 5, 3, 3}, {2, 6, 9, 7}, same);
    expect_half_conv(convolution<mxc_half, mxc::hip::gemm_mma_large, MXC_CONV_GEMM_IM2COL>, {2, 5, 9, 7}, {6, 5, 3, 3}, {2, 6, 9, 7}, same);
    expect_half_conv(convolution<mxc_half, mxc::hip::gemm_mma_small, MXC_CONV_GEMM_IM2COL>, {3, 4, 11, 10}, {6, 2, 3, 3}, {3, 6, 6, 5}, strided);
    // the large tile with the ring (dynamic shared memory): im2col through its register-staged loop
    expect_half_conv(convolution<mxc_half, mxc::hip::gemm_mma_large_ring, MXC_CONV_GEMM_IM2COL>, {2, 5, 9, 7}, {6, 5, 3, 3}, {2, 6, 9, 7}, same);
    expect_half_conv(convolution<mxc_half, mxc::hip::gemm_mma_large_ring, MXC_CONV_GEMM_IM2COL>, {3, 4, 11, 10}, {6, 2, 3, 3}, {3, 6, 6, 5}, strided);
}

// The 1x1 form's B matrix: vector loads when the plane is a multiple of the vector width,
// else element-wise through the per-column state (image and position once per column:
// conv_1x1_view::col), on the matrix-unit kernel (half) and the SIMT one (float); columns
// past the tile edge, K over one k-tile and not a multiple of it.
TEST(HipGemmForms, PointwiseConvolutionColumnsMatchTheReference) {
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
    using mxc::hip::convolution;
    const std::vector<int64_t> unit = {1, 0, 0, 1, 1, 1, 1};
    for (int64_t h : {7, 4}) { // planes 35 (element-wise) and 20 (element-wise for half: 20 % 8), 16 below
        SCOPED_TRACE("plane " + std::to_string(h * 5));
        expect_half_conv(convolution<mxc_half, mxc::hip::gemm_mma_small, MXC_CONV_GEMM_1X1>, {3, 40, h, 5}, {70, 40, 1, 1}, {3, 70, h, 5}, unit, MXC_CONV_GEMM_1X1);
        expect_half_conv(convolution<mxc_half, mxc::hip::gemm_mma_large, MXC_CONV_GEMM_1X1>, {3, 40, h, 5}, {70, 40, 1, 1}, {3, 70, h, 5}, unit, MXC_CONV_GEMM_1X1);
        expect_half_conv(convolution<mxc_half, mxc::hip::gemm_mma_large_ring, MXC_CONV_GEMM_1X1>, {3, 40, h, 5}, {70, 40, 1, 1}, {3, 70, h, 5}, unit, MXC_CONV_GEMM_1X1);
    }
    expect_half_conv(convolution<mxc_half, mxc::hip::gemm_mma_small, MXC_CONV_GEMM_1X1>, {2, 40, 4, 4}, {70, 40, 1, 1}, {2, 70, 4, 4}, unit, MXC_CONV_GEMM_1X1);
    // vectors (plane 16): gemm_mma_large_ring's pipelined loop, K over two k-tiles
    expect_half_conv(convolution<mxc_half, mxc::hip::gemm_mma_large_ring, MXC_CONV_GEMM_1X1>, {2, 40, 4, 4}, {70, 40, 1, 1}, {2, 70, 4, 4}, unit, MXC_CONV_GEMM_1X1);
    for (int64_t h : {7, 4}) {
        const mxc_desc ins[2] = {packed({3, 20, h, 5}), packed({9, 20, 1, 1})}, od = packed({3, 9, h, 5});
        ASSERT_EQ(mxc_conv_pick(ins[0], ins[1], od, unit.data()), MXC_CONV_GEMM_1X1);
        const auto x = ramp(size_t(mxc_elements(ins[0])), 0.25f), w = ramp(9 * 20, 0.5f);
        std::vector<float> want(size_t(mxc_elements(od)));
        for (size_t i = 0; i < want.size(); ++i) want[i] = mxc_conv_at(x.data(), ins[0], w.data(), ins[1], od, unit.data(), int64_t(i));
        expect_near_all(run_kernel(convolution<float, mxc::hip::gemm_medium, MXC_CONV_GEMM_1X1>, x, w, ins, od, unit), want);
        expect_near_all(run_kernel(convolution<float, mxc::hip::gemm_small_n, MXC_CONV_GEMM_1X1>, x, w, ins, od, unit), want);
    }
}

// Float convolutions on the fp32 matrix-unit kernel (gemm_mma_f32; MXC_FP32_MMA=all): the
// im2col matrix through its column states (stride, dilation, groups, columns past the tile
// edge, K not a multiple of BK = 16), the 1x1 B element-wise (plane 35) and as vectors (plane
// 16: the pipelined loop where the emulator has asynchronous copies).
TEST(HipGemmForms, FloatConvolutionOnTheMatrixUnitKernel) {
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
    using mxc::hip::convolution;
    using mxc::hip::gemm_mma_f32;
    const std::vector<int64_t> same = {1, 1, 1, 1, 1, 1, 1}, strided = {2, 2, 2, 2, 2, 2, 2}, unit = {1, 0, 0, 1, 1, 1, 1};
    struct conv_case {
        std::vector<int64_t> x, w, y, ip;
        mxc_conv_form form;
    };
    const conv_case cases[] = {
        {{2, 5, 9, 7}, {20, 5, 3, 3}, {2, 20, 9, 7}, same, MXC_CONV_GEMM_IM2COL},
        {{3, 4, 11, 10}, {18, 2, 3, 3}, {3, 18, 6, 5}, strided, MXC_CONV_GEMM_IM2COL},
        {{3, 40, 7, 5}, {70, 40, 1, 1}, {3, 70, 7, 5}, unit, MXC_CONV_GEMM_1X1},
        {{2, 40, 4, 4}, {70, 40, 1, 1}, {2, 70, 4, 4}, unit, MXC_CONV_GEMM_1X1},
    };
    for (const conv_case& c : cases) {
        SCOPED_TRACE("w " + std::to_string(c.w[0]) + "x" + std::to_string(c.w[1]) + "x" + std::to_string(c.w[2]));
        const mxc_desc ins[2] = {packed(c.x), packed(c.w)}, od = packed(c.y);
        ASSERT_EQ(mxc_conv_pick(ins[0], ins[1], od, c.ip.data()), c.form);
        const auto x = ramp(size_t(mxc_elements(ins[0])), 0.25f), w = ramp(size_t(mxc_elements(ins[1])), 0.125f);
        std::vector<float> want(size_t(mxc_elements(od)));
        for (size_t i = 0; i < want.size(); ++i) want[i] = mxc_conv_at(x.data(), ins[0], w.data(), ins[1], od, c.ip.data(), int64_t(i));
        if (c.form == MXC_CONV_GEMM_1X1)
            expect_near_all(run_kernel(convolution<float, gemm_mma_f32, MXC_CONV_GEMM_1X1>, x, w, ins, od, c.ip), want);
        else
            expect_near_all(run_kernel(convolution<float, gemm_mma_f32, MXC_CONV_GEMM_IM2COL>, x, w, ins, od, c.ip), want);
    }
}

// The SIMT kernel's loops (the ring of asynchronous copies where the emulator has them, for A
// along K and B along N; else two shared stages, the next k-tile's vector loads held in
// registers across the multiply): several k-tiles with K not a multiple of BK, edge tiles
// with partial vectors, vector views read along K (A row-major, B transposed) and along M / N
// (A transposed, B row-major), element-wise views (odd strides), double, half with few rows
// (8 halves per vector, converted to float stages), a tile whose vectors do not split evenly
// over its threads (40x64x16/4x4: 160 threads, B's 256 vectors), and K = 0.
namespace {
mxc_desc strided(std::vector<int64_t> lens, std::vector<int64_t> strides) {
    mxc_desc d = packed(lens);
    for (size_t i = 0; i < strides.size(); ++i) d.strides[i] = strides[i];
    return d;
}
template <class T, class Cfg> void expect_simt_dot(int64_t m, int64_t n, int64_t kd, bool a_t, bool b_t, int64_t pad) {
    SCOPED_TRACE("m " + std::to_string(m) + " n " + std::to_string(n) + " k " + std::to_string(kd) + (a_t ? " A^T" : "") +
                 (b_t ? " B^T" : "") + " pad " + std::to_string(pad));
    // A: m x kd, row-major (row stride: kd rounded up to 8, plus pad) or transposed (column
    // stride: m rounded up, plus pad); B alike. pad 0: vector views whose edge vectors reach
    // past the matrix (into nonzero memory), 1: element-wise views
    auto ld = [pad](int64_t len) { return (len + 7) / 8 * 8 + pad; };
    const mxc_desc ins[2] = {a_t ? strided({m, kd}, {1, ld(m)}) : strided({m, kd}, {ld(kd), 1}),
                             b_t ? strided({kd, n}, {1, ld(kd)}) : strided({kd, n}, {ld(n), 1})};
    const mxc_desc od = packed({m, n});
    const size_t asz = size_t(a_t ? kd * ld(m) : m * ld(kd)), bsz = size_t(b_t ? n * ld(kd) : kd * ld(n));
    std::vector<T> a, b;
    for (float v : ramp(asz + 1, 0.125f)) a.push_back(T(v));
    for (float v : ramp(bsz + 1, 0.25f)) b.push_back(T(v));
    const std::vector<T> got = run_kernel(mxc::hip::dot<T, Cfg>, a, b, ins, od, {});
    ASSERT_EQ(got.size(), size_t(m * n));
    for (int64_t i = 0; i < m * n; ++i) {
        const double ref = double(mxc_dot_at(a.data(), ins[0], b.data(), ins[1], od, i));
        ASSERT_NEAR(double(got[size_t(i)]), ref, (sizeof(T) == 2 ? 1e-2 : 1e-4) * (1.0 + std::fabs(ref))) << "element " << i;
    }
}
} // namespace

// gemm_large's ring kernel (A staged k-major, one loop a kernel) launched directly, also on views
// that are not vectors (element-wise: the launcher never picks it for those, but a block whose
// batch's views turn out not to be vectors fills the stage element by element).
template <class T> void dot_large_ring(const mxc_kargs& k, hipStream_t s) {
    using namespace mxc::hip;
    using Cfg = gemm_large;
    static_assert(gemm_simt_one_loop<Cfg, T>, "gemm_large's ring stages A k-major");
    const mxc_desc &ad = k.in_desc[0], &bd = k.in_desc[1], &od = *k.out_desc;
    const int64_t m = od.lens[0], n = od.lens[1], kd = ad.lens[1];
    const dim3 grid(unsigned((n + Cfg::BN - 1) / Cfg::BN), unsigned((m + Cfg::BM - 1) / Cfg::BM), 1);
    using Out = dot_out<plain_store<T>>;
    hipLaunchKernelGGL((gemm_kernel<Cfg, T, dot_source<T>, dot_source<T>, Out, gemm_loop_ring>), grid, dim3(Cfg::threads), 0, s, m, n, kd,
                       int64_t(0), int64_t(0), int64_t(1), kd, dot_source<T>{static_cast<const T*>(k.in[0]), ad},
                       dot_source<T>{static_cast<const T*>(k.in[1]), bd}, Out{plain_store<T>{static_cast<T*>(k.out)}, m, n});
}

TEST(HipGemmForms, RingOnlySimtKernelMatchesTheReference) {
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
    for (int64_t kd : {0, 5, 34, 100})
        for (int64_t pad : {0, 1}) {
            SCOPED_TRACE("k " + std::to_string(kd) + " pad " + std::to_string(pad));
            const int64_t m = 130, n = 134, lda = (kd + 7) / 8 * 8 + pad, ldb = (n + 7) / 8 * 8 + pad;
            const mxc_desc ins[2] = {strided({m, kd}, {lda, 1}), strided({kd, n}, {ldb, 1})};
            const mxc_desc od = packed({m, n});
            const std::vector<float> a = ramp(size_t(m * lda + 1), 0.125f), b = ramp(size_t(kd * ldb + 1), 0.25f);
            const std::vector<float> got = run_kernel(dot_large_ring<float>, a, b, ins, od, {});
            ASSERT_EQ(got.size(), size_t(m * n));
            for (int64_t i = 0; i < m * n; ++i) {
                const double ref = double(mxc_dot_at(a.data(), ins[0], b.data(), ins[1], od, i));
                ASSERT_NEAR(double(got[size_t(i)]), ref, 1e-4 * (1.0 + std::fabs(ref))) << "element " << i;
            }
        }
}

TEST(HipGemmForms, PipelinedSimtKernelMatchesTheReference) {
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
    using odd = mxc::hip::gemm_config<40, 64, 16, 4, 4>;
    using wide_n = mxc::hip::gemm_config<32, 128, 8, 2, 8>; // a thread's columns in two runs, rows in one of 2
    for (int64_t kd : {0, 5, 34, 100}) {
        for (int t = 0; t < 4; ++t) {
            const bool a_t = t & 1, b_t = t & 2;
            expect_simt_dot<float, mxc::hip::gemm_medium>(70, 70, kd, a_t, b_t, 0);  // vector views
            expect_simt_dot<float, mxc::hip::gemm_medium>(70, 70, kd, a_t, b_t, 1);  // element-wise
            expect_simt_dot<float, mxc::hip::gemm_large>(130, 134, kd, a_t, b_t, 0);
            expect_simt_dot<float, mxc::hip::gemm_small_m>(12, 134, kd, a_t, b_t, 0);
            expect_simt_dot<float, mxc::hip::gemm_small_n>(132, 12, kd, a_t, b_t, 0);
            expect_simt_dot<float, odd>(44, 134, kd, a_t, b_t, 0);
            expect_simt_dot<float, wide_n>(36, 134, kd, a_t, b_t, 1);
            expect_simt_dot<double, mxc::hip::gemm_large>(130, 134, kd, a_t, b_t, 0);
            expect_simt_dot<double, mxc::hip::gemm_medium>(70, 70, kd, a_t, b_t, 0);
            expect_simt_dot<double, mxc::hip::gemm_small_m>(12, 70, kd, a_t, b_t, 0);
            expect_simt_dot<mxc_half, mxc::hip::gemm_small_m>(12, 134, kd, a_t, b_t, 0);
            expect_simt_dot<mxc_bf16, mxc::hip::gemm_small_m>(12, 134, kd, a_t, b_t, 1);
        }
    }
}

// The collapsed offsets of a fused epilogue's extra inputs (make_epi_offset) against
// mxc_offset_of, element by element: the output's layout, per-channel broadcasts with and
// without a batch, a transposed view, a scalar, and more runs than it keeps (the general path).
TEST(HipGemmForms, EpilogueOffsetsMatchTheGeneralIndexMath) {
    struct offset_case {
        std::vector<int64_t> lens, strides;
        mxc::hip::epi_offset::kind_t kind;
    };
    const offset_case cases[] = {
        {{2, 8, 5, 3}, {120, 15, 3, 1}, mxc::hip::epi_offset::same},
        {{1, 8, 5, 3}, {0, 1, 0, 0}, mxc::hip::epi_offset::runs},     // bias [1, C, 1, 1] broadcast
        {{4, 8, 5, 3}, {0, 1, 0, 0}, mxc::hip::epi_offset::runs},     // the same, 4 images
        {{4, 8, 5, 3}, {8, 1, 0, 0}, mxc::hip::epi_offset::runs},     // per image and channel
        {{4, 6, 9}, {0, 1, 6}, mxc::hip::epi_offset::runs},           // a transposed matrix, broadcast over batches
        {{3, 7}, {0, 0}, mxc::hip::epi_offset::runs},                 // a scalar
        {{2, 3, 4, 5, 6}, {1, 2, 6, 24, 120}, mxc::hip::epi_offset::general}, // reversed: 5 runs
    };
    for (const offset_case& c : cases) {
        mxc_desc d{};
        d.rank = int32_t(c.lens.size());
        int64_t total = 1;
        for (int i = 0; i < d.rank; ++i) d.lens[i] = c.lens[size_t(i)], d.strides[i] = c.strides[size_t(i)], total *= d.lens[i];
        const mxc::hip::epi_offset o = mxc::hip::make_epi_offset(d, total);
        EXPECT_EQ(o.kind, c.kind) << "rank " << d.rank << ", first stride " << d.strides[0];
        for (int64_t e = 0; e < total; ++e) ASSERT_EQ(o(d, e), mxc_offset_of(d, e)) << "element " << e;
    }
    // past 31 bits: the general path
    mxc_desc big = packed({int64_t(1) << 31});
    big.strides[0] = 0;
    EXPECT_EQ(mxc::hip::make_epi_offset(big, int64_t(1) << 31).kind, mxc::hip::epi_offset::general);
}

// ---- the epilogue in runs (gemm.hpp's store_run / put_run contract) ----
namespace {

// y = acc + x1 - 2 x2 + x3 / 2: distinct weights, so that swapped or shifted inputs show.
struct run_body {
    template <class C> MXC_HD C operator()(const C* x) const { return x[0] + x[1] - C(2.0f) * x[2] + C(0.5f) * x[3]; }
};
float run_body_ref(float acc, const float* x) { return acc + x[0] - 2.0f * x[1] + 0.5f * x[2]; }

// An extra input of a fused kernel: its view (the output's lens) and host values (exact in half).
struct extra_input {
    mxc_desc d;
    std::vector<float> v;
};
enum extra_kind { ex_same, ex_channel, ex_scalar, ex_reversed, ex_stride2, ex_row, ex_width };
// An extra input of kind `kind` over an output of lens od (NCHW for a convolution: ex_channel
// is a [1, C, 1, 1] bias; [..., M, N] for a product: ex_channel a column bias [N], ex_row [M, 1]).
extra_input make_extra(extra_kind kind, const mxc_desc& od, bool conv, float scale) {
    mxc_desc d = packed(std::vector<int64_t>(od.lens, od.lens + od.rank));
    const int r = d.rank;
    switch (kind) {
    case ex_same: break;
    case ex_channel:
        for (int i = 0; i < r; ++i) d.strides[i] = 0;
        d.strides[conv ? 1 : r - 1] = 1;
        break;
    case ex_row:
        for (int i = 0; i < r; ++i) d.strides[i] = 0;
        d.strides[r - 2] = 1;
        break;
    case ex_scalar:
        for (int i = 0; i < r; ++i) d.strides[i] = 0;
        break;
    case ex_width: // [1, ..., 1, W]: run 0 shorter than a plane or a row (runs wrap it)
        for (int i = 0; i < r - 1; ++i) d.strides[i] = 0;
        break;
    case ex_reversed: { // every dim its own run: the general kind
        int64_t s = 1;
        for (int i = 0; i < r; ++i) d.strides[i] = s, s *= d.lens[i];
        break;
    }
    case ex_stride2:
        for (int i = 0; i < r; ++i) d.strides[i] *= 2;
        break;
    }
    return {d, ramp(size_t(mxc_desc_extent(d)) + 1, scale)};
}

// Runs launcher `run` on a, b and the extra inputs (half): the output (and every extra input)
// `off` elements past a 16-byte boundary; alias: extra input 0 (ex_same) shares the output's storage.
template <class Run>
std::vector<mxc_half> run_with_extras(Run run, const std::vector<mxc_half>& a, const std::vector<mxc_half>& b, const mxc_desc ab[2],
                                      const std::vector<extra_input>& ex, const mxc_desc& od, const std::vector<int64_t>& ip, int64_t off,
                                      bool alias, int64_t scratch_bytes = 0) {
    using T = mxc_half;
    const int64_t n = mxc_elements(od);
    std::vector<void*> allocs;
    auto upload = [&](const std::vector<T>& h, int64_t at) {
        void* p = nullptr;
        EXPECT_EQ(hipMalloc(&p, (h.size() + size_t(at)) * sizeof(T)), hipSuccess);
        allocs.push_back(p);
        T* q = static_cast<T*>(p) + at;
        EXPECT_EQ(hipMemcpy(q, h.data(), h.size() * sizeof(T), hipMemcpyHostToDevice), hipSuccess);
        return q;
    };
    std::vector<const void*> ins = {upload(a, 0), upload(b, 0)};
    std::vector<mxc_desc> descs = {ab[0], ab[1]};
    constexpr int64_t tail = 64; // past the output: must stay -99 (a run stored past the last column shows)
    T* dy = upload(std::vector<T>(size_t(n + tail), T(-99.0f)), off);
    for (size_t j = 0; j < ex.size(); ++j) {
        const std::vector<T> h(ex[j].v.begin(), ex[j].v.end());
        if (j == 0 && alias) {
            EXPECT_EQ(hipMemcpy(dy, h.data(), size_t(n) * sizeof(T), hipMemcpyHostToDevice), hipSuccess);
            ins.push_back(dy);
        } else {
            ins.push_back(upload(h, off));
        }
        descs.push_back(ex[j].d);
    }
    void* scratch = nullptr;
    if (scratch_bytes > 0) {
        EXPECT_EQ(hipMalloc(&scratch, size_t(scratch_bytes)), hipSuccess);
        EXPECT_EQ(hipMemset(scratch, 0xff, size_t(scratch_bytes)), hipSuccess);
        EXPECT_EQ(hipMemset(scratch, 0, size_t(mxc_gemm_split_counter_bytes)), hipSuccess); // the counters (as the library's run)
        allocs.push_back(scratch);
    }
    const mxc_kargs k = {int32_t(ins.size()), ins.data(), descs.data(), dy, &od, ip.empty() ? nullptr : ip.data(), int32_t(ip.size()),
                         nullptr, 0, scratch};
    run(k, hipStream_t{});
    EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
    std::vector<T> y(static_cast<size_t>(n));
    EXPECT_EQ(hipMemcpy(y.data(), dy, size_t(n) * sizeof(T), hipMemcpyDeviceToHost), hipSuccess);
    std::vector<T> past(static_cast<size_t>(tail));
    EXPECT_EQ(hipMemcpy(past.data(), dy + n, size_t(tail) * sizeof(T), hipMemcpyDeviceToHost), hipSuccess);
    for (int64_t i = 0; i < tail; ++i) EXPECT_EQ(float(past[size_t(i)]), -99.0f) << "written past the output: element " << n + i;
    for (void* p : allocs) (void)hipFree(p);
    return y;
}

// want[e] = body(acc(e), extra inputs at e) (no extras: acc(e)) against got, in half's precision.
template <class Acc>
void expect_fused(const std::vector<mxc_half>& got, const std::vector<extra_input>& ex, Acc acc, const std::string& what) {
    SCOPED_TRACE(what);
    for (size_t e = 0; e < got.size(); ++e) {
        float want = acc(int64_t(e));
        if (!ex.empty()) {
            float x[3];
            for (size_t j = 0; j < 3; ++j) x[j] = float(mxc_half(ex[j].v[size_t(mxc_offset_of(ex[j].d, int64_t(e)))]));
            want = run_body_ref(want, x);
        }
        ASSERT_NEAR(float(got[e]), want, 0.01f * std::fabs(want) + 0.02f) << "element " << e;
    }
}

struct fused_conv_case {
    std::vector<int64_t> x, w, y, ip;
    std::vector<extra_kind> extras; // three, or none (the plain store)
};

template <class Cfg, mxc_conv_form Form> void expect_fused_conv_runs(const fused_conv_case& cc, int64_t off, bool alias) {
    using mxc::hip::conv_index_32;
    using mxc::hip::conv_index_64;
    const mxc_desc ab[2] = {packed(cc.x), packed(cc.w)}, od = packed(cc.y);
    constexpr bool pointwise = Form == MXC_CONV_GEMM_1X1;
    ASSERT_EQ(mxc_conv_pick(ab[0], ab[1], od, cc.ip.data()), Form);
    const auto xf = ramp(size_t(mxc_elements(ab[0])), 0.25f), wf = ramp(size_t(mxc_elements(ab[1])), 0.125f);
    const std::vector<mxc_half> xh(xf.begin(), xf.end()), wh(wf.begin(), wf.end());
    std::vector<extra_input> ex;
    for (size_t j = 0; j < cc.extras.size(); ++j) ex.push_back(make_extra(cc.extras[j], od, true, 1.0f + float(j)));
    auto acc = [&](int64_t e) { return mxc_conv_at(xf.data(), ab[0], wf.data(), ab[1], od, cc.ip.data(), e); };
    const std::string what = "conv y " + std::to_string(od.lens[0]) + "x" + std::to_string(od.lens[1]) + "x" + std::to_string(od.lens[2]) +
                             "x" + std::to_string(od.lens[3]) + " BN " + std::to_string(Cfg::BN) + " off " + std::to_string(off) +
                             (alias ? " alias" : "") + (pointwise ? " 1x1" : " im2col");
    if (ex.empty()) {
        const auto plain32 = [](const mxc_kargs& k, hipStream_t s) {
            mxc::hip::conv_gemm<mxc_half, Cfg, pointwise, conv_index_32>(k, s, mxc::hip::plain_store<mxc_half>{static_cast<mxc_half*>(k.out)});
        };
        const auto plain64 = [](const mxc_kargs& k, hipStream_t s) {
            mxc::hip::conv_gemm<mxc_half, Cfg, pointwise, conv_index_64>(k, s, mxc::hip::plain_store<mxc_half>{static_cast<mxc_half*>(k.out)});
        };
        expect_fused(run_with_extras(plain32, xh, wh, ab, ex, od, cc.ip, off, false), ex, acc, what + " plain");
        expect_fused(run_with_extras(plain64, xh, wh, ab, ex, od, cc.ip, off, false), ex, acc, what + " plain int64");
        return;
    }
    const auto fused32 = [](const mxc_kargs& k, hipStream_t s) {
        mxc::hip::conv_gemm<mxc_half, Cfg, pointwise, conv_index_32>(k, s, mxc::hip::make_fused_store<mxc_half>(run_body{}, k, 0));
    };
    const auto fused64 = [](const mxc_kargs& k, hipStream_t s) {
        mxc::hip::conv_gemm<mxc_half, Cfg, pointwise, conv_index_64>(k, s, mxc::hip::make_fused_store<mxc_half>(run_body{}, k, 0));
    };
    const auto fused = [](const mxc_kargs& k, hipStream_t s) { mxc::hip::fused_convolution_expr<mxc_half, Cfg, Form>(k, s, run_body{}); };
    expect_fused(run_with_extras(fused, xh, wh, ab, ex, od, cc.ip, off, alias), ex, acc, what);
    expect_fused(run_with_extras(fused32, xh, wh, ab, ex, od, cc.ip, off, alias), ex, acc, what + " int32");
    expect_fused(run_with_extras(fused64, xh, wh, ab, ex, od, cc.ip, off, alias), ex, acc, what + " int64");
    // split-K: the reduce kernel's runs into the same epilogue
    using split3 = mxc::hip::gemm_split<Cfg, 3>;
    const mxc::hip::conv_geom g = mxc::hip::make_conv_geom(mxc_kargs{2, nullptr, ab, nullptr, &od, cc.ip.data(), int32_t(cc.ip.size()), nullptr, 0});
    const int64_t kdim = g.cg * g.kn, bytes = mxc::hip::gemm_split_scratch_bytes<mxc_half>(g.mg, od.lens[0] * g.plane, kdim, cc.ip[0], 3, Cfg::BK);
    const auto split = [](const mxc_kargs& k, hipStream_t s) { mxc::hip::fused_convolution_expr<mxc_half, split3, Form>(k, s, run_body{}); };
    expect_fused(run_with_extras(split, xh, wh, ab, ex, od, cc.ip, off, alias, bytes), ex, acc, what + " split 3");
}

} // namespace

// The matrix-unit kernel's epilogue in runs of 8 columns through conv_out (32-bit and int64
// index math) into the plain and the fused stores: planes that are (24) and are not (49, 30)
// multiples of 8 (runs across images), N not a multiple of 8, an output 2 bytes off its
// 16-byte boundary (no vector stores: the emulator fails a misaligned one), a residual that
// shares the output's storage, per-channel and scalar broadcasts, a strided and a general
// (reversed) extra input, and the split-K reduce.
TEST(HipGemmForms, MatrixUnitEpilogueRunsThroughConvolutions) {
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
    using mxc::hip::gemm_mma_large;
    using mxc::hip::gemm_mma_small;
    const std::vector<int64_t> one = {1, 0, 0, 1, 1, 1, 1}, same3 = {1, 1, 1, 1, 1, 1, 1};
    const std::vector<extra_kind> common = {ex_same, ex_channel, ex_scalar}, odd = {ex_width, ex_reversed, ex_stride2};
    const fused_conv_case c49{{3, 16, 7, 7}, {24, 16, 1, 1}, {3, 24, 7, 7}, one, common};      // plane 49, N 147
    const fused_conv_case c24{{2, 40, 4, 6}, {20, 40, 1, 1}, {2, 20, 4, 6}, one, common};      // plane 24, N 48
    const fused_conv_case c30{{2, 8, 6, 5}, {20, 8, 3, 3}, {2, 20, 6, 5}, same3, common};      // im2col, plane 30, N 60
    for (int64_t off : {0, 1}) {
        for (bool alias : {false, true}) {
            expect_fused_conv_runs<gemm_mma_small, MXC_CONV_GEMM_1X1>(c49, off, alias);
            expect_fused_conv_runs<gemm_mma_large, MXC_CONV_GEMM_1X1>(c49, off, alias);
            expect_fused_conv_runs<gemm_mma_small, MXC_CONV_GEMM_1X1>(c24, off, alias);
            expect_fused_conv_runs<gemm_mma_small, MXC_CONV_GEMM_IM2COL>(c30, off, alias);
        }
        fused_conv_case o = c49;
        o.extras = odd;
        expect_fused_conv_runs<gemm_mma_small, MXC_CONV_GEMM_1X1>(o, off, false);
        o = c30;
        o.extras = odd;
        expect_fused_conv_runs<gemm_mma_large, MXC_CONV_GEMM_IM2COL>(o, off, false);
        // the large tile with the ring: the pipelined loop (plane 24) and the register-staged one (49, im2col)
        expect_fused_conv_runs<mxc::hip::gemm_mma_large_ring, MXC_CONV_GEMM_1X1>(c24, off, off == 1);
        expect_fused_conv_runs<mxc::hip::gemm_mma_large_ring, MXC_CONV_GEMM_1X1>(c49, off, false);
        expect_fused_conv_runs<mxc::hip::gemm_mma_large_ring, MXC_CONV_GEMM_IM2COL>(o, off, false);
        for (fused_conv_case p : {c49, c24, c30}) { // the plain store
            p.extras.clear();
            if (p.w[2] == 1) expect_fused_conv_runs<gemm_mma_small, MXC_CONV_GEMM_1X1>(p, off, false);
            else expect_fused_conv_runs<gemm_mma_small, MXC_CONV_GEMM_IM2COL>(p, off, false);
        }
    }
}

namespace {
// A fused half product on configuration Cfg (a dot_out, or a dot_out_strided where b is
// shared along the batches) against mxc_dot_at and the body.
template <class Cfg>
void expect_fused_dot_runs(const mxc_desc ab[2], const mxc_desc& od, const std::vector<extra_kind>& kinds, int64_t off, bool alias,
                           int64_t scratch_bytes = 0) {
    std::vector<mxc_half> a, b;
    for (float v : ramp(size_t(mxc_desc_extent(ab[0])), 0.25f)) a.push_back(mxc_half(v));
    for (float v : ramp(size_t(mxc_desc_extent(ab[1])), 0.125f)) b.push_back(mxc_half(v));
    std::vector<extra_input> ex;
    for (size_t j = 0; j < kinds.size(); ++j) ex.push_back(make_extra(kinds[j], od, false, 1.0f + float(j)));
    auto acc = [&](int64_t e) { return mxc_dot_at(a.data(), ab[0], b.data(), ab[1], od, e); };
    const auto run = [](const mxc_kargs& k, hipStream_t s) {
        if (k.n_in == 2) mxc::hip::dot<mxc_half, Cfg>(k, s); // the plain store
        else mxc::hip::fused_dot_expr<mxc_half, Cfg>(k, s, run_body{});
    };
    std::string what = "dot, out rank " + std::to_string(od.rank) + " n " + std::to_string(od.lens[od.rank - 1]) + " off " + std::to_string(off) +
                       (alias ? " alias" : "") + (scratch_bytes ? " split" : "");
    for (extra_kind kd : kinds) what += " " + std::to_string(int(kd));
    expect_fused(run_with_extras(run, a, b, ab, ex, od, {}, off, alias, scratch_bytes), ex, acc, what);
}
} // namespace

// The same through the products' out functors: dot_out (batched, N = 45: a partial run per
// row), dot_out_strided (b shared along the batches: rows across batches), column, row and
// scalar broadcasts, a general (reversed) and a strided extra input, unaligned and aliased
// outputs, and the split-K reduce.
TEST(HipGemmForms, MatrixUnitEpilogueRunsThroughProducts) {
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
    using mxc::hip::gemm_mma_large;
    using mxc::hip::gemm_mma_small;
    const mxc_desc plain[2] = {packed({2, 20, 37}), packed({2, 37, 45})}, plain_o = packed({2, 20, 45});
    const mxc_desc fold[2] = {packed({7, 3, 13}), strided({7, 13, 24}, {0, 24, 1})}, fold_o = packed({7, 3, 24});
    ASSERT_TRUE(mxc_dot_fold_of(fold[0], fold[1], fold_o).ok);
    const std::vector<extra_kind> common = {ex_same, ex_channel, ex_row}, odd = {ex_reversed, ex_scalar, ex_stride2};
    for (int64_t off : {0, 1}) {
        for (bool alias : {false, true}) {
            expect_fused_dot_runs<gemm_mma_small>(plain, plain_o, common, off, alias);
            expect_fused_dot_runs<gemm_mma_large>(plain, plain_o, common, off, alias);
            expect_fused_dot_runs<gemm_mma_small>(fold, fold_o, common, off, alias);
        }
        expect_fused_dot_runs<gemm_mma_small>(plain, plain_o, odd, off, false);
        expect_fused_dot_runs<gemm_mma_large>(fold, fold_o, odd, off, false);
        expect_fused_dot_runs<gemm_mma_small>(plain, plain_o, {}, off, false); // the plain store
        // split-K, K = 37 at the large tile's BK 32: slices of 32 and 5
        using split2 = mxc::hip::gemm_split<gemm_mma_large, 2>;
        expect_fused_dot_runs<split2>(plain, plain_o, common, off, true, mxc::hip::gemm_split_scratch_bytes<mxc_half>(20, 45, 37, 2, 2, 32));
        expect_fused_dot_runs<split2>(fold, fold_o, odd, off, false, mxc::hip::gemm_split_scratch_bytes<mxc_half>(21, 24, 13, 1, 2, 32));
    }
}

// epi_load_run (a fused epilogue's loads of a run of extra-input elements) against the
// per-element offsets, for every start and count: runs inside and across run 0 (a [1, 1, 1, W]
// row wraps every W elements), broadcasts, a strided run, the general kind, one element.
TEST(HipGemmForms, EpilogueRunLoadsMatchTheOffsets) {
    const mxc_desc od = packed({2, 3, 5, 7});
    std::vector<mxc_desc> views;
    for (extra_kind kd : {ex_same, ex_channel, ex_scalar, ex_reversed, ex_stride2, ex_width}) views.push_back(make_extra(kd, od, true, 1.0f).d);
    views.push_back(strided({2, 3, 5, 7}, {0, 0, 1, 5})); // a transposed [H, W] plane, broadcast: run 0 of stride 5
    mxc_desc one = packed({1, 1, 1});                      // every dim 1: no runs
    views.push_back(one);
    for (const mxc_desc& d : views) {
        const int64_t total = mxc_elements(d);
        const mxc::hip::epi_offset o = mxc::hip::make_epi_offset(d, total);
        std::vector<float> p(size_t(mxc_desc_extent(d)) + 8);
        for (size_t i = 0; i < p.size(); ++i) p[i] = float(i + 1);
        for (int64_t e0 = 0; e0 < total; ++e0)
            for (int count = 1; count <= 8 && e0 + count <= total; ++count) {
                float x[8] = {};
                mxc::hip::epi_load_run<8>(o, d, p.data(), e0, x, count);
                for (int i = 0; i < count; ++i)
                    ASSERT_EQ(x[i], p[size_t(mxc_offset_of(d, e0 + i))]) << "kind " << o.kind << " e0 " << e0 << " count " << count << " i " << i;
            }
    }
}

namespace {

// The channels-last descriptor of weights [M, C, kh, kw] (stored [M, kh, kw, C]).
mxc_desc channels_last(const std::vector<int64_t>& wl) {
    mxc_desc d = packed(wl);
    d.strides[0] = wl[1] * wl[2] * wl[3], d.strides[1] = 1, d.strides[2] = wl[3] * wl[1], d.strides[3] = wl[1];
    return d;
}

// A half convolution in the channels-last form (MXC_CONV_GEMM_NHWC) with configuration Cfg:
// x and w transposed into the scratch (mxc_conv_nhwc_bytes, filled with NaN first by
// run_kernel), the GEMM over 16-byte vectors along K, zeros in the padding; against mxc_conv_at.
// w_last: the weights stored channels-last already (as mxc stores constant weights), so only x
// is transposed and the scratch has no room for the weights. Without scratch the launcher must
// fall back to the per-output kernel (same values).
template <class Cfg>
void expect_nhwc_conv(const std::vector<int64_t>& xl, const std::vector<int64_t>& wl, const std::vector<int64_t>& yl,
                      const std::vector<int64_t>& ip, mxc_conv_form base, bool w_last = false) {
    const mxc_desc ins[2] = {packed(xl), w_last ? channels_last(wl) : packed(wl)}, od = packed(yl);
    ASSERT_EQ(mxc_conv_pick(ins[0], packed(wl), od, ip.data()), base);
    ASSERT_TRUE(mxc_conv_channels_last(ins[0], ins[1], od, ip.data()));
    ASSERT_EQ(mxc_conv_w_channels_last(ins[1]), w_last || (wl[2] == 1 && wl[3] == 1));
    const auto xf = ramp(size_t(mxc_elements(ins[0])), 0.25f), wf = ramp(size_t(mxc_elements(ins[1])), 0.125f);
    const std::vector<mxc_half> xh(xf.begin(), xf.end()), wh(wf.begin(), wf.end());
    int64_t split = 0;
    if constexpr (mxc::hip::gemm_split_of<Cfg>::splits > 1) {
        using G = typename mxc::hip::gemm_split_of<Cfg>::config;
        split = mxc::hip::gemm_split_scratch_bytes<mxc_half>(wl[0], yl[0] * yl[2] * yl[3], wl[1] * wl[2] * wl[3], 1,
                                                             mxc::hip::gemm_split_of<Cfg>::splits, G::BK);
    }
    const int64_t bytes = mxc_conv_nhwc_bytes(ins[0], ins[1], split, 2);
    for (int64_t scratch : {bytes, int64_t(0)}) {
        const auto y = run_kernel(mxc::hip::convolution<mxc_half, Cfg, MXC_CONV_GEMM_NHWC>, xh, wh, ins, od, ip, scratch);
        for (int64_t i = 0; i < mxc_elements(od); ++i) {
            const float want = mxc_conv_at(xf.data(), ins[0], wf.data(), ins[1], od, ip.data(), i);
            ASSERT_NEAR(float(y[size_t(i)]), want, 0.01f * std::fabs(want) + 0.01f) << "output " << i << ", scratch " << scratch;
        }
    }
}

} // namespace

// The channels-last form on both matrix-unit tiles (the small one's pipelined loop stages B
// transposed where there are asynchronous copies, the emulator's default), split-K, the SIMT
// kernel: padding, stride, dilation, edges of M, N and K, a 1x1 over a plane of 35.
TEST(HipGemmForms, HalfConvolutionChannelsLast) {
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
    using namespace mxc::hip;
    const std::vector<int64_t> same = {1, 1, 1, 1, 1, 1, 1}, odd = {1, 1, 0, 2, 1, 1, 2}, one = {1, 0, 0, 1, 1, 1, 1};
    expect_nhwc_conv<gemm_mma_small>({2, 16, 9, 7}, {24, 16, 3, 3}, {2, 24, 9, 7}, same, MXC_CONV_GEMM_IM2COL);
    expect_nhwc_conv<gemm_mma_large>({2, 16, 9, 7}, {24, 16, 3, 3}, {2, 24, 9, 7}, same, MXC_CONV_GEMM_IM2COL);
    expect_nhwc_conv<gemm_mma_small>({3, 8, 11, 10}, {70, 8, 3, 3}, {3, 70, 6, 6}, odd, MXC_CONV_GEMM_IM2COL);
    expect_nhwc_conv<gemm_mma_small>({2, 16, 7, 5}, {40, 16, 1, 1}, {2, 40, 7, 5}, one, MXC_CONV_GEMM_1X1);
    expect_nhwc_conv<gemm_split<gemm_mma_small, 4>>({1, 64, 6, 6}, {8, 64, 3, 3}, {1, 8, 6, 6}, same, MXC_CONV_GEMM_IM2COL);
    expect_nhwc_conv<gemm_medium>({2, 16, 9, 7}, {24, 16, 3, 3}, {2, 24, 9, 7}, same, MXC_CONV_GEMM_IM2COL);
    // the weights stored channels-last (the scratch x only)
    expect_nhwc_conv<gemm_mma_small>({2, 16, 9, 7}, {24, 16, 3, 3}, {2, 24, 9, 7}, same, MXC_CONV_GEMM_IM2COL, true);
    expect_nhwc_conv<gemm_mma_small>({3, 8, 11, 10}, {70, 8, 3, 2}, {3, 70, 6, 8}, odd, MXC_CONV_GEMM_IM2COL, true);
    expect_nhwc_conv<gemm_split<gemm_mma_small, 4>>({1, 64, 6, 6}, {8, 64, 3, 3}, {1, 8, 6, 6}, same, MXC_CONV_GEMM_IM2COL, true);
}

// Which convolutions may run channels-last (templates/common/gemm_choice.hpp).
TEST(HipGemmForms, ChannelsLastRule) {
    const std::vector<int64_t> same = {1, 1, 1, 1, 1, 1, 1}, one = {1, 0, 0, 1, 1, 1, 1}, grouped = {2, 1, 1, 1, 1, 1, 1};
    auto ok = [](std::vector<int64_t> xl, std::vector<int64_t> wl, std::vector<int64_t> yl, const std::vector<int64_t>& ip) {
        return mxc_conv_channels_last(packed(xl), packed(wl), packed(yl), ip.data());
    };
    EXPECT_TRUE(ok({1, 64, 56, 56}, {64, 64, 3, 3}, {1, 64, 56, 56}, same));
    EXPECT_FALSE(ok({1, 3, 224, 224}, {64, 3, 3, 3}, {1, 64, 224, 224}, same)); // 3 channels: no whole vectors
    EXPECT_FALSE(ok({1, 64, 56, 56}, {64, 32, 3, 3}, {1, 64, 56, 56}, grouped)); // groups
    EXPECT_TRUE(ok({1, 1024, 14, 14}, {256, 1024, 1, 1}, {1, 256, 14, 14}, one)); // 1x1 over 196 positions
    EXPECT_FALSE(ok({1, 256, 56, 56}, {64, 256, 1, 1}, {1, 64, 56, 56}, one)); // 1x1 over 3136: vectors already
    EXPECT_FALSE(ok({1, 16, 9, 9, 9}, {8, 16, 3, 3, 3}, {1, 8, 9, 9, 9}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1})); // 3-d
    // weights stored channels-last: the same form; other strides: none
    EXPECT_TRUE(mxc_conv_channels_last(packed({1, 64, 56, 56}), channels_last({64, 64, 3, 3}), packed({1, 64, 56, 56}), same.data()));
    mxc_desc odd_w = packed({64, 64, 3, 3});
    odd_w.strides[0] = 640; // [M] padded
    EXPECT_FALSE(mxc_conv_channels_last(packed({1, 64, 56, 56}), odd_w, packed({1, 64, 56, 56}), same.data()));
    EXPECT_TRUE(mxc_conv_w_channels_last(channels_last({64, 64, 3, 3})));
    EXPECT_FALSE(mxc_conv_w_channels_last(packed({64, 64, 3, 3})));
    EXPECT_TRUE(mxc_conv_w_channels_last(packed({64, 64, 1, 1}))); // 1x1: both layouts
    EXPECT_FALSE(mxc_conv_w_channels_last(packed({64, 64, 3})));
    // the scratch: x, and the weights only where they are not channels-last
    const mxc_desc x = packed({1, 64, 56, 56});
    EXPECT_EQ(mxc_conv_nhwc_bytes(x, packed({64, 64, 3, 3}), 0, 2), 1024 + 64 * 3136 * 2 + 64 * 64 * 9 * 2);
    EXPECT_EQ(mxc_conv_nhwc_bytes(x, channels_last({64, 64, 3, 3}), 0, 2), 1024 + 64 * 3136 * 2);
    EXPECT_EQ(mxc_conv_nhwc_bytes(x, packed({64, 64, 1, 1}), 0, 2), 1024 + 64 * 3136 * 2);
}
