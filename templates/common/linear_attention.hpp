// linear_attention: the LinearAttention recurrence, one (batch, KV head, value column j) per
// call: that column of the state S [d_k, d_v] evolves on its own. Inputs q [B,T,Hq*dk],
// k [B,T,Hkv*dk], v [B,T,Hkv*dv], state [B,Hkv,dk,dv], then decay [B,T,Hkv*dk or Hkv] (gated
// rules) and beta [B,T,Hkv or 1] (delta rules). Per step t:
//   S *= exp(decay_t) (gated); w = delta ? beta_t * (v_t[j] - S.k_t) : v_t[j]; S += k_t * w;
//   y[t, query head] = scale * q_t.S for the g = Hq/Hkv query heads of this KV head.
// Output row (b, h, j) of [B, Hkv, dv, T*g + dk]: the T*g outputs, then the final S[:, j].
// Computes in double; dk <= MXC_LINEAR_ATTENTION_MAX_DK.
// ip = [Hq, Hkv, gated, delta, decay is per head, beta is per head]; fp = [scale]
#pragma once
#include "templates/common/math.hpp"

#define MXC_LINEAR_ATTENTION_MAX_DK 256

template <class T>
MXC_HD inline void mxc_linear_attention_row(const T* q, const mxc_desc& qd, const T* k, const mxc_desc& kd, const T* v,
                                            const mxc_desc& vd, const T* s0, const mxc_desc& sd, const T* decay,
                                            const mxc_desc& dd, const T* beta, const mxc_desc& bd, T* y,
                                            const mxc_desc& yd, const int64_t* ip, const double* fp, int64_t row) {
    const int64_t hq = ip[0], hkv = ip[1], g = hq / hkv, steps = qd.lens[1], dk = qd.lens[2] / hq, dv = vd.lens[2] / hkv;
    const int64_t j = row % dv, h = (row / dv) % hkv, b = row / (dv * hkv), width = yd.lens[3];
    auto val = [](T x) { return static_cast<double>(static_cast<mxc_compute_t<T>>(x)); };
    double s[MXC_LINEAR_ATTENTION_MAX_DK];
    for (int64_t i = 0; i < dk; ++i) s[i] = val(s0[b * sd.strides[0] + h * sd.strides[1] + i * sd.strides[2] + j * sd.strides[3]]);
    T* out = y + row * width;
    for (int64_t t = 0; t < steps; ++t) {
        const T* kt = k + b * kd.strides[0] + t * kd.strides[1] + h * dk * kd.strides[2];
        if (ip[2]) {
            const T* dt = decay + b * dd.strides[0] + t * dd.strides[1];
            for (int64_t i = 0; i < dk; ++i) s[i] *= exp(val(dt[(ip[4] ? h : h * dk + i) * dd.strides[2]]));
        }
        double w = val(v[b * vd.strides[0] + t * vd.strides[1] + (h * dv + j) * vd.strides[2]]);
        if (ip[3]) {
            double r = 0.0;
            for (int64_t i = 0; i < dk; ++i) r += s[i] * val(kt[i * kd.strides[2]]);
            w = val(beta[b * bd.strides[0] + t * bd.strides[1] + (ip[5] ? h : 0) * bd.strides[2]]) * (w - r);
        }
        for (int64_t i = 0; i < dk; ++i) s[i] += val(kt[i * kd.strides[2]]) * w;
        for (int64_t gi = 0; gi < g; ++gi) {
            const T* qt = q + b * qd.strides[0] + t * qd.strides[1] + (h * g + gi) * dk * qd.strides[2];
            double o = 0.0;
            for (int64_t i = 0; i < dk; ++i) o += val(qt[i * qd.strides[2]]) * s[i];
            out[t * g + gi] = T(static_cast<mxc_compute_t<T>>(fp[0] * o));
        }
    }
    for (int64_t i = 0; i < dk; ++i) out[steps * g + i] = T(static_cast<mxc_compute_t<T>>(s[i]));
}
