// The tuning database: parsing, writing, lookup (see codegen/tuning.hpp for the format).
#include "codegen/tuning.hpp"
#include "ir/error.hpp"
#include "ir/eval.hpp"
#include "templates/common/dot.hpp"
#include "templates/common/gemm_choice.hpp"

#include <charconv>
#include <fstream>
#include <sstream>

namespace mxc {

namespace {
constexpr const char* magic = "mxc-tuning-db";
constexpr int version = 1;

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> r;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= s.size(); ++i)
        if (i == s.size() || s[i] == sep) {
            r.push_back(s.substr(start, i - start));
            start = i + 1;
        }
    return r;
}

// A positive decimal integer, the whole of s.
bool positive(const std::string& s, int64_t& v) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && p == s.data() + s.size() && v > 0;
}

// "AxBx..." with exactly `count` positive integers.
bool dims(const std::string& s, std::size_t count, std::vector<int64_t>& out) {
    auto parts = split(s, 'x');
    if (parts.size() != count) return false;
    out.clear();
    for (auto& p : parts) {
        int64_t v = 0;
        if (!positive(p, v)) return false;
        out.push_back(v);
    }
    return true;
}

bool is_gemm_type(dtype t) {
    return t == dtype::float_type || t == dtype::double_type || t == dtype::half_type || t == dtype::bf16_type;
}

std::string strip_fused(const std::string& op) { return op.rfind("fused_", 0) == 0 ? op.substr(6) : op; }
} // namespace

std::string gemm_problem::text() const {
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + "x" + std::to_string(z);
}

gemm_tile gemv_tile() {
    const mxc_gemm_tile_dims d = mxc_gemm_preset_tile(MXC_GEMM_GEMV);
    gemm_tile t;
    t.bm = d.bm, t.bn = d.bn, t.bk = d.bk, t.gemv = true;
    return t;
}

std::string gemm_tile::text() const {
    const std::string slices = splits > 1 ? "/k" + std::to_string(splits) : "";
    if (gemv) return "gemv" + slices;
    const std::string block = std::to_string(bm) + "x" + std::to_string(bn) + "x" + std::to_string(bk) + "/";
    if (mma)
        return "mma:" + block + std::to_string(fm) + "x" + std::to_string(stages) +
               (threads == 256 ? "" : "x" + std::to_string(threads)) + slices;
    return block + std::to_string(tm) + "x" + std::to_string(tn) + slices;
}

std::string gemm_tile::launch_type(dtype type) const {
    return splits > 1 ? "mxc::hip::gemm_split<" + cpp_type(type) + ", " + std::to_string(splits) + ">" : cpp_type(type);
}

std::string gemm_tile::cpp_type(dtype type) const {
    if (gemv) return "mxc::hip::gemm_gemv";
    if (mma)
        return "mxc::hip::gemm_mma_config<" + std::to_string(bm) + ", " + std::to_string(bn) + ", " + std::to_string(fm) +
               ", " + std::to_string(threads > 0 && threads < 256 ? 256 / threads : 1) + ", " + std::to_string(bk) + ", " +
               std::to_string(stages) + ", " + (type == dtype::half_type ? "mxc_half" : "float") +
               (threads == 256 ? "" : ", " + std::to_string(threads)) + ">";
    return "mxc::hip::gemm_config<" + std::to_string(bm) + ", " + std::to_string(bn) + ", " + std::to_string(bk) + ", " +
           std::to_string(tm) + ", " + std::to_string(tn) + ">";
}

