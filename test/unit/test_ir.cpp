#include "ir/eval.hpp"
#include "ir/error.hpp"
#include "ir/module.hpp"
#include "ir/op.hpp"

#include <gtest/gtest.h>

using namespace mxc;

TEST(shape, standard_strides) {
    shape s(dtype::float_type, {1, 3, 224, 224});
    EXPECT_EQ(s.strides, (std::vector<int64_t>{150528, 50176, 224, 1}));
    EXPECT_TRUE(s.standard());
    EXPECT_EQ(s.bytes(), 150528 * 4);
    EXPECT_EQ(to_string(s), "float_type, {1, 3, 224, 224}, {150528, 50176, 224, 1}");
}

TEST(shape, overflow_is_an_error) {
    shape s(dtype::float_type, {1ll << 40, 1ll << 30}, {1, 1});
    EXPECT_THROW(s.bytes(), error);
}

TEST(attribute, floats_print_as_floats) {
    EXPECT_EQ(to_string(attr_value{1.0}), "1.0");
    EXPECT_EQ(to_string(attr_value{1e-5}), "1e-05");
    EXPECT_EQ(to_string(attr_value{std::vector<int64_t>{1, 2}}), "{1, 2}");
}

TEST(half, round_trips_every_value) {
    for (uint32_t h = 0; h < 65536; ++h) {
        float f = mxc_half::to_float(static_cast<uint16_t>(h));
        if (f != f) continue;
        EXPECT_EQ(mxc_half(f).bits, h);
    }
}

TEST(eval, relu_add) {
    module m;
    auto* x = m.add_param("x", shape(dtype::float_type, {4}));
    auto* c = m.add_literal(literal::from<float>(dtype::float_type, {4}, {1, 1, 1, 1}));
    auto* r = m.add("relu", {x});
    auto* a = m.add("add", {r, c});
    m.add_return({a});
    verify(m);
    auto out = evaluate(m, {{"x", literal::from<float>(dtype::float_type, {4}, {-2, -1, 0, 3})}});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].to_doubles(), (std::vector<double>{1, 1, 1, 4}));
}
