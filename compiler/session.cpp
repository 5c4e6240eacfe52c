#include "compiler/session.hpp"
#include "codegen/lower.hpp"
#include "compiler/build_driver.hpp"
#include "compiler/library_api.hpp"
#include "compiler/object_cache.hpp"
#include "compiler/tensor_io.hpp"
#include "ir/error.hpp"
#include "ir/eval.hpp"
#include "passes/pass_manager.hpp"

#include <elf.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

namespace fs = std::filesystem;

namespace mxc {

namespace {
// The kernel table's entries, as runtime-stub/hooks.hpp declares them.
struct c_kernel_info {
    const char *name, *op, *text, *inputs, *output;
    double flops, bytes;
    int dtype;
    int64_t elements;
};
using observer_fn = void (*)(void*, size_t, const void*, size_t);

class library_session : public session {
public:
    library_session(const std::string& path, std::string tmp_dir, int threads)
        : tmp_(std::move(tmp_dir)), lib_(fs::absolute(path), library_prefix(path)) {
        const char* (*info)() = nullptr;
        if (find(info, "build_info")) build_info = info();
        target = build_info.find("target hip") != std::string::npos ? "hip" : "cpu";
        find(profile_, "profile");
        find(debug_run_, "debug_run");
        find(time_runs_, "time_runs");
        find(graph_stats_, "graph_stats");
        size_t (*num_kernels)() = nullptr;
        const c_kernel_info* (*kernel_info)(size_t) = nullptr;
        if (find(num_kernels, "num_kernels") && find(kernel_info, "kernel_info"))
            for (size_t i = 0; i < num_kernels(); ++i) {
                auto* k = kernel_info(i);
                kernels.push_back({k->name, k->op, k->text, k->inputs, k->output, k->flops, k->bytes});
            }
        can_profile = profile_ && !kernels.empty();
        can_observe = debug_run_ && !kernels.empty();
        if (int s = lib_.create(&model_, nullptr))
            throw error("cannot create an instance of " + path + " (status " + std::to_string(s) +
                        "): " + lib_.last_error(model_));
        auto infos = [&](size_t n, int (*fn)(const void*, size_t, api_tensor_info*), std::vector<tensor_desc>& out) {
            for (size_t i = 0; i < n; ++i) {
                api_tensor_info ti;
                if (fn(model_, i, &ti)) throw error(std::string("cannot query ") + path + ": " + lib_.last_error(model_));
                shape s(static_cast<dtype>(ti.dtype), {ti.dims, ti.dims + ti.rank}, {ti.strides, ti.strides + ti.rank});
                out.push_back({ti.name, s});
            }
        };
        if (threads >= 0) set_threads(path, threads);
        infos(lib_.num_inputs(model_), lib_.input_info, inputs);
        infos(lib_.num_outputs(model_), lib_.output_info, outputs);
        for (auto& o : outputs) out_buf_.emplace_back(static_cast<std::size_t>(o.s.bytes()));
        for (auto& b : out_buf_) out_ptr_.push_back(b.data());
    }
    ~library_session() override {
        lib_.destroy(model_);
        if (!tmp_.empty()) {
            std::error_code ec;
            fs::remove_all(tmp_, ec);
        }
    }
    void prepare(const std::vector<literal>& in) override {
        in_ = in;
        in_ptr_.clear();
        for (auto& l : in_) in_ptr_.push_back(l.data());
    }
    void execute() override { check(lib_.run(model_, in_ptr_.data(), out_ptr_.data()), "run"); }
    void execute_profiled(std::vector<double>& start, std::vector<double>& time) override {
        if (!profile_) throw error("the library was built without --profile-hooks");
        start.assign(kernels.size(), 0);
        time.assign(kernels.size(), 0);
        check(profile_(model_, in_ptr_.data(), out_ptr_.data(), start.data(), time.data()), "profile");
    }
    void execute_observed(const std::function<void(std::size_t, const literal&)>& observe) override {
        if (!debug_run_) throw error("the library was built without --debug-trace");
        struct ctx_t {
            const std::function<void(std::size_t, const literal&)>* f;
            library_session* self;
        } ctx{&observe, this};
        auto cb = [](void* user, size_t i, const void* data, size_t bytes) {
            auto* c = static_cast<ctx_t*>(user);
            (void)bytes;
            literal l = c->self->kernel_value(i, data);
            (*c->f)(i, l);
        };
        check(debug_run_(model_, in_ptr_.data(), out_ptr_.data(), cb, &ctx), "debug_run");
    }
    std::vector<literal> results() override {
        std::vector<literal> r;
        for (std::size_t i = 0; i < outputs.size(); ++i) r.emplace_back(outputs[i].s.as_standard(), out_buf_[i]);
        return r;
    }
    bool time_runs(int n, std::vector<double>& run_ms) override {
        if (!time_runs_) return false;
        run_ms.assign(static_cast<std::size_t>(n), 0);
        check(time_runs_(model_, in_ptr_.data(), out_ptr_.data(), n, run_ms.data()), "time_runs");
        return true;
    }
    bool graph_stats(std::size_t& captures, std::size_t& replays, std::size_t& direct) override {
        if (!graph_stats_) return false;
        check(graph_stats_(model_, &captures, &replays, &direct), "graph_stats");
        return true;
    }

private:
    void set_threads(const std::string& path, int threads) {
        if (target != "cpu")
            throw error("--threads sets a cpu library's thread pool; " + path + " is built for " + target);
        int (*set_num_threads)(void*, int) = nullptr;
        if (!find(set_num_threads, "set_num_threads"))
            throw error("--threads: " + path + " has no set_num_threads (built by an older mxc?)");
        check(set_num_threads(model_, threads), "set_num_threads");
    }
    literal kernel_value(std::size_t i, const void* data) {
        const c_kernel_info* k = nullptr;
        const c_kernel_info* (*kernel_info)(size_t) = nullptr;
        find(kernel_info, "kernel_info");
        k = kernel_info(i);
        std::vector<int64_t> lens;
        std::istringstream in(k->output);
        for (char c; in >> c;)
            if (std::isdigit(static_cast<unsigned char>(c))) {
                in.putback(c);
                int64_t d;
                in >> d;
                lens.push_back(d);
            }
        shape s(static_cast<dtype>(k->dtype), lens);
        const char* p = static_cast<const char*>(data);
        return literal(s, std::vector<char>(p, p + s.bytes()));
    }
    template <class F> bool find(F& fn, const std::string& what) { return lib_.find(fn, what); }
    void check(int status, const char* what) {
        if (status) throw error(std::string(what) + " failed (status " + std::to_string(status) + "): " + lib_.last_error(model_));
    }

