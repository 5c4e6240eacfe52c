// ONNX import: the small models of test/lit/Inputs (written by make_models.py) are imported,
// verified and run with the reference evaluator; results are compared with the outputs numpy
// computed when the models were made.
#include "compiler/onnx_import.hpp"
#include "compiler/onnx_node.hpp"
#include "ir/error.hpp"
#include "ir/eval.hpp"
#include "ir/module.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <regex>

using namespace mxc;

namespace {
const std::string inputs_dir = std::string(MXC_SOURCE_DIR) + "/test/lit/Inputs/";

// A .npy file (format 1.0/2.0, little-endian float32/float64/int64, C order) as a literal.
literal read_npy(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error("cannot open " + path);
    std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (s.size() < 10 || s.compare(0, 6, "\x93NUMPY") != 0) throw std::runtime_error(path + ": not .npy");
    std::size_t hlen = 0, start = 0;
    if (s[6] == 1) {
        hlen = static_cast<unsigned char>(s[8]) | static_cast<unsigned char>(s[9]) << 8;
        start = 10;
    } else {
        for (int i = 0; i < 4; ++i) hlen |= static_cast<std::size_t>(static_cast<unsigned char>(s[8 + i])) << (8 * i);
        start = 12;
    }
    std::string header = s.substr(start, hlen);
    std::smatch m;
    if (!std::regex_search(header, m, std::regex("'descr': '([^']+)'"))) throw std::runtime_error(path + ": no descr");
    std::string descr = m[1];
    if (header.find("'fortran_order': False") == std::string::npos) throw std::runtime_error(path + ": fortran order");
    if (!std::regex_search(header, m, std::regex("'shape': \\(([^)]*)\\)"))) throw std::runtime_error(path + ": no shape");
    std::vector<int64_t> lens;
    std::string dims = m[1];
    static const std::regex number("\\d+");
    for (std::sregex_iterator it(dims.begin(), dims.end(), number), end; it != end; ++it)
        lens.push_back(std::stoll(it->str()));
    dtype t = descr == "<f4" ? dtype::float_type : descr == "<f8" ? dtype::double_type
            : descr == "<i8" ? dtype::int64_type : throw std::runtime_error(path + ": dtype " + descr);
    const char* data = s.data() + start + hlen;
    return literal(shape(t, lens), std::vector<char>(data, static_cast<const char*>(s.data()) + s.size()));
}

// Imports NAME.onnx, runs it on NAME.in*.npy and compares with NAME.out*.npy.
void check_model(const std::string& name, const import_options& opts = {}, double tol = 1e-5) {
    SCOPED_TRACE(name);
    auto p = import_onnx(inputs_dir + name + ".onnx", opts);
    auto& m = p.main();
    ASSERT_NO_THROW(verify(m));
    std::map<std::string, literal> ins;
    auto params = m.params();
    for (std::size_t i = 0; i < params.size(); ++i)
        ins[params[i]->param_name] = read_npy(inputs_dir + name + ".in" + std::to_string(i) + ".npy");
    auto outs = evaluate(m, ins);
    for (std::size_t i = 0; i < outs.size(); ++i) {
        SCOPED_TRACE("output " + std::to_string(i));
        auto want = read_npy(inputs_dir + name + ".out" + std::to_string(i) + ".npy");
        ASSERT_EQ(outs[i].s.lens, want.s.lens);
        auto got = outs[i].to_doubles(), exp = want.to_doubles();
        for (std::size_t k = 0; k < got.size(); ++k)
            ASSERT_NEAR(got[k], exp[k], tol * (1 + std::abs(exp[k]))) << "element " << k;
    }
    // Every instruction says which ONNX node it came from.
    for (auto& ins : m.instructions)
        if (!ins.is_param() && !ins.is_return()) EXPECT_FALSE(ins.origin.empty()) << ins.op;
}

std::string import_error(const std::string& name, const import_options& opts = {}) {
    try {
        import_onnx(inputs_dir + name, opts);
    } catch (const error& e) {
        std::string msg = e.what();
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
        return msg;
    }
    ADD_FAILURE() << name << " imported without an error";
    return "";
}

int count_ops(const module& m, const std::string& op) {
    int n = 0;
    for (auto& i : m.instructions) n += i.op == op;
    return n;
}
} // namespace

// Each ONNX op has one converter: a second registration (two files converting the same op)
// is kept out by the registry and listed here.
TEST(import, one_converter_per_op) {
    auto d = onnx_detail::duplicate_converters();
    std::string names;
    for (auto& n : d) names += " " + n;
    EXPECT_TRUE(d.empty()) << "registered more than once:" << names;
    EXPECT_NE(onnx_detail::find_converter("Conv"), nullptr);
}

