// End to end from ONNX: import, the default passes, compile for cpu, run the library and
// compare with the reference evaluator on the imported (unoptimized) module.
#include "compiler/build_driver.hpp"
#include "compiler/library_api.hpp"
#include "compiler/onnx_import.hpp"
#include "ir/error.hpp"
#include "ir/eval.hpp"
#include "passes/pass_manager.hpp"
#include "test/e2e/e2e_util.hpp"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

using namespace mxc;
namespace fs = std::filesystem;

namespace {
using mxc_test::tmp_dir;

onnx::TensorProto tensor(const std::string& name, std::vector<int64_t> dims, unsigned seed) {
    onnx::TensorProto t;
    t.set_name(name);
    t.set_data_type(onnx::TensorProto::FLOAT);
    int64_t n = 1;
    for (auto d : dims) {
        t.add_dims(d);
        n *= d;
    }
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-1, 1);
    for (int64_t i = 0; i < n; ++i) t.add_float_data(dist(gen));
    return t;
}

void value_info(onnx::ValueInfoProto* v, const std::string& name, std::vector<int64_t> dims) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    for (auto d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

void node(onnx::GraphProto* g, const std::string& op, std::vector<std::string> in, std::string out) {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(op + "_" + out);
    for (auto& i : in) n->add_input(i);
    n->add_output(out);
}

// y = sigmoid(relu(x @ W + b) * 2), z = x + x: MatMul, broadcast Add, Relu, Mul by a constant.
std::string mlp_bytes() {
    onnx::ModelProto m;
    m.set_ir_version(8);
    m.add_opset_import()->set_version(13);
    auto* g = m.mutable_graph();
    g->set_name("mlp");
    value_info(g->add_input(), "x", {2, 4});
    *g->add_initializer() = tensor("W", {4, 3}, 1);
    *g->add_initializer() = tensor("b", {3}, 2);
    auto two = tensor("two", {}, 3);
    two.set_float_data(0, 2.0f);
    *g->add_initializer() = two;
    node(g, "MatMul", {"x", "W"}, "xw");
    node(g, "Add", {"xw", "b"}, "h");
    node(g, "Relu", {"h"}, "r");
    node(g, "Mul", {"r", "two"}, "r2");
    node(g, "Sigmoid", {"r2"}, "y");
    node(g, "Add", {"x", "x"}, "z");
    value_info(g->add_output(), "y", {2, 3});
    value_info(g->add_output(), "z", {2, 4});
    std::string bytes;
    m.SerializeToString(&bytes);
    return bytes;
}

// Compiles `p` like the CLI, runs the library on random inputs and compares with `ref`.
void compile_run_compare(program p, const program& ref, const std::string& name) {
    tmp_dir d;
    run_passes(p, default_pipeline());
    std::string lib_path = d.path + "/lib" + name + ".so";
    compile_module(p.main(), lib_path, {});
    library_api lib(lib_path, name);

    std::map<std::string, literal> inputs;
    std::vector<const void*> in;
    std::mt19937 gen(42);
    std::uniform_real_distribution<float> dist(-1, 1);
    for (auto* prm : ref.main().params()) { // the library's inputs are the params in module order
        std::vector<float> v(static_cast<std::size_t>(prm->result.elements()));
        for (auto& x : v) x = dist(gen);
        inputs[prm->param_name] = literal::from<float>(dtype::float_type, prm->result.lens, v);
    }
    for (auto* prm : p.main().params()) in.push_back(inputs.at(prm->param_name).data());
    auto want = evaluate(ref.main(), inputs);
    std::vector<std::vector<float>> bufs;
    std::vector<void*> out;
    for (auto& w : want) bufs.emplace_back(static_cast<std::size_t>(w.s.elements()), NAN);
    for (auto& b : bufs) out.push_back(b.data());
    void* m = nullptr;
    ASSERT_EQ(lib.create(&m, nullptr), 0) << lib.last_error(m);
    ASSERT_EQ(lib.run(m, in.data(), out.data()), 0) << lib.last_error(m);
    for (std::size_t j = 0; j < want.size(); ++j) {
        double worst = 0;
        for (std::size_t i = 0; i < bufs[j].size(); ++i) {
            double w = want[j].as<float>()[i];
            worst = std::max(worst, std::fabs(bufs[j][i] - w) / std::max(1.0, std::fabs(w)));
        }
        EXPECT_LE(worst, 1e-5) << "output " << j;
    }
    lib.destroy(m);
}
} // namespace

TEST(e2e_onnx, small_mlp_matches_the_reference) {
    auto bytes = mlp_bytes();
    compile_run_compare(import_onnx_bytes(bytes, "mlp"), import_onnx_bytes(bytes, "mlp"), "mlp");
}

TEST(e2e_onnx, example_cnn_matches_the_reference) {
    std::string path = std::string(MXC_SOURCE_DIR) + "/examples/cnn.onnx";
    if (!fs::exists(path)) GTEST_SKIP() << path << " does not exist";
    program p, ref;
    try {
        p = import_onnx(path);
        ref = import_onnx(path);
    } catch (const error& e) {
        // Ops still being written: say which, rather than fail the codegen tests for it.
        if (std::string(e.what()).find("unknown op") != std::string::npos) GTEST_SKIP() << e.what();
        throw;
    }
    compile_run_compare(std::move(p), ref, "cnn");
}
