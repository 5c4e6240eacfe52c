// The timing program of `mxc --tune` (docs/tuning.md): the candidate tiles of each GEMM
// problem, the generated C++/HIP program that times them on the device (the library's own
// templates/hip/gemm.hpp, one `time<Cfg>` instantiation per distinct tile), and the reading
// of its output into the winners. Building and running it is compiler/tune.cpp.
#pragma once
#include "codegen/tuning.hpp"

#include <string>
#include <vector>

namespace mxc {

// At most this many SIMT tiles per problem (tuning_candidates; mma_candidates add up to 8).
constexpr std::size_t max_tuning_candidates = 30;

// The tiles timed for `p`: the launcher's four presets (gemm_large, gemm_medium, gemm_small_m,
// gemm_small_n), then the grid BM, BN in {32, 64, 128}, BK in {8, 16, 32}, TM, TN in {2, 4, 8}
// that the engine can run (gemm_tile::invalid) and whose block is not wider than the problem
// needs (BM <= max(32, M rounded up to a power of two), the same for BN and N). Of each block
// (BM, BN, BK) the thread tile closest to 256 threads and square comes first, then the next
// of every block, ..., up to max_tuning_candidates in all. No duplicates. Each is split as the
// rule would split it (rule_splits), and the launcher's own preset for p (mxc_gemm_pick, when a
// SIMT one) follows at its other splits (split_variants), past that limit; for dot products of
// at most 16 rows, the GEMV kernel (gemv_tile) at its rule's split and the others.
std::vector<gemm_tile> tuning_candidates(const gemm_problem& p);

// The slices gemm_run cuts K into for tile t asked for `splits`: splits, or 1 where that makes
// one slice or the output tiles outnumber split-K's counters (mxc_gemm_split_tiles).
int launcher_splits(const gemm_tile& t, const gemm_problem& p, int splits);
// The split the compiler's rule gives tile t's block for p (mxc_gemm_splits), as the launcher runs it.
int rule_splits(const gemm_tile& t, const gemm_problem& p);
// Tile t at the splits 1, 2, 3, 4, 6, 8, 12, 16, 24, 32 other than its rule's: those the launcher runs
// as asked, with slices at least two K steps deep, one per distinct number of slices.
std::vector<gemm_tile> split_variants(const gemm_tile& t, const gemm_problem& p);

// The matrix-unit tile the rule takes for `p` without an entry (half: gemm_mma_large,
// gemm_mma_large_ring with large_ring, or gemm_mma_small; float: gemm_mma_f32, or
// gemm_mma_f32_deep with large_ring).
gemm_tile rule_mma_tile(const gemm_problem& p, bool large_ring);

// The other matrix-unit tiles timed for a job with `mma` (half and float): a fixed list of
// shapes around the rule's (fewer rows or columns per block, one fragment row per warp, deeper K
// steps, more stages, wider blocks), those valid for the type (gemm_tile::invalid) and not wider
// than the problem needs (BM <= max(64, M rounded up as in tuning_candidates), the same for BN),
// less the rule's own tile, which the job times as "mma" (at the rule's split); each split as
// the rule would split it; then the rule's own tile at its other splits (split_variants).
std::vector<gemm_tile> mma_candidates(const gemm_problem& p, bool large_ring);

// The timing program's watchdog: a reference or a tile (all its launches) running longer than
// this ends the program with SIGALRM.
constexpr int tuning_tile_seconds = 300;

// "dot:float_type:16x8x32x2": how the timing program names a problem.
std::string tuning_label(const gemm_problem& p);

struct tuning_job {
    gemm_problem problem;
    std::vector<gemm_tile> tiles;
    // also time the rule's matrix-unit kernel (named "mma": gemm_mma_launch for half,
    // gemm_mma_f32 for float); when it wins, the problem gets no entry and keeps the rule, which
    // takes that kernel (half: but for M <= 16; float: where mxc_gemm_f32_mma and the target
    // allow, the only float jobs given mma) with its split-K. The other matrix-unit tiles
    // (mma_candidates) are among `tiles`, and a database entry names the one that wins.
    bool mma = false;
    // with mma, half: the large tile is gemm_mma_large_ring, float: gemm_mma_f32_deep, as in
    // the build (large_ring_wanted)
    bool large_ring = false;
    // with mma: the slices "mma" cuts K into, as the build would (rule_splits of rule_mma_tile)
    int mma_splits = 1;
};

// The C++/HIP source of the timing program. Run as `program WARMUPS REPS`, for every job it
// fills row-major A (Z x M x K) and B (Z x K x N) with random values in [-1, 1], computes a
// reference product (one thread per output, double sums), and for every tile (launched as the
// build would: gemm_run with the tile's launch_type, a split one on the job's split-K scratch,
// allocated once and zeroed): one launch on
// a NaN-filled output checked against the reference (a mismatch or a failed launch drops the
// tile), WARMUPS launches, then REPS launches timed one by one with hipEvents; it prints
//   LABEL TILE MICROSECONDS           (the median)
//   LABEL TILE dropped: WHY
// one line per tile (and per "mma" of a job with `mma`), and exits 3 after a device fault ("mxc-tune: fault: ..."); a reference or
// a tile that takes over tuning_tile_seconds ends it (SIGALRM).
std::string timing_program(const std::vector<tuning_job>& jobs);

struct tuning_outcome {
    std::vector<tuning_entry> winners; // per job, the fastest tile that matched (arch set)
    std::vector<gemm_problem> mma_won; // the jobs where "mma" was fastest (no winner entry)
    std::vector<std::string> dropped;  // "LABEL TILE dropped: WHY", as printed
    std::vector<std::string> timings;  // every "LABEL TILE MICROSECONDS" line
};

// Reads the timing program's output (other lines are ignored). Throws mxc::error naming the
// problem when a tile of a job has no line or when no tile of a job ran correctly.
tuning_outcome read_timings(const std::vector<tuning_job>& jobs, const std::string& output, const std::string& arch);

} // namespace mxc
