// mxc conformance --compile-only: do the kernels of every op type compile for a target?
// Among the tests (those a results file records as passing, e.g. on cpu), one test per
// (op type, dtype) is picked; they are merged into ONE module (each test's parameters and
// outputs renamed "t<N>_..."), which is built once with the normal build (compile_module:
// parallel units, object cache). If that build fails, the tests are halved and rebuilt until
// the failing ones are found. One row per op type and dtype.
#include "compiler/build_driver.hpp"
#include "compiler/conformance.hpp"
#include "ir/error.hpp"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace mxc::conformance {

namespace {
struct candidate {
    const test_case* test;
    std::vector<std::string> ops;    // op types
    std::vector<std::string> dtypes; // of the graph inputs and outputs
    std::uintmax_t bytes = 0;
};

std::string onnx_dtype(int t) {
    std::string n = onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(t));
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return n.empty() ? "type" + std::to_string(t) : n;
}

candidate describe(const test_case& t) {
    candidate c{&t, {}, {}, 0};
    fs::path model = fs::path(t.dir) / "model.onnx";
    std::error_code ec;
    c.bytes = fs::file_size(model, ec);
    c.ops = model_op_types(model.string());
    std::ifstream f(model, std::ios::binary);
    std::stringstream text;
    text << f.rdbuf();
    std::string bytes = text.str();
    onnx::ModelProto m;
    if (bytes.size() > static_cast<std::size_t>(INT_MAX) || !m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
        return c;
    std::set<std::string> inits, types;
    for (auto& i : m.graph().initializer()) inits.insert(i.name());
    auto add = [&](const onnx::ValueInfoProto& v) {
        if (v.type().has_tensor_type()) types.insert(onnx_dtype(v.type().tensor_type().elem_type()));
    };
    for (auto& v : m.graph().input())
        if (!inits.count(v.name())) add(v);
    for (auto& v : m.graph().output()) add(v);
    c.dtypes = {types.begin(), types.end()};
    return c;
}

using key = std::pair<std::string, std::string>; // op type, dtype

// The tests' module merged into one: parameters and outputs prefixed "t<index>_".
module merge(const std::vector<const test_case*>& tests, const std::vector<std::size_t>& picked) {
    module merged;
    std::vector<instruction*> outputs;
    for (std::size_t i : picked) {
        program p = import_test(*tests[i]);
        module& m = p.main();
        std::string prefix = "t" + std::to_string(i) + "_";
        instruction* ret = m.return_ins();
        if (!ret) throw error(tests[i]->name + ": the model has no outputs");
        std::vector<instruction*> outs = ret->inputs;
        for (std::size_t j = 0; j < outs.size(); ++j)
            merged.output_names.push_back(prefix + (j < m.output_names.size() && !m.output_names[j].empty()
                                                        ? m.output_names[j]
                                                        : "output" + std::to_string(j)));
        m.remove(ret);
        for (auto& ins : m.instructions)
            if (ins.is_param()) ins.param_name = prefix + ins.param_name;
        merged.instructions.splice(merged.instructions.end(), m.instructions);
        outputs.insert(outputs.end(), outs.begin(), outs.end());
    }
    merged.add_return(outputs);
    return merged;
}

// The first line of an error that says what went wrong (the compiler's first error).
std::string first_error_line(const std::string& msg) {
    std::istringstream in(msg);
    std::string first, line;
    std::getline(in, first);
    while (std::getline(in, line))
        if (line.find("error") != std::string::npos) {
            auto p = line.find_first_not_of(' ');
            return line.substr(p == std::string::npos ? 0 : p);
        }
    return first;
}
} // namespace

namespace {
// One test per (op type, dtype): the simplest first (fewest op types, smallest model), each
// taken when it covers a pair not yet covered. `owner`: pair -> index into the result.
std::vector<const test_case*> pick_per_pair(const std::vector<test_case>& tests, std::map<key, std::size_t>& owner) {
    std::vector<candidate> cands;
    for (auto& t : tests) cands.push_back(describe(t));
    std::stable_sort(cands.begin(), cands.end(), [](const candidate& a, const candidate& b) {
        return a.ops.size() != b.ops.size() ? a.ops.size() < b.ops.size() : a.bytes < b.bytes;
    });
    std::vector<const test_case*> picked_tests;
    for (auto& c : cands) {
        bool useful = false;
        for (auto& op : c.ops)
            for (auto& dt : c.dtypes) useful |= !owner.count({op, dt});
        if (!useful) continue;
        for (auto& op : c.ops)
            for (auto& dt : c.dtypes) owner.emplace(key{op, dt}, picked_tests.size());
        picked_tests.push_back(c.test);
    }
    return picked_tests;
}
} // namespace

std::vector<test_case> one_per_op_dtype(const std::vector<test_case>& tests) {
    std::map<key, std::size_t> owner;
    std::vector<test_case> r;
    for (const test_case* t : pick_per_pair(tests, owner)) r.push_back(*t);
    std::sort(r.begin(), r.end(), [](const test_case& a, const test_case& b) { return a.name < b.name; });
    return r;
}

std::vector<result> compile_check(const std::vector<test_case>& tests, const compile_check_options& o, std::ostream& log) {
    std::map<key, std::size_t> owner; // pair -> index into `picked_tests`
    std::vector<const test_case*> picked_tests = pick_per_pair(tests, owner);
    log << "compile check: " << owner.size() << " op type/dtype pairs from " << picked_tests.size() << " of "
        << tests.size() << " tests, one " << o.build.target
        << (o.build.target == "hip" ? " " + o.build.offload_arch : "") << " library\n";

    // Build the merged module; halve the failing sets until each failing test is alone.
    std::vector<std::string> status(picked_tests.size(), "pass"), detail(picked_tests.size());
    std::string dir = o.work_dir;
    int builds = 0;
    std::function<void(std::vector<std::size_t>)> check = [&](std::vector<std::size_t> set) {
        if (set.empty()) return;
        std::string why;
        try {
            module m = merge(picked_tests, set);
            build_options bo = o.build;
            bo.name = "compile_check";
            ++builds;
            compile_module(m, (fs::path(dir) / "libcompile_check.so").string(), bo);
            return;
        } catch (const error& e) {
            why = e.what();
        }
        if (set.size() == 1) {
            status[set[0]] = why.find("building the") != std::string::npos ? "fail" : "error";
            detail[set[0]] = first_error_line(why);
            log << "compile check: " << picked_tests[set[0]]->name << ": " << detail[set[0]] << "\n";
            return;
        }
        log << "compile check: " << set.size() << " tests failed together; halving\n";
        std::vector<std::size_t> a(set.begin(), set.begin() + static_cast<std::ptrdiff_t>(set.size() / 2)),
            b(set.begin() + static_cast<std::ptrdiff_t>(set.size() / 2), set.end());
        check(a);
        check(b);
    };
    std::vector<std::size_t> all(picked_tests.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    check(all);
    log << "compile check: " << builds << " build(s)\n";

    std::vector<result> rows;
    for (auto& [k, i] : owner)
        rows.push_back({k.first + ":" + k.second, status[i], picked_tests[i]->name + (detail[i].empty() ? "" : ": " + detail[i])});
    return rows;
}

} // namespace mxc::conformance
