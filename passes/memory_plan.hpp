// The static memory plan: every intermediate buffer gets a byte offset in one arena.
//
// Buffers: every kernel instruction (an op that is not a view) whose value is not a model
// output. Params are read in place, literals live in the weights blob, and instructions that
// are inputs of @return write straight into the caller's output buffers, so none of those
// take arena space. A view uses its root's buffer and extends the root's live interval.
//
// Interval of a buffer: [index of its defining instruction, index of its last use] on the
// module's final instruction order (indices count every instruction, builtins included).
// Buffers whose intervals overlap conflict and must not overlap in bytes, except where the
// plan lets one buffer share another's storage on purpose (passes/memory_sharing.cpp):
//   in_place      a pointwise kernel writes its result over an input that dies there (same
//                 bytes and dtype, read and written at the same element index);
//   concat_slice  a producer writes its result straight into its slice of a concat's output
//                 (only where the slice is contiguous: every dim before the axis is 1), so the
//                 concat copies nothing.
// Buffers linked by sharing form one block: the block's root owns the storage (its bytes)
// and the block lives from its first member's definition to its last member's last use.
// The planner places blocks (interval colouring with sizes), see memory_plan.cpp.
#pragma once
#include "ir/module.hpp"

#include <cstdint>
#include <vector>

namespace mxc {

struct buffer_plan {
    const instruction* ins = nullptr;
    int64_t bytes = 0;   // ins->result.bytes()
    int first = 0;       // defining instruction index
    int last = 0;        // last use index (inclusive), >= first
    int64_t offset = 0;  // in the arena (absolute; a multiple of the alignment)
    // Sharing (indices into memory_plan::buffers, -1 for none):
    int in_place_of = -1;      // the input this pointwise result overwrites (same offset)
    int slice_of = -1;         // the concat whose output this result is written into
    int64_t slice_offset = 0;  // ... at this byte offset from the concat's offset
};

struct memory_plan {
    std::vector<buffer_plan> buffers;  // in instruction order
    int64_t alignment = 256;
    int64_t arena_bytes = 0;           // end of the highest buffer, rounded up to the alignment
    int64_t lower_bound_bytes = 0;     // max over instructions of the (aligned) bytes of the blocks live there
    int64_t naive_bytes = 0;           // sum of all (aligned) buffer sizes: one slot per buffer, no sharing
    int64_t scratch_bytes = 0;         // the kernels' scratch past the buffers (reserve_gemm_scratch,
                                       // codegen/gemm_choice.hpp), included in arena_bytes

    const buffer_plan* find(const instruction* ins) const; // null if ins has no buffer
};

struct plan_options {
    int64_t alignment = 256;
    bool share = true;   // in-place pointwise kernels and concat slices (memory_sharing.cpp)
    bool improve = true; // the local search after the greedy placement
};

// Deterministic: the same module and options give the same plan, byte for byte.
memory_plan plan_memory(const module& m, const plan_options& o);
memory_plan plan_memory(const module& m, int64_t alignment = 256);

// The buffers of a module with their intervals, in instruction order (offsets 0, no sharing).
std::vector<buffer_plan> find_buffers(const module& m);

// Decides which buffers share storage (sets in_place_of, slice_of, slice_offset): in-place pointwise
// kernels and concat slices, each kept only if it does not raise the lower bound.
void share_memory(const module& m, std::vector<buffer_plan>& buffers, int64_t alignment);

// Independent check: every offset aligned and inside the arena, every buffer of the module
// present with the right size and interval, every sharing decision legal, and no two buffers
// live at one instruction overlapping in bytes unless one shares the other's storage legally.
// Throws mxc::error describing the first violation.
void validate_memory_plan(const module& m, const memory_plan& p);

} // namespace mxc
