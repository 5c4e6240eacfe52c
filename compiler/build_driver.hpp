// The build driver: turns a module into a shared library. Lowers and emits it, writes the
// embedded templates and runtime stub and the generated sources into a private temporary
// directory, runs the host or device compiler there (fork/exec, no shell) and moves the
// library into place. On any failure nothing is left at the output path.
#pragma once
#include "codegen/emit.hpp"
#include "codegen/tuning.hpp"
#include "compiler/kernel_resources.hpp"
#include "ir/module.hpp"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mxc {

struct build_options {
    std::string target = "cpu";  // "cpu" or "hip"
    std::string offload_arch;    // hip: gfxNNN (clang++-15) or sm_NN (nvcc)
    std::string hip_compiler;    // overrides clang++-15 / nvcc
    std::string cpu_arch;        // cpu: -march=<cpu_arch>; empty: the compiler's default (any x86-64)
    std::string name;            // API prefix; empty: from the output file name
    std::string emit_src;        // also keep the sources in this directory
    bool profile = false;        // --profile-hooks: time every kernel (<name>_profile)
    bool debug_trace = false;    // --debug-trace: MXC_TRACE_EVAL and <name>_debug_run
    int jobs = 0;                // compiler processes at once (0: one per CPU)
    std::string cache_dir;       // the object cache (compiler/object_cache.hpp); "" = none
    std::function<void(const std::string&)> log; // -v: the commands as they run
    std::function<void(const std::string&)> progress; // the phase starting ("build: 57 kernels")
    std::shared_ptr<const tuning_db> tuning;          // hip: --tuning-db, GEMM tiles per problem (or null)
    std::string tune_db;  // hip --tune: time the candidate tiles of every GEMM problem on the device, merge the
                          // winners into `tuning` and write them to this file (compiler/tune.hpp), then build
    int tune_reps = 20;   // --tune: timed launches per candidate (after min(5, reps) warm-ups)
};

struct build_stats {
    int64_t kernels = 0, instructions = 0;
    int64_t arena_bytes = 0, arena_lower_bound_bytes = 0, arena_naive_bytes = 0, weights_bytes = 0;
    std::vector<std::pair<std::string, double>> seconds; // phase -> seconds, in order
    int64_t objects_built = 0, objects_cached = 0;       // translation units compiled / found in the cache
    int64_t kernels_tuned = 0;                           // kernels given a tile by the tuning database
    int64_t problems_tuned = 0;                          // --tune: GEMM problems timed on the device
    std::vector<std::string> objects;                    // what was linked
    std::vector<std::string> object_keys;                // their cache keys
    std::string header_path;                             // where the C header was written
    std::string header_text;                             // what it holds
    std::string library_key;                             // the linked library's object-cache key ("": not cached)
    std::vector<kernel_resource> resources;              // hip on a GPU: each kernel's registers, stack, spills
    memory_plan plan;                                    // the validated plan (points into the module)
};

// Lowers, plans, emits and builds `m` into the library `output` (and its header beside it).
// The kernels are split into several translation units, compiled to objects in parallel
// (opts.jobs at once) or found in the object cache, then linked.
// Adds "lower", "plan", "emit", "compile" and "link" to stats.seconds. Throws mxc::error.
build_stats compile_module(module& m, const std::string& output, const build_options& opts);

// Puts the library `cached` (a file of the object cache) at output: left in place when output
// holds its bytes already (its time set to now), else copied beside it and renamed over it.
// False when the copy failed (nothing changed); throws mxc::error when the rename does.
bool install_cached_library(const std::string& cached, const std::string& output, const build_options& opts);

// The compiler program a build with opts runs (cpu: $CXX or g++; hip: --hip-compiler or the
// target's default), for the identity of what it builds.
std::string build_compiler(const build_options& opts);

// What a target does to a lowered module before it is emitted, for a build and for a plan
// without one (--memory-report alone) alike: hip, the tuning database's tiles (opts.tuning),
// the fp32 matrix units, the large ring and channels-last weights; cpu, dot weights stored as
// the GEMM's panels; both, the kernels' arena scratch (reserve_gemm_scratch). Logs to opts.log.
// Returns the kernels given a tile by the tuning database.
int prepare_lowered(lowered_module& l, const build_options& opts);

// The counts and the memory plan of a lowered module, as --report gives them.
void record_lowering(build_stats& st, const module& m, const lowered_module& l);

// The default API prefix for an output path: libmodel.so -> "model", a C identifier.
std::string default_name(const std::string& output);
// Throws mxc::error unless `name` is a C identifier.
void check_name(const std::string& name);
// The header beside a library: dir/libmodel.so -> dir/libmodel.h.
std::string header_path(const std::string& output);

// The offload architecture of the first GPU found here (gfx90a, sm_90), or "" if none.
std::string detect_offload_arch();
// --offload-arch emu: the hip sources built with the host compiler against the SIMT emulator
// (runtime-stub/emu/hip/hip_runtime.h); the library runs on the CPU.
inline bool is_emu_arch(const std::string& arch) { return arch == "emu"; }
// Throws mxc::error unless `arch` is an --offload-arch mxc builds for (gfxNNN, sm_NN, emu).
void check_arch(const std::string& arch);

// The compiler command for an emitted library, run in the build directory, writing `out`
// (every source in one command: what build.sh runs).
std::vector<std::string> compile_command(const emitted_library& lib, const build_options& opts,
                                         const std::string& out);
// The two halves of a parallel build: one source to an object, and the objects to `out`.
std::vector<std::string> object_command(const emitted_library& lib, const build_options& opts,
                                        const std::string& source, const std::string& object);
std::vector<std::string> link_command(const emitted_library& lib, const build_options& opts,
                                      const std::vector<std::string>& objects, const std::string& out);

// The command that builds one hip source into an executable (the --tune timing program): the
// compiler and flags of object_command for opts.offload_arch.
std::vector<std::string> program_command(const build_options& opts, const std::string& source, const std::string& exe);

struct program_result {
    int status = -1;    // exit status; 128 + N: killed by signal N
    std::string output; // stdout and stderr together
};
// Builds `source` (a hip program including the embedded templates / runtime stub) with
// program_command in a private temporary directory (or takes the executable from the object
// cache) and runs it there with `args`. Throws mxc::error "WHAT: building it failed: ..." when
// it does not build.
program_result build_and_run_program(const build_options& opts, const std::string& source,
                                     const std::vector<std::string>& args, const std::string& what);

// Writes `text` to `path` through a temporary file beside it renamed over it: `path` is either
// as it was or complete. Throws mxc::error "cannot write WHAT PATH: why".
void write_file_atomically(const std::string& path, const std::string& text, const std::string& what);

// Writes every embedded file, the generated files and build.sh into `dir` (created).
void write_sources(const emitted_library& lib, const build_options& opts, const std::string& dir);

} // namespace mxc
