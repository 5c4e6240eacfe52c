// The cpu elementwise loops spread over the thread pool: for_each_strided over a range of
// elements visits exactly that part of the full walk, the walk in tiles of transposed views
// visits every element once, and the unary and fused pointwise
// kernels give every element its own value (the per-element math of templates/common) on 1
// and 3 threads, over packed inputs and strided views; so does concat (every element where
// mxc_concat_copy puts it), and contiguous over views that repeat their last dim.
#include "templates/cpu/concat.hpp"
#include "templates/cpu/fused.hpp"
#include "templates/cpu/pointwise.hpp"
#include "test/unit/pool_case.hpp"
#include "test/unit/with_threads.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace {

using mxc_test::desc_of;
using mxc_test::extent;
using mxc_test::with_threads;

std::vector<float> values(int64_t n, uint32_t seed) {
    std::vector<float> v(static_cast<size_t>(n));
    for (auto& x : v) {
        seed = seed * 1664525u + 1013904223u;
        x = float((seed >> 8) % 20000) / 1000.0f - 10.0f;
    }
    return v;
}

// d with its two innermost dims' strides swapped: a transposed view (YOLO's heads read their
// convolution's output so).
mxc_desc transposed(mxc_desc d) {
    std::swap(d.strides[d.rank - 1], d.strides[d.rank - 2]);
    return d;
}

// Runs f(isa) with the cpu kernels pinned to each instruction set this CPU has (isa_clones:
// baseline, AVX2, AVX-512F), then unpins.
template <class F> void on_every_isa(F f) {
    using mxc::cpu::gemm_isa;
    const gemm_isa best = mxc::cpu::gemm_runtime_isa(); // (what this CPU has: base < avx2 < avx512)
    for (gemm_isa isa : {gemm_isa::base, gemm_isa::avx2, gemm_isa::avx512}) {
        if (int(isa) > int(best)) continue;
        const gemm_isa* saved = mxc::cpu::gemm_isa_pinned();
        mxc::cpu::gemm_isa_pinned() = &isa;
        f(isa);
        mxc::cpu::gemm_isa_pinned() = saved;
    }
}

TEST(cpu_elementwise, strided_ranges) {
    const mxc_desc a = desc_of({3, 1, 5, 7}, 2), b = transposed(desc_of({3, 1, 7, 5}));
    const int64_t* strides[2] = {a.strides, b.strides};
    std::vector<std::vector<int64_t>> all;
    mxc::cpu::for_each_strided<2>(a.lens, a.rank, strides, [&](int64_t e, const int64_t* off) {
        all.push_back({e, off[0], off[1]});
    });
    ASSERT_EQ(all.size(), size_t(105));
    for (int64_t e = 0; e < 105; ++e) { // the offsets are the strides' sums over the index
        int64_t rest = e, o0 = 0, o1 = 0;
        for (int d = 3; d >= 0; --d) {
            o0 += rest % a.lens[d] * a.strides[d];
            o1 += rest % a.lens[d] * b.strides[d];
            rest /= a.lens[d];
        }
        EXPECT_EQ(all[size_t(e)], (std::vector<int64_t>{e, o0, o1}));
    }
    for (int64_t begin : {0, 1, 6, 7, 34, 35, 104})
        for (int64_t end : {begin, begin + 1, begin + 6, begin + 8, begin + 36, int64_t(-1), int64_t(500)}) {
            std::vector<std::vector<int64_t>> part;
            mxc::cpu::for_each_strided<2>(a.lens, a.rank, strides, [&](int64_t e, const int64_t* off) {
                part.push_back({e, off[0], off[1]});
            }, 2, begin, end);
            const int64_t stop = end < 0 || end > 105 ? 105 : end;
            EXPECT_EQ(part, std::vector<std::vector<int64_t>>(all.begin() + begin, all.begin() + stop))
                << begin << ".." << end;
        }
}

