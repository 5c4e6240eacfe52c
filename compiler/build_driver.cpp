#include "compiler/build_driver.hpp"
#include "compiler/build_util.hpp"
#include "compiler/cleanup.hpp"
#include "compiler/kernel_resources.hpp"
#include "compiler/object_cache.hpp"
#include "compiler/tune.hpp"
#include "codegen/embedded.hpp"
#include "codegen/channels_last_weights.hpp"
#include "codegen/conv_weights_panels.hpp"
#include "codegen/dot_weights_strips.hpp"
#include "codegen/gemm_choice.hpp"
#include "ir/error.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace mxc {

namespace {
const char* default_hip_clang = "clang++-15";
const char* default_nvcc = "/usr/local/cuda/bin/nvcc";

// Runs the commands in `cwd`, at most `jobs` at once (each child registered with the cleanup
// slot). Stops the others after the first failure. The results in the order of `cmds`; the
// ones never started keep status -1. `done(i)` is called as command i ends successfully.
std::vector<process_result> run_parallel(const std::vector<std::vector<std::string>>& cmds, const std::string& cwd,
                                         int cleanup_slot, int jobs,
                                         const std::function<void(std::size_t)>& done = {}) {
    jobs = std::clamp(jobs, 1, cleanup::max_children);
    std::vector<process_result> results(cmds.size());
    std::vector<pid_t> killed; // stopped after another failed: not a result of their own
    struct running {
        pid_t pid;
        std::size_t index;
        int k;           // the cleanup child number
        std::string log; // stdout and stderr
    };
    std::vector<running> run;
    std::vector<bool> k_used(static_cast<std::size_t>(jobs), false);
    auto start = [&](std::size_t i) {
        int k = static_cast<int>(std::find(k_used.begin(), k_used.end(), false) - k_used.begin());
        std::string log = (fs::path(cwd) / (".mxc-log-" + std::to_string(i))).string();
        int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0) throw error("cannot write " + log + ": " + std::strerror(errno));
        std::vector<char*> argv;
        for (auto& a : cmds[i]) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        pid_t pid = fork();
        if (pid < 0) {
            close(fd);
            throw error(std::string("cannot start a process: ") + std::strerror(errno));
        }
        if (pid == 0) { // the child: only async-signal-safe calls until exec
            dup2(fd, 1);
            dup2(fd, 2);
            if (chdir(cwd.c_str()) != 0) _exit(126);
            execvp(argv[0], argv.data());
            const char msg[] = "mxc: exec failed\n";
            ssize_t ignored = write(2, msg, sizeof msg - 1);
            (void)ignored;
            _exit(127);
        }
        close(fd);
        k_used[static_cast<std::size_t>(k)] = true;
        cleanup::set_child(cleanup_slot, pid, k);
        run.push_back({pid, i, k, log});
    };
    auto finish = [&](std::size_t r, int st) {
        auto& p = run[r];
        cleanup::set_child(cleanup_slot, 0, p.k);
        k_used[static_cast<std::size_t>(p.k)] = false;
        auto& res = results[p.index];
        res.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
        if (std::find(killed.begin(), killed.end(), p.pid) != killed.end()) res.status = -1;
        std::ifstream f(p.log, std::ios::binary);
        std::ostringstream text;
        text << f.rdbuf();
        res.output = text.str();
        ::unlink(p.log.c_str());
        run.erase(run.begin() + static_cast<std::ptrdiff_t>(r));
    };
    std::size_t next = 0;
    bool failed = false;
    try {
        while (next < cmds.size() || !run.empty()) {
            while (!failed && next < cmds.size() && static_cast<int>(run.size()) < jobs) start(next++);
            if (failed && next < cmds.size()) next = cmds.size();
            bool any = false;
            for (std::size_t r = 0; r < run.size();) {
                int st = 0;
                pid_t w = waitpid(run[r].pid, &st, WNOHANG);
                if (w == run[r].pid) {
                    std::size_t index = run[r].index;
                    finish(r, st);
                    failed |= results[index].status > 0;
                    if (results[index].status == 0 && done) done(index);
                    any = true;
                } else {
                    ++r;
                }
            }
            if (failed)
                for (auto& p : run)
                    if (std::find(killed.begin(), killed.end(), p.pid) == killed.end()) {
                        kill(p.pid, SIGKILL);
                        killed.push_back(p.pid);
                    }
            if (!any && !run.empty()) usleep(5000);
        }
    } catch (...) {
        for (auto& p : run) {
            kill(p.pid, SIGKILL);
            int st = 0;
            waitpid(p.pid, &st, 0);
            cleanup::set_child(cleanup_slot, 0, p.k);
        }
        throw;
    }
    return results;
}

