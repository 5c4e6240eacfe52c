// The conformance runner (`mxc conformance`): runs ONNX backend test directories
// (model.onnx + test_data_set_*/input_K.pb, output_K.pb) through the importer, the default
// passes and one target, and compares with the stored outputs.
//   conformance.cpp         finding tests, loading data, comparing, running one test
//   conformance_build.cpp   cached builds of the generated cpu/hip libraries
//   conformance_runner.cpp  each test in a forked child with a time limit, -j at once
//   conformance_report.cpp  the results TSV and docs/conformance.md
//   conformance_compile.cpp --compile-only: one build of one test per op type and dtype
#pragma once
#include "compiler/build_driver.hpp"
#include "ir/literal.hpp"
#include "ir/module.hpp"

#include <functional>
#include <ostream>
#include <map>
#include <string>
#include <vector>

namespace mxc::conformance {

struct test_case {
    std::string name; // "<suite>/<test>": the names of the test's folder and of its parent
    std::string dir;
};

// Every test directory under the roots (a root may also be a test directory itself), sorted
// by name, keeping those whose name matches `filter` (ECMAScript regex, searched; "" = all).
std::vector<test_case> find_tests(const std::vector<std::string>& roots, const std::string& filter);

// The op types of a model's nodes (subgraphs included), distinct and sorted; ops of another
// domain are written "domain::Op". Empty when the model does not parse.
std::vector<std::string> model_op_types(const std::string& model_path);

// Float comparison: |got - expected| <= atol + rtol * |expected|; NaN equals NaN.
struct tolerance {
    double rtol, atol;
};
tolerance tolerance_for(dtype t);

struct comparison {
    bool ok = true;
    double max_error = 0; // the largest |got - expected| over all elements
    std::string detail;   // on failure: where and what (one line)
};
// Compares one output; `what` names it in the detail ("output 0 'y'").
comparison compare(const literal& got, const literal& expected, const std::string& what);

struct result {
    std::string name;
    std::string status; // pass, fail, unsupported, error
    std::string detail; // max error, or the message
};

struct run_options {
    std::string target = "ref"; // ref, cpu or hip
    int jobs = 1;
    int timeout_s = 60;
    std::string cache_dir;       // cpu/hip: built libraries by content hash (created)
    std::string offload_arch;    // hip
    std::string hip_compiler;    // hip: the compiler (empty: clang++-15 / nvcc / the host's for emu)
    bool progress = false;       // a progress line on stderr
};

// Runs one test in this process (the child's work). Never throws: errors become results.
result run_test(const test_case& t, const run_options& o);

// Runs every test, each in a forked child (at most o.jobs at once, o.timeout_s each); a crash
// or a timeout of the child is a failure naming the signal. Results in the order of `tests`.
std::vector<result> run_tests(const std::vector<test_case>& tests, const run_options& o);

// Builds what every cpu/hip build shares (once, before the children start).
void prepare_builds(const run_options& o);

// The cpu/hip library of a lowered, emitted module, built (or found) in the cache; returns
// its path. Throws mxc::error with the compiler's first errors.
std::string build_cached(module& m, const run_options& o);

// A test's model imported as the runner imports it (input shapes from data set 0, inputs the
// importer needs as constants bound to its values), after the default passes. Throws mxc::error.
program import_test(const test_case& t);

// --compile-only (conformance_compile.cpp): one test per (op type, dtype) of `tests`, merged
// into one module and built once for o.build's target (halving on failure to find the failing
// tests). One row per pair: name "OpType:dtype", status pass / fail (the compiler's first
// error in the detail) / error (import or lowering).
struct compile_check_options {
    build_options build;  // target, offload_arch, jobs, cache_dir
    std::string work_dir; // where the library is written (a private directory)
};
std::vector<result> compile_check(const std::vector<test_case>& tests, const compile_check_options& o, std::ostream& log);
// The tests --compile-only picks (one per op type and dtype, the simplest), sorted by name:
// `mxc conformance --one-per-op` runs only these (a quick gate for slow targets: hip emu).
std::vector<test_case> one_per_op_dtype(const std::vector<test_case>& tests);

// The results as TSV rows "name\tstatus\tdetail".
std::string results_tsv(const std::vector<result>& results);
// Reads a results (or expected) TSV: name -> {status, detail}; '#' lines are comments.
std::map<std::string, result> read_results(const std::string& path);
// "N passed, M failed" (unsupported and error count as failed).
std::string summary_line(const std::vector<result>& results);

// docs/conformance.md: per op type, tests passed / total for each target's results.
struct target_results {
    std::string target;                 // ref, cpu, hip
    std::string date;                   // of the run (from the TSV's header comment)
    std::map<std::string, result> rows; // by test name
};
std::string markdown_report(const std::vector<test_case>& tests, const std::vector<target_results>& targets);

} // namespace mxc::conformance
