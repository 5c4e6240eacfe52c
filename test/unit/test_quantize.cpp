// Quantization: the quantize_linear IR op and the ONNX converters built on it (QuantizeLinear,
// DequantizeLinear, DynamicQuantizeLinear, MatMulInteger, ConvInteger, QLinearMatMul,
// QLinearConv). One-node models are written here with the ONNX protobuf API, imported and run
// with the reference evaluator; the expected values are worked out by hand from the spec.
#include "compiler/onnx_import.hpp"
#include "test_ops_util.hpp"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <limits>

using namespace mxc;
using namespace mxc::test;

namespace {

// A tensor for the one-node model: ONNX element type, dims, values.
struct tensor_in {
    std::string name;
    int type; // onnx::TensorProto::DataType
    std::vector<int64_t> dims;
    std::vector<double> values;
};

void fill(onnx::TensorProto& t, const tensor_in& v) {
    t.set_name(v.name);
    t.set_data_type(v.type);
    for (auto d : v.dims) t.add_dims(d);
    for (double x : v.values) {
        if (v.type == onnx::TensorProto::FLOAT) t.add_float_data(static_cast<float>(x));
        else t.add_int32_data(static_cast<int32_t>(x)); // int8/uint8/int16/uint16/int32
    }
}

// Runs one node: inputs[0] is a graph input fed at run time, the others are initializers
// (an empty name leaves an optional input out). Returns every output as doubles.
std::vector<std::vector<double>> run_node(const std::string& op, int64_t opset, const std::vector<tensor_in>& inputs,
                                          const std::vector<std::pair<std::string, int64_t>>& int_attrs = {},
                                          int n_out = 1) {
    onnx::ModelProto model;
    model.set_ir_version(8);
    auto* imp = model.add_opset_import();
    imp->set_domain("");
    imp->set_version(opset);
    auto* g = model.mutable_graph();
    g->set_name("g");
    auto* node = g->add_node();
    node->set_op_type(op);
    node->set_name("n");
    for (auto& [k, v] : int_attrs) {
        auto* a = node->add_attribute();
        a->set_name(k);
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(v);
    }
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        node->add_input(inputs[i].name);
        if (inputs[i].name.empty()) continue;
        if (i == 0) {
            auto* vi = g->add_input();
            vi->set_name(inputs[i].name);
            auto* tt = vi->mutable_type()->mutable_tensor_type();
            tt->set_elem_type(inputs[i].type);
            for (auto d : inputs[i].dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
        } else {
            fill(*g->add_initializer(), inputs[i]);
        }
    }
    for (int o = 0; o < n_out; ++o) {
        node->add_output("y" + std::to_string(o));
        g->add_output()->set_name("y" + std::to_string(o));
    }
    std::string bytes;
    model.SerializeToString(&bytes);
    auto p = import_onnx_bytes(bytes, op + " test");
    verify(p.main());
    std::map<std::string, literal> feed;
    auto dt = dtype_from_onnx(inputs[0].type);
    std::vector<double> xv = inputs[0].values;
    literal l = literal::from<double>(dtype::double_type, inputs[0].dims, xv);
    feed[inputs[0].name] = l;
    if (*dt != dtype::double_type) {
        // the evaluator wants the declared type: convert through a one-op module
        feed[inputs[0].name] = run_op("convert", {l}, attrs({{"target_type", std::string(dtype_name(*dt))}}));
    }
    std::vector<std::vector<double>> r;
    for (auto& o : evaluate(p.main(), feed)) r.push_back(o.to_doubles());
    return r;
}

std::string node_error(const std::string& op, int64_t opset, const std::vector<tensor_in>& inputs,
                       const std::vector<std::pair<std::string, int64_t>>& int_attrs = {}) {
    try {
        run_node(op, opset, inputs, int_attrs);
    } catch (const error& e) {
        return e.what();
    }
    return "";
}

constexpr int F32 = onnx::TensorProto::FLOAT, U8 = onnx::TensorProto::UINT8, I8 = onnx::TensorProto::INT8,
              I16 = onnx::TensorProto::INT16, I32 = onnx::TensorProto::INT32;

std::vector<double> quantize_op(const std::vector<float>& x, float scale, dtype zt, double zp, int64_t saturate = 1) {
    int64_t n = static_cast<int64_t>(x.size());
    auto z = run_op("convert", {literal::from<double>(dtype::double_type, {n}, std::vector<double>(x.size(), zp))},
                    attrs({{"target_type", std::string(dtype_name(zt))}}));
    return run_op("quantize_linear", {flit({n}, x), flit({n}, std::vector<float>(x.size(), scale)), z},
                  attrs({{"saturate", saturate}}))
        .to_doubles();
}

} // namespace

