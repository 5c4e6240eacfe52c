// Element types shared by the compiler, the cpu kernels and the hip kernels.
// Plain C++17; compiles as host code, with nvcc and with clang -x hip.
#pragma once
#include <stdint.h>
#include <string.h>

#if defined(__HIPCC__) || defined(__CUDACC__)
#define MXC_HD __host__ __device__
#else
#define MXC_HD
#endif

// IEEE binary16 stored as bits; arithmetic goes through float.
struct mxc_half {
    uint16_t bits;
    mxc_half() = default;
    MXC_HD mxc_half(float f) : bits(from_float(f)) {}
    MXC_HD operator float() const { return to_float(bits); }
    // On a GPU each conversion is the hardware's one instruction (NVIDIA cvt, AMD v_cvt: IEEE,
    // round to nearest even, subnormals and infinities kept; only a NaN's payload may differ
    // from the code below); elsewhere (the host, the emulator) the bit manipulation below.
    // Why: the software form took 10 to 20 instructions and a branch per element in every half
    // kernel's loads and stores (the fp16 layer norm of ViT-B/16 ran 3x its fp32 time on the
    // H200, 2026-11-24).
    MXC_HD static float to_float(uint16_t h) {
#if defined(__CUDA_ARCH__)
        float r;
        asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(h));
        return r;
#elif defined(__HIP_DEVICE_COMPILE__)
        return (float)__builtin_bit_cast(_Float16, h);
#else
        uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ffu, f;
        if (exp == 0) {
            if (man == 0) f = sign;
            else { // subnormal: renormalise
                exp = 127 - 15 + 1;
                while (!(man & 0x400u)) { man <<= 1; --exp; }
                f = sign | (exp << 23) | ((man & 0x3ffu) << 13);
            }
        } else if (exp == 31) f = sign | 0x7f800000u | (man << 13);
        else f = sign | ((exp + 127 - 15) << 23) | (man << 13);
        float r; memcpy(&r, &f, 4); return r;
#endif
    }
    MXC_HD static uint16_t from_float(float v) { // round to nearest even
#if defined(__CUDA_ARCH__)
        uint16_t r;
        asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(v));
        return r;
#elif defined(__HIP_DEVICE_COMPILE__)
        return __builtin_bit_cast(uint16_t, (_Float16)v);
#else
        uint32_t x; memcpy(&x, &v, 4);
        uint32_t sign = (x >> 16) & 0x8000u, absx = x & 0x7fffffffu;
        if (absx > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);            // nan
        if (absx >= 0x47800000u) return (uint16_t)(sign | 0x7c00u);           // overflow -> inf
        if (absx < 0x38800000u) {                                              // subnormal or zero
            if (absx < 0x33000000u) return (uint16_t)sign;
            float fv; memcpy(&fv, &absx, 4);
            float scaled = fv * 16777216.0f;                                     // units of 2^-24
            uint32_t n = (uint32_t)scaled; float frac = scaled - (float)n;
            if (frac > 0.5f || (frac == 0.5f && (n & 1u))) ++n;
            return (uint16_t)(sign | n);
        }
        uint32_t r = ((absx - 0x38000000u) >> 13);
        uint32_t rem = absx & 0x1fffu;
        if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;
        return (uint16_t)(sign | r);
#endif
    }
};

// bfloat16: the top half of a float, round to nearest even.
struct mxc_bf16 {
    uint16_t bits;
    mxc_bf16() = default;
    MXC_HD mxc_bf16(float f) {
        uint32_t x; memcpy(&x, &f, 4);
        if ((x & 0x7fffffffu) > 0x7f800000u) bits = (uint16_t)((x >> 16) | 0x40u);
        else bits = (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
    }
    MXC_HD operator float() const { uint32_t x = (uint32_t)bits << 16; float r; memcpy(&r, &x, 4); return r; }
};

#include "templates/common/lowp.hpp"

template <class T> MXC_HD inline double mxc_to_double(T v) { return (double)v; }
MXC_HD inline double mxc_to_double(mxc_half v) { return (double)(float)v; }
MXC_HD inline double mxc_to_double(mxc_bf16 v) { return (double)(float)v; }

// Calls f(T{}) with the C++ element type of dtype index `t` (the order of mxc::dtype).
template <class F> inline void mxc_visit_dtype(int t, F&& f) {
    switch (t) {
    case 0: f(float{}); break;
    case 1: f(mxc_half{}); break;
    case 2: f(mxc_bf16{}); break;
    case 3: f(double{}); break;
    case 4: f(int8_t{}); break;
    case 5: f(int16_t{}); break;
    case 6: f(int32_t{}); break;
    case 7: f(int64_t{}); break;
    case 8: f(uint8_t{}); break;
    case 9: f(uint16_t{}); break;
    case 10: f(uint32_t{}); break;
    case 11: f(uint64_t{}); break;
    case 12: f(bool{}); break;
    case 13: f(mxc_f8e4m3fn{}); break;
    case 14: f(mxc_f8e4m3fnuz{}); break;
    case 15: f(mxc_f8e5m2{}); break;
    case 16: f(mxc_f8e5m2fnuz{}); break;
    case 17: f(mxc_f8e8m0{}); break;
    case 18: f(mxc_f4e2m1{}); break;
    case 19: f(mxc_int4{}); break;
    case 20: f(mxc_uint4{}); break;
    case 21: f(mxc_int2{}); break;
    case 22: f(mxc_uint2{}); break;
    default: break;
    }
}
