// The math and attention-family ONNX ops (compiler/onnx_ops_math.cpp, ir/ops/linalg.cpp):
// one-node models built in memory, imported and run with the reference evaluator, checked
// against values worked out by hand.
#include "compiler/onnx_import.hpp"
#include "ir/error.hpp"
#include "ir/eval.hpp"
#include "ir/module.hpp"
#include "test_ops_util.hpp"

#include <onnx/onnx_pb.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "templates/common/math.hpp"

using namespace mxc;
using namespace mxc::test;

namespace {

struct io {
    std::string name;
    std::vector<int64_t> lens;
    int type = onnx::TensorProto::FLOAT;
};

// A model of one node `op` (default domain, at `opset`) reading graph inputs `in` ("" for an
// omitted optional input) and writing `out`; `set_attrs` adds the node's attributes.
std::string one_node(const std::string& op, int64_t opset, const std::vector<io>& in, const std::vector<io>& out,
                     const std::function<void(onnx::NodeProto&)>& set_attrs = {}) {
    onnx::ModelProto m;
    m.set_ir_version(10);
    m.add_opset_import()->set_version(opset);
    auto* g = m.mutable_graph();
    g->set_name("g");
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name("n");
    auto declare = [](onnx::ValueInfoProto* v, const io& x) {
        v->set_name(x.name);
        auto* t = v->mutable_type()->mutable_tensor_type();
        t->set_elem_type(x.type);
        auto* s = t->mutable_shape();
        for (auto l : x.lens) s->add_dim()->set_dim_value(l);
    };
    for (auto& x : in) {
        n->add_input(x.name);
        if (!x.name.empty()) declare(g->add_input(), x);
    }
    for (auto& x : out) {
        n->add_output(x.name);
        declare(g->add_output(), x);
    }
    if (set_attrs) set_attrs(*n);
    return m.SerializeAsString();
}

void attr_int(onnx::NodeProto& n, const std::string& name, int64_t v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
}
void attr_float(onnx::NodeProto& n, const std::string& name, float v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
}
void attr_string(onnx::NodeProto& n, const std::string& name, const std::string& v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(v);
}

std::vector<literal> run(const std::string& model, const std::map<std::string, literal>& in, const import_options& o = {}) {
    auto p = import_onnx_bytes(model, "test model", o);
    verify(p.main());
    return evaluate(p.main(), in);
}

std::string import_error(const std::string& model) {
    try {
        import_onnx_bytes(model, "test model");
    } catch (const error& e) {
        return e.what();
    }
    return "";
}

// Einsum of inputs x0, x1, ... (float) by `eq`.
literal einsum(const std::string& eq, const std::vector<literal>& xs, std::vector<int64_t> out_lens) {
    std::vector<io> in;
    std::map<std::string, literal> feed;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        in.push_back({"x" + std::to_string(i), xs[i].s.lens});
        feed["x" + std::to_string(i)] = xs[i];
    }
    auto m = one_node("Einsum", 12, in, {{"y", out_lens}}, [&](onnx::NodeProto& n) { attr_string(n, "equation", eq); });
    return run(m, feed).at(0);
}

} // namespace

TEST(ops_math, einsum_matmul_explicit_and_implicit) {
    auto a = flit({2, 2}, {1, 2, 3, 4}), b = flit({2, 2}, {5, 6, 7, 8});
    auto y = einsum("ij,jk->ik", {a, b}, {2, 2});
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{19, 22, 43, 50}));
    // Implicit output: the letters seen once, sorted: "ik".
    EXPECT_EQ(einsum("ij, jk", {a, b}, {2, 2}).to_doubles(), (std::vector<double>{19, 22, 43, 50}));
    // "kj,ji" implicitly gives "ik": (b a)^T... here out[i][k] = sum_j a[j][i] * b[k][j].
    EXPECT_EQ(einsum("ji,kj", {a, b}, {2, 2}).to_doubles(), (std::vector<double>{23, 31, 34, 46}));
}

