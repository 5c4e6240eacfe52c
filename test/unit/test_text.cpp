// The text form: exact round trips, and one-line "line N: ..." errors on bad input.
#include "ir/error.hpp"
#include "ir/module.hpp"
#include "templates/common/types.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

using namespace mxc;

namespace {

std::string round_trip(const std::string& text) { return print(parse_program(text)); }

std::string parse_error(const std::string& text) {
    try {
        parse_program(text);
    } catch (const error& e) {
        return e.what();
    }
    return "(no error)";
}

program sample() {
    program p;
    auto& m = p.main();
    auto* x = m.add_param("x", shape(dtype::float_type, {1, 3, 8, 8}));
    auto* w = m.add_literal(literal(shape(dtype::float_type, {4, 3, 3, 3}), std::vector<char>(4 * 27 * 4)));
    attributes conv;
    conv.set("padding", std::vector<int64_t>{1, 1, 1, 1});
    conv.set("stride", std::vector<int64_t>{1, 1});
    conv.set("dilation", std::vector<int64_t>{1, 1});
    auto* c = m.add("convolution", {x, w}, conv);
    auto* r = m.add("relu", {c});
    auto* t = m.add("transpose", {r}, {{{"permutation", std::vector<int64_t>{0, 2, 3, 1}}}});
    auto* k = m.add_literal(literal::from<int32_t>(dtype::int32_type, {2}, {-5, 7}));
    m.add_return({t, k});
    return p;
}

} // namespace

