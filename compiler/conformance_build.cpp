// Cached builds of the generated libraries for the conformance runner. A library is kept in
// the cache under a hash of everything that goes into it (the generated files, the embedded
// templates and runtime stub, the compiler command), so an unchanged test is never rebuilt.
// cpu builds are tuned for many tiny models: -O1, and the kernel templates come from one
// precompiled header built once per cache (gcc ignores it and reads the headers if it does
// not fit). hip builds for the host emulator (--offload-arch emu) likewise, with the emulator
// header and the hip templates precompiled.
#include "codegen/embedded.hpp"
#include "codegen/emit.hpp"
#include "codegen/lower.hpp"
#include "compiler/build_driver.hpp"
#include "compiler/build_util.hpp"
#include "compiler/conformance.hpp"
#include "compiler/object_cache.hpp"
#include "ir/error.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <sstream>

#include <unistd.h>

namespace fs = std::filesystem;

namespace mxc::conformance {

namespace {
// The embedded templates and runtime stub, hashed once (every build's key includes them). A
// cpu build's, without what only hip builds include (templates/hip, the emulator and CUDA
// shims: runtime-stub includes templates/hip only for MXC_TARGET_HIP): a change to the hip
// kernels rebuilt all 1712 cpu conformance libraries (680 s of CI on 2 cores).
std::string hash_embedded(bool hip) {
    object_cache::hasher h;
    for (auto& f : embedded_files()) {
        const std::string_view p(f.path);
        if (!hip && (p.starts_with("templates/hip/") || p.starts_with("runtime-stub/emu/") || p.starts_with("runtime-stub/cuda/")))
            continue;
        h.add(f.path);
        h.add(f.content);
    }
    return h.hex();
}
const std::string& embedded_digest(bool hip) {
    static const std::string d[2] = {hash_embedded(false), hash_embedded(true)};
    return d[hip];
}

std::string first_error(const std::string& output) {
    std::istringstream in(output);
    std::string first;
    for (std::string line; std::getline(in, line);) {
        if (first.empty()) first = line;
        if (line.find("error") != std::string::npos) return line;
    }
    return first;
}

// A directory filled by `fill` and renamed into place, so parallel children never see half of it.
void make_dir_atomically(const fs::path& dir, const std::function<void(const fs::path&)>& fill) {
    std::error_code ec;
    if (fs::is_directory(dir, ec)) return;
    fs::create_directories(dir.parent_path());
    std::string tmpl = (dir.parent_path() / "tmp-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw error("cannot create a directory in " + dir.parent_path().string());
    try {
        fill(tmpl);
    } catch (...) {
        fs::remove_all(tmpl, ec);
        throw;
    }
    fs::rename(tmpl, dir, ec);
    if (ec) fs::remove_all(tmpl, ec); // another process made it first
}

const std::vector<std::string> cpu_flags = {"-std=c++17", "-O1", "-fPIC", "-fvisibility=hidden"};
// The emulator's flags (as build_driver's object_command for emu), the include path after -I DIR.
const std::vector<std::string> emu_flags = {"-std=c++17", "-O1", "-fPIC", "-fvisibility=hidden"};

std::string cxx() {
    const char* c = std::getenv("CXX");
    return c && *c ? c : "g++";
}

// The embedded templates and runtime stub, with the precompiled header of every cpu kernel
// template (emu: the emulator header and every hip kernel template): <cache>/src[-emu]-<hash>.
// Built once.
fs::path shared_sources(const std::string& cache_dir, bool emu = false) {
    object_cache::hasher h;
    h.add(embedded_digest(emu));
    h.add(cxx());
    for (auto& f : emu ? emu_flags : cpu_flags) h.add(f);
    fs::path dir = fs::path(cache_dir) / ((emu ? "src-emu-" : "src-") + h.hex());
    make_dir_atomically(dir, [emu](const fs::path& d) {
        std::string pch = std::string("// Every ") + (emu ? "hip" : "cpu") +
                          " kernel template, precompiled once for the conformance builds.\n"
                          "#include <stdarg.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n";
        if (emu) pch += "#include <hip/hip_runtime.h>\n";
        std::string dir_of_templates = emu ? "templates/hip/" : "templates/cpu/";
        for (auto& f : embedded_files()) {
            write_file(d / std::string(f.path), f.content);
            std::string p(f.path);
            if (p.rfind(dir_of_templates, 0) == 0 && p.size() > 4 && p.substr(p.size() - 4) == ".hpp")
                pch += "#include \"" + p + "\"\n";
        }
        // the runtime stub's thread pool (<thread>, <condition_variable>, ...): a quarter of a
        // cpu test's compile time when parsed per test; it depends on no macro of the model's
        if (!emu) pch += "#include \"runtime-stub/thread_pool.hpp\"\n";
        write_file(d / "conformance_pch.hpp", pch);
        std::vector<std::string> cmd = {cxx()};
        for (auto& f : emu ? emu_flags : cpu_flags) cmd.push_back(f);
        if (emu) cmd.push_back("-Iruntime-stub/emu");
        cmd.insert(cmd.end(), {"-I.", "-x", "c++-header", "conformance_pch.hpp", "-o", "conformance_pch.hpp.gch"});
        auto r = run_process(cmd, d.string());
        if (r.status != 0) throw error("building the precompiled header failed: " + first_error(r.output));
    });
    return dir;
}

// Drops what no run has used for two weeks (a hit refreshes a library's time), and what
// interrupted runs left behind.
void prune_cache(const std::string& cache_dir) {
    std::error_code ec;
    auto now = fs::file_time_type::clock::now();
    for (auto& e : fs::directory_iterator(cache_dir, ec)) {
        std::string name = e.path().filename().string();
        auto age = now - e.last_write_time(ec);
        bool scratch = name.rfind("tmp-", 0) == 0 || name.rfind("build-", 0) == 0;
        if (!ec && age > (scratch ? std::chrono::hours(24) : std::chrono::hours(24 * 14))) fs::remove_all(e.path(), ec);
    }
}
} // namespace

void prepare_builds(const run_options& o) {
    if (o.target == "ref") return;
    fs::create_directories(o.cache_dir);
    prune_cache(o.cache_dir);
    if (o.target == "cpu" || is_emu_arch(o.offload_arch))
        fs::last_write_time(shared_sources(o.cache_dir, o.target != "cpu"), fs::file_time_type::clock::now());
}

std::string build_cached(module& m, const run_options& o) {
    lowered_module l = lower(m);
    build_options bo;
    bo.target = o.target;
    bo.offload_arch = o.offload_arch;
    bo.hip_compiler = o.hip_compiler;
    prepare_lowered(l, bo);
    emitted_library lib = emit_library(l, o.target, "conformance");
    // cpu and emu: the kernel sources are compiled with the precompiled header, then linked
    // with the weights' source (which includes nothing: loading the header for it would cost a
    // fifth of a small test's build).
    std::vector<std::vector<std::string>> cmds;
    if (o.target == "cpu" || is_emu_arch(o.offload_arch)) {
        const bool emu = o.target != "cpu";
        fs::path src = shared_sources(o.cache_dir, emu);
        std::vector<std::string> compile = {cxx()}, link = {cxx()}, objects;
        if (emu) compile.insert(compile.end(), {"-x", "c++"});
        const auto& flags = emu ? emu_flags : cpu_flags;
        for (auto* cmd : {&compile, &link}) cmd->insert(cmd->end(), flags.begin(), flags.end());
        compile.insert(compile.end(), {"-c", "-I."});
        if (emu) compile.push_back("-I" + (src / "runtime-stub/emu").string());
        compile.insert(compile.end(), {"-I" + src.string(), "-include", (src / "conformance_pch.hpp").string()});
        std::vector<std::string> sources = {lib.model_source};
        sources.insert(sources.end(), lib.units.begin(), lib.units.end());
        for (auto& s : sources) {
            compile.push_back(s);
            objects.push_back(fs::path(s).stem().string() + ".o");
        }
        link.push_back("-shared");
        link.insert(link.end(), objects.begin(), objects.end());
        link.insert(link.end(), {lib.weights_source, "-Wl,--version-script=" + lib.exports, "-o", "lib.so"});
        cmds = {compile, link};
    } else {
        cmds = {compile_command(lib, bo, "lib.so")};
    }
    object_cache::hasher h;
    h.add(embedded_digest(o.target != "cpu"));
    for (auto& cmd : cmds)
        for (auto& a : cmd) h.add(a);
    for (auto& f : lib.files) {
        h.add(f.path);
        h.add(f.content);
    }
    fs::path out = fs::path(o.cache_dir) / (o.target + "-" + h.hex() + ".so");
    std::error_code ec;
    if (fs::is_regular_file(out, ec)) {
        fs::last_write_time(out, fs::file_time_type::clock::now(), ec);
        return out.string();
    }

    fs::create_directories(o.cache_dir);
    std::string tmpl = (fs::path(o.cache_dir) / "build-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw error("cannot create a build directory in " + o.cache_dir);
    struct cleanup {
        std::string dir;
        ~cleanup() {
            std::error_code e;
            fs::remove_all(dir, e);
        }
    } guard{tmpl};
    if (o.target == "cpu" || is_emu_arch(o.offload_arch))
        for (auto& f : lib.files) write_file(fs::path(tmpl) / f.path, f.content);
    else
        write_sources(lib, bo, tmpl);
    for (auto& cmd : cmds) {
        auto r = run_process(cmd, tmpl);
        if (r.status != 0)
            throw error("building the " + o.target + " library failed (" + cmd[0] + " exited with status " +
                        std::to_string(r.status) + "): " + first_error(r.output));
    }
    fs::rename(fs::path(tmpl) / "lib.so", out, ec);
    if (ec) throw error("cannot move the built library into " + out.string() + ": " + ec.message());
    return out.string();
}

} // namespace mxc::conformance