TEST(import, conv_relu) { check_model("conv_relu"); }
TEST(import, conv_same_upper_strided) { check_model("conv_strided_same"); }
TEST(import, gemm) { check_model("gemm"); }
TEST(import, gemm_trans_a) { check_model("gemm_trans_a"); }
TEST(import, matmul_batch_and_vector) { check_model("matmul"); }
TEST(import, reshape_flatten) { check_model("reshape_flatten"); }
TEST(import, concat) { check_model("concat"); }
TEST(import, softmax_opset11_coerces_to_2d) { check_model("softmax_v11"); }
TEST(import, softmax_opset13) { check_model("softmax_v13", {}, 1e-5); }
TEST(import, batchnorm) { check_model("batchnorm", {}, 1e-4); }
TEST(import, pooling) { check_model("pool"); }
TEST(import, elementwise) { check_model("elementwise"); }
TEST(import, squeeze_clip_opset11) { check_model("squeeze_clip_v11"); }
TEST(import, squeeze_clip_opset13) { check_model("squeeze_clip_v13"); }
TEST(import, clip_opset6) { check_model("clip_v6"); }
TEST(import, reduce) { check_model("reduce"); }
TEST(import, typed_field_initializers) { check_model("typed_fields"); }
TEST(import, unsorted_nodes) { check_model("unsorted"); }

TEST(import, shape_chain_folds_to_literal) {
    import_options o;
    o.batch = 2;
    check_model("shape_chain", o);
    auto p = import_onnx(inputs_dir + "shape_chain.onnx", o);
    EXPECT_EQ(count_ops(p.main(), "gather"), 0);
    EXPECT_EQ(count_ops(p.main(), "concat"), 0);
    EXPECT_EQ(count_ops(p.main(), "reshape"), 1);
}

TEST(import, input_dim_option) {
    import_options o;
    o.input_dims["x"] = {2, 3, 4};
    check_model("shape_chain", o);
    o.input_dims["x"] = {2, 5, 4};
    EXPECT_NE(import_error("shape_chain.onnx", o).find("axis 1 is 5, but the model fixes it to 3"), std::string::npos);
    o.input_dims.clear();
    o.input_dims["nope"] = {1};
    EXPECT_NE(import_error("shape_chain.onnx", o).find("the model has no input 'nope'"), std::string::npos);
}