// The first error lines of a compiler's output (or its first lines when none says "error").
std::string first_errors(const std::string& output) {
    std::istringstream in(output);
    std::vector<std::string> lines, errors;
    for (std::string line; std::getline(in, line);) {
        if (line.empty()) continue;
        lines.push_back(line);
        if (line.find("error") != std::string::npos && errors.size() < 8) errors.push_back(line);
    }
    auto& pick = errors.empty() ? lines : errors;
    std::string r;
    for (std::size_t i = 0; i < pick.size() && i < 8; ++i) r += "\n  " + pick[i];
    return r;
}

// A private directory under $TMPDIR, removed with everything in it when the guard goes.
struct temp_dir {
    std::string path;
    int slot = -1;
    temp_dir() {
        const char* base = std::getenv("TMPDIR");
        std::string tmpl = std::string(base && *base ? base : "/tmp") + "/mxc-build-XXXXXX";
        if (!mkdtemp(tmpl.data())) throw error("cannot create a temporary directory: " + std::string(std::strerror(errno)));
        path = tmpl;
        slot = cleanup::add(path, true);
    }
    ~temp_dir() {
        std::error_code ec;
        fs::remove_all(path, ec);
        cleanup::remove(slot);
    }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;
};

// A fresh, unique file name next to `path` (created empty, so nobody else takes it).
std::string temp_beside(const std::string& path) {
    std::string tmpl = path + ".mxc-XXXXXX";
    int fd = mkstemp(tmpl.data());
    if (fd < 0) throw error("cannot write next to " + path + ": " + std::strerror(errno));
    close(fd);
    return tmpl;
}

// Removes a file unless released (also on Ctrl-C).
struct file_guard {
    std::string path;
    int slot;
    explicit file_guard(std::string p) : path(std::move(p)), slot(cleanup::add(path, false)) {}
    ~file_guard() {
        if (!path.empty()) ::unlink(path.c_str());
        cleanup::remove(slot);
    }
    file_guard(const file_guard&) = delete;
    file_guard& operator=(const file_guard&) = delete;
};

std::vector<std::string> split_words(const std::string& s) {
    std::istringstream in(s);
    std::vector<std::string> r;
    for (std::string w; in >> w;) r.push_back(w);
    return r;
}

std::string shell_quote(const std::string& s) {
    if (!s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("-_=./,+:@", c);
        }))
        return s;
    std::string r = "'";
    for (char c : s) r += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return r + "'";
}

std::string join_command(const std::vector<std::string>& cmd) {
    std::string r;
    for (auto& a : cmd) r += (r.empty() ? "" : " ") + shell_quote(a);
    return r;
}

bool is_amd_arch(const std::string& a) { return a.rfind("gfx", 0) == 0; }
bool is_nvidia_arch(const std::string& a) { return a.rfind("sm_", 0) == 0; }

std::string host_cxx() {
    const char* cxx = std::getenv("CXX");
    return cxx && *cxx ? cxx : "g++";
}
// $MXC_CPU_CFLAGS: extra flags, e.g. "-fsanitize=address,undefined" for the sanitizer tests.
std::vector<std::string> cpu_cflags() {
    const char* extra = std::getenv("MXC_CPU_CFLAGS");
    return split_words(extra ? extra : "");
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
} // namespace

std::string default_name(const std::string& output) {
    std::string base = fs::path(output).filename().string();
    if (base.rfind("lib", 0) == 0 && base.size() > 3) base = base.substr(3);
    base = base.substr(0, base.find('.'));
    for (auto& c : base)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
    if (base.empty()) return "model";
    if (std::isdigit(static_cast<unsigned char>(base[0]))) base = "m" + base;
    return base;
}

void check_name(const std::string& name) {
    bool ok = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
              std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
    if (!ok) throw error("--name '" + name + "' is not a C identifier (letters, digits and '_', not starting with a digit)");
}

std::string header_path(const std::string& output) {
    fs::path p(output);
    std::string stem = p.filename().string();
    stem = stem.substr(0, stem.find('.'));
    if (stem.empty()) stem = p.filename().string();
    return (p.parent_path() / (stem + ".h")).string();
}

std::string detect_offload_arch() {
    // AMD: the kernel driver's topology names each GPU's gfx target version (major, minor, stepping).
    std::error_code ec;
    std::vector<fs::path> nodes;
    for (auto& e : fs::directory_iterator("/sys/class/kfd/kfd/topology/nodes", ec)) nodes.push_back(e.path());
    std::sort(nodes.begin(), nodes.end());
    for (auto& n : nodes) {
        std::ifstream f(n / "properties");
        for (std::string key; f >> key;) {
            long long v = 0;
            if (!(f >> v)) break;
            if (key == "gfx_target_version" && v > 0) {
                const char* hex = "0123456789abcdef";
                return "gfx" + std::to_string(v / 10000) + hex[(v / 100) % 100 % 16] + hex[v % 100 % 16];
            }
        }
    }
    // NVIDIA: the driver's tool reports the compute capability.
    for (const char* smi : {"/usr/bin/nvidia-smi", "/usr/local/nvidia/bin/nvidia-smi"}) {
        if (access(smi, X_OK) != 0) continue;
        auto r = run_process({smi, "--query-gpu=compute_cap", "--format=csv,noheader"}, "");
        auto dot = r.output.find('.');
        if (r.status == 0 && dot != std::string::npos && dot > 0) {
            std::string major = r.output.substr(0, dot), minor = r.output.substr(dot + 1, 1);
            if (std::isdigit(static_cast<unsigned char>(major.back())) && std::isdigit(static_cast<unsigned char>(minor[0])))
                return "sm_" + major + minor;
        }
    }
    return "";
}

