// Lowering: from a module in its final order, everything the emitters need. Every output of
// @return becomes a kernel that writes straight into the caller's output buffer; every kernel
// input gets a location (a model input, the weights blob, the arena or a caller output).
#pragma once
#include "ir/module.hpp"
#include "ir/op.hpp"
#include "passes/memory_plan.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mxc {

// Where a kernel reads or writes: a byte offset from one of four bases.
struct location {
    enum kind_t { input, weights, arena, output } kind = arena;
    int index = 0;      // the model input / output number (input, output)
    int64_t offset = 0; // bytes from the base
};

struct kernel_call {
    const instruction* ins = nullptr;
    std::string kernel;            // template name: mxc::cpu::<kernel><T>, mxc::hip::<kernel><T>
    dtype type = dtype::float_type; // T
    std::optional<dtype> source_type; // S of <T, S> (op_def::source_type_from_input)
    int cpu_template_ip = 0;          // cpu: ip[0, n) are template arguments too (op_def::cpu_template_ip)
    std::vector<location> in;
    std::vector<shape> in_shapes;  // the shapes as the kernel reads them (views keep their strides)
    location out;
    shape out_shape;               // what the kernel writes (ins->result, or one slice of a concat)
    kernel_params params;
    std::string note;              // why this kernel is not ins's own (a copy into a concat slice)
    // A tuning-database choice for the kernel's GEMM (codegen/tuning.hpp; empty: none): the
    // tile as BMxBNxBK/TMxTN[/kS], its C++ type (unsplit), the FILE:LINE of the entry, its
    // block (bm x bn, K steps of bk) and the slices K is cut into (1: unsplit).
    struct tuning_t {
        std::string config, cpp, from;
        int bm = 0, bn = 0, bk = 0, splits = 1;
    } tuning;
    // hip: a float GEMM kernel (dot; with MXC_FP32_MMA=all also convolution) whose product may
    // run on the target's matrix units (use_f32_matrix_units, codegen/gemm_choice.hpp).
    bool f32_mma = false;
    // hip: the rule's large half matrix-unit tile is gemm_mma_large_ring, its float one
    // gemm_mma_f32_deep (use_large_ring).
    bool large_ring = false;
    // hip: an attention kernel that runs on the matrix units where its heads allow
    // (attention_mma_kernel; use_matrix_unit_attention).
    bool mma_attention = false;
    // cpu: dot / fused_dot whose constant b (in[1]) is stored as the GEMM's packed panels
    // (codegen/dot_weights_strips.cpp); in_shapes[1] is then that buffer's shape.
    bool b_strips = false;
    // cpu: convolution / fused_convolution whose constant weights (in[1]) are stored as the
    // GEMM's row panels (codegen/conv_weights_panels.cpp); in_shapes[1] stays their shape.
    bool a_panels = false;
    // The kernel's arena scratch (reserve_gemm_scratch, codegen/gemm_choice.hpp): hip, split-K's
    // partial sums and the channels-last convolutions' copies; cpu, a convolution's im2col
    // matrix. scratch_bytes 0: none (the kernel gets a null scratch pointer and does without).
    location scratch;
    int64_t scratch_bytes = 0;
};

struct lowered_module {
    std::vector<const instruction*> inputs;  // the @params, in module order: the C API's inputs
    std::vector<const instruction*> outputs; // the inputs of @return: the C API's outputs
    std::vector<std::string> output_names;   // module::output_names when given
    std::vector<kernel_call> kernels;        // in execution order
    memory_plan plan;
    std::string weights;                     // every literal a kernel reads, 256-byte aligned (a string:
                                             // emit_library(lowered_module&&) hands it over as weights.bin)
    int64_t weights_alignment = 256;
};

// A concat with slices in the plan (some inputs written straight into its output) has no
// kernel of its own: only the inputs that are not slices are copied (`contiguous`) into theirs.
//
// Rewrites the outputs of `m` (inserting `contiguous` copies where an output is a param, a
// literal, a view or a repeated value), plans and validates memory and returns the kernels.
// Throws mxc::error naming the instruction when something cannot be lowered.
lowered_module lower(module& m);

// The two halves of `lower`, for drivers that time the memory plan on its own:
// make_outputs_kernels(m); plan = plan_memory(m); validate_memory_plan(m, plan);
// lower_planned(m, plan).
void make_outputs_kernels(module& m);
lowered_module lower_planned(const module& m, memory_plan plan);

// The view ops between `ins` and the instruction that owns its memory: the owner and the
// element offset of `ins`'s first element inside it.
struct view_root {
    const instruction* root;
    int64_t element_offset;
};
view_root find_view_root(const instruction* ins);

bool is_view(const instruction& ins);

} // namespace mxc
