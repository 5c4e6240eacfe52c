// The math of the elementwise ops of ir/ops/elementwise.cpp, written once: used by the cpu
// kernels, the hip kernels and (through op_def::pointwise_expr) by fused kernels. Arguments
// are in the compute type of the element type (mxc_compute_t); comparisons return bool.
#pragma once
#include "templates/common/math.hpp"

#include <type_traits>

// mxc_<name>(float) and mxc_<name>(double) over the C math library.
#define MXC_EW_MATH1(name, ffn, dfn)                             \
    MXC_HD inline float mxc_##name(float x) { return ffn(x); }   \
    MXC_HD inline double mxc_##name(double x) { return dfn(x); }
MXC_EW_MATH1(sin, sinf, sin)
MXC_EW_MATH1(cos, cosf, cos)
MXC_EW_MATH1(tan, tanf, tan)
MXC_EW_MATH1(asin, asinf, asin)
MXC_EW_MATH1(acos, acosf, acos)
MXC_EW_MATH1(atan, atanf, atan)
MXC_EW_MATH1(sinh, sinhf, sinh)
MXC_EW_MATH1(cosh, coshf, cosh)
MXC_EW_MATH1(asinh, asinhf, asinh)
MXC_EW_MATH1(acosh, acoshf, acosh)
MXC_EW_MATH1(atanh, atanhf, atanh)
MXC_EW_MATH1(ceil, ceilf, ceil)
MXC_EW_MATH1(floor, floorf, floor)
MXC_EW_MATH1(rint, rintf, rint) // rounds half to even in the default rounding mode
MXC_EW_MATH1(log1p, log1pf, log1p)
#undef MXC_EW_MATH1
MXC_HD inline float mxc_fmod(float a, float b) { return fmodf(a, b); }
MXC_HD inline double mxc_fmod(double a, double b) { return fmod(a, b); }

#define MXC_EW_UNARY(name, expr) \
    struct mxc_pw_##name {       \
        template <class C> MXC_HD C operator()(C x) const { return expr; } \
    };
MXC_EW_UNARY(sin, mxc_sin(x))
MXC_EW_UNARY(cos, mxc_cos(x))
MXC_EW_UNARY(tan, mxc_tan(x))
MXC_EW_UNARY(asin, mxc_asin(x))
MXC_EW_UNARY(acos, mxc_acos(x))
MXC_EW_UNARY(atan, mxc_atan(x))
MXC_EW_UNARY(sinh, mxc_sinh(x))
MXC_EW_UNARY(cosh, mxc_cosh(x))
MXC_EW_UNARY(asinh, mxc_asinh(x))
MXC_EW_UNARY(acosh, mxc_acosh(x))
MXC_EW_UNARY(atanh, mxc_atanh(x))
MXC_EW_UNARY(ceil, mxc_ceil(x))
MXC_EW_UNARY(floor, mxc_floor(x))
MXC_EW_UNARY(round, mxc_rint(x))
MXC_EW_UNARY(reciprocal, C(1) / x)
MXC_EW_UNARY(sign, C(x > C(0) ? C(1) : (x < C(0) ? C(-1) : C(0))))
// softplus = ln(1 + e^x), without overflow for large x.
MXC_EW_UNARY(softplus, x > C(0) ? C(x + mxc_log1p(mxc_exp(-x))) : mxc_log1p(mxc_exp(x)))
MXC_EW_UNARY(softsign, x / (C(1) + mxc_abs(x)))
#undef MXC_EW_UNARY
// ~x for integers, !x for bool.
struct mxc_pw_bitwise_not {
    MXC_HD bool operator()(bool x) const { return !x; }
    template <class C> MXC_HD C operator()(C x) const { return C(~x); }
};

// Integer modulo with the sign of the divisor (Python's %); x % 0 gives 0.
struct mxc_pw_mod {
    template <class C> MXC_HD C operator()(C a, C b) const {
        if constexpr (std::is_floating_point<C>::value) {
            C r = mxc_fmod(a, b);
            return (r != C(0) && ((r < C(0)) != (b < C(0)))) ? C(r + b) : r;
        } else {
            if (b == C(0)) return C(0);
            if constexpr (std::is_signed<C>::value) {
                if (b == C(-1)) return C(0);
                C r = C(a % b);
                return (r != C(0) && ((r < C(0)) != (b < C(0)))) ? C(r + b) : r;
            } else {
                return C(a % b);
            }
        }
    }
};
// C's fmod: the remainder has the sign of the dividend; integer x % 0 gives 0.
struct mxc_pw_fmod {
    template <class C> MXC_HD C operator()(C a, C b) const {
        if constexpr (std::is_floating_point<C>::value) return mxc_fmod(a, b);
        else {
            if (b == C(0)) return C(0);
            if constexpr (std::is_signed<C>::value)
                if (b == C(-1)) return C(0);
            return C(a % b);
        }
    }
};
struct mxc_pw_bitwise_and {
    template <class C> MXC_HD C operator()(C a, C b) const { return C(a & b); }
};
struct mxc_pw_bitwise_or {
    template <class C> MXC_HD C operator()(C a, C b) const { return C(a | b); }
};
struct mxc_pw_bitwise_xor {
    template <class C> MXC_HD C operator()(C a, C b) const { return C(a ^ b); }
};
// Shifts by the bit width or more give 0.
struct mxc_pw_shift_left {
    template <class C> MXC_HD C operator()(C a, C b) const {
        return b >= C(sizeof(C) * 8) ? C(0) : C(a << b);
    }
};
struct mxc_pw_shift_right {
    template <class C> MXC_HD C operator()(C a, C b) const {
        return b >= C(sizeof(C) * 8) ? C(0) : C(a >> b);
    }
};

// Comparisons: (C, C) -> bool.
struct mxc_cmp_equal {
    template <class C> MXC_HD bool operator()(C a, C b) const { return a == b; }
};
struct mxc_cmp_less {
    template <class C> MXC_HD bool operator()(C a, C b) const { return a < b; }
};
struct mxc_cmp_greater {
    template <class C> MXC_HD bool operator()(C a, C b) const { return b < a; }
};
struct mxc_cmp_less_or_equal {
    template <class C> MXC_HD bool operator()(C a, C b) const { return a <= b; }
};
struct mxc_cmp_greater_or_equal {
    template <class C> MXC_HD bool operator()(C a, C b) const { return b <= a; }
};
