// The timing program of mxc --tune: candidates, generated source, output reader
// (codegen/tune_program.hpp).
#include "codegen/tune_program.hpp"
#include "codegen/gemm_choice.hpp"
#include "ir/error.hpp"
#include "templates/common/gemm_choice.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

namespace mxc {

namespace {
constexpr const char* mma_name = "mma";

bool same(const gemm_tile& a, const gemm_tile& b) { return a.text() == b.text(); }

// The smallest of 32, 64, 128 that covers `extent` (128 for anything bigger).
int64_t block_bound(int64_t extent) {
    int64_t b = 32;
    while (b < extent && b < 128) b *= 2;
    return b;
}

// Machine epsilon of the element type (storage) and of the type the engine accumulates in.
double storage_eps(dtype t) {
    switch (t) {
    case dtype::half_type: return 0x1p-10;
    case dtype::bf16_type: return 0x1p-7;
    case dtype::double_type: return 0x1p-52;
    default: return 0x1p-23;
    }
}
double compute_eps(dtype t) { return t == dtype::double_type ? 0x1p-52 : 0x1p-23; }

gemm_tile mma_tile(int bm, int bn, int bk, int fm, int stages, int threads = 256) {
    gemm_tile t;
    t.bm = bm, t.bn = bn, t.bk = bk, t.mma = true, t.fm = fm, t.stages = stages, t.threads = threads;
    return t;
}
// preset p's block (mxc_gemm_preset_tile, which templates/hip/gemm.hpp checks against its
// configurations) with fm fragment rows per warp, `stages` stages and `threads` threads
gemm_tile preset_mma_tile(mxc_gemm_preset p, int fm, int stages, int threads = 256) {
    const mxc_gemm_tile_dims d = mxc_gemm_preset_tile(p);
    return mma_tile(d.bm, d.bn, d.bk, fm, stages, threads);
}
gemm_tile with_splits(gemm_tile t, int splits) {
    t.splits = splits;
    return t;
}

// The block of tile t, ignoring its split.
bool same_block(const gemm_tile& a, const gemm_tile& b) { return with_splits(a, 1).text() == with_splits(b, 1).text(); }

// The scratch a job's split tiles need (the largest; the counters and every slice's partials).
int64_t split_scratch_bytes(const tuning_job& j) {
    const gemm_problem& p = j.problem;
    const int64_t elem = p.type == dtype::double_type ? 8 : 4; // (the compute type's)
    int64_t bytes = 0;
    for (const gemm_tile& t : j.tiles)
        if (t.splits > 1) bytes = std::max(bytes, mxc_gemm_split_scratch_bytes(p.m, p.n, p.k, p.z, t.splits, t.bk, elem));
    if (j.mma && j.mma_splits > 1) {
        const gemm_tile r = rule_mma_tile(p, j.large_ring);
        bytes = std::max(bytes, mxc_gemm_split_scratch_bytes(p.m, p.n, p.k, p.z, j.mma_splits, r.bk, elem));
    }
    return bytes;
}
} // namespace

int launcher_splits(const gemm_tile& t, const gemm_problem& p, int splits) {
    if (splits < 2 || t.bm <= 0 || t.bn <= 0 || t.bk <= 0) return 1;
    const int64_t tiles = p.z * ((p.m + t.bm - 1) / t.bm) * ((p.n + t.bn - 1) / t.bn);
    return tiles > mxc_gemm_split_tiles || mxc_gemm_slices(p.k, splits, t.bk) < 2 ? 1 : splits;
}

int rule_splits(const gemm_tile& t, const gemm_problem& p) {
    return launcher_splits(t, p, mxc_gemm_splits(mxc_gemm_tile_dims{t.bm, t.bn, t.bk}, p.m, p.n, p.k, p.z));
}

std::vector<gemm_tile> split_variants(const gemm_tile& t, const gemm_problem& p) {
    std::vector<gemm_tile> r;
    const int own = rule_splits(t, p);
    std::set<int64_t> slices = {own > 1 ? mxc_gemm_slices(p.k, own, t.bk) : 1};
    for (int s : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32}) {
        if (launcher_splits(t, p, s) != s || (s > 1 && mxc_gemm_slice_depth(p.k, s, t.bk) < 2 * t.bk)) continue;
        if (slices.insert(s > 1 ? mxc_gemm_slices(p.k, s, t.bk) : 1).second) r.push_back(with_splits(t, s));
    }
    return r;
}

