// pad: crop (negative pads) and pad (positive pads) each axis: constant, reflect, edge or wrap
// (templates/common/pad.hpp).
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/cpu/pad.hpp"

#include <algorithm>

namespace mxc {
namespace {

const std::vector<std::string> modes = {"constant", "reflect", "edge", "wrap"};

int64_t mode_code(const attributes& a) {
    auto& m = a.get_string("mode");
    for (std::size_t i = 0; i < modes.size(); ++i)
        if (modes[i] == m) return static_cast<int64_t>(i);
    throw error("pad: mode must be constant, reflect, edge or wrap, got \"" + m + "\"");
}

// The pads, one begin and one end per axis of x; checked.
const std::vector<int64_t>& checked_pads(const attributes& a, const shape& x) {
    auto& p = a.get_ints("pads");
    if (p.size() != 2 * x.rank())
        throw error("pad: pads " + to_string(p) + " must have 2 values per axis of " + to_string(x.lens));
    return p;
}

} // namespace

MXC_REGISTER_OP(pad) {
    op_def d;
    d.name = "pad";
    d.doc = "x with pads[d] elements added before and pads[r + d] after axis d (negative: removed first); the new ones"
            " are the optional value input (else 0), or x reflected (without the edge), its edge, or wrapped (mode"
            " constant|reflect|edge|wrap); ip = [mode, has value, start[r], kept len[r], added before[r]]";
    d.attrs = {{"pads", std::vector<int64_t>{}}, {"mode", std::string("constant")}};
    d.min_inputs = 1;
    d.max_inputs = 2;
    d.compute_shape = [](const attributes& a, const std::vector<shape>& in) {
        auto& x = in[0];
        int64_t mode = mode_code(a);
        auto& p = checked_pads(a, x);
        const std::size_t r = x.rank();
        std::vector<int64_t> lens(r);
        for (auto v : p)
            if (v > (int64_t{1} << 48) || v < -(int64_t{1} << 48)) throw error("pad: pads " + to_string(p) + " are too large");
        for (std::size_t i = 0; i < r; ++i) {
            int64_t kept = x.lens[i] + std::min<int64_t>(p[i], 0) + std::min<int64_t>(p[r + i], 0);
            lens[i] = kept + std::max<int64_t>(p[i], 0) + std::max<int64_t>(p[r + i], 0);
            if (kept < 0 || lens[i] < 0)
                throw error("pad: pads " + to_string(p) + " remove more than axis " + std::to_string(i) + " of " + to_string(x.lens) + " holds");
            if (mode != 0 && kept == 0 && lens[i] > 0)
                throw error("pad: mode " + modes[static_cast<std::size_t>(mode)] + " cannot pad the empty axis " + std::to_string(i) + " of " + to_string(x.lens));
        }
        if (in.size() > 1 && (in[1].type != x.type || in[1].elements() != 1))
            throw error("pad: the value " + to_string(in[1].lens) + " must be one element of x's type " + std::string(dtype_name(x.type)));
        return shape(x.type, lens);
    };
    d.kernel = "pad";
    d.params = [](const attributes& a, const std::vector<shape>& in, const shape&) {
        auto& x = in[0];
        auto& p = a.get_ints("pads");
        const std::size_t r = x.rank();
        std::vector<int64_t> ip = {mode_code(a), in.size() > 1 ? 1 : 0}, len, before;
        for (std::size_t i = 0; i < r; ++i) {
            ip.push_back(std::max<int64_t>(-p[i], 0));
            len.push_back(x.lens[i] + std::min<int64_t>(p[i], 0) + std::min<int64_t>(p[r + i], 0));
            before.push_back(std::max<int64_t>(p[i], 0));
        }
        ip.insert(ip.end(), len.begin(), len.end());
        ip.insert(ip.end(), before.begin(), before.end());
        return kernel_params{ip, {}};
    };
    d.cpu = MXC_CPU_KERNELS(pad, MXC_ALL_TYPES);
    return d;
}

} // namespace mxc
