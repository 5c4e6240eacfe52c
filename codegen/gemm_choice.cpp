// The compile-time kernel choice of hip GEMM launches (see codegen/gemm_choice.hpp).
#include "codegen/gemm_choice.hpp"
#include "codegen/tuning.hpp"
#include "ir/eval.hpp"
#include "templates/common/gemm_choice.hpp"
#include "templates/cpu/convolution.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

namespace mxc {

std::optional<mxc_gemm_elem> gemm_elem_of(dtype t) {
    switch (t) {
    case dtype::float_type: return MXC_GEMM_F32;
    case dtype::double_type: return MXC_GEMM_F64;
    case dtype::half_type: return MXC_GEMM_F16;
    case dtype::bf16_type: return MXC_GEMM_BF16;
    default: return std::nullopt;
    }
}

namespace {

const char* preset_type(mxc_gemm_preset p) {
    switch (p) {
    case MXC_GEMM_LARGE: return "mxc::hip::gemm_large";
    case MXC_GEMM_MEDIUM: return "mxc::hip::gemm_medium";
    case MXC_GEMM_SMALL_M: return "mxc::hip::gemm_small_m";
    case MXC_GEMM_SMALL_N: return "mxc::hip::gemm_small_n";
    case MXC_GEMM_MMA: return "mxc::hip::gemm_mma_large";
    case MXC_GEMM_MMA_SMALL: return "mxc::hip::gemm_mma_small";
    case MXC_GEMM_MMA_F32: return "mxc::hip::gemm_mma_f32";
    case MXC_GEMM_MMA_F32_DEEP: return "mxc::hip::gemm_mma_f32_deep";
    case MXC_GEMM_GEMV: return "mxc::hip::gemm_gemv";
    }
    return "";
}

const char* form_name(mxc_conv_form f) {
    switch (f) {
    case MXC_CONV_AUTO: return "MXC_CONV_AUTO";
    case MXC_CONV_PER_OUTPUT: return "MXC_CONV_PER_OUTPUT";
    case MXC_CONV_DEPTHWISE: return "MXC_CONV_DEPTHWISE";
    case MXC_CONV_GEMM_1X1: return "MXC_CONV_GEMM_1X1";
    case MXC_CONV_GEMM_IM2COL: return "MXC_CONV_GEMM_IM2COL";
    case MXC_CONV_GEMM_1X1_WIDE: return "MXC_CONV_GEMM_1X1_WIDE";
    case MXC_CONV_GEMM_IM2COL_WIDE: return "MXC_CONV_GEMM_IM2COL_WIDE";
    case MXC_CONV_GEMM_NHWC: return "MXC_CONV_GEMM_NHWC";
    }
    return "";
}

// Whether a half convolution that can run channels-last should: the rule
// (mxc_conv_channels_last_pays), unless MXC_CHANNELS_LAST is set in the environment: 0 never,
// 1 wherever mxc_conv_channels_last allows it (for A/B runs on a device).
bool channels_last_wanted(const gemm_problem& p) {
    const char* env = std::getenv("MXC_CHANNELS_LAST");
    if (env != nullptr && std::strcmp(env, "0") == 0) return false;
    if (env != nullptr && std::strcmp(env, "1") == 0) return true;
    return mxc_conv_channels_last_pays(p.m, p.n, p.k, p.z);
}

// Configuration cfg (K steps of bk) with K cut into `splits` slices (split-K): c.splits and
// c.scratch_bytes (what the kernel needs), and the gemm_split launch type once the kernel has
// that scratch (else cfg); c.comment names the slices and `why` (the rule, or the tuning entry).
std::string split_config(const kernel_call& k, const gemm_problem& p, mxc_gemm_elem e, hip_launch_choice& c,
                         const std::string& cfg, int splits, int bk, const std::string& why) {
    c.splits = splits;
    c.scratch_bytes = mxc_gemm_split_scratch_bytes(p.m, p.n, p.k, p.z, splits, bk, e == MXC_GEMM_F64 ? 8 : 4);
    if (k.scratch_bytes < c.scratch_bytes) return cfg;
    c.comment += ", split-K: " + std::to_string(mxc_gemm_slices(p.k, splits, bk)) + " slices of " +
                 std::to_string(mxc_gemm_slice_depth(p.k, splits, bk)) + " (" + why + ")";
    return "mxc::hip::gemm_split<" + cfg + ", " + std::to_string(splits) + ">";
}

// The GEMM configuration of problem p: the tuned tile, else the rule's preset, split-K where
// the rule wants it (c.splits, c.scratch_bytes) and the kernel has its scratch; sets c.comment.
// ring: a matrix-unit kernel with the ring of asynchronous copies where the rule picks a
// matrix-unit tile (the channels-last convolutions: their operands are vectors so that they can
// be copied so): gemm_mma_large_ring where the target has it (k.large_ring), else gemm_mma_small
// (gemm_mma_large has two stages in its 48 KiB). Without `ring`, k.large_ring still makes the
// large tile gemm_mma_large_ring (whose register-staged loop serves operands that are not
// vectors).
std::string gemm_config(const kernel_call& k, const gemm_problem& p, mxc_gemm_elem e, hip_launch_choice& c,
                        bool can_split, bool ring = false) {
    if (!k.tuning.config.empty()) {
        c.comment = "tuned: " + k.tuning.cpp;
        const int s = k.tuning.splits;
        if (s < 2) return k.tuning.cpp;
        // the entry's split-K (/kS), as it was timed: where the launcher can split, K makes two
        // slices or more, and the output tiles have their counters
        const bool block = k.tuning.bm > 0 && k.tuning.bn > 0 && k.tuning.bk > 0;
        const int64_t slices = block ? mxc_gemm_slices(p.k, s, k.tuning.bk) : 1;
        const int64_t tiles = block ? p.z * ((p.m + k.tuning.bm - 1) / k.tuning.bm) * ((p.n + k.tuning.bn - 1) / k.tuning.bn) : 0;
        if (!can_split || slices < 2 || tiles > mxc_gemm_split_tiles) {
            c.comment += " (unsplit: " +
                         std::string(!can_split ? "this launcher does not split K" : slices < 2 ? "K makes one slice" : "too many output tiles") +
                         ")";
            return k.tuning.cpp;
        }
        return split_config(k, p, e, c, k.tuning.cpp, s, k.tuning.bk, k.tuning.from);
    }
    mxc_gemm_preset preset = mxc_gemm_pick(e, p.m, p.n, p.k, p.z);
    if (e == MXC_GEMM_F32 && k.f32_mma && mxc_gemm_f32_mma(p.m, p.n, p.k, p.z))
        preset = k.large_ring ? MXC_GEMM_MMA_F32_DEEP : MXC_GEMM_MMA_F32;
    if (p.op == "dot" && mxc_gemm_gemv(p.m, p.n, p.k, p.z)) preset = MXC_GEMM_GEMV;
    const bool to_small_ring = ring && preset == MXC_GEMM_MMA && !k.large_ring;
    if (to_small_ring) preset = MXC_GEMM_MMA_SMALL;
    const bool large_ring = preset == MXC_GEMM_MMA && k.large_ring;
    std::string cfg = large_ring ? "mxc::hip::gemm_mma_large_ring" : preset_type(preset);
    c.comment = "gemm " + p.text() + ": " + cfg +
                (to_small_ring                   ? " (rule: mxc_gemm_pick's matrix-unit tile with the ring of stages)"
                 : large_ring                    ? " (rule: mxc_gemm_pick; its large tile with the ring of stages: has_large_ring)"
                 : preset == MXC_GEMM_MMA_F32 ? " (rule: mxc_gemm_f32_mma)"
                 : preset == MXC_GEMM_MMA_F32_DEEP ? " (rule: mxc_gemm_f32_mma; 32 deep where the target has the shared memory: has_large_ring)"
                 : preset == MXC_GEMM_GEMV       ? " (rule: mxc_gemm_gemv)"
                                              : " (rule: mxc_gemm_pick)");
    if (!can_split) return cfg;
    const mxc_gemm_tile_dims tile = mxc_gemm_preset_tile(preset);
    c.splits = mxc_gemm_splits(tile, p.m, p.n, p.k, p.z);
    if (c.splits < 2) return cfg;
    return split_config(k, p, e, c, cfg, c.splits, tile.bk, "rule: mxc_gemm_splits");
}

std::string strip_fused(const std::string& op) { return op.rfind("fused_", 0) == 0 ? op.substr(6) : op; }
} // namespace

bool conv_runs_channels_last(const kernel_call& k) {
    if (strip_fused(k.kernel) != "convolution" || k.type != dtype::half_type || k.in_shapes.size() < 2) return false;
    const shape &x = k.in_shapes[0], &w = k.in_shapes[1], &out = k.out_shape;
    if (out.lens.size() != 4 || x.lens.size() != 4 || w.lens.size() != 4 || k.params.ip.size() < 7) return false;
    const auto p = gemm_problem_of(k);
    return p && channels_last_wanted(*p) &&
           mxc_conv_channels_last(make_desc(x), make_desc(w), make_desc(out), k.params.ip.data());
}

hip_launch_choice hip_launch_choice_of(const kernel_call& k) {
    hip_launch_choice c;
    const std::string op = strip_fused(k.kernel);
    if (op == "attention" && k.in_shapes.size() >= 3 && !k.in_shapes[0].lens.empty() && !k.in_shapes[2].lens.empty()) {
        // the bound on the head sizes (templates/hip/attention.hpp): one kernel instantiated;
        // then whether it runs on the matrix units where they take such heads
        const int64_t head = std::max(k.in_shapes[0].lens.back(), k.in_shapes[2].lens.back());
        c.args = head <= 64 ? ", 64" : head <= 128 ? ", 128" : ", 256";
        if (k.mma_attention) {
            c.args += ", true";
            c.comment = "attention: attention_mma_kernel where its key tile fits the heads (use_matrix_unit_attention)";
        }
        return c;
    }
    const auto e = gemm_elem_of(k.type);
    if (!e || k.in_shapes.size() < 2) return c;
    if (op == "dot") {
        if (auto p = gemm_problem_of(k)) c.args = ", " + gemm_config(k, *p, *e, c, true);
        return c;
    }
    if (op == "convolution_transpose") {
        // the GEMM of templates/hip/convolution_transpose.hpp: M = output channels per group,
        // N = batch x output positions, K = input channels per group x kernel elements
        const shape &x = k.in_shapes[0], &w = k.in_shapes[1], &out = k.out_shape;
        if (k.params.ip.empty() || k.params.ip[0] < 1 || out.lens.size() < 3 || w.lens.size() != out.lens.size())
            return c;
        gemm_problem p;
        p.op = op;
        p.type = k.type;
        p.z = k.params.ip[0];
        p.m = w.lens[1];
        p.n = out.lens[0];
        p.k = x.lens[1] / p.z;
        for (std::size_t d = 2; d < out.lens.size(); ++d) p.n *= out.lens[d], p.k *= w.lens[d];
        c.args = ", " + gemm_config(k, p, *e, c, false); // (its launcher passes no scratch)
        return c;
    }
    if (op != "convolution") return c;
    // The descriptors the generated code passes are exactly these shapes (emit.cpp writes
    // k.in_shapes, k.out_shape and k.params.ip), so the form picked here is the one the
    // launcher's run-time check (mxc_conv_pick on the same descriptors) confirms.
    const shape &x = k.in_shapes[0], &w = k.in_shapes[1], &out = k.out_shape;
    const std::size_t s = out.lens.size() < 3 ? 0 : out.lens.size() - 2;
    if (s == 0 || x.lens.size() != s + 2 || w.lens.size() != s + 2 || k.params.ip.size() < 1 + 3 * s) return c;
    const mxc_conv_form form = mxc_conv_pick(make_desc(x), make_desc(w), make_desc(out), k.params.ip.data());
    std::string cfg;
    if (conv_runs_channels_last(k)) {
        const auto hp = gemm_problem_of(k);
        // channels-last (MXC_CONV_GEMM_NHWC): x transposed into the kernel's scratch after
        // split-K's part, and the weights unless they are stored channels-last (constant weights:
        // pack_channels_last_weights); the scratch wanted whether or not the kernel has it yet
        // (reserve_gemm_scratch asks first), the form only where it has (until then the NCHW
        // form, or the per-output kernel for weights stored channels-last)
        kernel_call with_split = k;
        with_split.scratch_bytes = INT64_MAX; // the split the rule wants, if any
        hip_launch_choice split;
        const std::string split_cfg = gemm_config(with_split, *hp, *e, split, true, true);
        const int64_t need = mxc_conv_nhwc_bytes(make_desc(x), make_desc(w), split.splits > 1 ? split.scratch_bytes : 0, 2);
        if (k.scratch_bytes >= need) {
            c = split;
            c.scratch_bytes = need;
            c.comment += mxc_conv_w_channels_last(make_desc(w))
                             ? ", channels-last (x transposed in the scratch, the weights stored so; rule: mxc_conv_channels_last_pays)"
                             : ", channels-last (x and the weights transposed in the scratch; rule: mxc_conv_channels_last_pays)";
            c.args = ", " + split_cfg + ", " + form_name(MXC_CONV_GEMM_NHWC);
            return c;
        }
        cfg = gemm_config(k, *hp, *e, c, false);
        c.scratch_bytes = need; // (the NCHW form runs until the kernel has it)
        c.args = ", " + cfg + ", " + form_name(form);
        return c;
    }
    if (form == MXC_CONV_DEPTHWISE) {
        cfg = mxc_conv_dw_wide(out.lens[3]) ? "mxc::hip::dw_wide" : "mxc::hip::dw_narrow";
        c.comment = std::string("depthwise: ") + cfg + " (rule: mxc_conv_dw_wide)";
    } else if (form == MXC_CONV_PER_OUTPUT) {
        cfg = "void";
        c.comment = "per-output convolution (the weights are not packed)";
    } else if (auto p = gemm_problem_of(k)) {
        cfg = gemm_config(k, *p, *e, c, true);
    } else {
        return c;
    }
    c.args = ", " + cfg + ", " + form_name(form);
    return c;
}

namespace {
// NN of an NVIDIA "sm_NN..." architecture (its compute capability x 10), else 0.
int sm_version(const std::string& arch) {
    if (arch.rfind("sm_", 0) != 0) return 0;
    int v = 0;
    std::size_t i = 3;
    for (; i < arch.size() && arch[i] >= '0' && arch[i] <= '9' && v < 10000; ++i) v = v * 10 + (arch[i] - '0');
    return i > 3 ? v : 0;
}
} // namespace

bool has_f32_matrix_units(const std::string& arch) {
    if (arch == "emu") return true;
    if (arch.rfind("sm_", 0) == 0) return sm_version(arch) >= 80;
    for (const char* g : {"gfx908", "gfx90a", "gfx940", "gfx941", "gfx942"})
        if (arch.rfind(g, 0) == 0 && (arch.size() == std::strlen(g) || arch[std::strlen(g)] == ':')) return true; // (gfx90a:xnack-)
    return false;
}

bool f32_matrix_units_take(const std::string& arch, const std::string& op) {
    const char* env = std::getenv("MXC_FP32_MMA");
    if (!has_f32_matrix_units(arch) || (env != nullptr && std::strcmp(env, "0") == 0)) return false;
    return op == "dot" || (op == "convolution" && env != nullptr && std::strcmp(env, "all") == 0);
}

namespace {
// Sets flag `member` of every kernel of l to pred(kernel); returns how many it set.
template <class P> int mark_kernels(lowered_module& l, bool kernel_call::*member, P pred) {
    int marked = 0;
    for (kernel_call& k : l.kernels) marked += (k.*member = pred(k));
    return marked;
}
} // namespace

bool matrix_unit_attention_wanted(const std::string& arch) {
    const char* env = std::getenv("MXC_MMA_ATTENTION");
    return has_f32_matrix_units(arch) && !(env != nullptr && std::strcmp(env, "0") == 0);
}

int use_matrix_unit_attention(lowered_module& l, const std::string& arch) {
    const bool on = matrix_unit_attention_wanted(arch);
    return mark_kernels(l, &kernel_call::mma_attention, [&](const kernel_call& k) {
        return on && strip_fused(k.kernel) == "attention" && (k.type == dtype::half_type || k.type == dtype::float_type);
    });
}

bool has_large_ring(const std::string& arch) {
    if (arch == "emu") return true;
    const int v = sm_version(arch);
    for (int big : {80, 87, 90, 100, 103}) // 164 or 228 KiB of shared memory per SM
        if (v == big) return true;
    return false;
}

bool large_ring_wanted(const std::string& arch) {
    const char* env = std::getenv("MXC_LARGE_RING");
    return has_large_ring(arch) && !(env != nullptr && std::strcmp(env, "0") == 0);
}

int use_large_ring(lowered_module& l, const std::string& arch) {
    const bool on = large_ring_wanted(arch);
    return mark_kernels(l, &kernel_call::large_ring,
                        [&](const kernel_call& k) { return on && (k.type == dtype::half_type || k.type == dtype::float_type); });
}

int use_f32_matrix_units(lowered_module& l, const std::string& arch) {
    return mark_kernels(l, &kernel_call::f32_mma, [&](const kernel_call& k) {
        return k.type == dtype::float_type && f32_matrix_units_take(arch, strip_fused(k.kernel));
    });
}

int64_t cpu_scratch_bytes(const kernel_call& k) {
    if (strip_fused(k.kernel) != "convolution" || k.in_shapes.size() < 2) return 0;
    const auto e = gemm_elem_of(k.type);
    const shape &x = k.in_shapes[0], &w = k.in_shapes[1], &out = k.out_shape;
    const std::size_t r = out.lens.size();
    if (!e || r < 3 || x.lens.size() != r || w.lens.size() != r || k.params.ip.size() < 1 + 3 * (r - 2)) return 0;
    const mxc_desc xd = make_desc(x), wd = make_desc(w), od = make_desc(out);
    return *e == MXC_GEMM_F64 ? cpu::conv_scratch_bytes<double>(xd, wd, od, k.params.ip.data())
                              : cpu::conv_scratch_bytes<float>(xd, wd, od, k.params.ip.data());
}

int64_t reserve_gemm_scratch(lowered_module& l, const std::string& target) {
    l.plan.arena_bytes -= l.plan.scratch_bytes; // (again: the planned buffers only)
    l.plan.scratch_bytes = 0;
    std::vector<int64_t> bytes(l.kernels.size());
    int64_t need = 0;
    for (std::size_t i = 0; i < l.kernels.size(); ++i) {
        l.kernels[i].scratch_bytes = 0;
        bytes[i] = target == "cpu" ? cpu_scratch_bytes(l.kernels[i]) : hip_launch_choice_of(l.kernels[i]).scratch_bytes;
        need = std::max(need, bytes[i]);
    }
    if (need == 0) return 0;
    const int64_t align = 256, buffers = l.plan.arena_bytes, offset = (buffers + align - 1) / align * align;
    need = (need + align - 1) / align * align;
    for (std::size_t i = 0; i < l.kernels.size(); ++i) {
        if (bytes[i] == 0) continue;
        l.kernels[i].scratch = {location::arena, 0, offset};
        l.kernels[i].scratch_bytes = bytes[i];
    }
    l.plan.arena_bytes = offset + need;
    l.plan.scratch_bytes = l.plan.arena_bytes - buffers;
    return need;
}

} // namespace mxc
