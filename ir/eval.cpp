#include "ir/eval.hpp"
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/cpu/common.hpp"

#include <cstring>
#include <unordered_map>

namespace mxc {

mxc_desc make_desc(const shape& s) {
    if (s.rank() > MXC_MAX_RANK)
        throw error("rank " + std::to_string(s.rank()) + " exceeds the supported maximum of " +
                    std::to_string(MXC_MAX_RANK));
    mxc_desc d{};
    d.rank = static_cast<int32_t>(s.rank());
    for (std::size_t i = 0; i < s.rank(); ++i) {
        d.lens[i] = s.lens[i];
        d.strides[i] = s.strides[i];
    }
    return d;
}

tensor tensor::of(const literal& l) {
    if (!l.known()) throw error("cannot evaluate a literal whose data is unknown (digest " + l.digest_text + ")");
    return tensor{l.s, l.bytes, 0};
}

literal tensor::pack() const {
    shape st = s.as_standard();
    std::vector<char> out(static_cast<std::size_t>(st.bytes()));
    if (s.standard()) {
        if (!out.empty()) std::memcpy(out.data(), data(), out.size());
    } else {
        auto d = make_desc(s);
        std::size_t es = dtype_size(s.type);
        int64_t n = st.elements();
        for (int64_t e = 0; e < n; ++e)
            std::memcpy(out.data() + e * static_cast<int64_t>(es), data() + cpu::offset_of(d, e) * static_cast<int64_t>(es), es);
    }
    return literal(st, std::move(out));
}

tensor eval_instruction(const instruction& ins, const std::vector<tensor>& in) {
    auto& def = get_op(ins.op);
    std::vector<shape> in_shapes;
    for (auto& t : in) in_shapes.push_back(t.s);
    if (def.is_view) {
        int64_t off = def.view_offset ? def.view_offset(ins.attrs, in_shapes) : 0;
        return tensor{ins.result, in.at(0).buf, in.at(0).offset + off};
    }
    dtype kt = def.type_from_input >= 0 ? in.at(static_cast<std::size_t>(def.type_from_input)).s.type : ins.result.type;
    ref_kernel fn = def.cpu[static_cast<std::size_t>(kt)];
    if (!fn) throw error(ins.op + ": no kernel for " + std::string(dtype_name(kt)));
    auto p = def.params ? def.params(ins.attrs, in_shapes, ins.result) : kernel_params{};
    std::vector<const void*> ptrs;
    std::vector<mxc_desc> descs;
    for (auto& t : in) {
        ptrs.push_back(t.data());
        descs.push_back(make_desc(t.s));
    }
    std::vector<char> out(static_cast<std::size_t>(ins.result.bytes()));
    mxc_desc od = make_desc(ins.result);
    mxc_kargs k{static_cast<int32_t>(in.size()), ptrs.data(), descs.data(), out.data(), &od,
                p.ip.data(), static_cast<int32_t>(p.ip.size()), p.fp.data(), static_cast<int32_t>(p.fp.size())};
    fn(k);
    return tensor{ins.result, std::make_shared<const byte_buffer>(std::move(out)), 0};
}

std::vector<literal> evaluate(const module& m, const std::map<std::string, literal>& inputs,
                              const std::function<void(const instruction&, const tensor&)>& observe) {
    std::unordered_map<const instruction*, tensor> values;
    std::vector<literal> results;
    for (auto& ins : m.instructions) {
        if (ins.is_return()) {
            for (auto* o : ins.inputs) results.push_back(values.at(o).pack());
            break;
        }
        tensor t;
        if (ins.is_param()) {
            auto it = inputs.find(ins.param_name);
            if (it == inputs.end()) throw error("no value given for input '" + ins.param_name + "'");
            if (it->second.s.type != ins.result.type || it->second.s.lens != ins.result.lens)
                throw error("input '" + ins.param_name + "' has shape " + to_string(it->second.s) + ", expected " +
                            to_string(ins.result));
            t = tensor::of(it->second);
            t.s = ins.result;
        } else if (ins.is_literal()) {
            t = tensor::of(ins.lit);
        } else {
            std::vector<tensor> in;
            for (auto* i : ins.inputs) in.push_back(values.at(i));
            try {
                t = eval_instruction(ins, in);
            } catch (const error& e) {
                throw error(std::string(e.what()) + (ins.origin.empty() ? "" : " (from " + ins.origin + ")"));
            }
        }
        if (observe) observe(ins, t);
        values[&ins] = std::move(t);
    }
    return results;
}

} // namespace mxc
