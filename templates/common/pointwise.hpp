// The math of every elementwise op, written once: used by the cpu kernels, the hip kernels and
// (through op_def::pointwise_expr, e.g. "mxc_pw_sigmoid{}(x0)") by fused kernels. Arguments
// are in the compute type of the element type (mxc_compute_t).
#pragma once
#include "templates/common/math.hpp"

struct mxc_pw_relu {
    template <class C> MXC_HD C operator()(C x) const { return x > C(0) ? x : C(0); }
};
struct mxc_pw_sigmoid {
    template <class C> MXC_HD C operator()(C x) const { return mxc_sigmoid(x); }
};
struct mxc_pw_tanh {
    template <class C> MXC_HD C operator()(C x) const { return mxc_tanh(x); }
};
struct mxc_pw_neg {
    template <class C> MXC_HD C operator()(C x) const { return C(-x); }
};
struct mxc_pw_abs {
    template <class C> MXC_HD C operator()(C x) const { return mxc_abs(x); }
};
struct mxc_pw_exp {
    template <class C> MXC_HD C operator()(C x) const { return mxc_exp(x); }
};
struct mxc_pw_log {
    template <class C> MXC_HD C operator()(C x) const { return mxc_log(x); }
};
struct mxc_pw_sqrt {
    template <class C> MXC_HD C operator()(C x) const { return mxc_sqrt(x); }
};
struct mxc_pw_erf {
    template <class C> MXC_HD C operator()(C x) const { return mxc_erf(x); }
};
// GELU, exact (erf) form: x * Phi(x) = 0.5 x (1 + erf(x / sqrt(2))).
struct mxc_pw_gelu {
    template <class C> MXC_HD C operator()(C x) const { return C(C(0.5) * x * (C(1) + mxc_erf(C(x * C(0.70710678118654752440))))); }
};
// GELU, tanh approximation: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
struct mxc_pw_gelu_tanh {
    template <class C> MXC_HD C operator()(C x) const {
        return C(C(0.5) * x * (C(1) + mxc_tanh(C(C(0.79788456080286535588) * (x + C(0.044715) * x * x * x)))));
    }
};
struct mxc_pw_copy {
    template <class C> MXC_HD C operator()(C x) const { return x; }
};
struct mxc_pw_add {
    template <class C> MXC_HD C operator()(C a, C b) const { return C(a + b); }
};
struct mxc_pw_sub {
    template <class C> MXC_HD C operator()(C a, C b) const { return C(a - b); }
};
struct mxc_pw_mul {
    template <class C> MXC_HD C operator()(C a, C b) const { return C(a * b); }
};
// Integer division truncates; x / 0 gives 0 and MIN / -1 wraps (no trap).
struct mxc_pw_div {
    template <class C> MXC_HD C operator()(C a, C b) const {
        if constexpr (std::is_integral<C>::value) {
            if (b == C(0)) return C(0);
            if constexpr (std::is_signed<C>::value)
                if (b == C(-1)) return C(0 - static_cast<typename std::make_unsigned<C>::type>(a));
        }
        return C(a / b);
    }
};
struct mxc_pw_max {
    template <class C> MXC_HD C operator()(C a, C b) const { return a < b ? b : a; }
};
struct mxc_pw_min {
    template <class C> MXC_HD C operator()(C a, C b) const { return b < a ? b : a; }
};
struct mxc_pw_pow {
    template <class C> MXC_HD C operator()(C a, C b) const { return mxc_pow(a, b); }
};
struct mxc_pw_clip {
    template <class C> MXC_HD C operator()(C x, C lo, C hi) const {
        C y = x < lo ? lo : x;
        return hi < y ? hi : y;
    }
};