namespace {
// gemm_tile::invalid of a matrix-unit tile (gemm_mma_config's rules, templates/hip/gemm.hpp)
std::string invalid_mma(const gemm_tile& t, dtype type) {
    if (type != dtype::half_type && type != dtype::float_type) return "the matrix-unit kernel takes half_type and float_type";
    const int64_t elem = type == dtype::half_type ? 2 : 4, vec = 16 / elem, threads = t.threads;
    if (threads != 64 && threads != 128 && threads != 256) return "T = " + std::to_string(threads) + " threads, expected 64, 128 or 256";
    if (t.bm % 16 != 0 || t.bn % 16 != 0 || t.bk % 16 != 0) return "BM, BN and BK must be multiples of 16";
    if (t.fm < 1 || t.bm % (16 * t.fm) != 0) return "BM must be a multiple of 16 x FM";
    const int64_t warps_m = t.bm / (16 * t.fm);
    if ((threads / 64) % warps_m != 0)
        return "BM / (16 FM) = " + std::to_string(warps_m) + " warps along M, expected a divisor of " + std::to_string(threads / 64);
    // T / 32 warps of 32 lanes (NVIDIA), T / 64 of 64 (AMD): the rest of them along N, whole fragments each
    if ((t.bn / 16) % (threads / 32 / warps_m) != 0)
        return "BN / 16 must be a multiple of the " + std::to_string(threads / 32 / warps_m) + " warps along N";
    if (t.stages < 2 || (t.stages & (t.stages - 1)) != 0) return "S must be 2, 4, 8 ... stages";
    // the register-staged loop: whole 16-byte vectors per thread (gemm_fetch)
    if ((int64_t(t.bm) * t.bk) % (threads * vec) != 0 || (int64_t(t.bk) * t.bn) % (threads * vec) != 0)
        return "BM x BK and BK x BN must be multiples of " + std::to_string(threads * vec) + " (whole vectors per thread)";
    const int64_t lda = t.bk + vec, ldb = t.bn + (elem == 4 ? 2 * vec : vec), ldc = t.bn + 4; // gemm_mma_config's
    const int64_t a = t.bm * lda, b = t.stages > 2 && t.bn * lda > t.bk * ldb ? t.bn * lda : t.bk * ldb;
    const int64_t ab = t.stages * (a + b) * elem;
    if (ab > 96 * 1024) return "the stages need " + std::to_string(ab) + " bytes of shared memory, over 96 KiB";
    const int64_t passes = t.bm * ldc * 4 <= ab ? 1 : (t.bm / 2) * ldc * 4 <= ab ? 2 : 4;
    if (t.fm % passes != 0 || (t.bm / passes) * ldc * 4 > ab) return "the float tile of the epilogue does not fit the stages";
    if ((a * elem) % 32 != 0 || (b * elem) % 32 != 0) return "the stages would not stay 32-byte aligned";
    return "";
}
} // namespace

std::string gemm_tile::invalid(dtype type) const {
    if (splits < 1 || splits > max_gemm_tile_splits)
        return "K cut into " + std::to_string(splits) + " slices, expected 1 to " + std::to_string(max_gemm_tile_splits);
    if (mma) return invalid_mma(*this, type);
    if (gemv) return ""; // (every type the engine takes)
    if (bm % tm != 0 || bn % tn != 0) return "BM must be a multiple of TM and BN of TN";
    if (bm % 8 != 0 || bn % 8 != 0 || bk % 8 != 0) return "BM, BN and BK must be multiples of 8";
    const int64_t threads = int64_t(bm / tm) * (bn / tn);
    if (threads < 32 || threads > 1024)
        return "(BM/TM) x (BN/TN) = " + std::to_string(threads) + " threads, expected 32 to 1024";
    // fp16 and bf16 compute in float (mxc_compute_t), double in double; two stages of A and B,
    // rows padded by 16 bytes (gemm_kernel, templates/hip/gemm.hpp)
    const int64_t elem = type == dtype::double_type ? 8 : 4;
    // a thread's rows and columns are read from the stages in 16-byte runs (gemm_own)
    const int64_t w = 16 / elem;
    if ((tm > w && tm % w != 0) || (tn > w && tn % w != 0))
        return "TM and TN must be at most " + std::to_string(w) + " or multiples of " + std::to_string(w) + " for this type";
    const int64_t shared = 2 * int64_t(bk) * (bm + bn + 2 * (16 / elem)) * elem;
    if (shared > 48 * 1024) return "the tiles need " + std::to_string(shared) + " bytes of shared memory, over 48 KiB";
    return "";
}

