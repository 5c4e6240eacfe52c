// The kernel a hip dot / convolution launch runs, chosen at compile time: the emitter names it
// as template arguments (templates/hip/gemm.hpp gemm_run, templates/hip/convolution.hpp
// convolution_epilogue), so each launch instantiates only the kernel it runs. The choice is the
// tuning database's tile (kernel_call::tuning, codegen/tuning.hpp) where there is one, else the
// rule of templates/common/gemm_choice.hpp (mxc_gemm_pick, mxc_conv_pick), the same rule the
// launchers apply at run time when called without a choice (gemm_auto, MXC_CONV_AUTO).
#pragma once
#include "codegen/lower.hpp"
#include "templates/common/gemm_choice.hpp"

#include <optional>
#include <string>

namespace mxc {

struct hip_launch_choice {
    // The template arguments after the element type, with a leading ", " (empty: the kernel
    // takes none, e.g. not a GEMM kernel or not a type the engine tiles):
    //   ", mxc::hip::gemm_medium"                          dot
    //   ", mxc::hip::gemm_config<...>, MXC_CONV_GEMM_1X1"  convolution (tile, form)
    //   ", mxc::hip::dw_wide, MXC_CONV_DEPTHWISE"          depthwise convolution
    //   ", void, MXC_CONV_PER_OUTPUT"                      convolution with strided weights
    //   ", 64"                                             attention (the bound on its head sizes)
    std::string args;
    // The line the emitter writes above the launch (without "// "): "tuned: <tile type>" for a
    // tuning-database tile, else what the rule chose and for which GEMM problem.
    std::string comment;
    // Split-K (mxc_gemm_splits): the slices the rule wants for the rule's preset (1: none) and
    // the scratch they need. The launch names gemm_split<preset, splits> only when the kernel
    // has that scratch in the arena (kernel_call::scratch_bytes, reserve_gemm_scratch).
    int splits = 1;
    int64_t scratch_bytes = 0;
};

// The choice for kernel k (dot, convolution, convolution_transpose and the fused forms).
hip_launch_choice hip_launch_choice_of(const kernel_call& k);

// The GEMM engine's element kind of type t (templates/common/gemm_choice.hpp: float, double,
// half, bf16), or nothing.
std::optional<mxc_gemm_elem> gemm_elem_of(dtype t);

// Whether convolution k runs channels-last (MXC_CONV_GEMM_NHWC, once its scratch is reserved):
// half, the form allowed (mxc_conv_channels_last) and wanted (mxc_conv_channels_last_pays, or
// MXC_CHANNELS_LAST=0 / 1 in mxc's environment).
bool conv_runs_channels_last(const kernel_call& k);

// Whether GPU architecture `arch` (an --offload-arch) has matrix units that take fp32 products
// at fp32 accuracy (templates/hip/mma.hpp, mma_tile<float>): NVIDIA sm_80 and later (3xTF32),
// AMD gfx908, gfx90a and gfx940-942 (fp32 MFMA); and the host emulator ("emu"), which stands for
// such a GPU so that its builds (CI's conformance and lit tests) run that kernel.
bool has_f32_matrix_units(const std::string& arch);

// Whether the float products of kernel `op` (dot, convolution; the fused forms' op without
// "fused_") built for `arch` go to those units: dot products where has_f32_matrix_units, the
// GEMM forms of convolutions too with MXC_FP32_MMA=all in mxc's environment (an A/B for a
// device: by default they keep the SIMT engine), nothing with MXC_FP32_MMA=0 (the A/B: the SIMT
// engine everywhere).
bool f32_matrix_units_take(const std::string& arch, const std::string& op);

// Marks the float kernels of a hip module built for `arch` whose products go to the matrix
// units (f32_matrix_units_take; kernel_call::f32_mma; mxc_gemm_f32_mma then decides per shape,
// and a tuning-database tile overrides). Returns how many it marked.
int use_f32_matrix_units(lowered_module& l, const std::string& arch);

// Whether attention kernels built for `arch` run on the matrix units (templates/hip/attention.hpp,
// attention_mma_kernel, for half and float heads it takes): where has_f32_matrix_units (the
// GPUs where mma.hpp has a vendor path for both tiles, and the emulator), unless
// MXC_MMA_ATTENTION=0 in mxc's environment (the A/B: the SIMT kernel everywhere).
bool matrix_unit_attention_wanted(const std::string& arch);

// Marks the half and float attention kernels of a hip module built for `arch` where
// matrix_unit_attention_wanted (kernel_call::mma_attention). Returns how many it marked.
int use_matrix_unit_attention(lowered_module& l, const std::string& arch);

// Whether GPU architecture `arch` runs gemm_mma_large_ring (templates/hip/gemm.hpp: the large
// matrix-unit tile with a ring of four stages filled by asynchronous copies, 80 KiB of dynamic
// shared memory): NVIDIA GPUs with cp.async and at least 160 KiB of shared memory per SM, so
// that two blocks fit (sm_80 and sm_87: 164 KiB; sm_90, sm_100, sm_103: 228 KiB; not sm_86,
// sm_89 or sm_120: 100 KiB), and the host emulator ("emu", so that CI runs the kernel). AMD GPUs
// have no asynchronous copies (and 64 KiB of LDS).
bool has_large_ring(const std::string& arch);

// Whether builds for `arch` use it: where has_large_ring, unless MXC_LARGE_RING=0 in mxc's
// environment (the A/B: the two-stage gemm_mma_large, and the channels-last convolutions on
// gemm_mma_small).
bool large_ring_wanted(const std::string& arch);

// Marks the half kernels of a hip module built for `arch` whose large matrix-unit tile is
// gemm_mma_large_ring, and the float ones whose matrix-unit tile is gemm_mma_f32_deep (32 deep,
// 72 KiB: two blocks an SM on sm_80, three on sm_90), (kernel_call::large_ring) where
// large_ring_wanted. Returns how many.
int use_large_ring(lowered_module& l, const std::string& arch);

// The arena scratch kernel k of a cpu module wants: a convolution's zero-bordered input copy
// (the stride-1 shifted form) or its im2col matrix, packed once (templates/cpu/convolution.hpp,
// conv_scratch_bytes), else 0.
int64_t cpu_scratch_bytes(const kernel_call& k);

// Reserves the scratch of every kernel that wants one (hip: split-K launches and channels-last
// convolutions, hip_launch_choice_of; cpu: cpu_scratch_bytes) for `target`: one region past the
// end of the planned arena, as large as the largest need (the kernels of an instance run one
// after another), so arena_bytes (the workspace the C API reports) includes it. Returns its bytes.
int64_t reserve_gemm_scratch(lowered_module& l, const std::string& target);

} // namespace mxc
