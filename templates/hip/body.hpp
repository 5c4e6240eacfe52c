// The bodies of fused kernels (templates/hip/fused.hpp, templates/hip/attention.hpp): a
// generated expression (codegen/emit_fused.cpp) or, without one, the program in ip.
#pragma once
#include "templates/common/pointwise_program.hpp"
#include "templates/hip/common.hpp"

#include <type_traits>

namespace mxc {
namespace hip {

// The body of kernels compiled without a generated expression: the program in ip.
struct program_body {};

// How many x[] body F reads: a generated expression's `inputs` (codegen/emit_fused.cpp), else
// all max_inputs. The kernels fill x[j] for j < body_arity only, in unrolled loops, so that x
// is indexed by constants and stays in registers (filled up to a.n_in in a loop, it was a
// local-memory array: a 32-byte stack frame in every fused GEMM kernel, ptxas -v), and the
// run epilogue loads only the extra inputs the body uses.
template <class F> struct body_arity {
    static constexpr int named = mxc_body_inputs<F>::value;
    static constexpr int value = named < 0 || named > max_inputs ? max_inputs : named;
};

} // namespace hip
} // namespace mxc