void check_arch(const std::string& arch) {
    bool ok = is_emu_arch(arch) ||
              ((is_amd_arch(arch) || is_nvidia_arch(arch)) && arch.size() > 3 &&
               std::all_of(arch.begin(), arch.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }));
    if (!ok)
        throw error("unknown --offload-arch '" + arch +
                    "' (expected gfxNNN for AMD, e.g. gfx90a, sm_NN for NVIDIA, e.g. sm_90, or emu for the host SIMT emulator)");
}

std::vector<std::string> compile_command(const emitted_library& lib, const build_options& opts, const std::string& out) {
    std::vector<std::string> cmd;
    if (lib.target == "cpu") {
        cmd = split_words(host_cxx());
        for (const char* a : {"-std=c++17", "-O3", "-fPIC", "-shared", "-fvisibility=hidden", "-I."}) cmd.push_back(a);
        if (!opts.cpu_arch.empty()) cmd.push_back("-march=" + opts.cpu_arch);
        for (auto& w : cpu_cflags()) cmd.push_back(w);
        cmd.push_back(lib.model_source);
        cmd.insert(cmd.end(), lib.units.begin(), lib.units.end());
        cmd.insert(cmd.end(), {lib.weights_source, "-Wl,--version-script=" + lib.exports, "-o", out});
        return cmd;
    }
    check_arch(opts.offload_arch);
    if (is_emu_arch(opts.offload_arch)) {
        // The host SIMT emulator: runtime-stub/emu shadows <hip/hip_runtime.h>.
        cmd = split_words(opts.hip_compiler.empty() ? host_cxx() : opts.hip_compiler);
        for (const char* a : {"-x", "c++", "-std=c++17", "-O1", "-fPIC", "-shared", "-fvisibility=hidden",
                              "-Iruntime-stub/emu", "-I."})
            cmd.push_back(a);
        cmd.push_back(lib.model_source);
        cmd.insert(cmd.end(), lib.units.begin(), lib.units.end());
        cmd.insert(cmd.end(), {lib.weights_source, "-Wl,--version-script=" + lib.exports, "-o", out});
    } else if (is_amd_arch(opts.offload_arch)) {
        cmd = {opts.hip_compiler.empty() ? default_hip_clang : opts.hip_compiler, "-x", "hip", "-std=c++17",
               "--rocm-path=/usr", "--rocm-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode",
               "--offload-arch=" + opts.offload_arch, "-O2", "-fPIC", "-shared", "-fvisibility=hidden", "-I.",
               lib.model_source};
        cmd.insert(cmd.end(), lib.units.begin(), lib.units.end());
        cmd.insert(cmd.end(), {"-x", "c++", lib.weights_source, "-Wl,--version-script=" + lib.exports, "-lamdhip64", "-o", out});
    } else {
        // runtime-stub/cuda shadows <hip/hip_runtime.h> with the HIP->CUDA compatibility header.
        std::string sm = opts.offload_arch;
        cmd = {opts.hip_compiler.empty() ? default_nvcc : opts.hip_compiler, "-x", "cu", "-std=c++17", "-arch=" + sm,
               "-O2", "-Xcompiler", "-fPIC,-fvisibility=hidden", "-shared", "-Iruntime-stub/cuda", "-I.",
               lib.model_source};
        cmd.insert(cmd.end(), lib.units.begin(), lib.units.end());
        cmd.insert(cmd.end(), {lib.weights_source, "-Xlinker", "--version-script=" + lib.exports, "-o", out});
    }
    return cmd;
}