// The walk in tiles of a view read across its rows: only such a view takes it (transposed_dim),
// and the tiles, in any split into ranges, visit every element once with the offsets of the
// row-major walk. Partial tiles on both dims, the unit-stride dim not next to the last, a
// packed second operand.
TEST(cpu_elementwise, transposed_tiles) {
    const mxc_desc od = desc_of({2, 45, 3, 70});
    mxc_desc a = od; // memory [2][3][70][45]: dim 1 steps by one element, the last by 45
    a.strides[1] = 1, a.strides[3] = 45, a.strides[2] = 70 * 45, a.strides[0] = 3 * 70 * 45;
    const int64_t* strides[2] = {a.strides, od.strides};
    EXPECT_EQ(mxc::cpu::transposed_dim(od, strides, 2), 1);
    const int64_t* packed[2] = {od.strides, od.strides};
    EXPECT_EQ(mxc::cpu::transposed_dim(od, packed, 2), -1);
    mxc_desc bcast = od; // a broadcast along the last dim, and a gap of 2 (no unit stride): row-major
    bcast.strides[3] = 0;
    const mxc_desc gap = desc_of({2, 45, 3, 70}, 2);
    for (const mxc_desc* d : {static_cast<const mxc_desc*>(&bcast), &gap}) {
        const int64_t* other[1] = {d->strides};
        EXPECT_EQ(mxc::cpu::transposed_dim(od, other, 1), -1);
    }
    const mxc_desc narrow = desc_of({45, 5}); // a last dim shorter than 8
    mxc_desc nt = narrow;
    std::swap(nt.strides[0], nt.strides[1]);
    nt.strides[0] = 1, nt.strides[1] = 45;
    const int64_t* ns[1] = {nt.strides};
    EXPECT_EQ(mxc::cpu::transposed_dim(narrow, ns, 1), -1);

    const int64_t n = mxc_elements(od), tiles = 2 * 3 * 2 * 3; // (45 and 70 over 32: 2 and 3 tiles)
    for (int64_t split : {int64_t(0), int64_t(1), int64_t(7), int64_t(35)}) {
        std::vector<std::vector<int64_t>> seen(static_cast<size_t>(n));
        const auto visit = [&](int64_t e, const int64_t* off) {
            ASSERT_TRUE(e >= 0 && e < n) << e;
            ASSERT_TRUE(seen[size_t(e)].empty()) << "element " << e << " visited twice";
            seen[size_t(e)] = {off[0], off[1]};
        };
        mxc::cpu::for_each_tiled_in<2>(od, 1, strides, visit, 0, split);
        mxc::cpu::for_each_tiled_in<2>(od, 1, strides, visit, split, tiles);
        for (int64_t e = 0; e < n; ++e) {
            int64_t rest = e, o0 = 0;
            for (int d = 3; d >= 0; --d) {
                o0 += rest % od.lens[d] * a.strides[d];
                rest /= od.lens[d];
            }
            ASSERT_EQ(seen[size_t(e)], (std::vector<int64_t>{o0, e})) << "element " << e << ", split " << split;
        }
    }
}

// y = sigmoid(x) for x packed and transposed, large enough for several pieces per thread.
TEST(cpu_elementwise, unary_over_threads) {
    const int64_t n = 3 * 85 * 1600;
    const std::vector<float> x = values(n, 7);
    for (const mxc_desc& xd : {desc_of({1, 3, 1600, 85}), transposed(desc_of({1, 3, 85, 1600}))}) {
        const mxc_desc yd = desc_of({1, 3, 1600, 85});
        std::vector<float> want(static_cast<size_t>(n));
        int64_t e = 0;
        for (int64_t i = 0; i < 3; ++i)
            for (int64_t p = 0; p < 1600; ++p)
                for (int64_t c = 0; c < 85; ++c, ++e)
                    want[size_t(e)] = mxc_pw_sigmoid{}(x[size_t(i * xd.strides[1] + p * xd.strides[2] + c * xd.strides[3])]);
        for (int threads : {1, 3}) {
            std::vector<float> y(size_t(n), -1.0f);
            const void* in[] = {x.data()};
            const mxc_kargs k = {1, in, &xd, y.data(), &yd, nullptr, 0, nullptr, 0, nullptr};
            with_threads(threads, [&] { mxc::cpu::sigmoid<float>(k); });
            EXPECT_EQ(0, std::memcmp(y.data(), want.data(), sizeof(float) * size_t(n))) << threads << " threads";
        }
    }
}