TEST(quantize, op_rounds_half_to_even_and_saturates) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    // int8, zero point 1: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> -0, -1.5 -> -2, then + 1;
    // 300 and -300 saturate; NaN gives the zero point.
    expect_near(quantize_op({0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 300.f, -300.f, nan}, 1.f, dtype::int8_type, 1),
                {1, 3, 3, 1, -1, 127, -128, 1});
    // uint8, scale 2: 5 / 2 = 2.5 -> 2; 7 / 2 = 3.5 -> 4; negatives saturate at 0.
    expect_near(quantize_op({5.f, 7.f, -1.f, 600.f}, 2.f, dtype::uint8_type, 0), {2, 4, 0, 255});
    // int16 and uint16 ranges.
    expect_near(quantize_op({40000.f, -40000.f, 12.5f}, 1.f, dtype::int16_type, 0), {32767, -32768, 12});
    expect_near(quantize_op({70000.f, -3.f, 13.5f}, 1.f, dtype::uint16_type, 0), {65535, 0, 14});
}

TEST(quantize, op_sub_byte_integers_saturate_to_their_range) {
    // int4 [-8, 7]: 7.5 -> 8 -> 7, -9 -> -8, 2.5 -> 2, -8.5 -> -8 (even)
    expect_near(quantize_op({7.5f, -9.f, 2.5f, -8.5f}, 1.f, dtype::int4_type, 0), {7, -8, 2, -8});
    // uint4 [0, 15] with zero point 3: 12.5 -> 12 + 3 = 15, 13 + 3 -> 15, -3.5 -> -4 + 3 -> 0
    expect_near(quantize_op({12.5f, 13.f, -3.5f}, 1.f, dtype::uint4_type, 3), {15, 15, 0});
    // int2 [-2, 1], uint2 [0, 3]
    expect_near(quantize_op({1.5f, -3.f, 0.5f}, 1.f, dtype::int2_type, 0), {1, -2, 0});
    expect_near(quantize_op({2.5f, 5.f, 3.5f}, 1.f, dtype::uint2_type, 0), {2, 3, 3});
}

TEST(quantize, op_float8_and_float4_round_to_nearest_even) {
    const double inf = std::numeric_limits<double>::infinity();
    // e4m3fn near 1 has steps of 1/8: 1.0625 is a tie -> 1 (even), 1.1875 -> 1.25 (even);
    // 0.6 -> 0.625 (steps of 1/16 in [0.5, 1)); 0.6 / 2 = 0.3 -> 0.3125 (steps of 1/32);
    // 1000 saturates at 448.
    expect_near(quantize_op({1.0625f, 1.1875f, 0.6f, 1000.f, -1000.f}, 1.f, dtype::float8e4m3fn_type, 0),
                {1, 1.25, 0.625, 448, -448});
    expect_near(quantize_op({0.6f}, 2.f, dtype::float8e4m3fn_type, 0), {0.3125});
    // without saturation e4m3fn has no inf: NaN; e5m2 overflows to inf (its max is 57344)
    auto nosat = quantize_op({1000.f}, 1.f, dtype::float8e4m3fn_type, 0, 0);
    EXPECT_TRUE(std::isnan(nosat[0]));
    expect_near(quantize_op({1e6f, 1e6f}, 1.f, dtype::float8e5m2_type, 0, 1), {57344, 57344});
    EXPECT_EQ(quantize_op({1e6f, -1e6f}, 1.f, dtype::float8e5m2_type, 0, 0), (std::vector<double>{inf, -inf}));
    // float4e2m1 {0, 0.5, 1, 1.5, 2, 3, 4, 6}: 5 -> 4 and 2.5 -> 2 (ties to even), 100 -> 6
    // even without saturate (it has no inf)
    expect_near(quantize_op({5.f, 2.5f, 100.f, -0.75f}, 1.f, dtype::float4e2m1_type, 0, 0), {4, 2, 6, -1});
}