namespace {
// The compiler and flags that compile one hip source for opts.offload_arch (host_only: the
// weights' plain C++ for gfx*), without the source and output: what object_command and
// program_command share.
std::vector<std::string> hip_compile_flags(const build_options& opts, bool host_only) {
    check_arch(opts.offload_arch);
    std::vector<std::string> cmd;
    if (is_emu_arch(opts.offload_arch)) {
        cmd = split_words(opts.hip_compiler.empty() ? host_cxx() : opts.hip_compiler);
        for (const char* a : {"-x", "c++", "-std=c++17", "-O1", "-fPIC", "-fvisibility=hidden", "-Iruntime-stub/emu", "-I."})
            cmd.push_back(a);
    } else if (is_amd_arch(opts.offload_arch)) {
        cmd = {opts.hip_compiler.empty() ? default_hip_clang : opts.hip_compiler};
        if (host_only) cmd.insert(cmd.end(), {"-x", "c++", "-std=c++17"});
        else
            cmd.insert(cmd.end(), {"-x", "hip", "-std=c++17", "--rocm-path=/usr",
                                   "--rocm-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode",
                                   "--offload-arch=" + opts.offload_arch});
        cmd.insert(cmd.end(), {"-O2", "-fPIC", "-fvisibility=hidden", "-I."});
    } else {
        cmd = {opts.hip_compiler.empty() ? default_nvcc : opts.hip_compiler, "-x", "cu", "-std=c++17",
               "-arch=" + opts.offload_arch, "-O2", "-Xcompiler", "-fPIC,-fvisibility=hidden", "-Iruntime-stub/cuda", "-I."};
    }
    if (!host_only) // each kernel's registers, stack and spills in the compiler's output (kernel_resources.hpp)
        for (auto& f : kernel_resource_flags(opts.offload_arch)) cmd.push_back(f);
    return cmd;
}
} // namespace

std::vector<std::string> object_command(const emitted_library& lib, const build_options& opts, const std::string& source,
                                        const std::string& object) {
    std::vector<std::string> cmd;
    if (lib.target == "cpu") {
        cmd = split_words(host_cxx());
        for (const char* a : {"-std=c++17", "-O3", "-fPIC", "-fvisibility=hidden", "-I."}) cmd.push_back(a);
        if (!opts.cpu_arch.empty()) cmd.push_back("-march=" + opts.cpu_arch);
        for (auto& w : cpu_cflags()) cmd.push_back(w);
    } else {
        cmd = hip_compile_flags(opts, source == lib.weights_source);
    }
    cmd.insert(cmd.end(), {"-c", source, "-o", object});
    return cmd;
}

std::vector<std::string> program_command(const build_options& opts, const std::string& source, const std::string& exe) {
    auto cmd = hip_compile_flags(opts, false);
    cmd.insert(cmd.end(), {source, "-o", exe});
    if (is_amd_arch(opts.offload_arch)) cmd.insert(cmd.end(), {"-L/usr/lib/x86_64-linux-gnu", "-lamdhip64"});
    return cmd;
}

std::vector<std::string> link_command(const emitted_library& lib, const build_options& opts,
                                      const std::vector<std::string>& objects, const std::string& out) {
    std::vector<std::string> cmd;
    if (lib.target == "cpu") {
        cmd = split_words(host_cxx());
        for (const char* a : {"-fPIC", "-shared"}) cmd.push_back(a);
        for (auto& w : cpu_cflags()) cmd.push_back(w);
        cmd.insert(cmd.end(), objects.begin(), objects.end());
        cmd.insert(cmd.end(), {"-Wl,--version-script=" + lib.exports, "-o", out});
    } else if (is_emu_arch(opts.offload_arch)) {
        cmd = split_words(opts.hip_compiler.empty() ? host_cxx() : opts.hip_compiler);
        for (const char* a : {"-fPIC", "-shared"}) cmd.push_back(a);
        cmd.insert(cmd.end(), objects.begin(), objects.end());
        cmd.insert(cmd.end(), {"-Wl,--version-script=" + lib.exports, "-o", out});
    } else if (is_amd_arch(opts.offload_arch)) {
        cmd = {opts.hip_compiler.empty() ? default_hip_clang : opts.hip_compiler, "-fPIC", "-shared"};
        cmd.insert(cmd.end(), objects.begin(), objects.end());
        cmd.insert(cmd.end(), {"-Wl,--version-script=" + lib.exports, "-L/usr/lib/x86_64-linux-gnu", "-lamdhip64", "-o", out});
    } else {
        cmd = {opts.hip_compiler.empty() ? default_nvcc : opts.hip_compiler, "-shared", "-arch=" + opts.offload_arch};
        cmd.insert(cmd.end(), objects.begin(), objects.end());
        cmd.insert(cmd.end(), {"-Xlinker", "--version-script=" + lib.exports, "-o", out});
    }
    return cmd;
}

void write_sources(const emitted_library& lib, const build_options& opts, const std::string& dir) {
    fs::path root(dir);
    for (auto& f : embedded_files()) write_file(root / std::string(f.path), f.content);
    for (auto& f : lib.files) write_file(root / f.path, f.content);
    auto cmd = compile_command(lib, opts, "lib" + lib.name + ".so");
    write_file(root / "build.sh", "#!/bin/sh\n# Builds the library from these sources (what mxc ran).\ncd \"$(dirname \"$0\")\" && " +
                                      join_command(cmd) + "\n");
}

