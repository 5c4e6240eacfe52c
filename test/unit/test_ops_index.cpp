// Indexing, scatter and padding ops: top_k, scatter_elements, scatter_nd, gather_nd,
// tensor_scatter, pad, col2im, max_pool_index; values worked out by hand.
#include "test_ops_util.hpp"
#include "templates/common/scatter.hpp"
#include "templates/common/topk.hpp"

using namespace mxc;
using namespace mxc::test;

using ints = std::vector<int64_t>;
using doubles = std::vector<double>;

TEST(ops_top_k, largest_and_smallest_ties_by_lower_index) {
    auto x = flit({2, 4}, {3, 1, 3, 2, 5, 5, 5, 0});
    auto big = run_op("top_k", {x}, attrs({{"k", int64_t{3}}, {"axis", int64_t{1}}}));
    EXPECT_EQ(big.s.type, dtype::int64_type);
    EXPECT_EQ(big.s.lens, (ints{2, 3}));
    EXPECT_EQ(big.to_doubles(), (doubles{0, 2, 3, 0, 1, 2}));
    auto small = run_op("top_k", {x}, attrs({{"k", int64_t{2}}, {"axis", int64_t{1}}, {"largest", int64_t{0}}}));
    EXPECT_EQ(small.to_doubles(), (doubles{1, 3, 3, 0}));
    auto col = run_op("top_k", {x}, attrs({{"k", int64_t{1}}, {"axis", int64_t{0}}}));
    EXPECT_EQ(col.to_doubles(), (doubles{1, 1, 1, 0}));
}

TEST(ops_top_k, nan_counts_largest) {
    auto y = run_op("top_k", {flit({3}, {1, NAN, 2})}, attrs({{"k", int64_t{3}}}));
    EXPECT_EQ(y.to_doubles(), (doubles{1, 2, 0}));
}

TEST(ops_scatter_elements, axis_0_spec_example) {
    auto y = run_op("scatter_elements", {flit({3, 3}, std::vector<float>(9, 0)), ilit({2, 3}, {1, 0, 2, 0, 2, 1}),
                                         flit({2, 3}, {1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f})});
    expect_near(y.to_doubles(), {2.0, 1.1, 0, 1.0, 0, 2.2, 0, 2.1, 1.2});
}

TEST(ops_scatter_elements, duplicates_reductions_and_negative_indices) {
    auto data = flit({1, 5}, {1, 2, 3, 4, 5});
    auto idx = ilit({1, 3}, {1, -4, -1});
    auto upd = flit({1, 3}, {10, 20, 30});
    auto with = [&](const std::string& r) {
        return run_op("scatter_elements", {data, idx, upd}, attrs({{"axis", int64_t{1}}, {"reduction", r}})).to_doubles();
    };
    EXPECT_EQ(with("none"), (doubles{1, 20, 3, 4, 30})); // -4 is 1: the last write wins
    EXPECT_EQ(with("add"), (doubles{1, 32, 3, 4, 35}));
    EXPECT_EQ(with("mul"), (doubles{1, 400, 3, 4, 150}));
    EXPECT_EQ(with("max"), (doubles{1, 20, 3, 4, 30}));
    EXPECT_EQ(with("min"), (doubles{1, 2, 3, 4, 5}));
}

TEST(ops_scatter_nd, spec_example_and_reductions) {
    auto y = run_op("scatter_nd", {flit({8}, {1, 2, 3, 4, 5, 6, 7, 8}), ilit({4, 1}, {4, 3, 1, 7}), flit({4}, {9, 10, 11, 12})});
    EXPECT_EQ(y.to_doubles(), (doubles{1, 11, 3, 10, 9, 6, 7, 12}));
    // Slices: rows of a [2, 2] matrix, the same row twice.
    auto data = flit({2, 2}, {1, 2, 3, 4});
    auto idx = ilit({2, 1}, {1, 1});
    auto upd = flit({2, 2}, {2, 5, 3, 1});
    auto mul = run_op("scatter_nd", {data, idx, upd}, attrs({{"reduction", std::string("mul")}}));
    EXPECT_EQ(mul.to_doubles(), (doubles{1, 2, 18, 20}));
    auto mx = run_op("scatter_nd", {data, idx, upd}, attrs({{"reduction", std::string("max")}}));
    EXPECT_EQ(mx.to_doubles(), (doubles{1, 2, 3, 5}));
    auto none = run_op("scatter_nd", {data, idx, upd});
    EXPECT_EQ(none.to_doubles(), (doubles{1, 2, 3, 1}));
    // Element indices, negative ones wrap.
    auto el = run_op("scatter_nd", {data, ilit({2, 2}, {0, -1, -1, 0}), flit({2}, {7, 8})}, attrs({{"reduction", std::string("add")}}));
    EXPECT_EQ(el.to_doubles(), (doubles{1, 9, 11, 4}));
}

