// The root command: mxc MODEL.onnx -o libmodel.so. Import (or parse a .mxir text program),
// run the pass pipeline, then lower, plan, emit and build (compiler/build_driver.hpp).
#include "compiler/build_cache.hpp"
#include "compiler/build_driver.hpp"
#include "compiler/commands.hpp"
#include "compiler/object_cache.hpp"
#include "compiler/onnx_import.hpp"
#include "ir/error.hpp"
#include "codegen/lower.hpp"
#include "passes/memory_report.hpp"
#include "passes/pass_manager.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace mxc::cli {

namespace {
// On a terminal: one line, rewritten, with the phase and the time since the start; a ticker
// keeps the elapsed time moving during the long build phase. Nothing when not a terminal.
class progress_line {
public:
    explicit progress_line(bool on) : on_(on), t0_(std::chrono::steady_clock::now()) {
        if (on_) ticker_ = std::thread([this] {
            std::unique_lock<std::mutex> lock(mu_);
            while (!stop_) {
                draw();
                cv_.wait_for(lock, std::chrono::milliseconds(250));
            }
        });
    }
    ~progress_line() { done(); }
    void phase(const std::string& p) {
        std::lock_guard<std::mutex> lock(mu_);
        phase_ = p;
        if (on_) draw();
    }
    void done() {
        if (!on_) return;
        {
            std::lock_guard<std::mutex> lock(mu_);
            stop_ = true;
        }
        cv_.notify_all();
        if (ticker_.joinable()) ticker_.join();
        std::fprintf(stderr, "\r\033[K");
        on_ = false;
    }

private:
    void draw() {
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
        std::fprintf(stderr, "\r\033[Kmxc: %s ... %.1fs", phase_.c_str(), s);
        std::fflush(stderr);
    }
    bool on_, stop_ = false;
    std::chrono::steady_clock::time_point t0_;
    std::string phase_ = "start";
    std::mutex mu_;
    std::condition_variable cv_;
    std::thread ticker_;
};

struct compile_args {
    std::string model, output, target = "cpu", offload_arch, cpu_arch, name, emit_src, report, passes, hip_compiler, memory_plot;
    std::string tuning_db;
    bool tune = false, tune_reps_given = false;
    int tune_reps = 20;
    std::vector<std::vector<std::string>> input_dims;
    std::vector<std::string> const_inputs;
    std::vector<std::string> external_dirs;
    int64_t batch = 0;
    int jobs = 0;
    bool passes_given = false, quiet = false, verbose = false, memory_report = false, profile = false,
         debug_trace = false, no_cache = false, fp16 = false;
};

std::vector<std::string> split_list(const std::string& s) {
    std::vector<std::string> r;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) r.push_back(item);
    return r;
}

import_options import_opts(const compile_args& a, std::set<std::string>* files_read) {
    import_options o;
    o.batch = a.batch;
    o.external_data.allowed_dirs = a.external_dirs;
    o.external_data.files_read = files_read;
    for (auto& group : a.input_dims) {
        if (group.size() < 2 || group[0].size() < 2 || group[0][0] != '@')
            throw error("--input-dim expects @NAME followed by the dims, e.g. --input-dim @image 1 3 224 224");
        std::vector<int64_t> dims;
        for (std::size_t i = 1; i < group.size(); ++i) {
            std::size_t used = 0;
            long long d = -1;
            try {
                d = std::stoll(group[i], &used);
            } catch (const std::exception&) {
            }
            if (used != group[i].size() || d < 0)
                throw error("--input-dim " + group[0] + ": '" + group[i] + "' is not a dimension (a non-negative integer)");
            dims.push_back(d);
        }
        o.input_dims[group[0].substr(1)] = dims;
    }
    add_const_inputs(o, a.const_inputs);
    return o;
}

// files_read: gets the external weight files the import reads.
program load(const compile_args& a, std::set<std::string>* files_read) {
    if (a.model.ends_with(".mxir")) {
        std::ifstream f(a.model, std::ios::binary);
        if (!f) throw error("cannot read " + a.model);
        std::stringstream text;
        text << f.rdbuf();
        program p = parse_program(text.str());
        for (auto& m : p.modules) verify(*m);
        return p;
    }
    return import_onnx(a.model, import_opts(a, files_read));
}

