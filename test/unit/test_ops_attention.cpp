// The attention op (ir/ops/attention.cpp, templates/cpu/attention.hpp) through the reference
// evaluator, against softmax(body(q kt)) v written out in double: a scale and a mask as extra
// inputs, the heads' merge as the output permutation, a fully masked (-inf) row, keys past a
// work item's rows; shape errors.
#include "test_ops_util.hpp"

#include <cmath>
#include <limits>

using namespace mxc;
using namespace mxc::test;

namespace {
// q [B, Lq, D], k [B, Lk, D] (kt is its transpose), v [B, Lk, Dv], mask [B, Lq, Lk]:
// y[b, i, :] = softmax_j(scale * q[b, i] . k[b, j] + mask[b, i, j]) v[b, j, :]; a row of -inf: 0.
std::vector<double> naive(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
                          const std::vector<float>& mask, int64_t b, int64_t lq, int64_t lk, int64_t d, int64_t dv, double scale) {
    std::vector<double> y(size_t(b * lq * dv), 0.0);
    for (int64_t n = 0; n < b; ++n)
        for (int64_t i = 0; i < lq; ++i) {
            std::vector<double> s(static_cast<size_t>(lk));
            double m = -std::numeric_limits<double>::infinity();
            for (int64_t j = 0; j < lk; ++j) {
                double dot = 0;
                for (int64_t c = 0; c < d; ++c) dot += double(q[size_t((n * lq + i) * d + c)]) * k[size_t((n * lk + j) * d + c)];
                s[size_t(j)] = dot * scale + mask[size_t((n * lq + i) * lk + j)];
                m = std::max(m, s[size_t(j)]);
            }
            if (std::isinf(m) && m < 0) continue;
            double sum = 0;
            for (auto& x : s) sum += (x = std::exp(x - m));
            for (int64_t j = 0; j < lk; ++j)
                for (int64_t c = 0; c < dv; ++c) y[size_t((n * lq + i) * dv + c)] += s[size_t(j)] / sum * v[size_t((n * lk + j) * dv + c)];
        }
    return y;
}

attributes one(const std::string& n, attr_value v) { return attrs({{n, std::move(v)}}); }
} // namespace

TEST(ops_attention, scale_mask_and_a_fully_masked_row) {
    const int64_t b = 3, lq = 37, lk = 21, d = 8, dv = 5; // 37 rows: three work items, the last partial
    auto q = values(b * lq * d, 3), k = values(b * lk * d, 4), v = values(b * lk * dv, 5), mask = values(b * lq * lk, 6);
    const float inf = std::numeric_limits<float>::infinity();
    for (int64_t j = 0; j < lk; ++j) mask[size_t((1 * lq + 4) * lk + j)] = -inf; // batch 1, row 4: every key masked
    for (int64_t i = 0; i < lq; ++i) mask[size_t((2 * lq + i) * lk + 3)] = -inf;  // batch 2: key 3 hidden from every row
    auto y = run_module({flit({b, lq, d}, q), flit({b, lk, d}, k), flit({b, lk, dv}, v), flit({b, lq, lk}, mask)},
                        [&](module& m, std::vector<instruction*>& p) {
                            auto* kt = m.add("transpose", {p[1]}, one("permutation", std::vector<int64_t>{0, 2, 1}));
                            auto* sc = m.add("multibroadcast", {m.add_literal(flit({1}, {0.35f}))},
                                             one("out_lens", std::vector<int64_t>{b, lq, lk}));
                            return m.add("attention", {p[0], kt, p[2], sc, p[3]}, one("body", std::string("add(mul(x0,x1),x2)")));
                        });
    auto want = naive(q, k, v, mask, b, lq, lk, d, dv, 0.35);
    expect_near(y.to_doubles(), want);
    for (int64_t c = 0; c < dv; ++c) EXPECT_EQ(y.to_doubles()[size_t((1 * lq + 4) * dv + c)], 0.0);
}

TEST(ops_attention, heads_merged_by_the_output_permutation) {
    // [B=2, H=3, S=5, Dv=4] stored as [B, S, H, Dv]
    const int64_t B = 2, H = 3, S = 5, d = 6, dv = 4;
    auto q = values(B * H * S * d, 7), k = values(B * H * S * d, 8), v = values(B * H * S * dv, 9);
    auto y = run_module({flit({B, H, S, d}, q), flit({B, H, S, d}, k), flit({B, H, S, dv}, v)},
                        [&](module& m, std::vector<instruction*>& p) {
                            auto* kt = m.add("transpose", {p[1]}, one("permutation", std::vector<int64_t>{0, 1, 3, 2}));
                            return m.add("attention", {p[0], kt, p[2]},
                                         attrs({{"body", std::string("x0")}, {"permutation", std::vector<int64_t>{0, 2, 1, 3}}}));
                        });
    EXPECT_EQ(y.s.lens, (std::vector<int64_t>{B, S, H, dv}));
    auto want = naive(q, k, v, std::vector<float>(size_t(B * H * S * S), 0.0f), B * H, S, S, d, dv, 1.0);
    std::vector<double> got = y.to_doubles(), merged(want.size());
    for (int64_t n = 0; n < B; ++n)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t s = 0; s < S; ++s)
                for (int64_t c = 0; c < dv; ++c)
                    merged[size_t(((n * H + h) * S + s) * dv + c)] = got[size_t(((n * S + s) * H + h) * dv + c)];
    expect_near(merged, want);
}

TEST(ops_attention, shape_errors) {
    const auto f = dtype::float_type;
    EXPECT_EQ(shape_error("attention", {shape(f, {2, 4, 8}), shape(f, {2, 7, 5}), shape(f, {2, 5, 3})}),
              "attention: q {2, 4, 8}, kt {2, 7, 5} and v {2, 5, 3} do not chain (q's last dim = kt's rows, kt's last dim = v's rows)");
    EXPECT_EQ(shape_error("attention", {shape(f, {2, 4, 8}), shape(f, {2, 8, 5}), shape(f, {2, 5, 3})},
                          attrs({{"permutation", std::vector<int64_t>{1, 2, 0}}})),
              "attention: permutation {1, 2, 0} must keep the last dim last");
    EXPECT_EQ(shape_error("attention", {shape(f, {2, 4, 300}), shape(f, {2, 300, 5}), shape(f, {2, 5, 3})}),
              "attention: head sizes 300 and 3 exceed 256");
    EXPECT_EQ(shape_error("attention", {shape(f, {2, 4, 8}), shape(f, {2, 8, 5}), shape(f, {2, 5, 3}), shape(f, {2, 4, 4})},
                          attrs({{"body", std::string("add(x0,x1)")}})),
              "attention: input 3 float_type, {2, 4, 4}, {16, 4, 1} must have the scores' lens {2, 4, 5} and type float_type");
}