gemm_tile rule_mma_tile(const gemm_problem& p, bool large_ring) {
    if (p.type != dtype::half_type) return preset_mma_tile(large_ring ? MXC_GEMM_MMA_F32_DEEP : MXC_GEMM_MMA_F32, 2, 4, 128); // gemm_mma_f32(_deep)
    if (mxc_gemm_mma_large(p.m, p.n, p.z)) return preset_mma_tile(MXC_GEMM_MMA, 4, large_ring ? 4 : 2); // gemm_mma_large(_ring)
    return preset_mma_tile(MXC_GEMM_MMA_SMALL, 2, 4); // gemm_mma_small
}

std::vector<gemm_tile> mma_candidates(const gemm_problem& p, bool large_ring) {
    std::vector<gemm_tile> all;
    if (p.type == dtype::float_type)
        // 8 warps (gemm_mma_f32 before 2026-11-28: 32 x 16 a warp), then 4 (32 x 32, 16 x 32,
        // 64 x 32, 32 x 64 a warp): gemm_mma_f32 and gemm_mma_f32_deep (72 KiB of stages,
        // NVIDIA only), the one the rule does not take
        all = {mma_tile(64, 64, 16, 2, 4),       mma_tile(64, 64, 32, 2, 4),      mma_tile(64, 128, 16, 2, 4),
               mma_tile(64, 64, 16, 2, 4, 128),  mma_tile(64, 64, 32, 2, 4, 128), mma_tile(32, 64, 16, 1, 4, 128),
               mma_tile(128, 64, 16, 4, 4, 128), mma_tile(64, 128, 16, 2, 4, 128), mma_tile(64, 64, 16, 2, 8, 128)};
    else if (p.type == dtype::half_type)
        all = {mma_tile(64, 64, 32, 2, 4),  mma_tile(64, 64, 32, 1, 4), mma_tile(64, 64, 64, 2, 4), mma_tile(32, 64, 64, 1, 4),
               mma_tile(64, 128, 32, 2, 4), mma_tile(128, 64, 32, 4, 4), mma_tile(128, 128, 32, 4, 4),
               mma_tile(64, 64, 32, 2, 4, 128)}; // (4 warps of 32 x 32, as gemm_mma_f32's)
    const gemm_tile rule = rule_mma_tile(p, large_ring);
    std::vector<gemm_tile> r;
    for (const gemm_tile& t : all)
        if (!same_block(t, rule) && t.invalid(p.type).empty() && t.bm <= std::max<int64_t>(64, block_bound(p.m)) &&
            t.bn <= std::max<int64_t>(64, block_bound(p.n)))
            r.push_back(with_splits(t, rule_splits(t, p)));
    for (const gemm_tile& t : split_variants(rule, p)) r.push_back(t);
    return r;
}