void write_text(const std::string& path, const std::string& text, const char* what) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << text;
    f.close();
    if (!f) throw error(std::string("cannot write the ") + what + " " + path);
}

// --report's JSON up to "objects" (what a build from the whole-build cache reports again).
std::string report_body(const module& m, const build_stats& st) {
    std::ostringstream o;
    o << "{\n  \"kernels\": " << st.kernels << ",\n  \"instructions\": " << st.instructions << ",\n"
      << memory_report_json(m, st.plan, st.weights_bytes) << ",\n  \"kernels_tuned\": " << st.kernels_tuned
      << ",\n  \"kernel_resources\": " << kernel_resources_json(st.resources) << ",\n";
    return o.str();
}

void write_report(const std::string& path, const std::string& body, const build_stats& st) {
    std::ostringstream o;
    o << body << "  \"objects\": {\"built\": " << st.objects_built << ", \"cached\": " << st.objects_cached
      << "},\n  \"seconds\": {";
    for (std::size_t i = 0; i < st.seconds.size(); ++i) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.6f", st.seconds[i].second);
        o << (i ? ", " : "") << "\"" << st.seconds[i].first << "\": " << buf;
    }
    o << "}\n}\n";
    write_text(path, o.str(), "report");
}

// The line a build ends with (unless -q).
void print_wrote(const std::string& output, const std::string& header, int64_t kernels, int64_t arena, int64_t weights) {
    std::cerr << "mxc: wrote " << output << " and " << header << " (" << kernels << " kernels, arena " << arena
              << " bytes, weights " << weights << " bytes)\n";
}

// The whole-build cache's key (compiler/build_cache.hpp): mxc, the compiler, the options, the
// environment the build reads and the files named; "" (no caching) when one cannot be read.
std::string whole_build_key(const compile_args& a, const build_options& bo) {
    object_cache::hasher h;
    h.add("mxc whole build " MXC_VERSION);
    std::error_code ec;
    const std::string self = object_cache::compiler_identity(std::filesystem::read_symlink("/proc/self/exe", ec).string());
    const std::string compiler = object_cache::compiler_identity(build_compiler(bo));
    if (self.empty() || compiler.empty()) return "";
    h.add(self);
    h.add(compiler);
    auto add_file = [&h](const std::string& path) {
        const std::string x = build_cache::file_hash(path);
        h.add(x);
        return !x.empty();
    };
    // the model's folder too: external weights are found beside it
    const std::string model = std::filesystem::weakly_canonical(a.model, ec).string();
    if (ec || !add_file(model)) return "";
    h.add(model.substr(0, model.rfind('/')));
    // (the output's path only through the API name: the library and its header depend on no more)
    for (const std::string& o : {bo.target, bo.offload_arch, bo.cpu_arch, a.hip_compiler, bo.name.empty() ? default_name(a.output) : bo.name,
                                 a.passes_given ? "passes " + a.passes : "",
                                 std::to_string(a.batch), std::string(a.fp16 ? "fp16" : ""), std::string(a.profile ? "profile-hooks" : ""),
                                 std::string(a.debug_trace ? "debug-trace" : "")})
        h.add(o);
    for (auto& group : a.input_dims) {
        h.add("input-dim");
        for (auto& x : group) h.add(x);
    }
    for (auto& d : a.external_dirs) h.add("allow-external-data " + d);
    for (auto& c : a.const_inputs) { // NAME:FILE.pb or NAME:1,2,3
        h.add("const-input " + c);
        const std::string value = c.substr(c.rfind(':') + 1);
        if (std::filesystem::is_regular_file(value, ec) && !add_file(value)) return "";
    }
    if (!a.tuning_db.empty() && !add_file(a.tuning_db)) return "";
    for (const char* v : build_cache::environment()) {
        const char* x = std::getenv(v);
        h.add(std::string(v) + (x ? "=" + std::string(x) : " unset"));
    }
    return h.hex();
}

