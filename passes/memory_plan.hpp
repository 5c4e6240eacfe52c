// The static memory plan: every intermediate buffer gets a byte offset in one arena.
//
// Buffers: every kernel instruction (an op that is not a view) whose value is not a model
// output. Params are read in place, literals live in the weights blob, and instructions that
// are inputs of @return write straight into the caller's output buffers, so none of those
// take arena space. A view uses its root's buffer and extends the root's live interval.
//
// Interval of a buffer: [index of its defining instruction, index of its last use] on the
// module's final instruction order (indices count every instruction, builtins included).
// Buffers whose intervals overlap conflict and must not overlap in bytes.
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
    int64_t offset = 0;  // in the arena, a multiple of the alignment
};

struct memory_plan {
    std::vector<buffer_plan> buffers;  // in instruction order
    int64_t alignment = 256;
    int64_t arena_bytes = 0;           // end of the highest buffer, rounded up to the alignment
    int64_t lower_bound_bytes = 0;     // max over instructions of the (aligned) bytes live there
    int64_t naive_bytes = 0;           // sum of all (aligned) buffer sizes

    const buffer_plan* find(const instruction* ins) const; // null if ins has no buffer
};

memory_plan plan_memory(const module& m, int64_t alignment = 256);

// Independent check: every offset aligned and inside the arena, every buffer of the module
// present with the right size and interval, and no two buffers live at one instruction
// overlapping in bytes. Throws mxc::error describing the first violation.
void validate_memory_plan(const module& m, const memory_plan& p);

} // namespace mxc
