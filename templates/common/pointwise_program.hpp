// Fused elementwise bodies (the `pointwise`, `fused_convolution` and `fused_dot` ops): a body
// such as relu(add(x0,x1)) is an expression over the kernel's inputs with the functors of
// templates/common/pointwise.hpp. Generated code pastes it as one C++ expression; the
// reference evaluator and constant folding run it as a postfix program packed into `ip`:
// code >= 0 pushes input `code`, code < 0 applies op -code-1 of MXC_PW_OPS to the top
// values of the stack.
#pragma once
#include "templates/common/pointwise.hpp"

#include <type_traits>

// name, arity: the ops a fused body may use (same names as the IR ops).
#define MXC_PW_OPS(X)                                                                                 \
    X(relu, 1) X(sigmoid, 1) X(tanh, 1) X(neg, 1) X(abs, 1) X(exp, 1) X(log, 1) X(sqrt, 1) X(erf, 1) \
    X(add, 2) X(sub, 2) X(mul, 2) X(div, 2) X(max, 2) X(min, 2) X(pow, 2) X(clip, 3) \
    X(gelu, 1) X(gelu_tanh, 1)

enum mxc_pw_code {
#define MXC_PW_ENUM(n, a) mxc_pw_code_##n,
    MXC_PW_OPS(MXC_PW_ENUM)
#undef MXC_PW_ENUM
    mxc_pw_code_count
};

constexpr int mxc_pw_max_stack = 16;

MXC_HD inline int mxc_pw_arity(int64_t op) {
    switch (op) {
#define MXC_PW_ARITY(n, a) case mxc_pw_code_##n: return a;
        MXC_PW_OPS(MXC_PW_ARITY)
#undef MXC_PW_ARITY
    }
    return 0;
}

template <class C> MXC_HD inline C mxc_pw_apply(int64_t op, const C* a) {
    switch (op) {
    case mxc_pw_code_relu: return mxc_pw_relu{}(a[0]);
    case mxc_pw_code_sigmoid: return mxc_pw_sigmoid{}(a[0]);
    case mxc_pw_code_tanh: return mxc_pw_tanh{}(a[0]);
    case mxc_pw_code_neg: return mxc_pw_neg{}(a[0]);
    case mxc_pw_code_abs: return mxc_pw_abs{}(a[0]);
    case mxc_pw_code_exp: return mxc_pw_exp{}(a[0]);
    case mxc_pw_code_log: return mxc_pw_log{}(a[0]);
    case mxc_pw_code_sqrt: return mxc_pw_sqrt{}(a[0]);
    case mxc_pw_code_erf: return mxc_pw_erf{}(a[0]);
    case mxc_pw_code_add: return mxc_pw_add{}(a[0], a[1]);
    case mxc_pw_code_sub: return mxc_pw_sub{}(a[0], a[1]);
    case mxc_pw_code_mul: return mxc_pw_mul{}(a[0], a[1]);
    case mxc_pw_code_div: return mxc_pw_div{}(a[0], a[1]);
    case mxc_pw_code_max: return mxc_pw_max{}(a[0], a[1]);
    case mxc_pw_code_min: return mxc_pw_min{}(a[0], a[1]);
    case mxc_pw_code_pow: return mxc_pw_pow{}(a[0], a[1]);
    case mxc_pw_code_clip: return mxc_pw_clip{}(a[0], a[1], a[2]);
    case mxc_pw_code_gelu: return mxc_pw_gelu{}(a[0]);
    case mxc_pw_code_gelu_tanh: return mxc_pw_gelu_tanh{}(a[0]);
    }
    return C(0);
}

// Runs a postfix program of n codes over the input values x.
template <class C> MXC_HD inline C mxc_pw_run(const int64_t* prog, int64_t n, const C* x) {
    C stack[mxc_pw_max_stack];
    int sp = 0;
    for (int64_t i = 0; i < n; ++i) {
        const int64_t code = prog[i];
        if (code >= 0) {
            stack[sp++] = x[code];
        } else {
            const int a = mxc_pw_arity(-code - 1);
            sp -= a;
            stack[sp] = mxc_pw_apply(-code - 1, stack + sp);
            ++sp;
        }
    }
    return stack[0];
}

// How many input values x[] a body reads, where it names the count (a generated body's
// `inputs`, codegen/emit_fused.cpp: the accumulator or product x[0] and the extra inputs);
// -1 where it does not (mxc_pw_program reads what its program reads). The cpu and hip fused
// kernels compile only the loops of that count.
template <class F, class = void> struct mxc_body_inputs : std::integral_constant<int, -1> {};
template <class F> struct mxc_body_inputs<F, std::void_t<decltype(F::inputs)>> : std::integral_constant<int, F::inputs> {};

// The interpreted body as a functor over the input values (the form generated bodies have).
struct mxc_pw_program {
    const int64_t* prog;
    int64_t n;
    template <class C> MXC_HD C operator()(const C* x) const { return mxc_pw_run(prog, n, x); }
};