    std::string tmp_;
    library_api lib_;
    void* model_ = nullptr;
    int (*profile_)(void*, const void* const*, void* const*, double*, double*) = nullptr;
    int (*debug_run_)(void*, const void* const*, void* const*, observer_fn, void*) = nullptr;
    int (*time_runs_)(void*, const void* const*, void* const*, int, double*) = nullptr;
    int (*graph_stats_)(const void*, size_t*, size_t*, size_t*) = nullptr;
    std::vector<literal> in_;
    std::vector<const void*> in_ptr_;
    std::vector<std::vector<char>> out_buf_;
    std::vector<void*> out_ptr_;
};

// The reference evaluator over the module after the pipeline, with the outputs made kernels
// as lowering does, so its kernels carry the same names as a library's.
class ref_session : public session {
public:
    explicit ref_session(program p) : p_(std::move(p)) {
        target = "ref";
        module& m = p_.main();
        make_outputs_kernels(m);
        auto names = instruction_names(m);
        std::istringstream text(print(m));
        std::string line;
        std::getline(text, line);
        std::size_t i = 0;
        for (auto& ins : m.instructions) {
            std::getline(text, line);
            if (ins.is_param()) inputs.push_back({ins.param_name, ins.result});
            if (!ins.is_builtin() && !is_view(ins)) {
                index_[&ins] = kernels.size();
                kernels.push_back({names[i], ins.op, line, "", "", 0, 0});
            }
            ++i;
        }
        auto outs = m.outputs();
        for (std::size_t j = 0; j < outs.size(); ++j)
            outputs.push_back({j < m.output_names.size() && !m.output_names[j].empty() ? m.output_names[j]
                                                                                        : "output" + std::to_string(j),
                               outs[j]->result.as_standard()});
        can_profile = true;
        can_observe = true;
    }
    void prepare(const std::vector<literal>& in) override {
        in_.clear();
        for (std::size_t i = 0; i < in.size(); ++i) in_[inputs[i].name] = in[i];
    }
    void execute() override { out_ = evaluate(p_.main(), in_); }
    void execute_profiled(std::vector<double>& start, std::vector<double>& time) override {
        start.assign(kernels.size(), 0);
        time.assign(kernels.size(), 0);
        using clock = std::chrono::steady_clock;
        auto t0 = clock::now(), last = t0;
        out_ = evaluate(p_.main(), in_, [&](const instruction& ins, const tensor&) {
            auto now = clock::now();
            if (auto it = index_.find(&ins); it != index_.end()) {
                start[it->second] = std::chrono::duration<double, std::milli>(last - t0).count();
                time[it->second] = std::chrono::duration<double, std::milli>(now - last).count();
            }
            last = now;
        });
    }
    void execute_observed(const std::function<void(std::size_t, const literal&)>& observe) override {
        out_ = evaluate(p_.main(), in_, [&](const instruction& ins, const tensor& t) {
            if (auto it = index_.find(&ins); it != index_.end()) observe(it->second, t.pack());
        });
    }
    std::vector<literal> results() override { return out_; }

private:
    program p_;
    std::map<const instruction*, std::size_t> index_;
    std::map<std::string, literal> in_;
    std::vector<literal> out_;
};

program load_program(const std::string& path, const import_options& o) {
    if (path.ends_with(".mxir")) {
        std::ifstream f(path, std::ios::binary);
        if (!f) throw error("cannot read " + path);
        std::stringstream text;
        text << f.rdbuf();
        program p = parse_program(text.str());
        for (auto& m : p.modules) verify(*m);
        return p;
    }
    return import_onnx(path, o);
}
} // namespace

bool is_library_path(const std::string& path) { return path.ends_with(".so") || path.find(".so.") != std::string::npos; }

std::string library_prefix(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw error("cannot read " + path);
    std::string b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    auto bad = [&] { return error(path + ": not a library built by mxc (no <name>_build_info in its symbols)"); };
    if (b.size() < sizeof(Elf64_Ehdr) || b.compare(0, 4, ELFMAG) != 0 || b[EI_CLASS] != ELFCLASS64) throw bad();
    Elf64_Ehdr eh;
    std::memcpy(&eh, b.data(), sizeof eh);
    auto section = [&](std::size_t i) {
        Elf64_Shdr sh{};
        std::size_t off = eh.e_shoff + i * sizeof(Elf64_Shdr);
        if (off + sizeof sh > b.size()) throw bad();
        std::memcpy(&sh, b.data() + off, sizeof sh);
        return sh;
    };
    for (std::size_t i = 0; i < eh.e_shnum; ++i) {
        Elf64_Shdr sym = section(i);
        if (sym.sh_type != SHT_DYNSYM) continue;
        Elf64_Shdr str = section(sym.sh_link);
        if (sym.sh_offset + sym.sh_size > b.size() || str.sh_offset + str.sh_size > b.size()) throw bad();
        for (std::size_t k = 0; k < sym.sh_size / sizeof(Elf64_Sym); ++k) {
            Elf64_Sym s;
            std::memcpy(&s, b.data() + sym.sh_offset + k * sizeof s, sizeof s);
            if (s.st_name >= str.sh_size || s.st_shndx == SHN_UNDEF) continue;
            std::string name(b.data() + str.sh_offset + s.st_name, strnlen(b.data() + str.sh_offset + s.st_name,
                                                                             str.sh_size - s.st_name));
            if (name.ends_with("_build_info")) return name.substr(0, name.size() - 11);
        }
    }
    throw bad();
}

std::unique_ptr<session> open_session(const std::string& path, const session_options& o) {
    if (!fs::exists(path)) throw error("cannot read '" + path + "': no such file");
    if (o.target != "" && o.target != "ref" && o.target != "cpu" && o.target != "hip")
        throw error("unknown --target '" + o.target + "' (expected ref, cpu or hip)");
    if (o.threads >= 0 && (o.target == "ref" || o.target == "hip"))
        throw error("--threads sets the cpu target's thread pool; --target " + o.target +
                    (o.target == "ref" ? " (the reference evaluator) runs on one thread" : " runs on the GPU"));
    if (is_library_path(path)) {
        if (o.target == "ref") throw error("--target ref runs a model (.onnx), not a library: " + path);
        if (o.fp16)
            throw error("--fp16 compiles a model in half precision; " + path +
                        " is a library already (build one with mxc MODEL.onnx --fp16 -o LIB.so)");
        auto s = std::make_unique<library_session>(path, "", o.threads);
        if (!o.target.empty() && o.target != s->target)
            throw error(path + " was built for " + s->target + ", not --target " + o.target);
        return s;
    }
    program p = load_program(path, o.import);
    if (!o.optimise && o.target != "ref") throw error("internal: only the reference runs a program without the passes");
    if (o.optimise) run_passes(p, default_pipeline(o.fp16));
    if (o.target == "ref") return std::make_unique<ref_session>(std::move(p));

    build_options bo;
    bo.target = o.target.empty() ? "cpu" : o.target;
    bo.offload_arch = o.offload_arch;
    bo.hip_compiler = o.hip_compiler;
    bo.profile = o.profile;
    bo.debug_trace = o.debug_trace;
    bo.name = "model";
    bo.cache_dir = o.cache ? object_cache::default_dir() : "";
    if (bo.target == "hip" && bo.offload_arch.empty()) {
        bo.offload_arch = detect_offload_arch();
        if (bo.offload_arch.empty()) throw error("--target hip: no GPU found here (pass --offload-arch, e.g. emu for the host emulator, or use --target cpu)");
    }
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/mxc-tool-XXXXXX";
    if (!mkdtemp(tmpl.data())) throw error("cannot create a temporary directory");
    std::string lib = tmpl + "/libmodel.so";
    try {
        if (!o.quiet) std::cerr << "mxc: compiling " << path << " for " << bo.target << "\n";
        compile_module(p.main(), lib, bo);
        return std::make_unique<library_session>(lib, tmpl, o.threads);
    } catch (...) {
        std::error_code ec;
        fs::remove_all(tmpl, ec);
        throw;
    }
}

std::vector<literal> make_inputs(const session& s, const std::vector<std::string>& specs, bool quiet) {
    std::map<std::string, std::string> given;
    for (auto& spec : specs) {
        auto colon = spec.find(':');
        if (colon == std::string::npos || colon == 0)
            throw error("--input expects NAME:VALUE (a .npy/.pb/.json file or an inline array), got '" + spec + "'");
        std::string name = spec.substr(0, colon);
        bool known = false;
        for (auto& in : s.inputs) known |= in.name == name;
        if (!known) {
            std::string list;
            for (auto& in : s.inputs) list += (list.empty() ? "'" : ", '") + in.name + "'";
            throw error("--input " + name + ": the model has no input '" + name + "' (its inputs: " + list + ")");
        }
        if (!given.emplace(name, spec.substr(colon + 1)).second) throw error("--input " + name + " is given twice");
    }
    std::vector<literal> r;
    const uint64_t seed = 42;
    for (std::size_t i = 0; i < s.inputs.size(); ++i) {
        auto& in = s.inputs[i];
        shape want = in.s.as_standard();
        if (auto it = given.find(in.name); it != given.end()) {
            r.push_back(read_input_value(it->second, in.name, want));
        } else {
            if (!quiet) std::cerr << "mxc: input '" << in.name << "' is random (uniform, seed " << seed + i << ")\n";
            r.push_back(random_tensor(want, seed + i));
        }
    }
    return r;
}

} // namespace mxc
