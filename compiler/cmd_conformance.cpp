// mxc conformance DIR... --target ref|cpu|hip [--filter REGEX] [-j N] [--out results.tsv]:
// runs ONNX backend test directories and prints one row per test (name, status, detail) and
// "N passed, M failed" (compiler/conformance.hpp). The exit status is 0 when the run
// completed, whatever the results (test/conformance/check.sh judges them).
// mxc conformance DIR... --markdown FILE --results TARGET=FILE...: writes docs/conformance.md
// from earlier runs' results.
#include "compiler/build_driver.hpp"
#include "compiler/build_util.hpp"
#include "compiler/cleanup.hpp"
#include "compiler/commands.hpp"
#include "compiler/conformance.hpp"
#include "compiler/object_cache.hpp"
#include "ir/error.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>

#include <unistd.h>

namespace mxc::cli {
namespace {
struct conformance_args {
    std::vector<std::string> dirs, results;
    std::string target = "ref", filter, out, cache, markdown, offload_arch, hip_compiler, passing;
    int jobs = 0, timeout = 60;
    bool compile_only = false, one_per_op = false;
};

// --passing FILE: the tests that FILE records as passing (all when not given).
std::vector<conformance::test_case> passing_tests(const conformance_args& a, const std::vector<conformance::test_case>& tests) {
    if (a.passing.empty()) return tests;
    std::vector<conformance::test_case> picked;
    auto rows = conformance::read_results(a.passing);
    for (auto& t : tests)
        if (auto it = rows.find(t.name); it != rows.end() && it->second.status == "pass") picked.push_back(t);
    return picked;
}

std::string today() {
    std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
    return buf;
}

std::string default_cache() {
    const char* x = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    std::string base = x && *x ? x : std::string(home && *home ? home : "/tmp") + "/.cache";
    return base + "/mxc/conformance";
}

// "# mxc conformance target=cpu date=2025-01-31 ..." -> the value of `key`, or "".
std::string header_value(const std::string& path, const std::string& key) {
    std::ifstream f(path);
    std::string line;
    if (!std::getline(f, line) || line.rfind("#", 0) != 0) return "";
    auto p = line.find(" " + key + "=");
    if (p == std::string::npos) return "";
    p += key.size() + 2;
    return line.substr(p, line.find(' ', p) - p);
}

void write_markdown(const conformance_args& a, const std::vector<conformance::test_case>& tests) {
    if (a.results.empty()) throw error("--markdown needs the runs to report: --results TARGET=FILE (ref, cpu, hip)");
    std::vector<conformance::target_results> targets;
    for (auto& spec : a.results) {
        auto eq = spec.find('=');
        if (eq == std::string::npos || eq == 0) throw error("--results expects TARGET=FILE, got '" + spec + "'");
        std::string file = spec.substr(eq + 1);
        if (file.empty()) targets.push_back({spec.substr(0, eq), "", {}}); // TARGET=: no run recorded yet
        else targets.push_back({spec.substr(0, eq), header_value(file, "date"), conformance::read_results(file)});
    }
    write_file(a.markdown, conformance::markdown_report(tests, targets));
}

// --compile-only: the tests that --passing records as passing (all when not given), one build.
std::vector<conformance::result> compile_only(const conformance_args& a, const std::vector<conformance::test_case>& tests,
                                              const conformance::run_options& o) {
    if (o.target == "ref") throw error("--compile-only builds libraries: use --target cpu or hip");
    std::vector<conformance::test_case> picked = passing_tests(a, tests);
    conformance::compile_check_options co;
    co.build.target = o.target;
    co.build.offload_arch = o.offload_arch;
    co.build.hip_compiler = o.hip_compiler;
    co.build.jobs = o.jobs;
    co.build.cache_dir = object_cache::default_dir();
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/mxc-compile-check-XXXXXX";
    if (!mkdtemp(tmpl.data())) throw error("cannot create a temporary directory in " + tmpl);
    co.work_dir = tmpl;
    struct remove_dir { // also on Ctrl-C (compiler/cleanup.hpp)
        std::string path;
        int slot;
        ~remove_dir() {
            std::error_code ec;
            std::filesystem::remove_all(path, ec);
            cleanup::remove(slot);
        }
    } guard{tmpl, cleanup::add(tmpl, true)};
    return conformance::compile_check(picked, co, std::cerr);
}

void run_conformance(const conformance_args& a) {
    if (a.dirs.empty()) throw error("conformance: no test directories given");
    auto tests = conformance::find_tests(a.dirs, a.filter);
    if (!a.markdown.empty()) return write_markdown(a, tests);
    if (!a.results.empty()) throw error("--results is only read with --markdown FILE");
    if (a.target != "ref" && a.target != "cpu" && a.target != "hip")
        throw error("unknown --target '" + a.target + "' (expected ref, cpu or hip)");
    if (a.jobs < 0) throw error("-j must be positive");
    if (a.timeout <= 0) throw error("--timeout must be positive");
    conformance::run_options o;
    o.target = a.target;
    o.jobs = a.jobs > 0 ? a.jobs : static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
    o.timeout_s = a.timeout;
    o.cache_dir = a.cache.empty() ? default_cache() : a.cache;
    o.offload_arch = a.offload_arch;
    o.hip_compiler = a.hip_compiler;
    o.progress = isatty(2);
    if (a.compile_only && o.target == "hip" && o.offload_arch.empty())
        throw error("--compile-only --target hip needs --offload-arch (e.g. gfx90a, sm_90 or emu)");
    if (o.target == "hip" && o.offload_arch.empty()) {
        o.offload_arch = detect_offload_arch();
        if (o.offload_arch.empty()) {
            std::cerr << "mxc conformance: --target hip: no GPU found, skipping " << tests.size() << " tests\n";
            std::cout << "0 passed, 0 failed" << std::endl;
            return;
        }
    }
    if (!o.hip_compiler.empty() && (o.target != "hip" || is_emu_arch(o.offload_arch)))
        throw error("--hip-compiler is for GPU builds (--target hip --offload-arch gfx... or sm_...); the cpu and emu "
                    "builds use $CXX");
    std::vector<conformance::result> results;
    if (a.compile_only) {
        results = compile_only(a, tests, o);
    } else {
        if (!a.passing.empty() && !a.one_per_op) throw error("--passing is only read with --compile-only or --one-per-op");
        if (a.one_per_op) {
            auto picked = conformance::one_per_op_dtype(passing_tests(a, tests));
            std::cerr << "mxc conformance: --one-per-op: " << picked.size() << " of " << tests.size()
                      << " tests (one per op type and dtype)\n";
            results = conformance::run_tests(picked, o);
        } else {
            results = conformance::run_tests(tests, o);
        }
    }
    std::string rows = conformance::results_tsv(results), last = conformance::summary_line(results);
    if (!a.out.empty())
        write_file(a.out, "# mxc conformance target=" + o.target + " date=" + today() + " mxc=" + MXC_VERSION + "\n" + rows);
    std::cout << rows << last << std::endl;
    if (!std::cout) throw error("cannot write the output");
}
} // namespace

void add_conformance(CLI::App& app) {
    auto a = std::make_shared<conformance_args>();
    auto* sub = app.add_subcommand("conformance", "Run ONNX backend test directories and compare with their outputs");
    sub->add_option("dirs", a->dirs, "test directories (model.onnx + test_data_set_*), or folders of them")->required();
    sub->add_option("--target", a->target, "ref (the reference evaluator, default), cpu or hip");
    sub->add_option("--filter", a->filter, "run only the tests whose name (suite/test) matches this regex");
    sub->add_option("-j,--jobs", a->jobs, "tests at once (default: the number of CPUs)");
    sub->add_option("--out", a->out, "also write the rows to this TSV file (with a header comment)");
    sub->add_option("--timeout", a->timeout, "seconds per test before it is killed (default 60)");
    sub->add_option("--cache", a->cache, "where built libraries are kept (default ~/.cache/mxc/conformance)");
    sub->add_option("--offload-arch", a->offload_arch, "hip: the GPU to build for (default: the one found; emu: the host SIMT emulator)");
    sub->add_option("--hip-compiler", a->hip_compiler, "hip: the compiler for GPU libraries (default clang++-15 / nvcc)");
    sub->add_flag("--compile-only", a->compile_only,
                  "only build: one test per op type and dtype, merged into one library (rows: OpType:dtype)");
    sub->add_flag("--one-per-op", a->one_per_op,
                  "run only one test per op type and dtype (the simplest; the tests --compile-only picks)");
    sub->add_option("--passing", a->passing,
                    "--compile-only, --one-per-op: take only the tests this results file records as passing "
                    "(e.g. expected-cpu.tsv)");
    sub->add_option("--markdown", a->markdown, "write the per-op report (docs/conformance.md) from --results; runs nothing");
    sub->add_option("--results", a->results, "TARGET=FILE: a run's --out file, for --markdown (repeatable; TARGET= : not run yet)");
    sub->callback([a] { run_conformance(*a); });
}

} // namespace mxc::cli