namespace {
// Throws the compiler's first errors unless it succeeded.
void check_run(const process_result& r, const std::vector<std::string>& cmd, const build_options& opts,
               const std::string& what = "") {
    if (r.status == 127 && r.output.find("mxc: exec failed") != std::string::npos)
        throw error("cannot run '" + cmd[0] + "': not found" +
                    (opts.target == "hip" ? " (install hipcc / CUDA, or pass --hip-compiler PATH)" : " (set $CXX)"));
    if (r.status != 0)
        throw error("building the " + opts.target + " library failed: " + cmd[0] + " exited with status " +
                    std::to_string(r.status) + (what.empty() ? "" : " on " + what) + first_errors(r.output));
}

// Adds to `h` every embedded file (templates, runtime stub) that `text` includes, directly
// or through others, each once: an object's key changes only with what it includes. An
// include is looked up as written and under `shadow` (runtime-stub/cuda/ or runtime-stub/emu/:
// the headers that shadow <hip/hip_runtime.h> for nvcc and the emulator); what is not
// embedded is a system header, covered by the compiler's identity.
void add_includes(std::string_view text, std::set<std::string>& seen, object_cache::hasher& h, const std::string& shadow) {
    static const std::map<std::string, std::string_view> files = [] {
        std::map<std::string, std::string_view> m;
        for (auto& f : embedded_files()) m[std::string(f.path)] = f.content;
        return m;
    }();
    for (std::size_t p = text.find("#include"); p != std::string_view::npos; p = text.find("#include", p + 8)) {
        std::size_t open = text.find_first_of("\"<\n", p + 8);
        if (open == std::string_view::npos || text[open] == '\n') continue;
        std::size_t close = text.find_first_of("\">\n", open + 1);
        if (close == std::string_view::npos) break;
        std::string name(text.substr(open + 1, close - open - 1));
        for (const std::string& path : {name, shadow + name}) {
            auto it = files.find(path);
            if (it == files.end() || !seen.insert(path).second) continue;
            h.add(path);
            h.add(it->second);
            add_includes(it->second, seen, h, shadow);
        }
    }
}

// Compiles every translation unit of `lib` into an object (in parallel, skipping those in
// the cache); their paths in st.objects, in link order.
void build_objects(const emitted_library& lib, const build_options& opts, const temp_dir& dir, build_stats& st) {
    std::vector<std::string> sources = {lib.model_source};
    sources.insert(sources.end(), lib.units.begin(), lib.units.end());
    sources.push_back(lib.weights_source);
    auto content = [&](const std::string& path) -> const std::string& {
        for (auto& f : lib.files)
            if (f.path == path) return f.content;
        throw error("internal: no generated file " + path);
    };
    std::string compiler = object_command(lib, opts, lib.model_source, "x.o")[0];
    std::string identity = object_cache::compiler_identity(compiler);
    std::string shadow = is_emu_arch(opts.offload_arch) ? "runtime-stub/emu/" : "runtime-stub/cuda/";
    std::vector<std::vector<std::string>> cmds;
    std::vector<std::size_t> missing; // indices into sources
    std::vector<std::string> keys(sources.size());
    st.objects.assign(sources.size(), "");
    for (std::size_t i = 0; i < sources.size(); ++i) {
        std::string object = fs::path(sources[i]).stem().string() + ".o";
        auto cmd = object_command(lib, opts, sources[i], object);
        object_cache::hasher h;
        h.add("mxc object " MXC_VERSION);
        h.add(identity);
        for (auto& a : cmd) h.add(a);
        h.add(content(sources[i]));
        h.add(content(lib.header));
        std::set<std::string> seen;
        add_includes(content(sources[i]), seen, h, shadow);
        if (sources[i] == lib.weights_source) h.add(content("weights.bin"));
        keys[i] = h.hex();
        if (!identity.empty()) st.object_keys.push_back(keys[i]);
        st.objects[i] = identity.empty() ? "" : object_cache::find(opts.cache_dir, keys[i]);
        if (!st.objects[i].empty()) {
            if (opts.log) opts.log(sources[i] + ": compiled before: " + st.objects[i]);
            ++st.objects_cached;
            // the compiler's report on its kernels, kept beside the object
            if (std::string res = object_cache::find(opts.cache_dir, keys[i], ".res"); !res.empty()) {
                std::ifstream f(res, std::ios::binary);
                std::stringstream text;
                text << f.rdbuf();
                merge_kernel_resources(st.resources, parse_kernel_resources(text.str()));
            }
            continue;
        }
        st.objects[i] = object;
        missing.push_back(i);
        cmds.push_back(cmd);
    }
    if (missing.empty()) {
        write_file(fs::path(dir.path) / lib.exports, content(lib.exports));
        return;
    }
    write_sources(lib, opts, dir.path);
    // The biggest sources first: they decide when the last one ends.
    std::vector<std::size_t> order(missing.size());
    for (std::size_t j = 0; j < order.size(); ++j) order[j] = j;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return content(sources[missing[a]]).size() > content(sources[missing[b]]).size();
    });
    std::vector<std::vector<std::string>> sorted;
    for (std::size_t j : order) {
        sorted.push_back(cmds[j]);
        if (opts.log) opts.log("cd " + dir.path + " && " + join_command(cmds[j]));
    }
    // Progress: kernels compiled of all the kernels, and units done (cached ones count as done).
    auto kernels_in = [&](std::size_t i) { return i < lib.unit_kernel_counts.size() ? lib.unit_kernel_counts[i] : 0; };
    std::size_t total = 0, compiled = 0, units_done = sources.size() - missing.size();
    for (std::size_t i = 0; i < sources.size(); ++i) total += kernels_in(i);
    compiled = total;
    for (std::size_t i : missing) compiled -= kernels_in(i);
    auto report = [&] {
        if (opts.progress)
            opts.progress("build: " + std::to_string(compiled) + "/" + std::to_string(total) + " kernels compiled, " +
                          std::to_string(units_done) + "/" + std::to_string(sources.size()) + " " + opts.target +
                          " units");
    };
    report();
    int jobs = opts.jobs > 0 ? opts.jobs : static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
    auto results = run_parallel(sorted, dir.path, dir.slot, jobs, [&](std::size_t j) {
        compiled += kernels_in(missing[order[j]]);
        ++units_done;
        report();
    });
    for (std::size_t j = 0; j < order.size(); ++j)
        if (results[j].status > 0) check_run(results[j], sorted[j], opts, sources[missing[order[j]]]);
    for (std::size_t j = 0; j < order.size(); ++j) {
        std::size_t i = missing[order[j]];
        ++st.objects_built;
        std::string local = (fs::path(dir.path) / st.objects[i]).string();
        std::string kept = object_cache::store(opts.cache_dir, keys[i], local);
        st.objects[i] = kept.empty() ? local : kept;
        auto res = parse_kernel_resources(results[j].output);
        if (!res.empty() && !identity.empty()) { // kept for the builds that find the object cached
            std::string report = local + ".res";
            write_file(report, results[j].output);
            object_cache::store(opts.cache_dir, keys[i], report, ".res");
        }
        merge_kernel_resources(st.resources, res);
    }
    object_cache::prune(opts.cache_dir);
}
} // namespace