TEST(quantize, op_rejects_bad_inputs) {
    shape x(dtype::float_type, {2}), u8(dtype::uint8_type, {2});
    EXPECT_NE(shape_error("quantize_linear", {x, shape(dtype::double_type, {2}), u8}).find("one type of float, double, half or bf16"), std::string::npos);
    EXPECT_NE(shape_error("quantize_linear", {x, x, shape(dtype::uint8_type, {3})}).find("must have x's lens"), std::string::npos);
    EXPECT_NE(shape_error("quantize_linear", {x, x, x}).find("zero_point must be an integer"), std::string::npos);
    EXPECT_NE(shape_error("quantize_linear", {x, x, shape(dtype::float8e8m0_type, {2})}).find("float4e2m1, got float8e8m0"),
              std::string::npos);
}

TEST(quantize, quantize_linear_per_tensor_default_zero_point) {
    // No zero point: uint8 with zero point 0 (opset 10).
    auto y = run_node("QuantizeLinear", 10, {{"x", F32, {4}, {1, 3, 5, -2}}, {"s", F32, {}, {2}}});
    expect_near(y[0], {0, 2, 2, 0}); // 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -1 -> 0 (saturated)
}

TEST(quantize, quantize_linear_per_axis) {
    // axis 1 of [2, 3]: scale {1, 2, 4}, zero point {0, 10, 20}.
    auto y = run_node("QuantizeLinear", 13,
                      {{"x", F32, {2, 3}, {3, 3, 3, -2, 7, 100}}, {"s", F32, {3}, {1, 2, 4}}, {"z", U8, {3}, {0, 10, 20}}},
                      {{"axis", 1}});
    // row 0: 3, 1.5 -> 2 + 10, 0.75 -> 1 + 20; row 1: -2 -> 0, 3.5 -> 4 + 10, 25 + 20
    expect_near(y[0], {3, 12, 21, 0, 14, 45});
    // a negative axis counts from the end
    auto z = run_node("QuantizeLinear", 13,
                      {{"x", F32, {2, 3}, {3, 3, 3, -2, 7, 100}}, {"s", F32, {3}, {1, 2, 4}}, {"z", U8, {3}, {0, 10, 20}}},
                      {{"axis", -1}});
    EXPECT_EQ(z[0], y[0]);
}

TEST(quantize, quantize_linear_blocked_with_short_last_block) {
    // [1, 5] in blocks of 2 along axis 1: scales {1, 2, 4}, int8 zero points {0, 0, -1}.
    auto y = run_node("QuantizeLinear", 21,
                      {{"x", F32, {1, 5}, {1, 3, 3, 5, 10}}, {"s", F32, {1, 3}, {1, 2, 4}}, {"z", I8, {1, 3}, {0, 0, -1}}},
                      {{"axis", 1}, {"block_size", 2}});
    // 1, 3 | 1.5 -> 2, 2.5 -> 2 | 2.5 -> 2, - 1
    expect_near(y[0], {1, 3, 2, 2, 1});
    // blocked along axis 0 of [3, 2], block 2: rows 0-1 scale row 0, row 2 scale row 1
    auto z = run_node("QuantizeLinear", 21,
                      {{"x", F32, {3, 2}, {2, 4, 6, 8, 9, 9}}, {"s", F32, {2, 2}, {2, 4, 3, 9}}},
                      {{"axis", 0}, {"block_size", 2}, {"output_dtype", I16}});
    expect_near(z[0], {1, 1, 3, 2, 3, 1});
}

TEST(quantize, quantize_linear_bad_granularity_is_one_line_error) {
    auto e = node_error("QuantizeLinear", 13, {{"x", F32, {2, 2}, {1, 2, 3, 4}}, {"s", F32, {3}, {1, 2, 3}}}, {{"axis", 1}});
    EXPECT_NE(e.find("node 'n' (QuantizeLinear"), std::string::npos) << e;
    EXPECT_NE(e.find("y_scale {3} must be a scalar or {2}"), std::string::npos) << e;
    e = node_error("QuantizeLinear", 21, {{"x", F32, {1, 5}, {1, 2, 3, 4, 5}}, {"s", F32, {1, 2}, {1, 2}}},
                   {{"axis", 1}, {"block_size", 2}});
    EXPECT_NE(e.find("must be {1, 3} for block_size 2"), std::string::npos) << e;
    e = node_error("QuantizeLinear", 25, {{"x", F32, {2}, {1, 2}}, {"s", F32, {}, {1}}}, {{"output_dtype", 24}}); // e8m0
    EXPECT_NE(e.find("quantizing to float8e8m0_type is not supported"), std::string::npos) << e;
    e = node_error("QuantizeLinear", 21, {{"x", F32, {2}, {1, 2}}, {"s", F32, {}, {1}}, {"z", I32, {}, {0}}});
    EXPECT_NE(e.find("quantizing to int32_type is not supported"), std::string::npos) << e;
}

