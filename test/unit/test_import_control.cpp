// ONNX import of control flow, sequences, model-local functions and inputs bound at build
// time: the control_*.onnx models of test/lit/Inputs (written by make_control_models.py) are
// imported and run with the reference evaluator; the expected values are worked out by hand.
#include "compiler/onnx_import.hpp"
#include "ir/error.hpp"
#include "ir/eval.hpp"
#include "ir/module.hpp"

#include <gtest/gtest.h>

using namespace mxc;

namespace {
const std::string inputs_dir = std::string(MXC_SOURCE_DIR) + "/test/lit/Inputs/";

literal floats(std::vector<int64_t> lens, std::vector<float> v) { return literal::from<float>(dtype::float_type, lens, v); }
literal int64s(std::vector<int64_t> lens, std::vector<int64_t> v) { return literal::from<int64_t>(dtype::int64_type, lens, v); }
literal boolean(bool v) { return literal(shape(dtype::bool_type, {}), std::vector<char>{static_cast<char>(v)}); }

program import(const std::string& name, const import_options& o = {}) {
    auto p = import_onnx(inputs_dir + name + ".onnx", o);
    verify(p.main());
    return p;
}

// The outputs of the model as doubles, with their lens.
std::vector<std::pair<std::vector<int64_t>, std::vector<double>>> run(const program& p,
                                                                      const std::map<std::string, literal>& in) {
    std::vector<std::pair<std::vector<int64_t>, std::vector<double>>> r;
    for (auto& l : evaluate(p.main(), in)) r.push_back({l.s.lens, l.to_doubles()});
    return r;
}

using out = std::pair<std::vector<int64_t>, std::vector<double>>;

// The graph inputs a failed import says must be bound at build time.
std::vector<std::string> needed(const std::string& name, const import_options& o = {}) {
    try {
        import_onnx(inputs_dir + name + ".onnx", o);
    } catch (const needs_constant_inputs& e) {
        return e.inputs;
    }
    return {};
}

std::string import_error(const std::string& name, const import_options& o = {}) {
    try {
        import_onnx(inputs_dir + name + ".onnx", o);
    } catch (const error& e) {
        return e.what();
    }
    return "";
}

int count_op(const program& p, const std::string& op) {
    int n = 0;
    for (auto& i : p.main().instructions) n += i.op == op;
    return n;
}
} // namespace

TEST(ImportControl, IfWithConstantConditionKeepsOneBranch) {
    auto p = import("control_if_const");
    EXPECT_EQ(count_op(p, "add"), 0); // the then branch is gone
    EXPECT_EQ(run(p, {{"x", floats({2}, {1, 2})}})[0], out({1, 2}, {2, 4}));
}

TEST(ImportControl, IfConditionFromAnInputMustBeBound) {
    EXPECT_EQ(needed("control_if_input"), std::vector<std::string>{"c"});
    EXPECT_NE(import_error("control_if_input").find("(If, opset 16): input 0 ('c', the condition: the branches' output 0 "
                                                    "differs in type or shape"),
              std::string::npos)
        << import_error("control_if_input");
    import_options o;
    o.constant_inputs["c"] = boolean(true);
    auto p = import("control_if_input", o);
    EXPECT_TRUE(p.main().params().size() == 1 && p.main().params()[0]->param_name == "x"); // c is no input any more
    EXPECT_EQ(run(p, {{"x", floats({2}, {1, 2})}})[0], out({2}, {2, 3}));
    // An int64 [1] value (as --const-input c:0 gives) is converted to the declared bool scalar.
    o.constant_inputs["c"] = int64s({1}, {0});
    EXPECT_EQ(run(import("control_if_input", o), {{"x", floats({2}, {1, 2})}})[0], out({1, 2}, {2, 4}));
}

TEST(ImportControl, LoopIsUnrolled) {
    EXPECT_EQ(needed("control_loop"), std::vector<std::string>{"M"});
    import_options o;
    o.constant_inputs["M"] = int64s({}, {3});
    auto p = import("control_loop", o);
    auto r = run(p, {{"x", floats({2}, {1, 10})}, {"acc0", floats({2}, {0, 1})}});
    EXPECT_EQ(r[0], out({2}, {3, 31}));
    EXPECT_EQ(r[1], out({3, 2}, {1, 11, 2, 21, 3, 31}));
    EXPECT_EQ(count_op(p, "add"), 3);
    // No iterations: the carried value passes through, the scan output is empty.
    o.constant_inputs["M"] = int64s({}, {0});
    r = run(import("control_loop", o), {{"x", floats({2}, {1, 10})}, {"acc0", floats({2}, {0, 1})}});
    EXPECT_EQ(r[0], out({2}, {0, 1}));
    EXPECT_EQ(r[1].first, (std::vector<int64_t>{0, 2}));
}

TEST(ImportControl, ScanIsUnrolled) {
    auto r = run(import("control_scan"), {{"s0", floats({2}, {0, 0})}, {"x", floats({3, 2}, {1, 2, 3, 4, 5, 6})}});
    EXPECT_EQ(r[0], out({2}, {9, 12}));
    EXPECT_EQ(r[1], out({3, 2}, {9, 12, 4, 6, 1, 2})); // scan_output_directions = [1]: reversed
}

TEST(ImportControl, SequencesAreListsOfValues) {
    auto r = run(import("control_sequence"), {{"x", floats({3, 2}, {1, 2, 3, 4, 5, 6})}});
    EXPECT_EQ(r[0], out({2}, {3, 4}));
    EXPECT_EQ(r[1], out({}, {3}));
    EXPECT_EQ(r[2], out({2, 2}, {3, 5, 4, 6}));
}

TEST(ImportControl, ModelLocalFunctionsAreInlined) {
    auto p = import("control_function");
    // (x + x) * 3, then (t + x) * 0.5, from two nested calls with attribute references.
    EXPECT_EQ(run(p, {{"x", floats({2}, {1, 2})}})[0], out({2}, {3.5, 7}));
    EXPECT_EQ(count_op(p, "mul"), 2);
    EXPECT_EQ(count_op(p, "add"), 2);
}

TEST(ImportControl, ConstantInputs) {
    EXPECT_EQ(needed("control_reshape_input"), std::vector<std::string>{"s"});
    EXPECT_NE(import_error("control_reshape_input")
                  .find("input 1 ('s', the target shape) must be a constant, but it is computed at run time from "
                        "graph input 's' (bind at build time with --const-input NAME:VALUE)"),
              std::string::npos)
        << import_error("control_reshape_input");
    import_options o;
    o.constant_inputs["s"] = int64s({2}, {3, 2});
    auto p = import("control_reshape_input", o);
    EXPECT_EQ(p.main().params().size(), 1u);
    EXPECT_EQ(run(p, {{"x", floats({2, 3}, {1, 2, 3, 4, 5, 6})}})[0], out({3, 2}, {1, 2, 3, 4, 5, 6}));

    o.constant_inputs["s"] = int64s({3}, {3, 2, 1});
    EXPECT_EQ(import_error("control_reshape_input", o),
              "--const-input s: the model declares shape {2}, the value has shape {3}");
    o.constant_inputs.clear();
    o.constant_inputs["nope"] = int64s({1}, {1});
    EXPECT_EQ(import_error("control_reshape_input", o),
              "--const-input nope: the model has no input 'nope' (its inputs: 'x', 's')");
}
