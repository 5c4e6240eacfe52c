// The reference evaluator (`--target ref`): runs a module on the CPU with the cpu kernel
// templates, one instruction at a time. It is the oracle of the tests and the engine of
// constant folding.
#pragma once
#include "ir/literal.hpp"
#include "ir/module.hpp"
#include "templates/common/abi.hpp"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mxc {

// A value during evaluation: a (possibly strided) view into a shared buffer.
struct tensor {
    shape s;
    std::shared_ptr<const byte_buffer> buf;
    int64_t offset = 0; // elements from the start of buf

    const char* data() const { return buf->data() + offset * static_cast<int64_t>(dtype_size(s.type)); }
    literal pack() const; // a standard copy
    static tensor of(const literal& l);
};

// Runs one non-builtin instruction on the given input values.
tensor eval_instruction(const instruction& ins, const std::vector<tensor>& inputs);

// Runs the module; `inputs` by parameter name (missing one: mxc::error). Returns the outputs.
// `observe`, when set, sees every instruction's value as it is computed.
std::vector<literal> evaluate(const module& m, const std::map<std::string, literal>& inputs,
                              const std::function<void(const instruction&, const tensor&)>& observe = {});

// Packs op parameters and descriptors into mxc_kargs for one kernel call (shared with the
// profiling and dump tools).
mxc_desc make_desc(const shape& s);

} // namespace mxc