void write_file_atomically(const std::string& path, const std::string& text, const std::string& what) {
    std::string tmp;
    try {
        tmp = temp_beside(path);
    } catch (const error&) {
        throw error("cannot write " + what + " " + path + ": " + std::strerror(errno));
    }
    file_guard guard(tmp);
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << text;
    f.close();
    if (!f) throw error("cannot write " + what + " " + path + " (writing " + tmp + " failed)");
    ::chmod(tmp.c_str(), 0644);
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) throw error("cannot write " + what + " " + path + ": " + ec.message());
    guard.path.clear();
}

program_result build_and_run_program(const build_options& opts, const std::string& source,
                                     const std::vector<std::string>& args, const std::string& what) {
    temp_dir dir;
    const std::string src = "program.hip", exe = "program";
    auto cmd = program_command(opts, src, exe);
    // Cached like a library's objects: under the source, what it includes, the command and the compiler.
    std::string identity = object_cache::compiler_identity(cmd[0]);
    object_cache::hasher h;
    h.add("mxc program " MXC_VERSION);
    h.add(identity);
    for (auto& a : cmd) h.add(a);
    h.add(source);
    std::set<std::string> seen;
    add_includes(source, seen, h, is_emu_arch(opts.offload_arch) ? "runtime-stub/emu/" : "runtime-stub/cuda/");
    const std::string key = h.hex();
    std::string cached = identity.empty() ? "" : object_cache::find(opts.cache_dir, key, ".exe");
    std::string path = (fs::path(dir.path) / exe).string();
    std::error_code ec;
    if (!cached.empty()) fs::copy_file(cached, path, fs::copy_options::overwrite_existing, ec);
    if (cached.empty() || ec) {
        for (auto& f : embedded_files()) write_file(fs::path(dir.path) / std::string(f.path), f.content);
        write_file(fs::path(dir.path) / src, source);
        if (opts.log) opts.log("cd " + dir.path + " && " + join_command(cmd));
        auto r = run_process(cmd, dir.path, dir.slot);
        if (r.status == 127 && r.output.find("mxc: exec failed") != std::string::npos)
            throw error(what + ": cannot run '" + cmd[0] + "': not found (install hipcc / CUDA, or pass --hip-compiler PATH)");
        if (r.status != 0)
            throw error(what + ": building it failed: " + cmd[0] + " exited with status " + std::to_string(r.status) +
                        first_errors(r.output));
        if (!identity.empty()) object_cache::store(opts.cache_dir, key, path, ".exe");
    } else if (opts.log) {
        opts.log("cp " + cached + " " + path + " (built before from the same source)");
    }
    ::chmod(path.c_str(), 0755);
    std::vector<std::string> run = {path};
    run.insert(run.end(), args.begin(), args.end());
    if (opts.log) opts.log("cd " + dir.path + " && " + join_command(run));
    auto r = run_process(run, dir.path, dir.slot);
    return {r.status, r.output};
}