TEST(ops_gather_nd, elements_slices_and_batch_dims) {
    auto data = flit({2, 2}, {0, 1, 2, 3});
    EXPECT_EQ(run_op("gather_nd", {data, ilit({2, 2}, {0, 0, 1, 1})}).to_doubles(), (doubles{0, 3}));
    auto rows = run_op("gather_nd", {data, ilit({2, 1}, {1, 0})});
    EXPECT_EQ(rows.s.lens, (ints{2, 2}));
    EXPECT_EQ(rows.to_doubles(), (doubles{2, 3, 0, 1}));
    auto b = run_op("gather_nd", {flit({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}), ilit({2, 1}, {1, 0})},
                    attrs({{"batch_dims", int64_t{1}}}));
    EXPECT_EQ(b.s.lens, (ints{2, 2}));
    EXPECT_EQ(b.to_doubles(), (doubles{2, 3, 4, 5}));
    EXPECT_EQ(run_op("gather_nd", {data, ilit({1, 2}, {-1, 5})}).to_doubles(), (doubles{0})); // out of range: 0
}

TEST(ops_tensor_scatter, linear_circular_and_default_write_index) {
    auto past = flit({2, 3}, {1, 2, 3, 4, 5, 6});
    auto upd = flit({2, 2}, {7, 8, 9, 10});
    auto circ = run_op("tensor_scatter", {past, upd, ilit({2}, {1, 2})}, attrs({{"circular", int64_t{1}}}));
    EXPECT_EQ(circ.to_doubles(), (doubles{1, 7, 8, 10, 5, 9}));
    auto lin = run_op("tensor_scatter", {past, upd, ilit({2}, {0, 1})});
    EXPECT_EQ(lin.to_doubles(), (doubles{7, 8, 3, 4, 9, 10}));
    EXPECT_EQ(run_op("tensor_scatter", {past, upd}).to_doubles(), (doubles{7, 8, 3, 9, 10, 6}));
}

TEST(ops_pad, constant_with_value_input) {
    auto y = run_op("pad", {flit({2, 3}, {1, 2, 3, 4, 5, 6}), flit({}, {9})}, attrs({{"pads", ints{0, 1, 1, 2}}}));
    EXPECT_EQ(y.s.lens, (ints{3, 6}));
    EXPECT_EQ(y.to_doubles(), (doubles{9, 1, 2, 3, 9, 9, 9, 4, 5, 6, 9, 9, 9, 9, 9, 9, 9, 9}));
    auto zero = run_op("pad", {flit({2}, {1, 2})}, attrs({{"pads", ints{1, 0}}}));
    EXPECT_EQ(zero.to_doubles(), (doubles{0, 1, 2}));
}