std::vector<gemm_tile> tuning_candidates(const gemm_problem& p) {
    std::vector<gemm_tile> r;
    auto add = [&](const gemm_tile& tile) {
        if (r.size() >= max_tuning_candidates || !tile.invalid(p.type).empty()) return;
        const gemm_tile t = with_splits(tile, rule_splits(tile, p)); // as the rule would split it
        for (auto& u : r)
            if (same(u, t)) return;
        r.push_back(t);
    };
    // the presets of templates/hip/gemm.hpp: the launcher's own choices
    const gemm_tile presets[] = {gemm_tile{128, 128, 8, 8, 8}, gemm_tile{64, 64, 16, 4, 4}, gemm_tile{16, 128, 16, 2, 4},
                                 gemm_tile{128, 16, 16, 4, 2}};
    for (const gemm_tile& t : presets) add(t);
    // the grid, each block's thread tiles best first: 256 threads, then square
    const int64_t max_bm = block_bound(p.m), max_bn = block_bound(p.n);
    std::vector<std::vector<gemm_tile>> blocks;
    for (int bm : {32, 64, 128})
        for (int bn : {32, 64, 128})
            for (int bk : {8, 16, 32}) {
                if (bm > max_bm || bn > max_bn) continue;
                std::vector<gemm_tile> b;
                for (int tm : {2, 4, 8})
                    for (int tn : {2, 4, 8})
                        if (gemm_tile t{bm, bn, bk, tm, tn}; t.invalid(p.type).empty()) b.push_back(t);
                auto score = [](const gemm_tile& t) {
                    const double threads = double(t.bm / t.tm) * (t.bn / t.tn);
                    return std::make_pair(std::abs(std::log2(threads) - 8), std::abs(std::log2(double(t.tm) / t.tn)));
                };
                std::stable_sort(b.begin(), b.end(), [&](auto& x, auto& y) { return score(x) < score(y); });
                blocks.push_back(std::move(b));
            }
    for (std::size_t level = 0;; ++level) {
        bool any = false;
        for (auto& b : blocks)
            if (level < b.size()) {
                any = true;
                add(b[level]);
            }
        if (!any || r.size() >= max_tuning_candidates) break;
    }
    // then the launcher's own preset (mxc_gemm_pick; a SIMT one) at its other splits
    const mxc_gemm_preset own = mxc_gemm_pick(gemm_elem_of(p.type).value_or(MXC_GEMM_F32), p.m, p.n, p.k, p.z);
    for (const gemm_tile& t : presets)
        if (mxc_gemm_preset_tile(own).bm == t.bm && mxc_gemm_preset_tile(own).bn == t.bn && mxc_gemm_preset_tile(own).bk == t.bk &&
            t.invalid(p.type).empty())
            for (const gemm_tile& v : split_variants(t, p)) r.push_back(v);
    // the GEMV kernel (dot products; the compiler's choice for up to 4 rows, mxc_gemm_gemv) for
    // up to 16 rows, at the rule's split and the others
    if (p.op == "dot" && p.m <= 16) {
        r.push_back(with_splits(gemv_tile(), rule_splits(gemv_tile(), p)));
        for (const gemm_tile& v : split_variants(gemv_tile(), p)) r.push_back(v);
    }
    return r;
}

std::string tuning_label(const gemm_problem& p) {
    return p.op + ":" + std::string(dtype_name(p.type)) + ":" + p.text();
}

