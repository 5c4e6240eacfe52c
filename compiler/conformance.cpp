// The conformance runner: finding tests, loading their data, comparing, running one test.
#include "compiler/conformance.hpp"
#include "compiler/library_api.hpp"
#include "compiler/onnx_import.hpp"
#include "ir/error.hpp"
#include "ir/eval.hpp"
#include "passes/pass_manager.hpp"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace mxc::conformance {

namespace {
std::string read_file(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    if (!f) throw error("cannot read " + p.string());
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

bool is_test_dir(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p / "model.onnx", ec);
}

std::string test_name(const fs::path& dir) {
    fs::path d = dir.lexically_normal();
    if (d.filename().empty()) d = d.parent_path();
    std::string suite = d.parent_path().filename().string();
    return (suite.empty() || suite == "." || suite == ".." ? "" : suite + "/") + d.filename().string();
}

void collect_op_types(const onnx::GraphProto& g, std::set<std::string>& out) {
    for (auto& n : g.node()) {
        bool plain = n.domain().empty() || n.domain() == "ai.onnx";
        out.insert(plain ? n.op_type() : n.domain() + "::" + n.op_type());
        for (auto& a : n.attribute()) {
            if (a.has_g()) collect_op_types(a.g(), out);
            for (auto& sub : a.graphs()) collect_op_types(sub, out);
        }
    }
}

// One line, no tabs: fit for a TSV cell.
std::string cell(std::string s) {
    for (auto& c : s)
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    if (s.size() > 400) s = s.substr(0, 397) + "...";
    return s;
}

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

std::string index_text(int64_t flat, const std::vector<int64_t>& lens) {
    std::vector<int64_t> idx(lens.size());
    for (std::size_t d = lens.size(); d-- > 0;) {
        if (lens[d] > 0) {
            idx[d] = flat % lens[d];
            flat /= lens[d];
        }
    }
    return to_string(idx);
}

struct data_set {
    std::string name;
    std::vector<literal> inputs, outputs;
    std::vector<std::string> input_names; // from the TensorProtos (may be empty)
};

std::vector<literal> read_tensors(const fs::path& dir, const char* prefix, std::vector<std::string>* names) {
    std::vector<literal> r;
    for (int k = 0;; ++k) {
        fs::path p = dir / (std::string(prefix) + std::to_string(k) + ".pb");
        std::error_code ec;
        if (!fs::is_regular_file(p, ec)) break;
        std::string name;
        r.push_back(read_tensor_proto(read_file(p), p.filename().string(), &name));
        if (names) names->push_back(name);
    }
    return r;
}

std::vector<data_set> read_data_sets(const fs::path& dir) {
    std::vector<fs::path> dirs;
    for (auto& e : fs::directory_iterator(dir))
        if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    if (dirs.empty()) throw error("no test_data_set_* folder in " + dir.string());
    std::vector<data_set> sets;
    for (auto& d : dirs) {
        data_set s;
        s.name = d.filename().string();
        s.inputs = read_tensors(d, "input_", &s.input_names);
        s.outputs = read_tensors(d, "output_", nullptr);
        if (s.outputs.empty()) throw error(s.name + " has no output_0.pb");
        sets.push_back(std::move(s));
    }
    return sets;
}

// The graph inputs that are not initializers (what input_K.pb feed) and the graph outputs,
// in order.
struct graph_io {
    std::vector<std::string> inputs, outputs;
    std::string not_tensor; // the first input or output that is not a tensor: "graph input 'x'"
};
graph_io graph_names(const std::string& model_bytes) {
    onnx::ModelProto model;
    if (model_bytes.size() > static_cast<std::size_t>(INT_MAX) ||
        !model.ParseFromArray(model_bytes.data(), static_cast<int>(model_bytes.size())))
        return {};
    std::set<std::string> inits;
    for (auto& t : model.graph().initializer()) inits.insert(t.name());
    graph_io r;
    auto check = [&](const onnx::ValueInfoProto& vi, const char* what) {
        if (r.not_tensor.empty() && vi.has_type() && !vi.type().has_tensor_type())
            r.not_tensor = std::string(what) + " '" + vi.name() + "'";
    };
    for (auto& vi : model.graph().input())
        if (!inits.count(vi.name())) {
            r.inputs.push_back(vi.name());
            check(vi, "graph input");
        }
    for (auto& vi : model.graph().output()) {
        r.outputs.push_back(vi.name());
        check(vi, "graph output");
    }
    return r;
}

// Runs one data set through the library; the outputs as literals.
std::vector<literal> run_library(library_api& lib, void* model, const std::vector<std::string>& names, const data_set& ds) {
    std::size_t ni = lib.num_inputs(model), no = lib.num_outputs(model);
    std::vector<const void*> in(ni);
    for (std::size_t i = 0; i < ni; ++i) {
        api_tensor_info info{};
        if (lib.input_info(model, i, &info) != 0) throw error(std::string("input_info: ") + lib.last_error(model));
        std::size_t k = 0;
        while (k < names.size() && names[k] != info.name) ++k;
        if (k >= ds.inputs.size()) throw error(std::string("no data for the library's input '") + info.name + "'");
        const literal& l = ds.inputs[k];
        std::vector<int64_t> strides(info.strides, info.strides + info.rank);
        if (std::vector<int64_t>(info.dims, info.dims + info.rank) != l.s.lens ||
            static_cast<int>(l.s.type) != info.dtype || static_cast<int64_t>(info.bytes) != l.s.bytes() ||
            (l.s.elements() > 1 && strides != standard_strides(l.s.lens)))
            throw error(std::string("the library's input '") + info.name + "' is not laid out like input_" +
                        std::to_string(k) + ".pb " + to_string(l.s));
        in[i] = l.data();
    }
    std::vector<std::vector<char>> bufs(no);
    std::vector<void*> out(no);
    std::vector<shape> shapes(no);
    for (std::size_t j = 0; j < no; ++j) {
        api_tensor_info info{};
        if (lib.output_info(model, j, &info) != 0) throw error(std::string("output_info: ") + lib.last_error(model));
        if (info.dtype < 0 || info.dtype >= dtype_count) throw error("output_info: unknown dtype");
        shapes[j] = shape(static_cast<dtype>(info.dtype), std::vector<int64_t>(info.dims, info.dims + info.rank));
        if (static_cast<int64_t>(info.bytes) != shapes[j].bytes()) throw error("output_info: bytes do not match the dims");
        bufs[j].assign(info.bytes + 1, 0);
        out[j] = bufs[j].data();
    }
    if (lib.run(model, in.data(), out.data()) != 0) throw error(std::string("run: ") + lib.last_error(model));
    std::vector<literal> r;
    for (std::size_t j = 0; j < no; ++j) {
        bufs[j].resize(bufs[j].size() - 1);
        r.emplace_back(shapes[j], std::move(bufs[j]));
    }
    return r;
}

// Compares every output of one data set; fills `r` on a failure, updates max_error.
bool check_outputs(const std::vector<literal>& got, const data_set& ds, const std::vector<std::string>& names, result& r,
                   double& max_error) {
    if (got.size() != ds.outputs.size()) {
        r.status = "fail";
        r.detail = ds.name + ": the model produced " + std::to_string(got.size()) + " outputs, the test expects " +
                   std::to_string(ds.outputs.size());
        return false;
    }
    for (std::size_t j = 0; j < got.size(); ++j) {
        std::string name = j < names.size() ? " '" + names[j] + "'" : "";
        auto c = compare(got[j], ds.outputs[j], "output " + std::to_string(j) + name);
        max_error = std::max(max_error, c.max_error);
        if (!c.ok) {
            r.status = "fail";
            r.detail = ds.name + ": " + c.detail;
            return false;
        }
    }
    return true;
}

// Imports a model with every graph input's shape fixed from `inputs` (data set 0), as
// --input-dim would. The importer needs some inputs as constants (a Reshape's shape, a Loop's
// trip count): it names them (mxc::needs_constant_inputs); they are bound to the test's values
// (import_options::constant_inputs, as --const-input would), listed in `bound`, and the import
// retried. Throws the importer's error.
program import_with_bindings(const std::string& model_bytes, const std::vector<std::string>& names,
                             const std::vector<literal>& inputs, std::vector<std::string>& bound) {
    import_options io;
    for (std::size_t k = 0; k < names.size() && k < inputs.size(); ++k) io.input_dims[names[k]] = inputs[k].s.lens;
    for (;;) {
        try {
            return import_onnx_bytes(model_bytes, "model.onnx", io);
        } catch (const error& e) {
            bool retry = false;
            if (auto* nc = dynamic_cast<const needs_constant_inputs*>(&e))
                for (auto& name : nc->inputs) {
                    auto k = static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
                    if (k >= inputs.size() || io.constant_inputs.count(name)) continue;
                    io.constant_inputs[name] = inputs[k];
                    io.input_dims.erase(name);
                    bound.push_back(name);
                    retry = true;
                }
            if (!retry) throw;
        }
    }
}

// Import failures that say mxc lacks something (an op, a dtype, a domain) are `unsupported`.
bool import_unsupported(const std::string& msg) {
    return msg.find("support") != std::string::npos || msg.find("imports no opset of the default ONNX domain") != std::string::npos;
}
} // namespace