// A rebuild from the whole-build cache: the library built before from the same key, if the
// cache still has it; false (nothing written) when it does not.
bool build_from_cache(const compile_args& a, const build_options& bo, const std::string& key) {
    auto t = std::chrono::steady_clock::now();
    const auto e = build_cache::find(bo.cache_dir, key);
    if (!e) return false;
    const std::string lib = object_cache::find(bo.cache_dir, e->library_key, ".so");
    const std::filesystem::path out_abs = std::filesystem::absolute(a.output);
    if (!std::filesystem::is_directory(out_abs.parent_path()))
        throw error("cannot write " + a.output + ": directory " + out_abs.parent_path().string() + " does not exist");
    if (lib.empty() || !install_cached_library(lib, a.output, bo)) return false;
    write_file_atomically(header_path(out_abs.string()), e->header, "the header");
    build_stats st;
    st.objects_cached = e->objects;
    st.seconds = {{"cache", std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count()}};
    if (!a.report.empty()) write_report(a.report, e->report, st);
    if (a.verbose) std::cerr << "mxc: built before from the same model and options (" << bo.cache_dir << "/" << key << ".build)\n";
    if (!a.quiet) print_wrote(a.output, header_path(a.output), e->kernels, e->arena_bytes, e->weights_bytes);
    return true;
}

// --memory-report / --memory-plot without -o: plan the memory as a build would, build nothing.
build_stats plan_only(module& m, const build_options& bo) {
    build_stats st;
    auto t = std::chrono::steady_clock::now();
    make_outputs_kernels(m);
    memory_plan plan = plan_memory(m, 256);
    validate_memory_plan(m, plan);
    st.seconds.push_back({"plan", std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count()});
    lowered_module l = lower_planned(m, std::move(plan));
    st.kernels_tuned = prepare_lowered(l, bo); // the kernels' scratch is part of the arena
    record_lowering(st, m, l);
    return st;
}

// --tune: times candidate GEMM tiles on the device (compiler/tune.hpp) and writes the winners to
// --tuning-db before the build uses them. Checked before anything is read or written: on a
// machine without the GPU it fails and writes nothing. --offload-arch emu tunes on the host
// emulator (the flow is real, the times are not a GPU's).
void check_tune(const compile_args& a) {
    if (a.target != "hip") throw error("--tune times GPU kernels: it is for --target hip (got --target " + a.target + ")");
    if (a.tuning_db.empty()) throw error("--tune writes the tiles it chooses to --tuning-db FILE: give one");
    if (a.tune_reps < 1) throw error("--tune-reps must be at least 1 (got " + std::to_string(a.tune_reps) + ")");
    if (!a.offload_arch.empty()) check_arch(a.offload_arch);
    if (!is_emu_arch(a.offload_arch)) {
        const std::string gpu = detect_offload_arch();
        if (gpu.empty())
            throw error("--tune: no GPU found (no AMD GPU in /sys/class/kfd, no answer from nvidia-smi); tuning times "
                        "kernels on the device: run it on a GPU machine (or with --offload-arch emu, the host emulator, "
                        "to check the flow), or build without --tune (--tuning-db reads a database made there)");
        if (!a.offload_arch.empty() && a.offload_arch != gpu)
            throw error("--tune: the GPU here is " + gpu + ", not --offload-arch " + a.offload_arch +
                        ": tiles are timed on the GPU they are chosen for");
    }
    std::string dir = std::filesystem::path(a.tuning_db).parent_path().string();
    if (dir.empty()) dir = ".";
    if (access(dir.c_str(), W_OK) != 0)
        throw error("--tuning-db " + a.tuning_db + ": cannot write in " + dir + " (" + std::strerror(errno) +
                    "); --tune writes the database there");
}