TEST(ops_pad, reflect_edge_wrap_and_cropping) {
    auto x = ilit({3}, {1, 2, 3});
    auto mode = [&](const std::string& m, ints pads) {
        return run_op("pad", {x}, attrs({{"pads", pads}, {"mode", m}})).to_doubles();
    };
    EXPECT_EQ(mode("reflect", {2, 2}), (doubles{3, 2, 1, 2, 3, 2, 1}));
    EXPECT_EQ(mode("reflect", {5, 0}), (doubles{2, 1, 2, 3, 2, 1, 2, 3}));
    EXPECT_EQ(mode("edge", {2, 1}), (doubles{1, 1, 1, 2, 3, 3}));
    EXPECT_EQ(mode("wrap", {2, 4}), (doubles{2, 3, 1, 2, 3, 1, 2, 3, 1}));
    EXPECT_EQ(mode("constant", {-1, 1}), (doubles{2, 3, 0}));
    // Negative pads crop first; the rest pads what is left.
    auto c = run_op("pad", {ilit({4}, {1, 2, 3, 4})}, attrs({{"pads", ints{-1, 2}}, {"mode", std::string("reflect")}}));
    EXPECT_EQ(c.to_doubles(), (doubles{2, 3, 4, 3, 2}));
}

TEST(ops_pad, shape_errors) {
    shape x(dtype::float_type, {2, 3});
    EXPECT_EQ(shape_error("pad", {x}, attrs({{"pads", ints{1, 1}}})), "pad: pads {1, 1} must have 2 values per axis of {2, 3}");
    EXPECT_NE(shape_error("pad", {x}, attrs({{"pads", ints{0, -2, 0, -2}}})).find("remove more than axis 1"), std::string::npos);
    EXPECT_NE(shape_error("pad", {x}, attrs({{"pads", ints{0, 0, 0, 0}}, {"mode", std::string("mirror")}})).find("mode must be"),
              std::string::npos);
    EXPECT_NE(shape_error("pad", {shape(dtype::float_type, {0}), }, attrs({{"pads", ints{1, 0}}, {"mode", std::string("edge")}}))
                  .find("cannot pad the empty axis 0"),
              std::string::npos);
}

TEST(ops_col2im, one_axis_overlapping_blocks) {
    // Blocks of 2 at stride 1 over an image of 5: y[p] = sum of x[k, b] with b + k == p.
    auto y = run_op("col2im", {flit({1, 2, 4}, {1, 2, 3, 4, 10, 20, 30, 40})},
                    attrs({{"image_shape", ints{5}}, {"block_shape", ints{2}}}));
    EXPECT_EQ(y.s.lens, (ints{1, 1, 5}));
    EXPECT_EQ(y.to_doubles(), (doubles{1, 12, 23, 34, 40}));
    // Stride 2 with one padding each side: image 3, blocks at -1 and 1.
    auto p = run_op("col2im", {flit({1, 2, 2}, {1, 2, 10, 20})},
                    attrs({{"image_shape", ints{3}}, {"block_shape", ints{2}}, {"stride", ints{2}}, {"padding", ints{1, 1}}}));
    EXPECT_EQ(p.to_doubles(), (doubles{10, 2, 20}));
    EXPECT_NE(shape_error("col2im", {shape(dtype::float_type, {1, 2, 3})}, attrs({{"image_shape", ints{5}}, {"block_shape", ints{2}}}))
                  .find("must be [N, C * 2, 4]"),
              std::string::npos);
}

TEST(ops_max_pool_index, row_and_column_major) {
    // x [1, 1, 2, 3], 2x2 windows at stride 1; the maxima are (1, 0) and (1, 2).
    auto x = flit({1, 1, 2, 3}, {1, 5, 2, 7, 3, 8});
    auto a = attrs({{"lengths", ints{2, 2}}, {"out_lens", ints{1, 2}}});
    EXPECT_EQ(run_op("max_pool_index", {x}, a).to_doubles(), (doubles{3, 5}));
    a.set("storage_order", int64_t{1});
    EXPECT_EQ(run_op("max_pool_index", {x}, a).to_doubles(), (doubles{1, 5}));
    // Batch 1, channel 1 of [2, 2, 1, 2] counts from (1 * 2 + 1) * 2.
    auto b = run_op("max_pool_index", {flit({2, 2, 1, 2}, {0, 0, 0, 0, 0, 0, 1, 2})},
                    attrs({{"lengths", ints{1, 2}}, {"out_lens", ints{1, 1}}}));
    EXPECT_EQ(b.to_doubles(), (doubles{0, 2, 4, 7}));
}

