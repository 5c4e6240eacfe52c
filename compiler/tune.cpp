// mxc --tune: the timing program built, run and read; the database merged and written
// (compiler/tune.hpp).
#include "compiler/tune.hpp"
#include "codegen/gemm_choice.hpp"
#include "codegen/tune_program.hpp"
#include "templates/common/gemm_choice.hpp"
#include "ir/error.hpp"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>

namespace mxc {

namespace {
// The line of the output that says why the program failed: its fault line, the emulator's
// report, else the last line.
std::string failure_line(const std::string& output) {
    std::istringstream in(output);
    std::string last, fault;
    for (std::string line; std::getline(in, line);) {
        if (line.empty()) continue;
        last = line;
        if (fault.empty() && (line.rfind("mxc-tune: fault", 0) == 0 || line.rfind("mxc hip-emu:", 0) == 0)) fault = line;
    }
    const std::string& r = fault.empty() ? last : fault;
    return r.empty() ? "no output" : "'" + r + "'";
}

std::string us_text(double us) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", us);
    return buf;
}
} // namespace

std::shared_ptr<const tuning_db> tune_kernels(const lowered_module& l, const build_options& opts, int64_t& problems) {
    auto log = [&](const std::string& s) {
        if (opts.log) opts.log("tune: " + s);
    };
    // the distinct problems, in the order of the kernels
    std::vector<tuning_job> jobs;
    std::set<std::string> labels;
    std::size_t tiles = 0;
    for (auto& k : l.kernels) {
        auto p = gemm_problem_of(k);
        if (!p) continue;
        if (!labels.insert(tuning_label(*p)).second) continue;
        // the matrix-unit kernel too where the rule would take it without an entry
        const bool mma = p->type == dtype::half_type ||
                         (p->type == dtype::float_type && f32_matrix_units_take(opts.offload_arch, p->op) &&
                          mxc_gemm_f32_mma(p->m, p->n, p->k, p->z));
        const bool ring = mma && large_ring_wanted(opts.offload_arch);
        std::vector<gemm_tile> tiles_of = tuning_candidates(*p);
        if (mma)
            for (const gemm_tile& t : mma_candidates(*p, ring)) tiles_of.push_back(t);
        jobs.push_back({*p, std::move(tiles_of), mma, ring, mma ? rule_splits(rule_mma_tile(*p, ring), *p) : 1});
        tiles += jobs.back().tiles.size() + jobs.back().mma;
    }
    problems = static_cast<int64_t>(jobs.size());
    const int warmups = std::min(5, opts.tune_reps);
    auto db = std::make_shared<tuning_db>(opts.tuning ? *opts.tuning : tuning_db());
    if (jobs.empty()) {
        log("the model has no GEMM problem (dot, convolution of float, half, bf16 or double) to time");
    } else {
        if (is_emu_arch(opts.offload_arch))
            log("--offload-arch emu: the emulator is the device; its times are not a GPU's, so the winners mean "
                "nothing for speed (this checks the tuning run itself)");
        log(std::to_string(jobs.size()) + " GEMM problems, " + std::to_string(tiles) + " candidate tiles; " +
            std::to_string(warmups) + " warm-ups and " + std::to_string(opts.tune_reps) +
            " timed launches each");
        if (opts.progress) opts.progress("tune: " + std::to_string(tiles) + " tiles of " + std::to_string(jobs.size()) + " problems");
        const std::string what = "--tune: the timing program (" + std::to_string(tiles) + " tiles)";
        const std::string source = timing_program(jobs);
        if (!opts.emit_src.empty()) { // kept beside the library's sources
            std::error_code ec;
            std::filesystem::create_directories(opts.emit_src, ec);
            write_file_atomically(opts.emit_src + "/tuning-program.hip", source, "the timing program");
        }
        auto r = build_and_run_program(opts, source,
                                       {std::to_string(warmups), std::to_string(opts.tune_reps)}, what);
        if (!opts.emit_src.empty()) write_file_atomically(opts.emit_src + "/tuning-output.txt", r.output, "the timing output");
        if (r.status != 0)
            throw error(what + " failed on " + opts.offload_arch + " (" +
                        (r.status == 128 + SIGALRM ? "stopped after " + std::to_string(tuning_tile_seconds) +
                                                         " s on one tile: a hung kernel?"
                         : r.status > 128 ? "killed by signal " + std::to_string(r.status - 128)
                                          : "exit status " + std::to_string(r.status)) +
                        "): " + failure_line(r.output) + "; the database is left as it was");
        tuning_outcome out = read_timings(jobs, r.output, opts.offload_arch);
        for (auto& d : out.dropped) log(d);
        for (auto& e : out.winners) {
            log(e.problem.op + " " + std::string(dtype_name(e.problem.type)) + " " + e.problem.text() + " -> " +
                e.tile.text() + " (" + us_text(e.us) + " us)");
            db->put(e);
        }
        for (auto& p : out.mma_won) {
            log(p.op + " " + std::string(dtype_name(p.type)) + " " + p.text() +
                " -> mma (the matrix-unit kernel, which the rule picks without an entry: no entry)");
            db->erase(p, opts.offload_arch);
        }
    }
    write_file_atomically(opts.tune_db, db->text(), "--tuning-db");
    // read back: the entries then name FILE:LINE, as with --tuning-db
    return std::make_shared<const tuning_db>(tuning_db::load(opts.tune_db));
}

} // namespace mxc