TEST(import, unresolved_dims_are_listed) {
    auto msg = import_error("symbolic_dims.onnx");
    EXPECT_NE(msg.find("input 'x' axis 0 ('batch')"), std::string::npos) << msg;
    EXPECT_NE(msg.find("input 'x' axis 1 ('seq')"), std::string::npos) << msg;
    EXPECT_NE(msg.find("--input-dim @NAME"), std::string::npos) << msg;
    import_options o;
    o.batch = 3;
    msg = import_error("symbolic_dims.onnx", o);
    EXPECT_EQ(msg.find("axis 0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("axis 1 ('seq')"), std::string::npos) << msg;
}

TEST(import, errors) {
    EXPECT_NE(import_error("no_such_file.onnx").find("cannot open"), std::string::npos);
    EXPECT_NE(import_error("bad_random.onnx").find("not a valid ONNX model"), std::string::npos);
    EXPECT_NE(import_error("bad_truncated.onnx").find("not a valid ONNX model"), std::string::npos);
    auto msg = import_error("bad_unsupported.onnx");
    EXPECT_NE(msg.find("node 'foo1' (Foo, opset 13)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("node 'nms' (NonMaxSuppression, opset 13)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("node 'bar' (Bar in unknown domain 'com.example')"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("'ok'"), std::string::npos) << msg;
    EXPECT_NE(import_error("bad_dangling.onnx").find("input 'nowhere' is not a graph input"), std::string::npos);
    EXPECT_NE(import_error("bad_cycle.onnx").find("cycle"), std::string::npos);
    EXPECT_NE(import_error("bad_duplicate.onnx").find("duplicate output name"), std::string::npos);
    EXPECT_NE(import_error("bad_data_length.onnx").find("20 bytes of raw data, but FLOAT {2, 3} needs 24"), std::string::npos);
    EXPECT_NE(import_error("bad_float_data.onnx").find("4 values in float_data"), std::string::npos);
    EXPECT_NE(import_error("bad_external.onnx").find("initializer 'w': cannot open its external data file"), std::string::npos);
    EXPECT_NE(import_error("bad_negative_dim.onnx").find("negative dimension"), std::string::npos);
    EXPECT_NE(import_error("bad_overflow.onnx").find("overflows 64 bits"), std::string::npos);
    EXPECT_NE(import_error("bad_broadcast.onnx").find("node 'add1' (Add, opset 13): shapes {2, 3} and {4} do not broadcast"), std::string::npos);
    EXPECT_NE(import_error("bad_dynamic_reshape.onnx").find("node 'rs_dynamic' (Reshape, opset 13): input 1 ('s', the target shape) must be a constant"), std::string::npos);
}

TEST(import, random_bytes_never_crash) {
    // Mutations of a valid model: every one imports or fails with one mxc::error.
    std::ifstream f(inputs_dir + "conv_relu.onnx", std::ios::binary);
    std::string good((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    uint64_t state = 12345;
    auto next = [&] { state = state * 6364136223846793005ull + 1442695040888963407ull; return state >> 33; };
    for (int round = 0; round < 300; ++round) {
        std::string bytes = good;
        for (int k = 0; k < 4; ++k) bytes[next() % bytes.size()] = static_cast<char>(next());
        try {
            auto p = import_onnx_bytes(bytes, "mutated");
            verify(p.main());
        } catch (const error&) {
        }
    }
}

// An initializer's raw data becomes its literal's bytes without a copy (take_tensor_literal:
// the parser's copy is the only one); what cannot be taken (sub-byte elements arrive packed, a
// wrong size) goes the way tensor_to_literal goes, and the tensor keeps its data.
TEST(import, initializer_raw_data_is_taken_not_copied) {
    onnx::TensorProto t;
    t.set_data_type(onnx::TensorProto::FLOAT);
    t.add_dims(2);
    t.add_dims(3);
    const std::vector<float> v{1, 2, 3, 4, 5, 6};
    t.set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)));
    const char* parsed = t.raw_data().data();
    literal l = onnx_detail::take_tensor_literal(t, "initializer 'w'");
    EXPECT_EQ(l.data(), parsed); // the same buffer
    EXPECT_TRUE(t.raw_data().empty());
    EXPECT_EQ(l.to_doubles(), std::vector<double>({1, 2, 3, 4, 5, 6}));

    onnx::TensorProto q; // int4 {3}: two bytes, unpacked to three
    q.set_data_type(22); // INT4 (newer than this onnx.proto)
    q.add_dims(3);
    q.set_raw_data(std::string("\x21\x0f", 2)); // 1, 2 | -1 (low nibble first)
    l = onnx_detail::take_tensor_literal(q, "initializer 'q'");
    EXPECT_EQ(q.raw_data().size(), 2u);
    EXPECT_EQ(l.to_ints(), std::vector<int64_t>({1, 2, -1}));

    t.set_raw_data(std::string(20, '\0'));
    try {
        onnx_detail::take_tensor_literal(t, "initializer 'w'");
        ADD_FAILURE() << "a wrong size was taken";
    } catch (const error& e) {
        EXPECT_NE(std::string(e.what()).find("20 bytes of raw data, but FLOAT {2, 3} needs 24"), std::string::npos) << e.what();
    }
    EXPECT_EQ(t.raw_data().size(), 20u);
}

// scalar_literal saturates a double outside an integer type's range (NaN: 0): converting it
// would be undefined (the fuzzer's Attention on int8 inputs padded its mask with -inf).
TEST(import, scalar_literal_saturates_integers) {
    auto value = [](mxc::dtype t, double v) {
        mxc::literal l = mxc::onnx_detail::scalar_literal(t, v);
        int64_t x = 0;
        if (t == mxc::dtype::int8_type) x = l.as<int8_t>()[0];
        else if (t == mxc::dtype::uint8_type) x = l.as<uint8_t>()[0];
        else x = l.as<int64_t>()[0];
        return x;
    };
    EXPECT_EQ(value(mxc::dtype::int8_type, -INFINITY), -128);
    EXPECT_EQ(value(mxc::dtype::int8_type, 1e10), 127);
    EXPECT_EQ(value(mxc::dtype::int8_type, NAN), 0);
    EXPECT_EQ(value(mxc::dtype::int8_type, -3.0), -3);
    EXPECT_EQ(value(mxc::dtype::uint8_type, -1.0), 0);
    EXPECT_EQ(value(mxc::dtype::int64_type, INFINITY), INT64_MAX);
    EXPECT_EQ(value(mxc::dtype::int64_type, -0x1p63), INT64_MIN);
    EXPECT_EQ(value(mxc::dtype::int64_type, 12345.0), 12345);
}