// concat of a packed input, a transposed view and another packed input along each axis of a
// [2, *, 85, 140] output (each input some 50000 elements: several pieces a thread), against
// mxc_concat_copy element by element, on 1 and 3 threads.
TEST(cpu_concat, packed_and_strided_inputs_over_threads) {
    for (int64_t axis : {0, 1, 3}) {
        std::vector<int64_t> sizes{2, 3, 1};
        std::vector<mxc_desc> xs;
        std::vector<std::vector<float>> data;
        std::vector<int64_t> out{2, 2, 85, 140};
        out[size_t(axis)] = 0;
        for (int i = 0; i < 3; ++i) {
            std::vector<int64_t> lens{2, 2, 85, 140};
            lens[size_t(axis)] = sizes[size_t(i)];
            out[size_t(axis)] += sizes[size_t(i)];
            mxc_desc d = desc_of(lens);
            if (i == 1) { // a view: its last two dims stored the other way round
                std::swap(d.strides[2], d.strides[3]);
                d.strides[2] = 1;
                d.strides[3] = lens[2];
            }
            xs.push_back(d);
            data.push_back(values(extent(d), uint32_t(11 + i)));
        }
        const mxc_desc od = desc_of(out);
        std::vector<float> want(size_t(mxc_elements(od)), -1.0f);
        for (int64_t i = 0, at = 0; i < 3; at += sizes[size_t(i)], ++i)
            for (int64_t e = 0; e < mxc_elements(xs[size_t(i)]); ++e)
                mxc_concat_copy(data[size_t(i)].data(), xs[size_t(i)], want.data(), od, axis, at, e);
        for (int threads : {1, 3}) {
            std::vector<float> y(want.size(), -2.0f);
            const void* in[] = {data[0].data(), data[1].data(), data[2].data()};
            const int64_t ip[] = {axis};
            const mxc_kargs k = {3, in, xs.data(), y.data(), &od, ip, 1, nullptr, 0, nullptr};
            with_threads(threads, [&] { mxc::cpu::concat<float>(k); });
            EXPECT_EQ(0, std::memcmp(y.data(), want.data(), sizeof(float) * want.size())) << "axis " << axis << ", " << threads << " threads";
        }
    }
}

// contiguous of nearest-upsampling views (each value repeated along the last dim, and along
// another: [2, 40, 30, 2, 50, r] of a [2, 40, 30, 50], large enough for several pieces a
// thread), and of a view whose last dim repeats too often for the repeat loop (9), against the
// element-by-element copy, on 1 and 3 threads.
TEST(cpu_contiguous, repeated_last_dim_over_threads) {
    for (int64_t r : {2, 3, 9}) {
        const std::vector<float> x = values(2 * 40 * 30 * 50, 5);
        mxc_desc xd = desc_of({2, 40, 30, 2, 50, r});
        const int64_t xs[] = {40 * 30 * 50, 30 * 50, 50, 0, 1, 0};
        for (int d = 0; d < 6; ++d) xd.strides[d] = xs[d];
        const mxc_desc yd = desc_of({2, 40, 30, 2, 50, r});
        std::vector<float> want(size_t(mxc_elements(yd)));
        for (int64_t e = 0; e < mxc_elements(yd); ++e) {
            int64_t rest = e, off = 0;
            for (int d = 5; d >= 0; --d) {
                off += rest % yd.lens[d] * xd.strides[d];
                rest /= yd.lens[d];
            }
            want[size_t(e)] = x[size_t(off)];
        }
        for (int threads : {1, 3}) {
            std::vector<float> y(want.size(), -1.0f);
            const void* in[] = {x.data()};
            const mxc_kargs k = {1, in, &xd, y.data(), &yd, nullptr, 0, nullptr, 0, nullptr};
            with_threads(threads, [&] { mxc::cpu::contiguous<float>(k); });
            EXPECT_EQ(0, std::memcmp(y.data(), want.data(), sizeof(float) * want.size())) << "repeat " << r << ", " << threads << " threads";
        }
    }
}

// A generated body (it names its input count): SiLU of a sum, as YOLO's fused kernels.
struct silu_of_sum {
    static constexpr int inputs = 2;
    template <class C> C operator()(const C* x) const {
        return mxc_pw_mul{}(mxc_pw_add{}(x[0], x[1]), mxc_pw_sigmoid{}(mxc_pw_add{}(x[0], x[1])));
    }
};