int prepare_lowered(lowered_module& l, const build_options& opts) {
    int tuned = 0;
    if (opts.tuning && opts.target == "hip") {
        tuned = apply_tuning(l, *opts.tuning, opts.offload_arch);
        if (opts.log)
            for (auto& k : l.kernels)
                if (!k.tuning.config.empty())
                    opts.log("tuning: " + k.kernel + " " + gemm_problem_of(k)->text() + " -> " + k.tuning.config + " (" +
                             k.tuning.from + ")");
    }
    if (opts.target == "cpu") {
        const int strips = store_dot_weights_as_strips(l);
        if (strips && opts.log) opts.log("dot weights: " + std::to_string(strips) + " tensors stored as the GEMM's packed panels");
        int as_strips = 0;
        const int panels = store_conv_weights_as_panels(l, &as_strips);
        if (panels && opts.log)
            opts.log("convolution weights: " + std::to_string(panels) + " tensors stored as the GEMM's row panels" +
                     (as_strips ? " (" + std::to_string(as_strips) + " of them as strips of output channels: the pixel-rows form)"
                                : std::string()));
    }
    if (opts.target == "hip") {
        const int f32_mma = use_f32_matrix_units(l, opts.offload_arch);
        if (f32_mma && opts.log)
            opts.log("fp32 matrix units: " + std::to_string(f32_mma) + " float GEMM kernels may run on them (gemm_mma_f32)");
        use_large_ring(l, opts.offload_arch);
        const int mma_attention = use_matrix_unit_attention(l, opts.offload_arch);
        if (mma_attention && opts.log)
            opts.log("attention on the matrix units: " + std::to_string(mma_attention) + " kernels (attention_mma_kernel)");
        const int packed = pack_channels_last_weights(l);
        if (packed && opts.log) opts.log("channels-last weights: " + std::to_string(packed) + " tensors stored as [M, kh, kw, C]");
    }
    if (const int64_t scratch = reserve_gemm_scratch(l, opts.target); scratch && opts.log)
        opts.log("kernel scratch: " + std::to_string(scratch) + " bytes at the end of the arena" +
                 (opts.target == "cpu" ? " (convolutions' im2col matrices, input copies)" : " (split-K, channels-last convolutions)"));
    return tuned;
}

std::string build_compiler(const build_options& opts) {
    auto first = [](const std::string& s) {
        auto w = split_words(s);
        return w.empty() ? std::string() : w.front();
    };
    if (opts.target != "hip" || (opts.hip_compiler.empty() && is_emu_arch(opts.offload_arch))) return first(host_cxx());
    if (!opts.hip_compiler.empty()) return first(opts.hip_compiler);
    return is_amd_arch(opts.offload_arch) ? default_hip_clang : default_nvcc;
}

bool install_cached_library(const std::string& cached, const std::string& output, const build_options& opts) {
    const fs::path out_abs = fs::absolute(output);
    std::error_code ec;
    // an unchanged model rebuilt over its own library: the output already has the cached bytes;
    // it is left in place (its time set to now), not written again (a model with 400 MB of
    // weights: a third of the rebuild)
    if (same_file_content(cached, out_abs.string())) {
        fs::last_write_time(out_abs, fs::file_time_type::clock::now(), ec);
        if (!ec) {
            if (opts.log) opts.log(output + " already holds the library linked before (" + cached + ")");
            return true;
        }
    }
    file_guard tmp(temp_beside(out_abs.string()));
    fs::copy_file(cached, tmp.path, fs::copy_options::overwrite_existing, ec);
    if (ec) return false;
    ::chmod(tmp.path.c_str(), 0755);
    fs::rename(tmp.path, out_abs, ec);
    if (ec) throw error("cannot write " + output + ": " + ec.message());
    tmp.path.clear();
    if (opts.log) opts.log("cp " + cached + " " + output + " (the library was linked before)");
    return true;
}

