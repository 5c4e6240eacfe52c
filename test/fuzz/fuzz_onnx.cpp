// libFuzzer harness: ONNX bytes -> import (shape inference) -> default pass pipeline ->
// memory plan, lowering and emitted sources (everything mxc does except running a compiler).
// Every input must end in a program or an mxc::error; anything else is a bug.
#include "codegen/emit.hpp"
#include "codegen/lower.hpp"
#include "compiler/onnx_import.hpp"
#include "ir/error.hpp"
#include "passes/memory_plan.hpp"
#include "passes/pass_manager.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    try {
        mxc::program p = mxc::import_onnx_bytes(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
        mxc::run_passes(p, mxc::default_pipeline());
        mxc::module& m = p.main();
        mxc::make_outputs_kernels(m);
        mxc::memory_plan plan = mxc::plan_memory(m, 256);
        mxc::validate_memory_plan(m, plan);
        mxc::lowered_module l = mxc::lower_planned(m, std::move(plan));
        mxc::emit_library(l, "cpu", "fuzz");
    } catch (const mxc::error&) {
    }
    return 0;
}