void run_compile(const compile_args& a) {
    bool memory_only = a.output.empty() && (a.memory_report || !a.memory_plot.empty());
    if (a.output.empty() && !memory_only) throw error("no output given: mxc MODEL.onnx -o libmodel.so");
    if (a.target == "ref")
        throw error("--target ref is the reference evaluator inside mxc and builds no library; use --target cpu or hip");
    if (a.target != "cpu" && a.target != "hip") throw error("unknown --target '" + a.target + "' (expected cpu or hip)");
    if (a.fp16 && a.passes_given)
        throw error("--fp16 adds convert-fp16 to the default pipeline; with --passes, list convert-fp16 yourself");
    if (a.tune) check_tune(a);
    build_options bo;
    bo.target = a.target;
    bo.offload_arch = a.offload_arch;
    bo.hip_compiler = a.hip_compiler;
    bo.cpu_arch = a.cpu_arch;
    if (!a.cpu_arch.empty()) {
        if (a.target != "cpu") throw error("--cpu-arch is for --target cpu (got --target " + a.target + ")");
        for (char c : a.cpu_arch)
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
                throw error("--cpu-arch '" + a.cpu_arch + "': expected a -march name such as x86-64-v3");
    }
    bo.name = a.name;
    bo.emit_src = a.emit_src;
    bo.profile = a.profile;
    bo.debug_trace = a.debug_trace;
    if (a.jobs < 0) throw error("-j must be positive");
    bo.jobs = a.jobs;
    bo.cache_dir = a.no_cache ? "" : object_cache::default_dir();
    if (!a.name.empty()) check_name(a.name);
    if (a.target == "hip" && bo.offload_arch.empty()) {
        bo.offload_arch = detect_offload_arch();
        if (bo.offload_arch.empty())
            throw error("--target hip: no GPU found to build for; pass --offload-arch (e.g. gfx90a, sm_90, or emu "
                        "for the host emulator) or use --target cpu");
    }
    if (!a.tuning_db.empty()) {
        if (a.target != "hip") throw error("--tuning-db holds GPU kernel tiles: it is for --target hip (got --target " + a.target + ")");
        // --tune starts a new database or adds to the one there
        if (!a.tune || std::filesystem::exists(a.tuning_db))
            bo.tuning = std::make_shared<const tuning_db>(tuning_db::load(a.tuning_db));
        if (a.tune) {
            if (memory_only) throw error("--tune tunes a library build: give -o");
            bo.tune_db = a.tuning_db;
            bo.tune_reps = a.tune_reps;
        }
    }
    if (a.tune_reps_given && !a.tune) throw error("--tune-reps is for --tune");
    if (a.verbose) bo.log = [](const std::string& s) { std::cerr << "mxc: " << s << "\n"; };

    // the whole-build cache: a library built before from the same inputs (not for --tune, which
    // times the device, nor for what needs the module: --emit-src, the memory report and plot)
    const bool whole = !memory_only && !a.tune && a.emit_src.empty() && !a.memory_report && a.memory_plot.empty() &&
                       !bo.cache_dir.empty();
    const std::string whole_key = whole ? whole_build_key(a, bo) : "";
    if (!whole_key.empty() && build_from_cache(a, bo, whole_key)) return;

    progress_line progress(!a.quiet && !a.verbose && isatty(2));
    bo.progress = [&progress](const std::string& phase) { progress.phase(phase); };
    using clock = std::chrono::steady_clock;
    auto t = clock::now();
    progress.phase("import");
    std::set<std::string> files_read;
    program p = load(a, &files_read);
    double import_s = std::chrono::duration<double>(clock::now() - t).count();

    t = clock::now();
    pass_options po;
    po.report = &std::cerr;
    po.time_passes = a.verbose;
    progress.phase("passes");
    run_passes(p, a.passes_given ? split_list(a.passes) : default_pipeline(a.fp16), po);
    double passes_s = std::chrono::duration<double>(clock::now() - t).count();

    build_stats st = memory_only ? plan_only(p.main(), bo) : compile_module(p.main(), a.output, bo);
    progress.done();
    st.seconds.insert(st.seconds.begin(), {{"import", import_s}, {"passes", passes_s}});
    const std::string body = a.report.empty() && whole_key.empty() ? "" : report_body(p.main(), st);
    if (!a.report.empty()) write_report(a.report, body, st);
    if (!whole_key.empty() && !st.library_key.empty()) {
        build_cache::entry e{st.library_key, st.header_text, body, st.kernels, st.arena_bytes, st.weights_bytes,
                             st.objects_built + st.objects_cached, {}};
        bool readable = true;
        for (auto& f : files_read) {
            e.files.push_back({build_cache::file_hash(f), f});
            readable = readable && !e.files.back().first.empty();
        }
        if (readable) build_cache::store(bo.cache_dir, whole_key, e);
    }
    if (!a.memory_plot.empty()) write_text(a.memory_plot, memory_plot_svg(p.main(), st.plan), "memory plot");
    if (a.memory_report) std::cout << memory_report_text(p.main(), st.plan, st.weights_bytes);
    if (!a.quiet && a.tune)
        std::cerr << "mxc: tuned " << st.problems_tuned << " GEMM problems on " << bo.offload_arch
                  << (is_emu_arch(bo.offload_arch) ? " (the emulator: times not a GPU's)" : "") << ", wrote "
                  << a.tuning_db << "\n";
    if (a.verbose && !st.resources.empty()) std::cerr << "mxc: " << kernel_resources_summary(st.resources) << "\n";
    if (!a.quiet && !memory_only) print_wrote(a.output, st.header_path, st.kernels, st.arena_bytes, st.weights_bytes);
}
} // namespace