bool parse_gemm_tile(const std::string& s, gemm_tile& t) {
    const bool mma = s.rfind("mma:", 0) == 0;
    std::string body = mma ? s.substr(4) : s;
    // an optional "/kS" last: K cut into S slices
    int64_t splits = 1;
    if (auto k = body.rfind("/k"); k != std::string::npos && (body.find('/') < k || body.substr(0, k) == "gemv")) {
        if (!positive(body.substr(k + 2), splits) || splits > 4096) return false;
        body.resize(k);
    }
    if (!mma && body == "gemv") {
        t = gemv_tile();
        t.splits = int(splits);
        return true;
    }
    auto slash = body.find('/');
    std::vector<int64_t> block, thread;
    if (slash == std::string::npos || !dims(body.substr(0, slash), 3, block) ||
        !(dims(body.substr(slash + 1), 2, thread) || (mma && dims(body.substr(slash + 1), 3, thread))))
        return false;
    for (int64_t v : {block[0], block[1], block[2], thread[0], thread[1], thread.size() > 2 ? thread[2] : 1})
        if (v > 4096) return false;
    t = gemm_tile{};
    t.bm = int(block[0]), t.bn = int(block[1]), t.bk = int(block[2]);
    t.mma = mma;
    if (mma) t.fm = int(thread[0]), t.stages = int(thread[1]), t.threads = thread.size() > 2 ? int(thread[2]) : 256;
    else t.tm = int(thread[0]), t.tn = int(thread[1]);
    t.splits = int(splits);
    return true;
}

tuning_db::key tuning_db::key_of(const gemm_problem& p, const std::string& arch) {
    return {strip_fused(p.op), std::string(dtype_name(p.type)), arch, p.m, p.n, p.k, p.z};
}

tuning_db tuning_db::load(const std::string& path) {
    std::ifstream f(path);
    if (!f) throw error("--tuning-db " + path + ": cannot read the file");
    tuning_db db;
    bool versioned = false;
    std::string line;
    for (int no = 1; std::getline(f, line); ++no) {
        const std::string at = path + ":" + std::to_string(no) + ": ";
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty() || line[0] == '#') continue;
        auto cols = split(line, '\t');
        if (!versioned) {
            int64_t v = 0;
            if (cols.size() != 2 || cols[0] != magic || !positive(cols[1], v))
                throw error(at + "expected the version line 'mxc-tuning-db<TAB>1' first, got '" + line + "'");
            if (v != version)
                throw error(at + "version " + cols[1] + " of the tuning database; this mxc reads version " +
                            std::to_string(version));
            versioned = true;
            continue;
        }
        if (cols.size() != 5 && cols.size() != 6)
            throw error(at + "expected 5 or 6 tab-separated fields (op dtype arch MxNxKxZ config [us]), got " +
                        std::to_string(cols.size()));
        tuning_entry e;
        e.problem.op = cols[0];
        if (e.problem.op != "dot" && e.problem.op != "convolution")
            throw error(at + "op '" + cols[0] + "': expected dot or convolution");
        auto t = parse_dtype(cols[1]);
        if (!t) throw error(at + "unknown dtype '" + cols[1] + "' (mxc's names: float_type, half_type, ...)");
        if (!is_gemm_type(*t))
            throw error(at + "dtype " + cols[1] + ": the GEMM engine takes float_type, half_type, bf16_type, double_type");
        e.problem.type = *t;
        e.arch = cols[2];
        if (e.arch.empty()) throw error(at + "the arch field is empty");
        std::vector<int64_t> d;
        if (!dims(cols[3], 4, d)) throw error(at + "problem '" + cols[3] + "': expected MxNxKxZ, four positive integers");
        e.problem.m = d[0], e.problem.n = d[1], e.problem.k = d[2], e.problem.z = d[3];
        if (!parse_gemm_tile(cols[4], e.tile))
            throw error(at + "config '" + cols[4] +
                        "': expected BMxBNxBK/TMxTN[/kS], mma:BMxBNxBK/FMxS[xT][/kS] or gemv[/kS], positive integers up to 4096");
        std::string why = e.tile.invalid(*t);
        if (why.empty() && e.tile.gemv && e.problem.op != "dot") why = "the GEMV kernel runs dot products only";
        if (!why.empty()) throw error(at + "config " + cols[4] + ": " + why);
        if (cols.size() == 6) {
            std::istringstream us(cols[5]);
            if (!(us >> e.us) || !us.eof() || !(e.us >= 0)) throw error(at + "time '" + cols[5] + "': expected microseconds, a number >= 0");
        }
        e.from = path + ":" + std::to_string(no);
        auto k = key_of(e.problem, e.arch);
        if (auto it = db.entries_.find(k); it != db.entries_.end())
            throw error(at + "a second entry for " + e.problem.op + " " + cols[1] + " " + e.arch + " " + cols[3] +
                        " (the first is at line " + it->second.from.substr(path.size() + 1) + ")");
        db.entries_.emplace(k, std::move(e));
    }
    if (!versioned) throw error("--tuning-db " + path + ": empty (no 'mxc-tuning-db<TAB>1' version line)");
    return db;
}