TEST(quantize, quantize_linear_to_int4_and_float8_by_output_dtype) {
    // output_dtype INT4 (22), no zero point: per-axis scales {1, 4} on axis 0
    auto y = run_node("QuantizeLinear", 21, {{"x", F32, {2, 2}, {7.5, -20, 6, 10}}, {"s", F32, {2}, {1, 4}}},
                      {{"axis", 0}, {"output_dtype", 22}});
    expect_near(y[0], {7, -8, 2, 2}); // 7.5 -> 8 -> 7; -20 -> -8; 1.5 -> 2; 2.5 -> 2
    // FLOAT8E4M3FN (17) with saturate 0 (opset 19+): 1000 is NaN, 1.0625 -> 1
    y = run_node("QuantizeLinear", 21, {{"x", F32, {2}, {1.0625, 1000}}, {"s", F32, {}, {1}}},
                 {{"output_dtype", 17}, {"saturate", 0}});
    EXPECT_EQ(y[0][0], 1.0);
    EXPECT_TRUE(std::isnan(y[0][1]));
}

TEST(quantize, dequantize_linear) {
    // per axis 0: (x - zp) * scale with scale {0.5, 2}, zero point {10, 0}
    auto y = run_node("DequantizeLinear", 13,
                      {{"x", U8, {2, 2}, {10, 20, 30, 40}}, {"s", F32, {2}, {0.5, 2}}, {"z", U8, {2}, {10, 0}}},
                      {{"axis", 0}});
    expect_near(y[0], {0, 5, 60, 80});
    // int32 without zero point; int8 per tensor with a negative zero point
    expect_near(run_node("DequantizeLinear", 10, {{"x", I32, {2}, {-7, 100000}}, {"s", F32, {}, {0.25}}})[0], {-1.75, 25000});
    expect_near(run_node("DequantizeLinear", 10, {{"x", I8, {2}, {-128, 127}}, {"s", F32, {}, {2}}, {"z", I8, {}, {-1}}})[0],
                {-254, 256});
    // blocked: [1, 3] in blocks of 2, scales {1, 10}
    expect_near(run_node("DequantizeLinear", 21, {{"x", U8, {1, 3}, {1, 2, 3}}, {"s", F32, {1, 2}, {1, 10}}},
                         {{"axis", 1}, {"block_size", 2}})[0],
                {1, 2, 30});
}

TEST(quantize, dynamic_quantize_linear) {
    // range [-1, 3]: scale 4/255, zero point rint(63.75) = 64; x/scale = -63.75, 0, 63.75, 191.25
    auto r = run_node("DynamicQuantizeLinear", 11, {{"x", F32, {4}, {-1, 0, 1, 3}}}, {}, 3);
    expect_near(r[0], {0, 64, 128, 255});
    expect_near(r[1], {4.0 / 255});
    expect_near(r[2], {64});
    // all positive: the range still includes 0, so the zero point is 0
    r = run_node("DynamicQuantizeLinear", 11, {{"x", F32, {2}, {2.55, 5.1}}}, {}, 3);
    expect_near(r[0], {128, 255}); // 2.55 / 0.02 is about 127.5; 5.1 / 0.02 = 255
    expect_near(r[1], {0.02});
    expect_near(r[2], {0});
    // all zeros: the scale is 1, not 0
    r = run_node("DynamicQuantizeLinear", 11, {{"x", F32, {3}, {0, 0, 0}}}, {}, 3);
    expect_near(r[0], {0, 0, 0});
    expect_near(r[1], {1});
    expect_near(r[2], {0});
}

TEST(quantize, matmul_integer_with_per_row_and_per_column_zero_points) {
    // (A - 1) = {{0, 1}, {2, 3}}; B - {5, 6} per column = {{0, 0}, {2, 2}}
    auto y = run_node("MatMulInteger", 10,
                      {{"a", U8, {2, 2}, {1, 2, 3, 4}}, {"b", U8, {2, 2}, {5, 6, 7, 8}}, {"az", U8, {}, {1}}, {"bz", U8, {2}, {5, 6}}});
    expect_near(y[0], {2, 2, 6, 6});
    // per-row zero point of A {1, 3}: rows {0, 1} and {0, 1}
    y = run_node("MatMulInteger", 10,
                 {{"a", U8, {2, 2}, {1, 2, 3, 4}}, {"b", U8, {2, 2}, {5, 6, 7, 8}}, {"az", U8, {2}, {1, 3}}});
    expect_near(y[0], {7, 8, 7, 8});
    // int8 extremes accumulate exactly in int32: 2 * (-128 * -128) = 32768
    y = run_node("MatMulInteger", 10, {{"a", I8, {1, 2}, {-128, -128}}, {"b", I8, {2, 1}, {-128, -128}}});
    expect_near(y[0], {32768});
}

