// The tools' tensor readers and writers: .npy round trip, JSON and inline arrays, and their
// one-line errors on size mismatches.
#include "compiler/json.hpp"
#include "compiler/tensor_io.hpp"
#include "ir/error.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>

#include <unistd.h>

using namespace mxc;

namespace {
// Unique per process: test shards and other test runs may run at the same time.
std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() / (std::to_string(::getpid()) + "-" + name)).string();
}

void expect_error(const std::function<void()>& f, const std::string& part) {
    try {
        f();
        FAIL() << "no error, expected one containing: " << part;
    } catch (const error& e) {
        EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
}
} // namespace

TEST(TensorIo, NpyRoundTripEveryType) {
    for (dtype t : {dtype::float_type, dtype::double_type, dtype::int64_type, dtype::uint8_type, dtype::half_type,
                    dtype::bool_type}) {
        literal l = literal_from_doubles(t, {2, 3}, {1, 0, 3, 1, 5, 1});
        std::string p = temp_path("mxc-unit-" + std::string(dtype_name(t)) + ".npy");
        write_npy(p, l);
        EXPECT_EQ(read_npy(p), l) << dtype_name(t);
        std::filesystem::remove(p);
    }
    literal scalar = literal_from_doubles(dtype::float_type, {}, {2.5});
    std::string p = temp_path("mxc-unit-scalar.npy");
    write_npy(p, scalar);
    EXPECT_EQ(read_npy(p), scalar);
    // A truncated file: the data is shorter than the shape says.
    std::string bytes;
    {
        std::ifstream f(p, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(f), {});
    }
    {
        std::ofstream f(p, std::ios::binary | std::ios::trunc);
        f << bytes.substr(0, bytes.size() - 1);
    }
    expect_error([&] { read_npy(p); }, "holds 3 data bytes, but shape {} of '<f4' needs 4");
    std::filesystem::remove(p);
}

TEST(TensorIo, InlineArrays) {
    literal l = parse_inline_array("[[1, 2], [3, 4.5]]", dtype::float_type);
    EXPECT_EQ(l.s.lens, (std::vector<int64_t>{2, 2}));
    EXPECT_EQ(l.to_doubles(), (std::vector<double>{1, 2, 3, 4.5}));
    EXPECT_EQ(parse_inline_array("[7, 8, 9]", dtype::int64_type).to_ints(), (std::vector<int64_t>{7, 8, 9}));
    expect_error([] { parse_inline_array("[[1], 2]", dtype::float_type); }, "ragged");
    expect_error([] { parse_inline_array("[1, 2", dtype::float_type); }, "JSON error at line 1 column 6");
}

TEST(TensorIo, InputValueChecksShapeAndType) {
    shape want(dtype::float_type, {2, 2});
    EXPECT_EQ(read_input_value("[[1,2],[3,4]]", "x", want).s, want);
    expect_error([&] { read_input_value("[1,2,3,4]", "x", want); }, "has shape {4}, but the model expects {2, 2}");
    expect_error([&] { read_input_value("x.bin", "x", want); }, "expected a .npy, .pb or .json file");
    std::string p = temp_path("mxc-unit-input.json");
    {
        std::ofstream f(p);
        f << R"({"x": {"shape": [2, 2], "type": "int32", "raw": [1, 2, 3, 4]}})";
    }
    expect_error([&] { read_input_value(p, "x", want); }, "holds int32_type, but the model expects float_type");
    std::filesystem::remove(p);
}

TEST(TensorIo, RandomIsSeeded) {
    shape s(dtype::float_type, {16});
    EXPECT_EQ(random_tensor(s, 42), random_tensor(s, 42));
    EXPECT_FALSE(random_tensor(s, 42) == random_tensor(s, 43));
    for (double v : random_tensor(s, 1).to_doubles()) EXPECT_TRUE(v >= -1 && v < 1);
}

TEST(Json, ParsesAndQuotes) {
    json v = parse_json(R"({"a": [1, -2.5e1, true, null], "b": "x\"y\u00e9"})", "test");
    ASSERT_EQ(v.kind, json::object);
    EXPECT_EQ(v.find("a")->arr[1].num, -25);
    EXPECT_EQ(v.find("b")->str, "x\"y\xc3\xa9");
    EXPECT_EQ(json_quote("a\"\n"), "\"a\\\"\\u000a\"");
    expect_error([] { parse_json("{\"a\": 1} x", "f.json"); }, "f.json: JSON error at line 1 column 10: unexpected text");
}

// Hostile inputs to the readers (what fuzz_tensor_io looks for): every one is an mxc::error,
// never another exception, an out-of-range cast or a huge allocation.
TEST(TensorIo, HostileFilesAreErrors) {
    auto write = [](const std::string& name, const std::string& bytes) {
        std::string p = temp_path(name);
        std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
        return p;
    };
    auto npy = [&](const std::string& header) {
        std::string h = header + "\n";
        std::string b = std::string("\x93NUMPY\x01", 7) + '\0' + static_cast<char>(h.size() & 0xff) +
                        static_cast<char>(h.size() >> 8) + h;
        return write("mxc-unit-hostile.npy", b);
    };
    // A dimension past INT64_MAX (std::stoll would throw std::out_of_range).
    std::string p = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }");
    expect_error([&] { read_npy(p); }, "a dimension of its shape does not fit in 64 bits");
    // Dimensions whose byte size overflows: an error before anything is allocated.
    p = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }");
    expect_error([&] { read_npy(p); }, "overflow");
    std::filesystem::remove(p);
    p = write("mxc-unit-hostile.txt", "float_type {99999999999999999999}\n1\n");
    expect_error([&] { read_tensor_text(p); }, "does not fit in 64 bits");
    std::filesystem::remove(p);

    // JSON shapes that are not int64 values (casting 1e300 or NaN to int64 is undefined).
    for (const char* dim : {"1e300", "-1", "2.5", "nan", "-nan", "inf"}) {
        p = write("mxc-unit-hostile.json",
                  std::string("{\"x\": {\"shape\": [") + dim + "], \"type\": \"float32\", \"raw\": [1]}}");
        expect_error([&] { read_json_tensor(p, "x"); }, "shape must hold non-negative integers");
    }
    p = write("mxc-unit-hostile.json", "{\"x\": {\"shape\": [4294967296, 4294967296], \"type\": \"float32\", \"raw\": []}}");
    expect_error([&] { read_json_tensor(p, "x"); }, "overflow");
    std::filesystem::remove(p);
}

// Values out of an integer type's range saturate (NaN -> 0) instead of an undefined cast.
TEST(TensorIo, IntegerValuesSaturate) {
    literal l = literal_from_doubles(dtype::int8_type, {5}, {1e300, -1e300, 200, -3.7, std::nan("")});
    EXPECT_EQ(l.to_ints(), (std::vector<int64_t>{127, -128, 127, -3, 0}));
    literal u = literal_from_doubles(dtype::uint64_type, {3}, {-5, 1e30, 7});
    EXPECT_EQ(u.to_ints()[0], 0);
    EXPECT_EQ(static_cast<uint64_t>(u.to_ints()[1]), UINT64_MAX);
    EXPECT_EQ(parse_inline_array("[1e40, -1e40]", dtype::int32_type).to_ints(), (std::vector<int64_t>{INT32_MAX, INT32_MIN}));
}