void setup_compile(CLI::App& app) {
    auto a = std::make_shared<compile_args>();
    app.require_subcommand(0, 1);
    app.add_option("model", a->model, "the model: an ONNX file, or a text IR program (.mxir)");
    app.add_option("-o,--output", a->output, "the library to write (its C header goes beside it)");
    app.add_option("--target", a->target, "cpu (default), hip, or ref (the evaluator: no library)");
    app.add_option("--offload-arch", a->offload_arch, "hip: gfxNNN (AMD, clang++-15), sm_NN (NVIDIA, nvcc) or emu (host SIMT emulator, c++)");
    app.add_option("--cpu-arch", a->cpu_arch,
                   "cpu: build for this -march (e.g. x86-64-v3: AVX2/FMA); the library then runs only on such "
                   "CPUs (default: any x86-64)");
    app.add_option("--name", a->name, "prefix of every exported symbol (default: from the output name)");
    app.add_option("--emit-src", a->emit_src, "also write the generated sources (and build.sh) into this directory");
    app.add_option("--report", a->report, "write kernel counts, memory, phase timings and (hip on a GPU) each kernel's registers and stack as JSON");
    app.add_option("--passes", a->passes, "comma-separated pass list instead of the default pipeline")
        ->each([a](const std::string&) { a->passes_given = true; });
    app.add_option("--input-dim", a->input_dims, "@NAME D0 D1 ...: the full shape of an input")
        ->allow_extra_args()
        ->expected(2, -1);
    app.add_option("--allow-external-data", a->external_dirs,
                   "also read external weight files under DIR (default: only inside the model's folder)")
        ->type_name("DIR");
    app.add_option("--batch", a->batch, "the batch size for a symbolic first dimension");
    app.add_option("--const-input", a->const_inputs,
                   "NAME:FILE.pb|1,2,3: bind a graph input at build time (it becomes a constant, no longer a "
                   "library input; may be repeated)");
    app.add_option("--hip-compiler", a->hip_compiler, "the compiler for hip builds (default clang++-15 / nvcc)");
    app.add_flag("--memory-report", a->memory_report,
                 "print the memory plan: arena, lower bound, naive sum, weights, biggest buffers (no -o: build nothing)");
    app.add_option("--memory-plot", a->memory_plot, "draw the memory plan as SVG (x: instruction, y: offset)");
    app.add_option("-j,--jobs", a->jobs, "compiler processes at once (default: one per CPU)");
    app.add_flag("--no-cache", a->no_cache,
                 "compile every kernel source afresh (default: reuse objects from $MXC_CACHE_DIR or ~/.cache/mxc/objects)");
    app.add_flag("--fp16", a->fp16,
                 "run a float32 model in half precision: f16 weights and activations, fp32 accumulation and "
                 "statistics, the C API stays float32");
    app.add_option("--tuning-db", a->tuning_db,
                   "hip: GEMM tiles per problem and GPU from a tuning run (file format: codegen/tuning.hpp)")
        ->type_name("FILE");
    app.add_flag("--tune", a->tune,
                 "hip: time candidate GEMM tiles of the model on this machine's GPU (--offload-arch emu: on the host "
                 "emulator, times meaningless), add the winners to --tuning-db FILE, then build with them");
    app.add_option("--tune-reps", a->tune_reps, "--tune: timed launches per candidate tile, median taken (default 20)")
        ->each([a](const std::string&) { a->tune_reps_given = true; });
    app.add_flag("-q,--quiet", a->quiet, "print nothing on success");
    app.add_flag("-v,--verbose", a->verbose, "print each pass with its time and the compiler commands");
    app.add_flag("--profile-hooks", a->profile, "time every kernel (for mxc perf / run --profile); off: no cost");
    app.add_flag("--debug-trace", a->debug_trace,
                 "MXC_TRACE_EVAL=1 prints each instruction as it runs (=2: with values); enables mxc run --io-dump");
    app.callback([a, &app] {
        if (app.get_subcommands().empty()) {
            if (a->model.empty()) throw CLI::CallForHelp();
            run_compile(*a);
        }
    });
}

} // namespace mxc::cli
