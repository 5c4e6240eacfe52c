// The low-precision element types: conversions (templates/common/lowp.hpp) against values of
// the ONNX Cast spec, the convert/bitcast ops through the evaluator, and ONNX packing.
#include "test_ops_util.hpp"
#include "templates/common/math.hpp"

#include <cmath>

namespace mxc::test {
namespace {

template <class T> uint8_t bits_of(float f, bool saturate = true, int mode = mxc_round_up) {
    return T::from_float(f, saturate, mode).bits;
}
template <class T> float value_of(uint8_t b) {
    T t;
    t.bits = b;
    return static_cast<float>(t);
}

TEST(lowprec, float8e4m3fn_known_values) {
    EXPECT_EQ(bits_of<mxc_f8e4m3fn>(448.0f), 0x7e);
    EXPECT_EQ(value_of<mxc_f8e4m3fn>(0x7e), 448.0f);
    EXPECT_EQ(value_of<mxc_f8e4m3fn>(0x01), std::ldexp(1.0f, -9)); // smallest subnormal
    EXPECT_EQ(value_of<mxc_f8e4m3fn>(0x38), 1.0f);
    EXPECT_TRUE(std::isnan(value_of<mxc_f8e4m3fn>(0x7f)));
    EXPECT_TRUE(std::isnan(value_of<mxc_f8e4m3fn>(0xff)));
    EXPECT_EQ(bits_of<mxc_f8e4m3fn>(-0.0f), 0x80);
    // saturate: out of range and inf clamp to +-448; without: NaN
    EXPECT_EQ(bits_of<mxc_f8e4m3fn>(1000.0f), 0x7e);
    EXPECT_EQ(bits_of<mxc_f8e4m3fn>(-INFINITY), 0xfe);
    EXPECT_TRUE(std::isnan(value_of<mxc_f8e4m3fn>(bits_of<mxc_f8e4m3fn>(1000.0f, false))));
    EXPECT_TRUE(std::isnan(value_of<mxc_f8e4m3fn>(bits_of<mxc_f8e4m3fn>(INFINITY, false))));
    EXPECT_EQ(bits_of<mxc_f8e4m3fn>(460.0f, false), 0x7e); // rounds down to 448, in range
    EXPECT_EQ(bits_of<mxc_f8e4m3fn>(464.0f, false), 0x7e); // the tie goes to the even 448
    EXPECT_TRUE(std::isnan(value_of<mxc_f8e4m3fn>(bits_of<mxc_f8e4m3fn>(470.0f, false)))); // rounds to 480
    // round to nearest even: 1.0625 is halfway between 1 (0x38) and 1.125 (0x39)
    EXPECT_EQ(bits_of<mxc_f8e4m3fn>(1.0625f), 0x38);
    EXPECT_EQ(bits_of<mxc_f8e4m3fn>(1.1875f), 0x3a);
    EXPECT_EQ(bits_of<mxc_f8e4m3fn>(std::ldexp(1.0f, -11)), 0x00); // below half the smallest subnormal
}

TEST(lowprec, float8e5m2_known_values) {
    EXPECT_EQ(bits_of<mxc_f8e5m2>(57344.0f), 0x7b);
    EXPECT_EQ(value_of<mxc_f8e5m2>(0x7b), 57344.0f);
    EXPECT_EQ(value_of<mxc_f8e5m2>(0x7c), INFINITY);
    EXPECT_EQ(value_of<mxc_f8e5m2>(0xfc), -INFINITY);
    EXPECT_TRUE(std::isnan(value_of<mxc_f8e5m2>(0x7d)));
    EXPECT_EQ(value_of<mxc_f8e5m2>(0x01), std::ldexp(1.0f, -16));
    EXPECT_EQ(bits_of<mxc_f8e5m2>(1e6f), 0x7b);
    EXPECT_EQ(bits_of<mxc_f8e5m2>(INFINITY), 0x7b);
    EXPECT_EQ(bits_of<mxc_f8e5m2>(1e6f, false), 0x7c);      // saturate=0: inf
    EXPECT_EQ(bits_of<mxc_f8e5m2>(-INFINITY, false), 0xfc);
}

TEST(lowprec, fnuz_types_have_one_nan_and_no_negative_zero) {
    EXPECT_EQ(value_of<mxc_f8e4m3fnuz>(0x7f), 240.0f);
    EXPECT_EQ(value_of<mxc_f8e5m2fnuz>(0x7f), 57344.0f);
    EXPECT_TRUE(std::isnan(value_of<mxc_f8e4m3fnuz>(0x80)));
    EXPECT_TRUE(std::isnan(value_of<mxc_f8e5m2fnuz>(0x80)));
    EXPECT_EQ(bits_of<mxc_f8e4m3fnuz>(-0.0f), 0x00);
    EXPECT_EQ(bits_of<mxc_f8e5m2fnuz>(-1e-30f), 0x00);
    EXPECT_EQ(bits_of<mxc_f8e4m3fnuz>(NAN), 0x80);
    EXPECT_EQ(bits_of<mxc_f8e4m3fnuz>(1000.0f), 0x7f);
    EXPECT_EQ(bits_of<mxc_f8e4m3fnuz>(-1000.0f), 0xff);
    EXPECT_EQ(bits_of<mxc_f8e4m3fnuz>(1000.0f, false), 0x80);
    EXPECT_EQ(bits_of<mxc_f8e5m2fnuz>(-INFINITY, false), 0x80);
}

TEST(lowprec, every_float8_value_round_trips) {
    auto check = [](auto tag, const char* name) {
        using T = decltype(tag);
        for (int b = 0; b < 256; ++b) {
            float f = value_of<T>(static_cast<uint8_t>(b));
            if (std::isnan(f)) continue;
            uint8_t back = bits_of<T>(f, false);
            EXPECT_EQ(value_of<T>(back), f) << name << " bits " << b;
        }
    };
    check(mxc_f8e4m3fn{}, "e4m3fn");
    check(mxc_f8e4m3fnuz{}, "e4m3fnuz");
    check(mxc_f8e5m2{}, "e5m2");
    check(mxc_f8e5m2fnuz{}, "e5m2fnuz");
    for (int b = 0; b < 16; ++b) EXPECT_EQ(bits_of<mxc_f4e2m1>(value_of<mxc_f4e2m1>(static_cast<uint8_t>(b))), b == 8 ? 8 : b);
    for (int b = 0; b < 255; ++b) EXPECT_EQ(bits_of<mxc_f8e8m0>(value_of<mxc_f8e8m0>(static_cast<uint8_t>(b))), b);
}

TEST(lowprec, float4e2m1_saturates) {
    const float want[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
    for (int b = 0; b < 8; ++b) {
        EXPECT_EQ(value_of<mxc_f4e2m1>(static_cast<uint8_t>(b)), want[b]);
        EXPECT_EQ(value_of<mxc_f4e2m1>(static_cast<uint8_t>(b | 8)), -want[b]);
    }
    EXPECT_EQ(bits_of<mxc_f4e2m1>(9.0f, false), 0x7); // no inf/NaN: always saturates
    EXPECT_EQ(bits_of<mxc_f4e2m1>(-INFINITY), 0xf);
    EXPECT_EQ(bits_of<mxc_f4e2m1>(0.25f), 0x0);        // tie to even (0)
    EXPECT_EQ(bits_of<mxc_f4e2m1>(-3.5f), 0xe);        // tie to even (-4)
    EXPECT_EQ(bits_of<mxc_f4e2m1>(0.48f), 0x1);
}

TEST(lowprec, float8e8m0_round_modes) {
    EXPECT_EQ(value_of<mxc_f8e8m0>(127), 1.0f);
    EXPECT_EQ(value_of<mxc_f8e8m0>(0), std::ldexp(1.0f, -127));
    EXPECT_TRUE(std::isnan(value_of<mxc_f8e8m0>(0xff)));
    EXPECT_EQ(bits_of<mxc_f8e8m0>(1.1f, true, mxc_round_up), 0x80);
    EXPECT_EQ(bits_of<mxc_f8e8m0>(1.1f, true, mxc_round_down), 0x7f);
    EXPECT_EQ(bits_of<mxc_f8e8m0>(1.1f, true, mxc_round_nearest), 0x7f);
    EXPECT_EQ(bits_of<mxc_f8e8m0>(1.5f, true, mxc_round_nearest), 0x80); // ties up
    EXPECT_EQ(bits_of<mxc_f8e8m0>(0.124f, true, mxc_round_up), 0x7c);
    EXPECT_EQ(bits_of<mxc_f8e8m0>(3e38f, true, mxc_round_up), 0xfe);   // 2^128 overflows: saturate
    EXPECT_EQ(bits_of<mxc_f8e8m0>(3e38f, false, mxc_round_up), 0xff);  // NaN
    EXPECT_EQ(bits_of<mxc_f8e8m0>(NAN), 0xff);
}

TEST(lowprec, subbyte_integers_wrap) {
    EXPECT_EQ(static_cast<int>(mxc_int4(-9.0f)), 7);
    EXPECT_EQ(static_cast<int>(mxc_int4(15)), -1);
    EXPECT_EQ(static_cast<int>(mxc_int4(7.9f)), 7);
    EXPECT_EQ(static_cast<int>(mxc_uint4(-1)), 15);
    EXPECT_EQ(static_cast<int>(mxc_int2(-3.0f)), 1);
    EXPECT_EQ(static_cast<int>(mxc_int2(2)), -2);
    EXPECT_EQ(static_cast<int>(mxc_uint2(7)), 3);
    EXPECT_EQ(static_cast<int>(mxc_int4(NAN)), 0);
}

TEST(lowprec, pack_and_unpack_odd_length_int4) {
    std::vector<char> v = {-8, 7, -1, 0, 3};
    auto packed = onnx_pack(dtype::int4_type, v.data(), 5);
    ASSERT_EQ(packed.size(), 3u);
    EXPECT_EQ(static_cast<unsigned char>(packed[0]), 0x78);
    EXPECT_EQ(static_cast<unsigned char>(packed[1]), 0x0f);
    EXPECT_EQ(static_cast<unsigned char>(packed[2]), 0x03);
    EXPECT_EQ(onnx_unpack(dtype::int4_type, packed.data(), 5), v);
    // the same bytes as uint4: no sign extension
    auto u = onnx_unpack(dtype::uint4_type, packed.data(), 5);
    EXPECT_EQ(static_cast<unsigned char>(u[0]), 8);
    EXPECT_EQ(static_cast<unsigned char>(u[2]), 15);
    // 2-bit: four per byte, the first in the low bits
    std::vector<char> w = {1, -2, -1, 0, 1, 1, -2};
    auto p2 = onnx_pack(dtype::int2_type, w.data(), 7);
    ASSERT_EQ(p2.size(), 2u);
    EXPECT_EQ(static_cast<unsigned char>(p2[0]), 0x39);
    EXPECT_EQ(onnx_unpack(dtype::int2_type, p2.data(), 7), w);
    EXPECT_EQ(onnx_packed_bytes(dtype::float8e5m2_type, 5), 5u);
    EXPECT_EQ(onnx_packed_bytes(dtype::float4e2m1_type, 15), 8u);
}

TEST(lowprec, dtype_table) {
    EXPECT_EQ(dtype_from_onnx(17), dtype::float8e4m3fn_type);
    EXPECT_EQ(dtype_from_onnx(20), dtype::float8e5m2fnuz_type);
    EXPECT_EQ(dtype_from_onnx(21), dtype::uint4_type);
    EXPECT_EQ(dtype_from_onnx(22), dtype::int4_type);
    EXPECT_EQ(dtype_from_onnx(23), dtype::float4e2m1_type);
    EXPECT_EQ(dtype_from_onnx(24), dtype::float8e8m0_type);
    EXPECT_EQ(dtype_from_onnx(25), dtype::uint2_type);
    EXPECT_EQ(dtype_from_onnx(26), dtype::int2_type);
    for (int t = static_cast<int>(dtype::float8e4m3fn_type); t < dtype_count; ++t) {
        auto d = static_cast<dtype>(t);
        EXPECT_EQ(dtype_size(d), 1u) << dtype_name(d);
        EXPECT_TRUE(is_low_precision(d));
        EXPECT_EQ(parse_dtype(dtype_name(d)), d);
        int size = -1;
        mxc_visit_dtype(t, [&](auto tag) { size = static_cast<int>(sizeof(tag)); });
        EXPECT_EQ(size, 1) << dtype_name(d);
    }
    EXPECT_FALSE(is_low_precision(dtype::bool_type));
}

literal lowp_literal(dtype t, std::vector<int64_t> lens, const std::vector<uint8_t>& bytes) {
    return literal(shape(t, std::move(lens)), std::vector<char>(bytes.begin(), bytes.end()));
}

TEST(lowprec, convert_op_with_saturate) {
    auto to = [](const literal& x, const char* t, int64_t sat = 1) {
        return run_op("convert", {x}, attrs({{"target_type", std::string(t)}, {"saturate", sat}}));
    };
    auto f = flit({4}, {1.0f, -500.0f, 0.3f, 1e9f});
    auto y = to(f, "float8e4m3fn_type");
    EXPECT_EQ(y.s.type, dtype::float8e4m3fn_type);
    EXPECT_EQ(y.to_doubles(), (std::vector<double>{1, -448, 0.3125, 448}));
    auto n = to(f, "float8e4m3fn_type", 0).to_doubles();
    EXPECT_TRUE(std::isnan(n[1]) && std::isnan(n[3]));
    auto e = to(f, "float8e5m2_type", 0).to_doubles();
    EXPECT_EQ(e[3], INFINITY);
    // between low-precision types, through float: 448 (e4m3fn) -> e5m2 448 -> int4 wraps 448 -> 0
    EXPECT_EQ(to(y, "float8e5m2_type").to_doubles(), (std::vector<double>{1, -448, 0.3125, 448}));
    EXPECT_EQ(to(to(flit({3}, {-9, 7, 8}), "int4_type"), "int8_type").to_doubles(), (std::vector<double>{7, 7, -8}));
    EXPECT_EQ(to(lowp_literal(dtype::uint2_type, {3}, {0, 3, 2}), "float_type").to_doubles(), (std::vector<double>{0, 3, 2}));
    auto r = run_op("convert", {flit({2}, {1.1f, 3.0f})},
                    attrs({{"target_type", std::string("float8e8m0_type")}, {"round_mode", std::string("down")}}));
    EXPECT_EQ(r.to_doubles(), (std::vector<double>{1, 2}));
    EXPECT_NE(shape_error("convert", {shape(dtype::float_type, {2})},
                          attrs({{"target_type", std::string("float8e8m0_type")}, {"round_mode", std::string("odd")}}))
                  .find("unknown round_mode 'odd'"),
              std::string::npos);
}

TEST(lowprec, bitcast_op) {
    auto bc = [](const literal& x, const char* t) {
        return run_op("bitcast", {x}, attrs({{"target_type", std::string(t)}}));
    };
    auto y = bc(flit({2}, {1.0f, -2.0f}), "int32_type");
    EXPECT_EQ(y.to_ints(), (std::vector<int64_t>{0x3f800000, static_cast<int32_t>(0xc0000000u)}));
    EXPECT_EQ(bc(y, "float_type").to_doubles(), (std::vector<double>{1, -2}));
    auto i4 = lowp_literal(dtype::int4_type, {3}, {0xff, 0x07, 0xf8}); // -1, 7, -8
    EXPECT_EQ(bc(i4, "uint4_type").to_ints(), (std::vector<int64_t>{15, 7, 8}));
    EXPECT_EQ(bc(bc(i4, "uint4_type"), "int4_type").to_ints(), (std::vector<int64_t>{-1, 7, -8}));
    EXPECT_EQ(bc(i4, "float4e2m1_type").to_doubles(), (std::vector<double>{-6, 6, -0.0}));
    auto e = lowp_literal(dtype::float8e5m2_type, {1}, {0x3c});
    EXPECT_EQ(bc(e, "uint8_type").to_ints(), (std::vector<int64_t>{0x3c}));
    EXPECT_NE(shape_error("bitcast", {shape(dtype::float_type, {2})}, attrs({{"target_type", std::string("int64_type")}}))
                  .find("differ in width"),
              std::string::npos);
}

TEST(lowprec, other_ops_reject_low_precision_types) {
    auto x = lowp_literal(dtype::float8e4m3fn_type, {2}, {0x38, 0x40});
    try {
        run_op("add", {x, x});
        FAIL() << "add of float8 evaluated";
    } catch (const error& e) {
        EXPECT_NE(std::string(e.what()).find("float8e4m3fn_type"), std::string::npos) << e.what();
    }
}

} // namespace
} // namespace mxc::test
