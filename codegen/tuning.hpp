// The tuning database (mxc --tuning-db FILE, written by mxc --tune): for GEMM problems of one
// GPU architecture, the tile configuration of the hip GEMM engine (templates/hip/gemm.hpp,
// gemm_config<BM, BN, BK, TM, TN>) that won when timed on that GPU. Later builds read it
// without a device.
//
// File format: UTF-8 text, one entry per line, tab-separated; '#' starts a comment line; blank
// lines are ignored. The first other line is the version line, `mxc-tuning-db<TAB>1`. Then
//   op  dtype  arch  problem  config  [us]
//   dot  float_type  sm_90  128x1000x2048x1  64x64x8/4x4  12.5
// op: the kernel the problem comes from (dot, convolution; fused_dot and fused_convolution
//     use the entries of dot and convolution: the epilogue does not change the tiling).
// dtype: the element type (mxc's names, docs/ir.md: float_type, half_type, ...).
// arch: the --offload-arch it was timed on (sm_90, gfx90a, ...).
// problem: MxNxKxZ of the GEMM the kernel runs: dot a[..., M, K] x b[..., K, N] with Z the
//     product of the batch dims; convolution (implicit GEMM per group): M = output channels
//     per group, N = batch x output positions, K = input channels per group x kernel
//     elements, Z = groups.
// config: BMxBNxBK/TMxTN, a block of BM x BN outputs, K steps of BK, TM x TN per thread (the
//     SIMT engine, gemm_config); or mma:BMxBNxBK/FMxS[xT], the matrix-unit kernel (half and
//     float only; gemm_mma_config<BM, BN, FM, 256 / T, BK, S, type, T>): a block of BM x BN
//     outputs on T threads (64, 128 or 256; 256 when not given), K steps of BK, FM 16-row
//     fragments per warp along M, S shared-memory stages (S > 2: the ring of asynchronous
//     copies where the target has them); or gemv, the GEMV kernel of products of few rows (dot
//     only; gemm_gemv: a block per output row and 128 columns, K in steps of 8 rows). Each may
//     end in /kS: K cut into S slices (split-K,
//     templates/hip/gemm.hpp gemm_split: the slices' partial sums added by the last block of
//     each output tile), as the tile was timed; without it the product runs unsplit. (Files
//     of before 2026-11-28 have none: --tune then timed and built every tile unsplit.)
// us: the measured time in microseconds (informative; optional).
// Every malformed line is an error naming FILE:LINE; a key given twice is an error.
#pragma once
#include "codegen/lower.hpp"
#include "ir/dtype.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace mxc {

struct gemm_problem {
    std::string op; // dot, convolution
    dtype type = dtype::float_type;
    int64_t m = 0, n = 0, k = 0, z = 1;
    std::string text() const; // "128x1000x2048x1"
};

struct gemm_tile {
    int bm = 0, bn = 0, bk = 0, tm = 0, tn = 0;
    // the matrix-unit kernel (tm, tn unused): fm fragments of 16 rows per warp, `stages`
    // stages, `threads` threads a block
    bool mma = false;
    int fm = 0, stages = 0, threads = 256;
    // the GEMV kernel (gemm_gemv; bm, bn, bk its 1 x 128 x 8, the rest unused)
    bool gemv = false;
    int splits = 1; // K in this many slices (split-K); 1: unsplit
    std::string text() const; // "64x64x8/4x4", "mma:64x64x16/2x4", "mma:64x64x16/2x4x128", "mma:64x64x32/2x4x128/k3", "gemv/k12"
    // "mxc::hip::gemm_config<64, 64, 8, 4, 4>", "mxc::hip::gemm_mma_config<64, 64, 2, 1, 16, 4, float>",
    // "mxc::hip::gemm_mma_config<64, 64, 2, 2, 16, 4, float, 128>" (the mma kernel's element type is
    // the product's, `type`; its minimum blocks per SM 256 / threads, which leaves the register
    // limit at 255), "mxc::hip::gemm_gemv"
    std::string cpp_type(dtype type) const;
    // The launchers' configuration argument: cpp_type, in "mxc::hip::gemm_split<CFG, S>" when
    // split (which needs the split's scratch, gemm_split_scratch_bytes).
    std::string launch_type(dtype type) const;
    // Why the engine cannot run this tile for elements of `type` (empty: it can). gemm_config:
    // tiles split evenly over the threads, whole 16-byte vectors per tile side, 32..1024
    // threads, shared memory (BK x (BM + 1) + BK x (BN + 1) compute elements) <= 48 KiB.
    // gemm_mma_config (templates/hip/gemm.hpp, its static_asserts and gemm_fetch's): half or
    // float; 64, 128 or 256 threads whose warps tile the block for warps of 32 and of 64 lanes; whole 16-byte vectors
    // per thread in the register-staged loop; the stages and the float tile in 96 KiB. Both:
    // 1 to max_gemm_tile_splits slices.
    std::string invalid(dtype type) const;
};
constexpr int max_gemm_tile_splits = 32; // (mxc_gemm_splits' own limit)
// "BMxBNxBK/TMxTN[/kS]", "mma:BMxBNxBK/FMxS[xT][/kS]" or "gemv[/kS]" -> tile (not checked against
// invalid), or false.
bool parse_gemm_tile(const std::string& s, gemm_tile& t);
// The GEMV kernel's tile (gemm_gemv), unsplit.
gemm_tile gemv_tile();

struct tuning_entry {
    gemm_problem problem;
    std::string arch;
    gemm_tile tile;
    double us = -1;   // measured time, -1: not given
    std::string from; // "FILE:LINE" it was read from
};

class tuning_db {
public:
    // Reads FILE; throws mxc::error "FILE:LINE: what is wrong" for the first bad line.
    static tuning_db load(const std::string& path);
    // The entry for `p` on `arch`, or nullptr.
    const tuning_entry* find(const gemm_problem& p, const std::string& arch) const;
    // Adds or replaces an entry.
    void put(tuning_entry e);
    // Removes the entry for `p` on `arch`, if any.
    void erase(const gemm_problem& p, const std::string& arch) { entries_.erase(key_of(p, arch)); }
    // The whole database in the file format, entries sorted by key.
    std::string text() const;
    std::size_t size() const { return entries_.size(); }

private:
    using key = std::tuple<std::string, std::string, std::string, int64_t, int64_t, int64_t, int64_t>;
    static key key_of(const gemm_problem& p, const std::string& arch);
    std::map<key, tuning_entry> entries_;
};

// The GEMM problem a kernel runs (dot, convolution and their fused forms, with a floating
// element type the engine tiles), or nothing.
std::optional<gemm_problem> gemm_problem_of(const kernel_call& k);

// Sets kernel_call::tuning of every kernel whose problem `db` has for `arch`; returns how many.
int apply_tuning(lowered_module& l, const tuning_db& db, const std::string& arch);

} // namespace mxc
