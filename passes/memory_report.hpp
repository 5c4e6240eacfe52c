// What a memory plan costs, for people: the text of `mxc --memory-report`, the memory part
// of the `--report` JSON, and the SVG of `--memory-plot` (x: instruction, y: offset, one box
// per buffer).
#pragma once
#include "passes/memory_plan.hpp"

#include <string>

namespace mxc {

// arena, lower bound, naive sum, weights, arena / lower bound, buffers that share storage,
// and the `biggest` largest buffers with their intervals and offsets.
std::string memory_report_text(const module& m, const memory_plan& p, int64_t weights_bytes, int biggest = 10);

// The same as JSON members (no surrounding braces), indented by two spaces:
// "arena_bytes": ..., ..., "biggest_buffers": [...]
std::string memory_report_json(const module& m, const memory_plan& p, int64_t weights_bytes, int biggest = 10);

std::string memory_plot_svg(const module& m, const memory_plan& p);

} // namespace mxc