TEST(ops_index, shape_errors) {
    shape f(dtype::float_type, {2, 2}), i(dtype::int64_type, {2, 1});
    EXPECT_NE(shape_error("top_k", {f}, attrs({{"k", int64_t{3}}})).find("k 3 must be 0..2"), std::string::npos);
    EXPECT_NE(shape_error("scatter_nd", {f, i, shape(dtype::float_type, {2})}).find("updates {2} must be {2, 2}"),
              std::string::npos);
    EXPECT_NE(shape_error("scatter_elements", {f, i, i}).find("must have one lens"), std::string::npos);
    EXPECT_NE(shape_error("scatter_elements", {f, i, shape(dtype::float_type, {2, 1})}, attrs({{"reduction", std::string("sum")}}))
                  .find("reduction must be none, add, mul, max or min"),
              std::string::npos);
    EXPECT_NE(shape_error("gather_nd", {f, shape(dtype::int64_type, {2, 3})}).find("index 3 axes"), std::string::npos);
}

// The hip kernels' per-output forms (templates/common) agree with the cpu kernels, which
// scatter in order and sort: both computed on the host over the same inputs.
namespace {
mxc_desc desc_of(const literal& l) {
    mxc_desc d{};
    d.rank = static_cast<int32_t>(l.s.rank());
    for (std::size_t i = 0; i < l.s.rank(); ++i) {
        d.lens[i] = l.s.lens[i];
        d.strides[i] = l.s.strides[i];
    }
    return d;
}
} // namespace

TEST(ops_index, per_output_forms_match_the_cpu_kernels) {
    auto data = flit({3, 4}, values(12, 3));
    auto upd = flit({2, 4}, values(8, 5));
    // scatter_elements along axis 0 with duplicates, every reduction.
    auto ei = ilit({2, 4}, {1, 0, 2, -1, 1, 0, -3, 2});
    for (int64_t r = 0; r < 5; ++r) {
        static const char* names[] = {"none", "add", "mul", "max", "min"};
        auto y = run_op("scatter_elements", {data, ei, upd}, attrs({{"reduction", std::string(names[r])}}));
        int64_t ip[] = {0, 1, r};
        for (int64_t o = 0; o < 12; ++o)
            EXPECT_EQ(mxc_scatter_elements_at(data.as<float>(), desc_of(data), ei.data(), desc_of(ei), upd.as<float>(),
                                              desc_of(upd), ip, o),
                      y.to_doubles()[static_cast<std::size_t>(o)])
                << names[r] << " at " << o;
    }
    // scatter_nd of rows, the same row twice.
    auto ni = ilit({2, 1}, {2, -1});
    auto y = run_op("scatter_nd", {data, ni, upd}, attrs({{"reduction", std::string("add")}}));
    int64_t nip[] = {1, 1};
    for (int64_t o = 0; o < 12; ++o)
        EXPECT_FLOAT_EQ(mxc_scatter_nd_at(data.as<float>(), desc_of(data), ni.data(), desc_of(ni), upd.as<float>(),
                                          desc_of(upd), nip, o),
                        static_cast<float>(y.to_doubles()[static_cast<std::size_t>(o)]));
    // top_k of rows with ties.
    auto x = flit({2, 5}, {1, 3, 3, 0, 3, 2, 2, 9, 2, 1});
    auto t = run_op("top_k", {x}, attrs({{"k", int64_t{4}}, {"axis", int64_t{1}}}));
    EXPECT_EQ(t.to_doubles(), (doubles{1, 2, 4, 0, 2, 0, 1, 3}));
    // The hip form: each element's rank; those below k name their output slot.
    int64_t tip[] = {1, 1}, idx[MXC_MAX_RANK];
    int written = 0;
    for (int64_t e = 0; e < 10; ++e) {
        int64_t rank = mxc_topk_rank(x.as<float>(), desc_of(x), tip, e, idx);
        if (rank >= 4) continue;
        ++written;
        EXPECT_EQ(t.to_doubles()[static_cast<std::size_t>(idx[0] * 4 + rank)], static_cast<double>(idx[1])) << "element " << e;
    }
    EXPECT_EQ(written, 8);
}