std::string timing_program(const std::vector<tuning_job>& jobs) {
    std::ostringstream o;
    o << R"(// The timing program of mxc --tune (generated: codegen/tune_program.cpp, docs/tuning.md).
// Usage: program WARMUPS REPS. One line per problem and tile: LABEL TILE MICROSECONDS (median of
// REPS hipEvent-timed launches after WARMUPS) or LABEL TILE dropped: WHY.
#include <hip/hip_runtime.h>
#define MXC_TARGET_HIP 1
#include "templates/hip/dot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <vector>

#include <unistd.h>

#define MXC_TUNE_CHECK(x)                                                                        \
    do {                                                                                         \
        hipError_t e_ = (x);                                                                     \
        if (e_ != hipSuccess) {                                                                  \
            std::printf("mxc-tune: fault: %s: %s\n", #x, hipGetErrorString(e_));                 \
            std::fflush(stdout);                                                                 \
            std::exit(3);                                                                        \
        }                                                                                        \
    } while (0)

namespace {
int warmups = 5, reps = 20;
const unsigned tile_seconds = )" + std::to_string(tuning_tile_seconds) + R"(;
hipStream_t stream;

// The reference: one thread per output, double sums; c[2e] the sum, c[2e + 1] the sum of the
// products' magnitudes (what a sum's rounding errors scale with).
template <class T>
__global__ void reference_gemm(int64_t m, int64_t n, int64_t k, int64_t z, const T* a, const T* b, double* c) {
    mxc::hip::grid_dependency_sync();
    const int64_t total = z * m * n;
    for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
        const int64_t j = e % n, i = e / n % m, q = e / (m * n);
        double s = 0, magnitude = 0;
        for (int64_t p = 0; p < k; ++p) {
            const double x = double(mxc_compute_t<T>(a[(q * m + i) * k + p])) * double(mxc_compute_t<T>(b[(q * k + p) * n + j]));
            s += x;
            magnitude += fabs(x);
        }
        c[2 * e] = s;
        c[2 * e + 1] = magnitude;
    }
}

// The matrix-unit kernel the rule takes (gemm_mma_launch; gemm_mma_f32 for float) in place of
// a tile, K in Splits slices (1: unsplit); Ring: gemm_mma_large_ring where gemm_mma_launch would
// run gemm_mma_large, gemm_mma_f32_deep for float.
template <bool Ring, int Splits> struct mma_engine {};
template <class Cfg> struct is_mma_engine : std::false_type {};
template <bool Ring, int Splits> struct is_mma_engine<mma_engine<Ring, Splits>> : std::true_type {};
template <bool Ring, int Splits> constexpr bool ring_of(mma_engine<Ring, Splits>) { return Ring; }
template <bool Ring, int Splits> constexpr int splits_of(mma_engine<Ring, Splits>) { return Splits; }
template <class G, int Splits> struct split_as { using type = mxc::hip::gemm_split<G, Splits>; };
template <class G> struct split_as<G, 1> { using type = G; };

mxc_desc matrix_desc(int64_t z, int64_t rows, int64_t cols) {
    mxc_desc d{};
    d.rank = 3;
    d.lens[0] = z, d.lens[1] = rows, d.lens[2] = cols;
    d.strides[0] = rows * cols, d.strides[1] = cols, d.strides[2] = 1;
    return d;
}

// One GEMM problem on the device: A (Z x M x K) and B (Z x K x N) row-major, random in [-1, 1].
template <class T> struct problem {
    const char* label;
    int64_t m, n, k, z;
    // |result - reference| <= max(tol_abs, tol_sum * sum of |products|) + tol_rel * |reference|:
    // the sum's rounding, at least that of K fp32 additions of values up to 1, or 2 sqrt(K) eps
    // of the products' magnitudes (about 1e-2 at K = 3072 for inputs in [-1, 1]: on the H200
    // every 3xTF32 tile was off by 3.1e-3 there, and the fixed bound, 2.9e-3, dropped them
    // all); then the final rounding to T.
    double tol_abs, tol_sum, tol_rel;
    T *a = nullptr, *b = nullptr, *c = nullptr;
    std::vector<double> expected, magnitude;

    void* scratch = nullptr; // split-K's (its counters zero; each split launch leaves them so)

    problem(const char* label_, int64_t m_, int64_t n_, int64_t k_, int64_t z_, double eps_compute, double eps_storage,
            int64_t scratch_bytes)
        : label(label_), m(m_), n(n_), k(k_), z(z_), tol_abs(8.0 * double(k_) * eps_compute),
          tol_sum(2.0 * std::sqrt(double(k_)) * eps_compute), tol_rel(2.0 * eps_storage) {
        if (scratch_bytes > 0) {
            MXC_TUNE_CHECK(hipMalloc(&scratch, size_t(scratch_bytes)));
            MXC_TUNE_CHECK(hipMemset(scratch, 0, size_t(scratch_bytes)));
        }
        std::vector<T> ha(size_t(z * m * k)), hb(size_t(z * k * n));
        unsigned s = 12345u;
        auto next = [&s] {
            s = s * 1664525u + 1013904223u;
            return float(s >> 8) / float(1u << 24) * 2.0f - 1.0f;
        };
        for (auto& x : ha) x = T(next());
        for (auto& x : hb) x = T(next());
        MXC_TUNE_CHECK(hipMalloc(&a, ha.size() * sizeof(T)));
        MXC_TUNE_CHECK(hipMalloc(&b, hb.size() * sizeof(T)));
        MXC_TUNE_CHECK(hipMalloc(&c, size_t(z * m * n) * sizeof(T)));
        MXC_TUNE_CHECK(hipMemcpy(a, ha.data(), ha.size() * sizeof(T), hipMemcpyHostToDevice));
        MXC_TUNE_CHECK(hipMemcpy(b, hb.data(), hb.size() * sizeof(T), hipMemcpyHostToDevice));
        alarm(tile_seconds);
        double* r = nullptr;
        std::vector<double> both(2 * size_t(z * m * n));
        MXC_TUNE_CHECK(hipMalloc(&r, both.size() * sizeof(double)));
        const int64_t blocks = std::min<int64_t>((z * m * n + 255) / 256, 4096);
        hipLaunchKernelGGL(reference_gemm<T>, dim3(unsigned(blocks)), dim3(256), 0, stream, m, n, k, z, a, b, r);
        MXC_TUNE_CHECK(hipGetLastError());
        MXC_TUNE_CHECK(hipStreamSynchronize(stream));
        MXC_TUNE_CHECK(hipMemcpy(both.data(), r, both.size() * sizeof(double), hipMemcpyDeviceToHost));
        for (size_t e = 0; 2 * e < both.size(); ++e) {
            expected.push_back(both[2 * e]);
            magnitude.push_back(both[2 * e + 1]);
        }
        MXC_TUNE_CHECK(hipFree(r));
    }
    ~problem() {
        (void)hipFree(a);
        (void)hipFree(b);
        (void)hipFree(c);
        if (scratch) (void)hipFree(scratch);
    }

    // Cfg: a tile's configuration (gemm_split<G, S> when split), or mma_engine
    template <class Cfg> void launch() {
        using namespace mxc::hip;
        const dot_source<T> sa{a, matrix_desc(z, m, k)}, sb{b, matrix_desc(z, k, n)};
        const dot_out<plain_store<T>> out{plain_store<T>{c}, m, n};
        if constexpr (is_mma_engine<Cfg>::value) {
            constexpr int S = splits_of(Cfg{});
            if constexpr (std::is_same<T, float>::value) {
                if (ring_of(Cfg{})) gemm_run<T, typename split_as<gemm_mma_f32_deep, S>::type>(m, n, k, z, sa, sb, out, stream, scratch);
                else gemm_run<T, typename split_as<gemm_mma_f32, S>::type>(m, n, k, z, sa, sb, out, stream, scratch);
            } else if (gemm_mma_pick_large(m, n, z)) {
                if (ring_of(Cfg{})) gemm_run<T, typename split_as<gemm_mma_large_ring, S>::type>(m, n, k, z, sa, sb, out, stream, scratch);
                else gemm_run<T, typename split_as<gemm_mma_large, S>::type>(m, n, k, z, sa, sb, out, stream, scratch);
            } else {
                gemm_run<T, typename split_as<gemm_mma_small, S>::type>(m, n, k, z, sa, sb, out, stream, scratch);
            }
        } else {
            gemm_run<T, Cfg>(m, n, k, z, sa, sb, out, stream, scratch); // a SIMT or matrix-unit tile, split or not
        }
    }

    template <class Cfg> void time(const char* tile) {
        alarm(tile_seconds); // a hung kernel ends the program (SIGALRM), not the tuning
        // correctness first: a NaN-filled output, one launch, every element against the reference
        MXC_TUNE_CHECK(hipMemset(c, 0xff, expected.size() * sizeof(T)));
        launch<Cfg>();
        if (hipError_t e = hipGetLastError(); e != hipSuccess) {
            std::printf("%s %s dropped: the launch failed: %s\n", label, tile, hipGetErrorString(e));
            std::fflush(stdout);
            return;
        }
        MXC_TUNE_CHECK(hipStreamSynchronize(stream));
        std::vector<T> got(expected.size());
        MXC_TUNE_CHECK(hipMemcpy(got.data(), c, got.size() * sizeof(T), hipMemcpyDeviceToHost));
        for (size_t e = 0; e < got.size(); ++e) {
            const double g = double(mxc_compute_t<T>(got[e])), x = expected[e];
            if (!(std::fabs(g - x) <= std::max(tol_abs, tol_sum * magnitude[e]) + tol_rel * std::fabs(x))) {
                std::printf("%s %s dropped: output %zu is %g, the reference %g\n", label, tile, e, g, x);
                std::fflush(stdout);
                return;
            }
        }
        for (int w = 0; w < warmups; ++w) launch<Cfg>();
        MXC_TUNE_CHECK(hipStreamSynchronize(stream));
        hipEvent_t start, stop;
        MXC_TUNE_CHECK(hipEventCreate(&start));
        MXC_TUNE_CHECK(hipEventCreate(&stop));
        std::vector<float> ms;
        for (int r = 0; r < reps; ++r) {
            MXC_TUNE_CHECK(hipEventRecord(start, stream));
            launch<Cfg>();
            MXC_TUNE_CHECK(hipEventRecord(stop, stream));
            MXC_TUNE_CHECK(hipEventSynchronize(stop));
            float t = 0;
            MXC_TUNE_CHECK(hipEventElapsedTime(&t, start, stop));
            ms.push_back(t);
        }
        MXC_TUNE_CHECK(hipGetLastError());
        MXC_TUNE_CHECK(hipEventDestroy(start));
        MXC_TUNE_CHECK(hipEventDestroy(stop));
        std::sort(ms.begin(), ms.end());
        const size_t h = ms.size() / 2;
        const double median = ms.size() % 2 ? ms[h] : (double(ms[h - 1]) + ms[h]) / 2;
        std::printf("%s %s %.3f\n", label, tile, median * 1000.0);
        std::fflush(stdout);
    }
};
)";
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        const gemm_problem& p = jobs[j].problem;
        char eps[96];
        std::snprintf(eps, sizeof eps, "%a, %a", compute_eps(p.type), storage_eps(p.type));
        o << "\nvoid job_" << j << "() {\n    problem<" << dtype_c_name(p.type) << "> p(\"" << tuning_label(p) << "\", "
          << p.m << ", " << p.n << ", " << p.k << ", " << p.z << ", " << eps << ", " << split_scratch_bytes(jobs[j]) << ");\n";
        for (auto& t : jobs[j].tiles) o << "    p.time<" << t.launch_type(p.type) << ">(\"" << t.text() << "\");\n";
        if (jobs[j].mma)
            o << "    p.time<mma_engine<" << (jobs[j].large_ring ? "true" : "false") << ", " << std::max(1, jobs[j].mma_splits)
              << ">>(\"" << mma_name << "\");\n";
        o << "}\n";
    }
    o << R"(} // namespace

