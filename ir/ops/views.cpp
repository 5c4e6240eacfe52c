// View ops: no kernel and no buffer; the result is a strided view of input 0 (offset 0).
#include "ir/error.hpp"
#include "ir/op.hpp"

#include <algorithm>

namespace mxc {
namespace {
int64_t zero_offset(const attributes&, const std::vector<shape>&) { return 0; }

op_def view(std::string name, std::string doc, std::vector<attr_spec> attrs,
            std::function<shape(const attributes&, const std::vector<shape>&)> f) {
    op_def d;
    d.name = std::move(name);
    d.doc = std::move(doc);
    d.attrs = std::move(attrs);
    d.compute_shape = std::move(f);
    d.is_view = true;
    d.view_offset = zero_offset;
    return d;
}

// Axes must be sorted, unique and below `rank`.
void check_axes(const std::string& op, const std::vector<int64_t>& axes, int64_t rank) {
    for (std::size_t i = 0; i < axes.size(); ++i) {
        if (axes[i] < 0 || axes[i] >= rank)
            throw error(op + ": axis " + std::to_string(axes[i]) + " is out of range for rank " + std::to_string(rank));
        if (i > 0 && axes[i] <= axes[i - 1])
            throw error(op + ": axes " + to_string(axes) + " must be sorted and unique");
    }
}
// Strides that show the elements of non-standard x, in row-major order, with lens `dims` (the
// same count): dims group into chunks with equal products on both sides; the old dims of a
// chunk must be packed among themselves. Empty when no such view exists.
std::vector<int64_t> reshape_view_strides(const shape& x, const std::vector<int64_t>& dims) {
    std::vector<int64_t> ol, os; // x without its size-1 dims
    for (std::size_t i = 0; i < x.rank(); ++i)
        if (x.lens[i] != 1) ol.push_back(x.lens[i]), os.push_back(x.strides[i]);
    std::vector<int64_t> ns(dims.size(), 1);
    std::size_t oi = 0, ni = 0;
    while (oi < ol.size() && ni < dims.size()) {
        std::size_t oj = oi + 1, nj = ni + 1;
        int64_t op = ol[oi], np = dims[ni];
        while (np != op) {
            if (np < op) {
                if (nj >= dims.size()) return {};
                np *= dims[nj++];
            } else {
                if (oj >= ol.size()) return {};
                op *= ol[oj++];
            }
        }
        for (std::size_t k = oi; k + 1 < oj; ++k)
            if (os[k] != ol[k + 1] * os[k + 1]) return {};
        ns[nj - 1] = os[oj - 1];
        for (std::size_t k = nj - 1; k > ni; --k) ns[k - 1] = ns[k] * dims[k];
        oi = oj;
        ni = nj;
    }
    return ns; // trailing size-1 dims keep stride 1
}
} // namespace

MXC_REGISTER_OP(transpose) {
    return view("transpose", "y[i...] = x[i permuted]: y.lens[d] = x.lens[permutation[d]]",
                {{"permutation", std::vector<int64_t>{}}}, [](const attributes& a, const std::vector<shape>& in) {
                    auto& p = a.get_ints("permutation");
                    auto& x = in[0];
                    std::vector<int64_t> sorted = p;
                    std::sort(sorted.begin(), sorted.end());
                    bool ok = p.size() == x.rank();
                    for (std::size_t i = 0; ok && i < sorted.size(); ++i) ok = sorted[i] == static_cast<int64_t>(i);
                    if (!ok)
                        throw error("transpose: permutation " + to_string(p) + " is not a permutation of the " +
                                    std::to_string(x.rank()) + " axes of " + to_string(x));
                    shape r = x;
                    for (std::size_t i = 0; i < p.size(); ++i) {
                        r.lens[i] = x.lens[static_cast<std::size_t>(p[i])];
                        r.strides[i] = x.strides[static_cast<std::size_t>(p[i])];
                    }
                    return r;
                });
}

MXC_REGISTER_OP(multibroadcast) {
    return view("multibroadcast", "numpy broadcast of x to out_lens (dims aligned right; len 1 -> stride 0)",
                {{"out_lens", std::vector<int64_t>{}}}, [](const attributes& a, const std::vector<shape>& in) {
                    auto& out = a.get_ints("out_lens");
                    auto& x = in[0];
                    if (out.size() < x.rank())
                        throw error("multibroadcast: cannot broadcast " + to_string(x) + " to fewer dims " +
                                    to_string(out));
                    std::size_t lead = out.size() - x.rank();
                    std::vector<int64_t> strides(out.size(), 0);
                    for (std::size_t i = 0; i < out.size(); ++i) {
                        if (out[i] < 0) throw error("multibroadcast: negative length in out_lens " + to_string(out));
                        if (i < lead) continue;
                        int64_t l = x.lens[i - lead];
                        if (l == out[i]) strides[i] = x.strides[i - lead];
                        else if (l != 1)
                            throw error("multibroadcast: cannot broadcast " + to_string(x.lens) + " to " + to_string(out));
                    }
                    return shape(x.type, out, strides);
                });
}

MXC_REGISTER_OP(reshape) {
    return view("reshape", "same elements in row-major order with lens dims: standard strides for a standard x, else "
                           "the strides that view x (only dims packed among themselves merge)",
                {{"dims", std::vector<int64_t>{}}}, [](const attributes& a, const std::vector<shape>& in) {
                    auto& dims = a.get_ints("dims");
                    auto& x = in[0];
                    int64_t n = 1;
                    for (auto d : dims) {
                        if (d < 0)
                            throw error("reshape: dims " + to_string(dims) + " must be resolved (no negative lengths)");
                        n = checked_mul(n, d);
                    }
                    if (n != x.elements())
                        throw error("reshape: cannot reshape " + to_string(x.lens) + " (" + std::to_string(x.elements()) +
                                    " elements) to " + to_string(dims) + " (" + std::to_string(n) + " elements)");
                    if (x.standard() || n == 0) return shape(x.type, dims);
                    auto strides = reshape_view_strides(x, dims);
                    if (strides.empty())
                        throw error("reshape: " + to_string(x) + " cannot be viewed as " + to_string(dims) +
                                    " (the dims it merges are not packed); put a contiguous in front");
                    return shape(x.type, dims, strides);
                });
}

MXC_REGISTER_OP(squeeze) {
    return view("squeeze", "removes the listed size-1 axes (sorted, non-negative; {} removes every size-1 axis)",
                {{"axes", std::vector<int64_t>{}}}, [](const attributes& a, const std::vector<shape>& in) {
                    auto& axes = a.get_ints("axes");
                    auto& x = in[0];
                    check_axes("squeeze", axes, static_cast<int64_t>(x.rank()));
                    for (auto ax : axes)
                        if (x.lens[static_cast<std::size_t>(ax)] != 1)
                            throw error("squeeze: axis " + std::to_string(ax) + " of " + to_string(x.lens) +
                                        " does not have length 1");
                    shape r(x.type, {}, {});
                    for (std::size_t i = 0; i < x.rank(); ++i) {
                        bool drop = axes.empty() ? x.lens[i] == 1
                                                 : std::find(axes.begin(), axes.end(), static_cast<int64_t>(i)) != axes.end();
                        if (drop) continue;
                        r.lens.push_back(x.lens[i]);
                        r.strides.push_back(x.strides[i]);
                    }
                    return r;
                });
}

MXC_REGISTER_OP(unsqueeze) {
    return view("unsqueeze", "inserts size-1 axes at the listed output positions (sorted, non-negative)",
                {{"axes", std::vector<int64_t>{}}}, [](const attributes& a, const std::vector<shape>& in) {
                    auto& axes = a.get_ints("axes");
                    auto& x = in[0];
                    int64_t out_rank = static_cast<int64_t>(x.rank() + axes.size());
                    check_axes("unsqueeze", axes, out_rank);
                    shape r(x.type, std::vector<int64_t>(static_cast<std::size_t>(out_rank)),
                            std::vector<int64_t>(static_cast<std::size_t>(out_rank)));
                    // Walk from the last axis so an inserted axis gets the stride that keeps a
                    // standard input standard.
                    int64_t acc = 1;
                    std::size_t src = x.rank(), k = axes.size();
                    for (int64_t i = out_rank - 1; i >= 0; --i) {
                        auto u = static_cast<std::size_t>(i);
                        if (k > 0 && axes[k - 1] == i) {
                            --k;
                            r.lens[u] = 1;
                            r.strides[u] = acc;
                        } else {
                            --src;
                            r.lens[u] = x.lens[src];
                            r.strides[u] = x.strides[src];
                            acc = x.strides[src] * std::max<int64_t>(x.lens[src], 1);
                        }
                    }
                    return r;
                });
}

} // namespace mxc