TEST(text, prints_the_design_form) {
    auto text = print(sample());
    EXPECT_NE(text.find("module: \"main\"\nx = @param:x -> float_type, {1, 3, 8, 8}, {192, 64, 8, 1}\n"), std::string::npos);
    EXPECT_NE(text.find("main:@0 = @literal[digest="), std::string::npos);
    EXPECT_NE(text.find("main:@1 = convolution[padding={1, 1, 1, 1},stride={1, 1},dilation={1, 1},group=1](x,main:@0) "
                        "-> float_type, {1, 4, 8, 8}, {256, 64, 8, 1}\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("main:@4 = @literal{-5, 7} -> int32_type, {2}, {1}\n"), std::string::npos);
    EXPECT_NE(text.find("main:@5 = @return(main:@3,main:@4)\n"), std::string::npos);
}

TEST(text, round_trip_is_exact) {
    auto text = print(sample());
    EXPECT_EQ(round_trip(text), text);
    // A digest literal keeps its digest with unknown data.
    auto p = parse_program(text);
    auto& lit = *std::next(p.main().instructions.begin());
    EXPECT_FALSE(lit.lit.known());
    EXPECT_EQ(lit.lit.digest(), std::next(sample().main().instructions.begin())->lit.digest());
}

TEST(text, several_modules) {
    program p;
    p.main().add_return({p.main().add("relu", {p.main().add_param("a", shape(dtype::half_type, {2}))})});
    p.modules.push_back(std::make_unique<module>());
    auto& sub = *p.modules.back();
    sub.name = "sub \"2\"";
    sub.add_return({sub.add_param("weird name, with (punctuation)", shape(dtype::bool_type, {}))});
    auto text = print(p);
    EXPECT_NE(text.find("\n\nmodule: \"sub \\\"2\\\"\"\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\"weird name, with (punctuation)\" = @param:\"weird name, with (punctuation)\""), std::string::npos);
    EXPECT_EQ(round_trip(text), text);
    EXPECT_EQ(parse_program(text).modules.size(), 2u);
}

TEST(text, float_literals_round_trip_bit_exactly) {
    std::mt19937 rng(42);
    for (int round = 0; round < 200; ++round) {
        std::vector<uint32_t> fbits(8);
        std::vector<uint16_t> hbits(8), bbits(8);
        std::vector<double> dvals(8);
        for (auto& b : fbits) b = rng();
        for (auto& b : hbits) b = static_cast<uint16_t>(rng());
        for (auto& b : bbits) b = static_cast<uint16_t>(rng());
        for (auto& d : dvals) {
            uint64_t bits = (static_cast<uint64_t>(rng()) << 32) | rng();
            std::memcpy(&d, &bits, 8);
        }
        module m;
        auto add = [&](dtype t, const void* data, std::size_t bytes) {
            std::vector<char> v(bytes);
            std::memcpy(v.data(), data, bytes);
            return m.add_literal(literal(shape(t, {8}), std::move(v)));
        };
        auto* a = add(dtype::float_type, fbits.data(), 32);
        auto* b = add(dtype::half_type, hbits.data(), 16);
        auto* c = add(dtype::bf16_type, bbits.data(), 16);
        auto* d = add(dtype::double_type, dvals.data(), 64);
        m.add_return({a, b, c, d});
        auto text = print(m);
        auto back = parse_program(text);
        ASSERT_EQ(print(back), text);
        // NaN payloads are not kept; every other value is bit-exact.
        auto it = back.main().instructions.begin();
        auto orig = m.instructions.begin();
        for (int i = 0; i < 4; ++i, ++it, ++orig) {
            auto x = orig->lit.to_doubles(), y = it->lit.to_doubles();
            for (std::size_t e = 0; e < x.size(); ++e) {
                if (std::isnan(x[e])) EXPECT_TRUE(std::isnan(y[e]));
                else EXPECT_EQ(std::signbit(x[e]), std::signbit(y[e]));
                if (!std::isnan(x[e])) EXPECT_EQ(x[e], y[e]) << text;
            }
        }
    }
}

TEST(text, errors_name_the_line) {
    const std::string head = "module: \"main\"\nx = @param:x -> float_type, {4}, {1}\n";
    struct bad {
        std::string text, message;
    };
    std::vector<bad> cases = {
        {head + "y = relux(x) -> float_type, {4}, {1}\n", "line 3: unknown op 'relux'"},
        {head + "y = relu(z) -> float_type, {4}, {1}\n", "line 3: undefined name 'z'"},
        {head + "x = relu(x) -> float_type, {4}, {1}\n", "line 3: duplicate name 'x'"},
        {head + "y = relu(x) -> float_type, {4}, {1} junk\n", "line 3: unexpected 'junk' at the end of the line"},
        {head + "y = relu(x) -> float_type, {4}, {2}\n", "line 3: relu: result shape is written as"},
        {head + "y = relu(x) -> float_type, {4}\n", "line 3: expected ','"},
        {head + "y = relu(x -> float_type, {4}, {1}\n", "line 3: expected ')'"},
        {head + "y = relu[a=1](x) -> float_type, {4}, {1}\n", "line 3: relu has no attribute 'a' (it has: none)"},
        {head + "y = @literal{1, 2} -> int8_type, {3}, {1}\n", "line 3: literal has 2 values"},
        {head + "y = @literal{1.5} -> int8_type, {1}, {1}\n", "line 3: expected an integer, found '1.5'"},
        {head + "y = @literal{1, 2} -> int8_type, {2}, {2}\n", "line 3: a literal must have a standard shape"},
        {head + "y = @literal{99999999999999999999} -> int64_type, {1}, {1}\n", "line 3: integer '99999999999999999999' is out of range"},
        {head + "y = @literal[digest=] -> int8_type, {1}, {1}\n", "line 3: expected a hexadecimal digest"},
        {head + "r = @return(x)\ny = relu(x) -> float_type, {4}, {1}\n", "line 4: instruction after @return"},
        {head + "y = @param:x -> float_type, {4}, {1}\n", "line 3: duplicate parameter 'x'"},
        {head + "module: \"main\"\n", "line 3: duplicate module 'main'"},
        {"module: main\n", "line 1: expected a quoted string"},
        {"module: \"a\\q\"\n", "line 1: unknown escape"},
        {"\n# only a comment\n", "line 3: no module found"},
        {head + "y = transpose[permutation={1}](x) -> float_type, {4}, {1}\n", "line 3: "},
        {head + "y = transpose[permutation=1](x) -> float_type, {4}, {1}\n", "line 3: expected '{'"},
        {head + "y = transpose[permutation={0},permutation={0}](x) -> float_type, {4}, {1}\n", "line 3: attribute 'permutation' given twice"},
    };
    for (auto& c : cases) {
        auto msg = parse_error(c.text);
        EXPECT_EQ(msg.rfind(c.message, 0), 0u) << "got: " << msg << "\nwanted: " << c.message;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
}

TEST(text, mangled_text_never_crashes) {
    auto text = print(sample());
    std::mt19937 rng(7);
    const std::string junk = "{}[](),=@:\"\\-> 0123456789.eaxn#\n";
    for (int i = 0; i < 3000; ++i) {
        std::string t = text;
        int edits = 1 + static_cast<int>(rng() % 4);
        for (int e = 0; e < edits && !t.empty(); ++e) {
            std::size_t pos = rng() % t.size();
            switch (rng() % 3) {
            case 0: t.erase(pos, 1 + rng() % 5); break;
            case 1: t.insert(pos, 1, junk[rng() % junk.size()]); break;
            default: t[pos] = junk[rng() % junk.size()]; break;
            }
        }
        try {
            auto p = parse_program(t);
            for (auto& m : p.modules) verify(*m);
            print(p);
        } catch (const error& e) {
            std::string msg = e.what();
            EXPECT_EQ(msg.rfind("line ", 0), 0u) << msg;
        }
    }
}