const tuning_entry* tuning_db::find(const gemm_problem& p, const std::string& arch) const {
    auto it = entries_.find(key_of(p, arch));
    return it == entries_.end() ? nullptr : &it->second;
}

void tuning_db::put(tuning_entry e) {
    e.problem.op = strip_fused(e.problem.op);
    auto k = key_of(e.problem, e.arch);
    entries_[k] = std::move(e);
}

std::string tuning_db::text() const {
    std::ostringstream o;
    o << "# mxc tuning database (codegen/tuning.hpp): the GEMM tile that won per problem, timed on the GPU\n"
      << magic << "\t" << version << "\n# op\tdtype\tarch\tMxNxKxZ\tBMxBNxBK/TMxTN\tus\n";
    for (auto& [k, e] : entries_) {
        o << e.problem.op << "\t" << dtype_name(e.problem.type) << "\t" << e.arch << "\t" << e.problem.text() << "\t"
          << e.tile.text();
        if (e.us >= 0) o << "\t" << e.us;
        o << "\n";
    }
    return o.str();
}

std::optional<gemm_problem> gemm_problem_of(const kernel_call& k) {
    const std::string op = strip_fused(k.kernel);
    if ((op != "dot" && op != "convolution") || !is_gemm_type(k.type) || k.in_shapes.size() < 2) return std::nullopt;
    const shape &a = k.in_shapes[0], &b = k.in_shapes[1], &out = k.out_shape;
    const std::size_t r = out.lens.size();
    gemm_problem p;
    p.op = op;
    p.type = k.type;
    if (op == "dot") {
        if (r < 2 || a.lens.size() != r) return std::nullopt;
        p.m = out.lens[r - 2], p.n = out.lens[r - 1], p.k = a.lens[r - 1];
        for (std::size_t i = 0; i + 2 < r; ++i) p.z *= out.lens[i];
        // the launcher runs a product whose batches fold into rows as one (templates/common/dot.hpp)
        if (b.lens.size() == r) {
            const mxc_dot_fold f = mxc_dot_fold_of(make_desc(a), make_desc(b), make_desc(out));
            if (f.ok) p.m = f.rows, p.z = f.batches;
        }
        return p;
    }
    // convolution: x [N, C, spatial...], w [M, C/group, kernel...], out [N, M, out spatial...];
    // params.ip[0] = group.
    if (r < 3 || b.lens.size() != r || k.params.ip.empty() || k.params.ip[0] < 1) return std::nullopt;
    const int64_t group = k.params.ip[0];
    p.z = group;
    p.m = out.lens[1] / group;
    p.n = out.lens[0];
    p.k = b.lens[1];
    for (std::size_t d = 2; d < r; ++d) p.n *= out.lens[d], p.k *= b.lens[d];
    // A 2-d depthwise convolution (one input channel per group) runs a direct kernel, no GEMM.
    if (b.lens[1] == 1 && group > 1 && r == 4) return std::nullopt;
    return p;
}

int apply_tuning(lowered_module& l, const tuning_db& db, const std::string& arch) {
    int n = 0;
    for (auto& k : l.kernels) {
        auto p = gemm_problem_of(k);
        if (!p) continue;
        if (const tuning_entry* e = db.find(*p, arch)) {
            k.tuning = {e->tile.text(), e->tile.cpp_type(p->type), e->from, e->tile.bm, e->tile.bn, e->tile.bk, e->tile.splits};
            ++n;
        }
    }
    return n;
}

} // namespace mxc
