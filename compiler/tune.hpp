// mxc --tune (docs/tuning.md): times the candidate tiles of every GEMM problem of a lowered
// module on the device with a generated timing program (codegen/tune_program.hpp) and merges
// the winners into the tuning database.
#pragma once
#include "compiler/build_driver.hpp"

#include <memory>

namespace mxc {

// Builds the timing program for the GEMM problems of `l` with the compiler and flags of the
// library (program_command), runs it (opts.tune_reps timed launches per tile), and returns
// opts.tuning (or an empty database) with the winners put in for opts.offload_arch, after
// writing it to opts.tune_db (a temporary file renamed over it: other archs' and problems'
// entries are kept). `problems` gets the number of problems tuned. Throws mxc::error on any
// failure (the timing program does not build, faults or crashes, a problem has no tile that
// computes it correctly), leaving the file as it was.
std::shared_ptr<const tuning_db> tune_kernels(const lowered_module& l, const build_options& opts, int64_t& problems);

} // namespace mxc