std::vector<test_case> find_tests(const std::vector<std::string>& roots, const std::string& filter) {
    std::regex re;
    try {
        re = std::regex(filter.empty() ? std::string(".") : filter, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
        throw error("--filter '" + filter + "' is not a valid regular expression: " + e.what());
    }
    std::vector<test_case> r;
    for (auto& root : roots) {
        std::error_code ec;
        if (!fs::is_directory(root, ec)) throw error("conformance: " + root + " is not a directory");
        std::vector<fs::path> dirs;
        if (is_test_dir(root)) dirs.push_back(root);
        else
            for (auto& e : fs::directory_iterator(root))
                if (e.is_directory() && is_test_dir(e.path())) dirs.push_back(e.path());
        if (dirs.empty()) throw error("conformance: " + root + " has no test directories (model.onnx + test_data_set_*)");
        for (auto& d : dirs) {
            test_case t{test_name(d), d.string()};
            if (filter.empty() || std::regex_search(t.name, re)) r.push_back(std::move(t));
        }
    }
    std::sort(r.begin(), r.end(), [](auto& a, auto& b) { return a.name < b.name; });
    for (std::size_t i = 1; i < r.size(); ++i)
        if (r[i].name == r[i - 1].name) throw error("conformance: two tests are named " + r[i].name);
    return r;
}

std::vector<std::string> model_op_types(const std::string& model_path) {
    std::string bytes;
    try {
        bytes = read_file(model_path);
    } catch (const error&) {
        return {};
    }
    onnx::ModelProto model;
    if (bytes.size() > static_cast<std::size_t>(INT_MAX) || !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
        return {};
    std::set<std::string> ops;
    collect_op_types(model.graph(), ops);
    return {ops.begin(), ops.end()};
}

tolerance tolerance_for(dtype t) {
    if (is_low_precision(t)) return {0, 0}; // casts to float8/float4 round exactly as the spec says
    switch (t) {
    case dtype::half_type: return {2e-3, 1e-5};  // ~2 ulp of float16's 11-bit significand
    case dtype::bf16_type: return {1.6e-2, 1e-5}; // ~2 ulp of bfloat16's 8-bit significand
    default: return {1e-3, 1e-7};                 // the ONNX backend test defaults
    }
}

comparison compare(const literal& got, const literal& expected, const std::string& what) {
    comparison c;
    if (got.s.type != expected.s.type || got.s.lens != expected.s.lens) {
        c.ok = false;
        c.detail = what + " is " + std::string(dtype_name(got.s.type)) + " " + to_string(got.s.lens) + ", expected " +
                   std::string(dtype_name(expected.s.type)) + " " + to_string(expected.s.lens);
        return c;
    }
    int64_t n = expected.s.elements();
    if (is_floating(expected.s.type)) {
        auto a = got.to_doubles(), b = expected.to_doubles();
        auto tol = tolerance_for(expected.s.type);
        int64_t bad = -1, bad_count = 0;
        for (int64_t i = 0; i < n; ++i) {
            double x = a[static_cast<std::size_t>(i)], y = b[static_cast<std::size_t>(i)];
            if (std::isnan(x) && std::isnan(y)) continue;
            bool ok;
            double err;
            if (std::isinf(y) || std::isinf(x)) {
                ok = x == y;
                err = ok ? 0 : INFINITY;
            } else {
                err = std::isnan(x) || std::isnan(y) ? INFINITY : std::fabs(x - y);
                ok = err <= tol.atol + tol.rtol * std::fabs(y);
            }
            c.max_error = std::max(c.max_error, err);
            if (!ok && bad_count++ == 0) bad = i;
        }
        if (bad >= 0) {
            c.ok = false;
            c.detail = what + ": " + std::to_string(bad_count) + " of " + std::to_string(n) + " elements differ, first at " +
                       index_text(bad, expected.s.lens) + ": got " + number(a[static_cast<std::size_t>(bad)]) +
                       ", expected " + number(b[static_cast<std::size_t>(bad)]) + " (max error " + number(c.max_error) +
                       ", rtol " + number(tol.rtol) + ", atol " + number(tol.atol) + ")";
        }
        return c;
    }
    // Integers and bools: exact, compared as bytes (bools as truth values).
    std::size_t size = dtype_size(expected.s.type);
    int64_t bad = -1, bad_count = 0;
    for (int64_t i = 0; i < n; ++i) {
        const char* x = got.data() + i * static_cast<int64_t>(size);
        const char* y = expected.data() + i * static_cast<int64_t>(size);
        bool same = expected.s.type == dtype::bool_type ? (*x != 0) == (*y != 0) : std::memcmp(x, y, size) == 0;
        if (!same && bad_count++ == 0) bad = i;
    }
    if (bad >= 0) {
        auto a = got.to_ints(), b = expected.to_ints();
        c.ok = false;
        c.max_error = INFINITY;
        c.detail = what + ": " + std::to_string(bad_count) + " of " + std::to_string(n) + " elements differ, first at " +
                   index_text(bad, expected.s.lens) + ": got " + std::to_string(a[static_cast<std::size_t>(bad)]) +
                   ", expected " + std::to_string(b[static_cast<std::size_t>(bad)]) + " (exact comparison)";
    }
    return c;
}

program import_test(const test_case& t) {
    fs::path dir(t.dir);
    std::string model_bytes = read_file(dir / "model.onnx");
    auto names = graph_names(model_bytes).inputs;
    auto sets = read_data_sets(dir);
    std::vector<std::string> bound;
    program p = import_with_bindings(model_bytes, names, sets[0].inputs, bound);
    run_passes(p, default_pipeline());
    return p;
}

result run_test(const test_case& t, const run_options& o) {
    result r{t.name, "error", ""};
    try {
        fs::path dir(t.dir);
        std::string model_bytes = read_file(dir / "model.onnx");
        auto io_names = graph_names(model_bytes);
        if (!io_names.not_tensor.empty()) {
            r.status = "unsupported";
            r.detail = io_names.not_tensor + " is not a tensor (sequences, maps and optionals are not supported)";
            return r;
        }
        std::vector<data_set> sets;
        try {
            sets = read_data_sets(dir);
        } catch (const error& e) { // test data of an element type mxc lacks
            r.status = import_unsupported(e.what()) ? "unsupported" : "error";
            r.detail = cell(e.what());
            return r;
        }

        auto& names = io_names.inputs;
        if (sets[0].inputs.size() != names.size())
            throw error("the model has " + std::to_string(names.size()) + " graph inputs, " + sets[0].name + " has " +
                        std::to_string(sets[0].inputs.size()) + " input_K.pb");
        program p;
        std::vector<std::string> bound;
        try {
            p = import_with_bindings(model_bytes, names, sets[0].inputs, bound);
        } catch (const error& e) {
            std::string msg = e.what();
            r.status = import_unsupported(msg) ? "unsupported" : "error";
            r.detail = cell(msg);
            return r;
        }
        for (auto& ds : sets)
            for (std::size_t k = 0; k < names.size(); ++k) {
                bool is_bound = std::find(bound.begin(), bound.end(), names[k]) != bound.end();
                if (is_bound ? !(ds.inputs[k] == sets[0].inputs[k]) : ds.inputs[k].s.lens != sets[0].inputs[k].s.lens)
                    throw error(ds.name + ": input_" + std::to_string(k) + ".pb differs from " + sets[0].name + "'s in " +
                                (is_bound ? "its values (bound as a constant)" : "its shape"));
            }
        run_passes(p, default_pipeline());
        module& m = p.main();

        double max_error = 0;
        if (o.target == "ref") {
            for (auto& ds : sets) {
                std::map<std::string, literal> inputs;
                for (std::size_t k = 0; k < names.size(); ++k)
                    if (std::find(bound.begin(), bound.end(), names[k]) == bound.end()) inputs[names[k]] = ds.inputs[k];
                if (!check_outputs(evaluate(m, inputs), ds, io_names.outputs, r, max_error)) return r;
            }
        } else {
            std::string path = build_cached(m, o);
            library_api lib(path, "conformance");
            void* model = nullptr;
            api_options opts{};
            int status = lib.create(&model, &opts);
            std::unique_ptr<void, void (*)(void*)> owner(model, lib.destroy); // before lib closes
            if (status != 0) {
                std::string msg = model ? lib.last_error(model) : "out of memory";
                throw error("create: " + msg);
            }
            for (auto& ds : sets) {
                if (!check_outputs(run_library(lib, model, names, ds), ds, io_names.outputs, r, max_error)) return r;
            }
        }
        r.status = "pass";
        r.detail = "max error " + number(max_error);
        for (std::size_t i = 0; i < bound.size(); ++i)
            r.detail += (i ? ", " : "; inputs bound at build time: ") + bound[i];
    } catch (const error& e) {
        r.status = "error";
        r.detail = cell(e.what());
    } catch (const std::bad_alloc&) {
        r.status = "error";
        r.detail = "out of memory";
    } catch (const std::exception& e) {
        r.status = "error";
        r.detail = cell(std::string("internal: ") + e.what());
    }
    r.detail = cell(r.detail);
    return r;
}

} // namespace mxc::conformance