TEST(cpu_elementwise, fused_pointwise_over_threads) {
    const std::vector<int64_t> lens{2, 40, 60, 33};
    const int64_t n = 2 * 40 * 60 * 33;
    const mxc_desc yd = desc_of(lens);
    mxc_desc bias = desc_of(lens); // a broadcast along all but dim 1
    bias.strides[0] = bias.strides[2] = bias.strides[3] = 0;
    bias.strides[1] = 1;
    for (const mxc_desc& ad : {desc_of(lens), desc_of(lens, 3)}) {
        const std::vector<float> a = values(extent(ad), 11), b = values(40, 13);
        std::vector<float> want(static_cast<size_t>(n));
        int64_t e = 0;
        for (int64_t i0 = 0; i0 < 2; ++i0)
            for (int64_t i1 = 0; i1 < 40; ++i1)
                for (int64_t i2 = 0; i2 < 60; ++i2)
                    for (int64_t i3 = 0; i3 < 33; ++i3, ++e) {
                        const float xs[2] = {a[size_t(i0 * ad.strides[0] + i1 * ad.strides[1] + i2 * ad.strides[2] +
                                                      i3 * ad.strides[3])],
                                             b[size_t(i1)]};
                        want[size_t(e)] = silu_of_sum{}(xs);
                    }
        const mxc_desc in_desc[] = {ad, bias};
        for (int threads : {1, 3}) {
            std::vector<float> y(size_t(n), -1.0f);
            const void* in[] = {a.data(), b.data()};
            const mxc_kargs k = {2, in, in_desc, y.data(), &yd, nullptr, 0, nullptr, 0, nullptr};
            with_threads(threads, [&] { mxc::cpu::fused_pointwise_expr<float>(k, silu_of_sum{}); });
            EXPECT_EQ(0, std::memcmp(y.data(), want.data(), sizeof(float) * size_t(n)))
                << threads << " threads, gap " << ad.strides[3];
        }
    }
}

// GELU with erf (BERT's fused products): one input, a constant folded in.
struct gelu_erf {
    static constexpr int inputs = 1;
    template <class C> C operator()(const C* x) const {
        const C h = mxc_pw_mul{}(x[0], C(0.5f));
        return mxc_pw_mul{}(h, mxc_pw_add{}(C(1.0f), mxc_pw_erf{}(mxc_pw_mul{}(x[0], C(0.70710678f)))));
    }
};

// The epilogue loops of a GEMM or convolution (epilogue_of::run: loop_base, loop_avx2,
// loop_avx512) give the same bits on every ISA the CPU has: no multiply-add is fused. SiLU of
// the sum with a per-channel bias (YOLO) and GELU with erf (BERT), over runs that are not whole
// vectors, values from -120 to 120 (exp's underflow and overflow included).
template <class F> void check_epilogue_isas(F f, int extra) {
    const mxc_desc od = desc_of({1, 7, 301});
    mxc_desc bias = od; // along dim 1
    bias.strides[0] = bias.strides[2] = 0, bias.strides[1] = 1;
    const mxc_desc in_desc[3] = {od, od, bias};
    const int64_t n = mxc_elements(od);
    std::vector<float> acc = values(n, 17), b = values(7, 19);
    for (auto& v : acc) v *= 12.0f;
    const void* in[3] = {nullptr, nullptr, b.data()};
    const mxc_kargs k = {2 + extra, in, in_desc, nullptr, &od, nullptr, 0, nullptr, 0, nullptr};
    std::vector<float> first;
    on_every_isa([&](mxc::cpu::gemm_isa isa) {
        std::vector<float> y(size_t(n), -1.0f);
        mxc::cpu::epilogue_of<float, F> epi{k, f};
        for (int64_t e = 0; e < n; e += 301) epi.run(acc.data() + e, y.data() + e, e, 301); // (a channel's row a run)
        if (first.empty()) first = y;
        for (int64_t e = 0; e < n; ++e)
            ASSERT_EQ(0, std::memcmp(&y[size_t(e)], &first[size_t(e)], sizeof(float)))
                << "isa " << int(isa) << " element " << e << ": " << y[size_t(e)] << " base " << first[size_t(e)];
    });
}

TEST(cpu_elementwise, epilogue_loops_same_bits_on_every_isa) {
    check_epilogue_isas(silu_of_sum{}, 1);
    check_epilogue_isas(gelu_erf{}, 0);
}

} // namespace