int main(int argc, char** argv) {
    if (argc != 3 || (warmups = std::atoi(argv[1])) < 0 || (reps = std::atoi(argv[2])) < 1) {
        std::printf("usage: %s WARMUPS REPS\n", argv[0]);
        return 2;
    }
    MXC_TUNE_CHECK(hipStreamCreate(&stream));
)";
    for (std::size_t j = 0; j < jobs.size(); ++j) o << "    job_" << j << "();\n";
    o << "    MXC_TUNE_CHECK(hipStreamDestroy(stream));\n    return 0;\n}\n";
    return o.str();
}

tuning_outcome read_timings(const std::vector<tuning_job>& jobs, const std::string& output, const std::string& arch) {
    std::map<std::string, std::size_t> job_of;
    for (std::size_t j = 0; j < jobs.size(); ++j) job_of[tuning_label(jobs[j].problem)] = j;
    // per job: tile text -> microseconds (-1: dropped)
    std::vector<std::map<std::string, double>> seen(jobs.size());
    tuning_outcome out;
    std::istringstream in(output);
    for (std::string line; std::getline(in, line);) {
        std::istringstream words(line);
        std::string label, tile, third;
        if (!(words >> label >> tile >> third)) continue;
        auto j = job_of.find(label);
        gemm_tile t;
        if (j == job_of.end() || (!parse_gemm_tile(tile, t) && tile != mma_name)) continue;
        if (third == "dropped:") {
            seen[j->second][tile] = -1;
            out.dropped.push_back(line);
            continue;
        }
        char* end = nullptr;
        double us = std::strtod(third.c_str(), &end);
        if (*end != '\0' || !(us >= 0)) continue;
        seen[j->second][tile] = us;
        out.timings.push_back(line);
    }
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        const std::string label = tuning_label(jobs[j].problem);
        std::vector<std::string> names;
        for (auto& t : jobs[j].tiles) names.push_back(t.text());
        if (jobs[j].mma) names.push_back(mma_name);
        std::size_t best = names.size();
        double best_us = 0;
        for (std::size_t i = 0; i < names.size(); ++i) {
            auto it = seen[j].find(names[i]);
            if (it == seen[j].end())
                throw error("--tune: the timing program printed no result for " + label + " tile " + names[i]);
            if (it->second >= 0 && (best == names.size() || it->second < best_us)) best = i, best_us = it->second;
        }
        if (best == names.size())
            throw error("--tune: no candidate tile computed " + label + " correctly (" + std::to_string(names.size()) +
                        " dropped); the database is left as it was");
        if (best == jobs[j].tiles.size()) { // the matrix units
            out.mma_won.push_back(jobs[j].problem);
            continue;
        }
        tuning_entry e;
        e.problem = jobs[j].problem;
        e.arch = arch;
        e.tile = jobs[j].tiles[best];
        e.us = best_us;
        out.winners.push_back(e);
    }
    return out;
}

} // namespace mxc