TEST(quantize, conv_integer) {
    // (x - 1) = {0, 1, 2, 3}, (w - 1) = 1 everywhere: one output 6; padding 1 gives 3x3 sums
    auto y = run_node("ConvInteger", 10,
                      {{"x", U8, {1, 1, 2, 2}, {1, 2, 3, 4}}, {"w", U8, {1, 1, 2, 2}, {2, 2, 2, 2}}, {"xz", U8, {}, {1}}, {"wz", U8, {}, {1}}});
    expect_near(y[0], {6});
    // two output channels with per-channel weight zero points {2, 0}: w - zp = 0 and 2
    y = run_node("ConvInteger", 10,
                 {{"x", U8, {1, 1, 2, 2}, {1, 2, 3, 4}}, {"w", U8, {2, 1, 1, 1}, {2, 2}}, {"xz", U8, {}, {0}}, {"wz", U8, {2}, {2, 0}}});
    expect_near(y[0], {0, 0, 0, 0, 2, 4, 6, 8});
}

TEST(quantize, qlinear_matmul_rounds_ties_to_even_and_saturates) {
    // C = 2 + 3 = 5, times 0.5 * 1 / 1 = 2.5 -> 2; C = 7 -> 3.5 -> 4
    auto y = run_node("QLinearMatMul", 10,
                      {{"a", I8, {2, 2}, {2, 3, 3, 4}}, {"as", F32, {}, {0.5}}, {"az", I8, {}, {0}},
                       {"b", I8, {2, 1}, {1, 1}}, {"bs", F32, {}, {1}}, {"bz", I8, {}, {0}},
                       {"ys", F32, {}, {1}}, {"yz", I8, {}, {0}}});
    expect_near(y[0], {2, 4});
    // with y zero point -100 the ties still round to even before the zero point is added
    y = run_node("QLinearMatMul", 10,
                 {{"a", I8, {2, 2}, {2, 3, 3, 4}}, {"as", F32, {}, {0.5}}, {"az", I8, {}, {0}},
                  {"b", I8, {2, 1}, {1, 1}}, {"bs", F32, {}, {1}}, {"bz", I8, {}, {0}},
                  {"ys", F32, {}, {1}}, {"yz", I8, {}, {-100}}});
    expect_near(y[0], {-98, -96});
    // 100 * 100 * 2 = 20000 and -500, times 0.5: saturate at 127 and -128
    y = run_node("QLinearMatMul", 10,
                 {{"a", I8, {2, 2}, {100, 100, -2, -3}}, {"as", F32, {}, {0.5}}, {"az", I8, {}, {0}},
                  {"b", I8, {2, 1}, {100, 100}}, {"bs", F32, {}, {1}}, {"bz", I8, {}, {0}},
                  {"ys", F32, {}, {1}}, {"yz", I8, {}, {0}}});
    expect_near(y[0], {127, -128});
}

TEST(quantize, qlinear_conv_per_channel_scale_and_bias) {
    // x - 0 = {1, 2, 3, 4}; w 1x1 {1, 2}: channel 0 = x + B0, channel 1 = 2x + B1.
    // y = (acc * x_scale * w_scale[m] / y_scale) + y_zp
    auto y = run_node("QLinearConv", 10,
                      {{"x", U8, {1, 1, 2, 2}, {1, 2, 3, 4}}, {"xs", F32, {}, {1}}, {"xz", U8, {}, {0}},
                       {"w", U8, {2, 1, 1, 1}, {1, 2}}, {"ws", F32, {2}, {0.5, 1}}, {"wz", U8, {}, {0}},
                       {"ys", F32, {}, {1}}, {"yz", U8, {}, {10}}, {"B", I32, {2}, {0, -10}}});
    // channel 0: 0.5 -> 0, 1, 1.5 -> 2, 2 (+10); channel 1: 2x - 10 = -8, -6, -4, -2 (+10)
    expect_near(y[0], {10, 11, 12, 12, 2, 4, 6, 8});
}