TEST(ops_math, einsum_diagonal_sum_transpose_outer) {
    auto m = flit({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    EXPECT_EQ(einsum("ii->i", {m}, {3}).to_doubles(), (std::vector<double>{1, 5, 9}));
    EXPECT_EQ(einsum("ii", {m}, {}).to_doubles(), (std::vector<double>{15})); // trace
    EXPECT_EQ(einsum("ij->", {m}, {}).to_doubles(), (std::vector<double>{45}));
    EXPECT_EQ(einsum("ij->j", {m}, {3}).to_doubles(), (std::vector<double>{12, 15, 18}));
    EXPECT_EQ(einsum("ij->ji", {m}, {3, 3}).to_doubles(), (std::vector<double>{1, 4, 7, 2, 5, 8, 3, 6, 9}));
    EXPECT_EQ(einsum("i,j->ij", {flit({2}, {1, 2}), flit({3}, {1, 10, 100})}, {2, 3}).to_doubles(),
              (std::vector<double>{1, 10, 100, 2, 20, 200}));
    EXPECT_EQ(einsum("i,i,i->", {flit({2}, {1, 2}), flit({2}, {3, 4}), flit({2}, {5, 6})}, {}).to_doubles(),
              (std::vector<double>{1 * 3 * 5 + 2 * 4 * 6}));
}

TEST(ops_math, einsum_ellipsis_broadcasts) {
    // Batch diagonals: [2, 2, 2] -> [2, 2].
    auto x = flit({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
    EXPECT_EQ(einsum("...ii->...i", {x}, {2, 2}).to_doubles(), (std::vector<double>{1, 4, 5, 8}));
    // [2, 1, 2] . [3, 2] over the last axis: the ellipsis broadcasts 1 against 3.
    auto a = flit({2, 1, 2}, {1, 2, 3, 4}), b = flit({3, 2}, {1, 0, 0, 1, 1, 1});
    EXPECT_EQ(einsum("...i,...i->...", {a, b}, {2, 3}).to_doubles(), (std::vector<double>{1, 2, 3, 3, 4, 7}));
}

TEST(ops_math, einsum_errors) {
    auto bad = [](const std::string& eq, std::vector<int64_t> lens) {
        return import_error(one_node("Einsum", 12, {{"x", lens}}, {{"y", {}}},
                                     [&](onnx::NodeProto& n) { attr_string(n, "equation", eq); }));
    };
    EXPECT_NE(bad("ij,jk->ik", {2, 2}).find("2 terms for 1 inputs"), std::string::npos);
    EXPECT_NE(bad("ijk->i", {2, 2}).find("does not fit input 0"), std::string::npos);
    EXPECT_NE(bad("ii->i", {2, 3}).find("repeated with lengths 2 and 3"), std::string::npos);
    EXPECT_NE(bad("ij->k", {2, 2}).find("output label 'k' is in no input"), std::string::npos);
    EXPECT_NE(bad("i1->i", {2, 2}).find("has the character '1'"), std::string::npos);
    EXPECT_EQ(bad("ij->", {2, 2}), ""); // valid: the sum of all elements
}

TEST(ops_math, rotary_embedding_half_and_interleaved) {
    // One head, one position, head size 4: angles 0 and 90 degrees (cos [1, 0], sin [0, 1]).
    auto x = flit({1, 1, 1, 4}, {1, 2, 3, 4});
    auto cos = flit({1, 2}, {1, 0}), sin = flit({1, 2}, {0, 1});
    auto pos = ilit({1, 1}, {0});
    auto model = [](bool interleaved) {
        return one_node("RotaryEmbedding", 23,
                        {{"x", {1, 1, 1, 4}}, {"c", {1, 2}}, {"s", {1, 2}}, {"p", {1, 1}, onnx::TensorProto::INT64}},
                        {{"y", {1, 1, 1, 4}}}, [&](onnx::NodeProto& n) { attr_int(n, "interleaved", interleaved); });
    };
    std::map<std::string, literal> feed{{"x", x}, {"c", cos}, {"s", sin}, {"p", pos}};
    // Halves x1 = [1, 2], x2 = [3, 4]: [cos x1 - sin x2, sin x1 + cos x2] = [1, -4, 3, 2].
    EXPECT_EQ(run(model(false), feed)[0].to_doubles(), (std::vector<double>{1, -4, 3, 2}));
    // Pairs (1, 2), (3, 4): (1, 2) turns by 0, (3, 4) by 90 degrees to (-4, 3).
    EXPECT_EQ(run(model(true), feed)[0].to_doubles(), (std::vector<double>{1, 2, -4, 3}));
}

TEST(ops_math, rotary_embedding_3d_partial_rotation) {
    // [B=1, S=1, 2 heads * 4], rotary dim 2: only the first pair of each head turns (90 degrees).
    auto m = one_node("RotaryEmbedding", 23, {{"x", {1, 1, 8}}, {"c", {1, 1, 1}}, {"s", {1, 1, 1}}}, {{"y", {1, 1, 8}}},
                      [](onnx::NodeProto& n) {
                          attr_int(n, "num_heads", 2);
                          attr_int(n, "rotary_embedding_dim", 2);
                      });
    auto y = run(m, {{"x", flit({1, 1, 8}, {1, 2, 3, 4, 5, 6, 7, 8})}, {"c", flit({1, 1, 1}, {0})}, {"s", flit({1, 1, 1}, {1})}});
    EXPECT_EQ(y[0].to_doubles(), (std::vector<double>{-2, 1, 3, 4, -6, 5, 7, 8}));
    auto no_heads = one_node("RotaryEmbedding", 23, {{"x", {1, 1, 8}}, {"c", {1, 1, 4}}, {"s", {1, 1, 4}}}, {{"y", {1, 1, 8}}});
    EXPECT_NE(import_error(no_heads).find("needs num_heads"), std::string::npos);
}

TEST(ops_math, swiglu) {
    auto m = one_node("SwiGLU", 28, {{"a", {2}}, {"b", {2}}}, {{"y", {2}}}, [](onnx::NodeProto& n) { attr_float(n, "alpha", 2); });
    auto y = run(m, {{"a", flit({2}, {0, 1})}, {"b", flit({2}, {5, 3})}})[0].to_doubles();
    // a * sigmoid(2a) * b: 0, and 1 / (1 + e^-2) * 3.
    expect_near(y, {0, 3 / (1 + std::exp(-2.0))});
}

TEST(ops_math, causal_conv_with_state) {
    auto m = one_node("CausalConvWithState", 27, {{"x", {1, 1, 3}}, {"w", {1, 1, 2}}, {"b", {1}}, {"past", {1, 1, 1}}},
                      {{"y", {1, 1, 3}}, {"present", {1, 1, 1}}});
    // The past step 7 comes first: [7, 1, 2, 3] * [1, 10] + 100.
    auto y = run(m, {{"x", flit({1, 1, 3}, {1, 2, 3})}, {"w", flit({1, 1, 2}, {1, 10})}, {"b", flit({1}, {100})},
                     {"past", flit({1, 1, 1}, {7})}});
    EXPECT_EQ(y[0].to_doubles(), (std::vector<double>{117, 121, 132}));
    EXPECT_EQ(y[1].to_doubles(), (std::vector<double>{3}));
    auto bad = one_node("CausalConvWithState", 27, {{"x", {1, 1, 3}}, {"w", {1, 1, 2}}}, {{"y", {1, 1, 3}}, {"present", {1, 1, 1}}},
                        [](onnx::NodeProto& n) { attr_string(n, "activation", "gelu"); });
    EXPECT_NE(import_error(bad).find("unknown activation 'gelu'"), std::string::npos);
}

TEST(ops_math, linear_attention_rules) {
    // One head, d_k = d_v = 1, two steps, scale 1: q = [1, 1], k = [1, 2], v = [3, 4].
    auto model = [](const std::string& rule, bool with_beta) {
        std::vector<io> in{{"q", {1, 2, 1}}, {"k", {1, 2, 1}}, {"v", {1, 2, 1}}};
        if (with_beta) in.insert(in.end(), {{"", {}}, {"", {}}, {"beta", {1, 2, 1}}});
        return one_node("LinearAttention", 27, in, {{"y", {1, 2, 1}}, {"state", {1, 1, 1, 1}}}, [&](onnx::NodeProto& n) {
            attr_int(n, "q_num_heads", 1);
            attr_int(n, "kv_num_heads", 1);
            attr_float(n, "scale", 1);
            attr_string(n, "update_rule", rule);
        });
    };
    std::map<std::string, literal> feed{{"q", flit({1, 2, 1}, {1, 1})}, {"k", flit({1, 2, 1}, {1, 2})},
                                        {"v", flit({1, 2, 1}, {3, 4})}, {"beta", flit({1, 2, 1}, {1, 1})}};
    // linear: S = 3, then 3 + 2 * 4 = 11.
    auto lin = run(model("linear", false), feed);
    EXPECT_EQ(lin[0].to_doubles(), (std::vector<double>{3, 11}));
    EXPECT_EQ(lin[1].to_doubles(), (std::vector<double>{11}));
    // delta, beta 1: S = 1 * (3 - 0) = 3, then 3 + 2 * (4 - 3 * 2) = -1.
    auto del = run(model("delta", true), feed);
    EXPECT_EQ(del[0].to_doubles(), (std::vector<double>{3, -1}));
    EXPECT_NE(import_error(model("gated", false)).find("needs the input decay"), std::string::npos);
}

TEST(ops_math, affine_grid_identity) {
    auto m = one_node("AffineGrid", 20, {{"theta", {1, 2, 3}}, {"size", {4}, onnx::TensorProto::INT64}}, {{"grid", {1, 2, 2, 2}}});
    import_options o;
    o.constant_inputs["size"] = ilit({4}, {1, 1, 2, 2});
    auto y = run(m, {{"theta", flit({1, 2, 3}, {1, 0, 0, 0, 1, 0})}}, o);
    EXPECT_EQ(y[0].s.lens, (std::vector<int64_t>{1, 2, 2, 2}));
    // Pixel centres at -0.5 and 0.5 (align_corners 0), x first.
    EXPECT_EQ(y[0].to_doubles(), (std::vector<double>{-0.5, -0.5, 0.5, -0.5, -0.5, 0.5, 0.5, 0.5}));
}

TEST(ops_math, det) {
    EXPECT_EQ(run_op("det", {flit({2, 2}, {1, 2, 3, 4})}).to_doubles(), (std::vector<double>{-2}));
    // The first pivot is 0 (a row swap is needed); then a singular matrix.
    auto y = run_op("det", {flit({2, 3, 3}, {0, 1, 2, 1, 0, 3, 4, -3, 8, 1, 2, 3, 2, 4, 6, 0, 1, 1})});
    EXPECT_EQ(y.s.lens, (std::vector<int64_t>{2}));
    expect_near(y.to_doubles(), {-2, 0});
    EXPECT_NE(shape_error("det", {shape(dtype::float_type, {2, 3})}).find("[..., n, n]"), std::string::npos);
    EXPECT_NE(shape_error("det", {shape(dtype::int64_type, {2, 2})}).find("floating point"), std::string::npos);
}

TEST(ops_math, roi_align_avg_max_and_half_pixel) {
    auto x = flit({1, 1, 2, 2}, {1, 2, 3, 4});
    auto rois = flit({1, 4}, {0, 0, 1, 1});
    auto b = ilit({1}, {0});
    auto roi = [&](const std::string& mode, int64_t half_pixel) {
        return run_op("roi_align", {x, rois, b},
                      attrs({{"mode", mode}, {"half_pixel", half_pixel}, {"sampling_ratio", int64_t{1}}}));
    };
    // One sample at (0.5, 0.5): the mean of the four pixels; max: the largest weighted corner 4 / 4.
    EXPECT_EQ(roi("avg", 0).to_doubles(), (std::vector<double>{2.5}));
    EXPECT_EQ(roi("max", 0).to_doubles(), (std::vector<double>{1}));
    // half_pixel shifts the box by -0.5: the sample lands on pixel (0, 0).
    EXPECT_EQ(roi("avg", 1).to_doubles(), (std::vector<double>{1}));
    // A batch index out of range gives 0.
    EXPECT_EQ(run_op("roi_align", {x, rois, ilit({1}, {3})}).to_doubles(), (std::vector<double>{0}));
    EXPECT_NE(shape_error("roi_align", {x.s, shape(dtype::float_type, {1, 3}), b.s}).find("rois must be [R,4]"), std::string::npos);
}

TEST(ops_math, deform_conv_offsets_and_mask) {
    // A 1x1 kernel of weight 1: y samples x at each output position plus its offset.
    auto x = flit({1, 1, 2, 2}, {1, 2, 3, 4}), w = flit({1, 1, 1, 1}, {1});
    // (0, 0) moves by (0.5, 0.5) to the centre; (1, 1) moves right off the image.
    auto off = flit({1, 2, 2, 2}, {0.5f, 0, 0, 0, 0.5f, 0, 0, 1});
    EXPECT_EQ(run_op("deform_conv", {x, w, off}).to_doubles(), (std::vector<double>{2.5, 2, 3, 0}));
    auto mask = flit({1, 1, 2, 2}, {1, 1, 2, 1});
    EXPECT_EQ(run_op("deform_conv", {x, w, off, mask}).to_doubles(), (std::vector<double>{2.5, 2, 6, 0}));
    EXPECT_NE(shape_error("deform_conv", {x.s, w.s, shape(dtype::float_type, {1, 4, 2, 2})}).find("offset must be"),
              std::string::npos);
}

TEST(ops_math, flex_attention_score_mod) {
    // One query, two keys with equal scores; score_mod adds [0, ln 3]: probabilities 1/4, 3/4.
    onnx::ModelProto m;
    m.set_ir_version(10);
    m.add_opset_import()->set_version(26);
    auto* preview = m.add_opset_import();
    preview->set_domain("ai.onnx.preview");
    preview->set_version(1);
    auto model = [&](bool with_mod) {
        auto* g = m.mutable_graph();
        g->Clear();
        g->set_name("g");
        auto declare = [](onnx::ValueInfoProto* v, const std::string& name, std::vector<int64_t> lens) {
            v->set_name(name);
            auto* t = v->mutable_type()->mutable_tensor_type();
            t->set_elem_type(onnx::TensorProto::FLOAT);
            for (auto l : lens) t->mutable_shape()->add_dim()->set_dim_value(l);
        };
        declare(g->add_input(), "q", {1, 1, 1, 1});
        declare(g->add_input(), "k", {1, 1, 2, 1});
        declare(g->add_input(), "v", {1, 1, 2, 1});
        declare(g->add_output(), "y", {1, 1, 1, 1});
        auto* n = g->add_node();
        n->set_op_type("FlexAttention");
        n->set_domain("ai.onnx.preview");
        for (auto* x : {"q", "k", "v"}) n->add_input(x);
        n->add_output("y");
        if (with_mod) {
            auto* a = n->add_attribute();
            a->set_name("score_mod");
            a->set_type(onnx::AttributeProto::GRAPH);
            auto* sg = a->mutable_g();
            sg->set_name("mod");
            declare(sg->add_input(), "s", {1, 1, 1, 2});
            declare(sg->add_output(), "s2", {1, 1, 1, 2});
            auto* bias = sg->add_initializer();
            bias->set_name("bias");
            bias->set_data_type(onnx::TensorProto::FLOAT);
            for (auto l : {1, 1, 1, 2}) bias->add_dims(l);
            bias->add_float_data(0);
            bias->add_float_data(std::log(3.0f));
            auto* add = sg->add_node();
            add->set_op_type("Add");
            add->add_input("s");
            add->add_input("bias");
            add->add_output("s2");
        }
        return m.SerializeAsString();
    };
    std::map<std::string, literal> feed{{"q", flit({1, 1, 1, 1}, {1})}, {"k", flit({1, 1, 2, 1}, {0, 0})}, {"v", flit({1, 1, 2, 1}, {4, 8})}};
    expect_near(run(model(false), feed)[0].to_doubles(), {6});
    expect_near(run(model(true), feed)[0].to_doubles(), {7});
}

TEST(ops_math, linear_attention_op_gated_gqa_packing) {
    // Two query heads share one KV head (d_k = d_v = 1); decay halves the state each step; past state 10.
    auto y = run_op("linear_attention",
                    {flit({1, 2, 2}, {1, 2, 1, 2}), flit({1, 2, 1}, {1, 1}), flit({1, 2, 1}, {2, 4}), flit({1, 1, 1, 1}, {10}),
                     flit({1, 2, 1}, {std::log(0.5f), std::log(0.5f)})},
                    attrs({{"q_num_heads", int64_t{2}}, {"kv_num_heads", int64_t{1}}, {"update_rule", std::string("gated")}}));
    // S = 10/2 + 2 = 7 (outputs 7, 14), then 7/2 + 4 = 7.5 (7.5, 15); the final state 7.5 last.
    EXPECT_EQ(y.s.lens, (std::vector<int64_t>{1, 1, 1, 5}));
    expect_near(y.to_doubles(), {7, 14, 7.5, 15, 7.5});
    EXPECT_NE(shape_error("linear_attention", {shape(dtype::float_type, {1, 2, 2}), shape(dtype::float_type, {1, 2, 1}),
                                               shape(dtype::float_type, {1, 2, 1}), shape(dtype::float_type, {1, 1, 1, 1})},
                          attrs({{"q_num_heads", int64_t{2}}, {"kv_num_heads", int64_t{1}}}))
                  .find("takes 6 inputs"),
              std::string::npos);
}

namespace {
// The worst error, in ulp of the float nearest to want(x), of got(x) over the floats x
// (every 4099th bit pattern) that keep(x) accepts: keep may also check x itself and
// return false to leave it out of the measure.
struct ulp_worst {
    double ulps = 0;
    float x = 0;
};
template <class Got, class Want, class Keep> ulp_worst worst_ulp(Got got, Want want, Keep keep) {
    ulp_worst w;
    for (uint64_t b = 0; b <= 0xffffffffull; b += 4099) {
        const uint32_t bits = uint32_t(b);
        float x;
        std::memcpy(&x, &bits, sizeof x);
        if (!keep(x)) continue;
        const double t = want(double(x));
        const float tf = std::fabs(float(t));
        const double err = std::fabs(double(got(x)) - t) / (double(std::nextafter(tf, INFINITY)) - double(tf));
        if (err > w.ulps) w.ulps = err, w.x = x;
    }
    return w;
}
} // namespace

// The host's float exp (templates/common/math.hpp, mxc_exp_host: the cpu kernels, the
// evaluator and constant folding use it): within 2 ulp of double exp over every float whose
// exp is finite and nonzero (sampled: every 4099th bit pattern), 0 and inf past the ends,
// NaN through.
TEST(ops_math, host_exp_within_two_ulp) {
    const ulp_worst worst = worst_ulp(mxc_exp_host, [](double x) { return std::exp(x); }, [](float x) {
        if (!(std::fabs(x) < 110.0f)) return false;
        const double want = std::exp(double(x));
        if (want < 0.7e-45) { // below half the least subnormal
            EXPECT_EQ(mxc_exp_host(x), 0.0f) << "x = " << x;
            return false;
        }
        if (std::isinf(float(want))) {
            EXPECT_TRUE(std::isinf(mxc_exp_host(x))) << "x = " << x;
            return false;
        }
        return true;
    });
    EXPECT_LE(worst.ulps, 2.0) << "worst at x = " << worst.x;
    EXPECT_TRUE(std::isnan(mxc_exp_host(NAN)));
    EXPECT_EQ(mxc_exp_host(INFINITY), INFINITY);
    EXPECT_EQ(mxc_exp_host(-INFINITY), 0.0f);
    EXPECT_EQ(mxc_exp_host(0.0f), 1.0f);
    EXPECT_EQ(mxc_exp_host(-0.0f), 1.0f);
    EXPECT_EQ(mxc_exp_host(1000.0f), INFINITY);
    EXPECT_EQ(mxc_exp_host(-1000.0f), 0.0f);
    EXPECT_EQ(mxc_exp_host(-3.4e38f), 0.0f); // a masked attention score
    EXPECT_FALSE(std::signbit(mxc_exp_host(-10000.0f)));
}

// The host's float sigmoid (mxc_sigmoid_host: the Sigmoid op and fused sigmoids and SiLUs on
// the cpu target, the evaluator): within 2 ulp of double 1 / (1 + exp(-x)) from x = -87 on
// (sampled: every 4099th bit pattern); below, within 1.7e-38 of it (the argument is clamped);
// NaN through.
TEST(ops_math, host_sigmoid_within_two_ulp) {
    const auto want = [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
    const ulp_worst worst = worst_ulp(mxc_sigmoid_host, want, [&](float x) {
        if (std::isnan(x)) return false;
        if (x < -87.0f) {
            EXPECT_NEAR(double(mxc_sigmoid_host(x)), want(double(x)), 1.7e-38) << "x = " << x;
            return false;
        }
        return true;
    });
    EXPECT_LE(worst.ulps, 2.0) << "worst at x = " << worst.x;
    EXPECT_TRUE(std::isnan(mxc_sigmoid_host(NAN)));
    EXPECT_EQ(mxc_sigmoid_host(INFINITY), 1.0f);
    EXPECT_GE(mxc_sigmoid_host(-INFINITY), 0.0f);
    EXPECT_LT(mxc_sigmoid_host(-INFINITY), 1.7e-38f);
    EXPECT_EQ(mxc_sigmoid_host(0.0f), 0.5f);
    EXPECT_EQ(mxc_sigmoid_host(20.0f), 1.0f);
    EXPECT_GE(mxc_sigmoid_host(-1000.0f), 0.0f);
}

// The host's float erf (mxc_erf_host: GELU epilogues, the Erf op on the cpu target, the
// evaluator): within 3 ulp of double erf (sampled: every 4099th bit pattern), odd, +-1 at the
// ends, NaN through.
TEST(ops_math, host_erf_within_three_ulp) {
    const ulp_worst worst = worst_ulp(mxc_erf_host, [](double x) { return std::erf(x); }, [](float x) {
        if (std::isnan(x)) return false;
        EXPECT_EQ(mxc_erf_host(-x), -mxc_erf_host(x)) << "x = " << x;
        return true;
    });
    EXPECT_LE(worst.ulps, 3.0) << "worst at x = " << worst.x;
    EXPECT_TRUE(std::isnan(mxc_erf_host(NAN)));
    EXPECT_EQ(mxc_erf_host(INFINITY), 1.0f);
    EXPECT_EQ(mxc_erf_host(-INFINITY), -1.0f);
    EXPECT_EQ(mxc_erf_host(10.0f), 1.0f);
    EXPECT_EQ(mxc_erf_host(0.0f), 0.0f);
    EXPECT_TRUE(std::signbit(mxc_erf_host(-0.0f)));
}
