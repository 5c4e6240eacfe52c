// linear_attention: the LinearAttention recurrence (linear, gated, delta, gated_delta), its
// outputs and final state packed in one result (the importer takes them apart with views).
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/cpu/linear_attention.hpp"

namespace mxc {

MXC_REGISTER_OP(linear_attention) {
    op_def d;
    d.name = "linear_attention";
    d.doc = "q [B,T,Hq*dk], k [B,T,Hkv*dk], v [B,T,Hkv*dv], state [B,Hkv,dk,dv], then decay [B,T,Hkv*dk|Hkv] (gated "
            "rules), beta [B,T,Hkv|1] (delta rules) -> [B,Hkv,dv,T*Hq/Hkv + dk]: row (b,h,j) holds y[t, query head] "
            "for the heads of KV head h, then the final state column S[:, j]; dk <= " +
            std::to_string(MXC_LINEAR_ATTENTION_MAX_DK) +
            "; ip = [Hq, Hkv, gated, delta, decay is per head, beta is per head], fp = [scale]";
    d.attrs = {{"q_num_heads", int64_t{1}}, {"kv_num_heads", int64_t{1}}, {"update_rule", std::string("gated_delta")}, {"scale", 1.0}};
    d.min_inputs = 4;
    d.max_inputs = 6;
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        auto rule = a.get_string("update_rule");
        bool gated = rule == "gated" || rule == "gated_delta", delta = rule == "delta" || rule == "gated_delta";
        if (!gated && !delta && rule != "linear") throw error("linear_attention: unknown update_rule '" + rule + "'");
        if (in.size() != 4u + gated + delta)
            throw error("linear_attention: update_rule '" + rule + "' takes " + std::to_string(4 + gated + delta) + " inputs");
        int64_t hq = a.get_int("q_num_heads"), hkv = a.get_int("kv_num_heads");
        auto &q = in[0], &k = in[1], &v = in[2], &s = in[3];
        if (q.rank() != 3 || k.rank() != 3 || v.rank() != 3 || hq < 1 || hkv < 1 || hq % hkv != 0 || q.lens[2] % hq != 0 ||
            v.lens[2] % hkv != 0)
            throw error("linear_attention: q " + to_string(q.lens) + ", k " + to_string(k.lens) + ", v " + to_string(v.lens) +
                        " do not fit " + std::to_string(hq) + " query and " + std::to_string(hkv) + " KV heads");
        int64_t b = q.lens[0], t = q.lens[1], dk = q.lens[2] / hq, dv = v.lens[2] / hkv;
        if (k.lens != std::vector<int64_t>{b, t, hkv * dk} || v.lens[0] != b || v.lens[1] != t ||
            s.lens != std::vector<int64_t>{b, hkv, dk, dv})
            throw error("linear_attention: k " + to_string(k.lens) + ", v " + to_string(v.lens) + " or state " + to_string(s.lens) +
                        " do not fit q " + to_string(q.lens));
        if (dk > MXC_LINEAR_ATTENTION_MAX_DK)
            throw error("linear_attention: key head size " + std::to_string(dk) + " exceeds " + std::to_string(MXC_LINEAR_ATTENTION_MAX_DK));
        auto packed = [&](const shape& x, const std::string& what, int64_t w1, int64_t w2) {
            if (x.rank() != 3 || x.lens[0] != b || x.lens[1] != t || (x.lens[2] != w1 && x.lens[2] != w2))
                throw error("linear_attention: " + what + " " + to_string(x.lens) + " must be [" + std::to_string(b) + ", " +
                            std::to_string(t) + ", " + std::to_string(w1) + " or " + std::to_string(w2) + "]");
        };
        if (gated) packed(in[4], "decay", hkv * dk, hkv);
        if (delta) packed(in[4 + gated], "beta", hkv, 1);
        for (auto& x : in)
            if (x.type != q.type || !is_floating(x.type)) throw error("linear_attention: inputs must share one floating type");
        return shape(q.type, {b, hkv, dv, t * (hq / hkv) + dk});
    };
    d.kernel = "linear_attention";
    d.params = [](const attributes& a, const std::vector<shape>& in, const shape&) {
        auto rule = a.get_string("update_rule");
        int64_t gated = rule == "gated" || rule == "gated_delta", delta = rule == "delta" || rule == "gated_delta";
        int64_t hkv = a.get_int("kv_num_heads");
        int64_t decay_per_head = gated && in[4].lens[2] == hkv && in[4].lens[2] != in[0].lens[2] / a.get_int("q_num_heads") * hkv;
        int64_t beta_per_head = delta && in[4 + gated].lens[2] == hkv;
        return kernel_params{{a.get_int("q_num_heads"), hkv, gated, delta, decay_per_head, beta_per_head}, {a.get_float("scale")}};
    };
    d.cpu = MXC_CPU_KERNELS(linear_attention, MXC_FLOAT_TYPES);
    return d;
}

} // namespace mxc