build_stats compile_module(module& m, const std::string& output, const build_options& opts_in) {
    build_options opts = opts_in;
    if (opts.name.empty()) opts.name = default_name(output);
    check_name(opts.name);
    if (opts.target != "cpu" && opts.target != "hip")
        throw error("unknown target '" + opts.target + "' (expected cpu or hip)");
    if (opts.target == "hip") check_arch(opts.offload_arch);
    fs::path out_abs = fs::absolute(output);
    if (!fs::is_directory(out_abs.parent_path()))
        throw error("cannot write " + output + ": directory " + out_abs.parent_path().string() + " does not exist");

    build_stats st;
    auto t = std::chrono::steady_clock::now();
    if (opts.progress) opts.progress("lower");
    make_outputs_kernels(m);
    double lower_s = seconds_since(t);

    t = std::chrono::steady_clock::now();
    if (opts.progress) opts.progress("plan");
    memory_plan plan = plan_memory(m, 256);
    validate_memory_plan(m, plan);
    double plan_s = seconds_since(t);

    t = std::chrono::steady_clock::now();
    lowered_module l = lower_planned(m, std::move(plan));
    double tune_s = 0;
    if (!opts.tune_db.empty() && opts.target == "hip") {
        auto t_tune = std::chrono::steady_clock::now();
        opts.tuning = tune_kernels(l, opts, st.problems_tuned);
        tune_s = seconds_since(t_tune);
    }
    st.kernels_tuned = prepare_lowered(l, opts);
    st.seconds.push_back({"lower", lower_s + seconds_since(t) - tune_s});
    st.seconds.push_back({"plan", plan_s});
    if (!opts.tune_db.empty()) st.seconds.push_back({"tune", tune_s});

    t = std::chrono::steady_clock::now();
    if (opts.progress) opts.progress("emit");
    emit_flags flags;
    flags.profile = opts.profile;
    flags.debug_trace = opts.debug_trace;
    flags.groups_per_unit = 4;
    if (flags.profile || flags.debug_trace) flags.notes = kernel_notes(m, l);
    emitted_library lib = library_layout(l, opts.target, opts.name, flags);
    flags.build_info = "mxc " MXC_VERSION "; abi " + std::to_string(abi_version) + "; target " + opts.target +
                       (opts.target == "hip" ? " " + opts.offload_arch : "") + (opts.profile ? "; profile-hooks" : "") +
                       (opts.debug_trace ? "; debug-trace" : "") + "; built by: " +
                       join_command(compile_command(lib, opts, "lib" + opts.name + ".so"));
    record_lowering(st, m, l);
    lib = emit_library(std::move(l), opts.target, opts.name, flags); // l's weights move into lib
    if (!opts.emit_src.empty()) write_sources(lib, opts, opts.emit_src);
    st.seconds.push_back({"emit", seconds_since(t)});

    t = std::chrono::steady_clock::now();
    {
        temp_dir dir;
        file_guard lib_tmp(temp_beside(out_abs.string()));
        build_objects(lib, opts, dir, st);
        st.seconds.push_back({"compile", seconds_since(t)});

        t = std::chrono::steady_clock::now();
        if (opts.progress) opts.progress("link");
        // The library itself is cached under its objects' keys and the link command.
        object_cache::hasher h;
        for (auto& k : st.object_keys) h.add(k);
        for (auto& a : link_command(lib, opts, {}, "lib.so")) h.add(a);
        h.add(lib.exports);
        std::string key = h.hex(), cached = object_cache::find(opts.cache_dir, key, ".so");
        if (cached.empty() || !install_cached_library(cached, output, opts)) {
            file_guard lib_tmp(temp_beside(out_abs.string()));
            auto cmd = link_command(lib, opts, st.objects, lib_tmp.path);
            if (opts.log) opts.log("cd " + dir.path + " && " + join_command(cmd));
            check_run(run_process(cmd, dir.path, dir.slot), cmd, opts);
            if (!st.object_keys.empty() && !object_cache::store(opts.cache_dir, key, lib_tmp.path, ".so").empty())
                st.library_key = key;
            ::chmod(lib_tmp.path.c_str(), 0755);
            std::error_code ec;
            fs::rename(lib_tmp.path, out_abs, ec);
            if (ec) throw error("cannot write " + output + ": " + ec.message());
            lib_tmp.path.clear();
        } else {
            st.library_key = key;
        }
        for (auto& f : lib.files)
            if (f.path == lib.header) st.header_text = f.content;
        st.header_path = header_path(output);
        write_file_atomically(header_path(out_abs.string()), st.header_text, "the header");
    }
    st.seconds.push_back({"link", seconds_since(t)});
    return st;
}

void record_lowering(build_stats& st, const module& m, const lowered_module& l) {
    st.kernels = static_cast<int64_t>(l.kernels.size());
    st.instructions = static_cast<int64_t>(m.instructions.size());
    st.arena_bytes = l.plan.arena_bytes;
    st.arena_lower_bound_bytes = l.plan.lower_bound_bytes;
    st.arena_naive_bytes = l.plan.naive_bytes;
    st.weights_bytes = static_cast<int64_t>(l.weights.size());
    st.plan = l.plan;
}

} // namespace mxc
