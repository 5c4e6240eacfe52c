// Checks shared by the ops over spatial dims (convolution, pooling): per-dim attribute lists
// where {} means the default value for every spatial dim.
#pragma once
#include "ir/error.hpp"
#include "ir/op.hpp"

namespace mxc {

// `v` resolved to `n` values ({} -> n copies of `dflt`); each must be >= `min`.
inline std::vector<int64_t> spatial_list(const std::string& op, const std::string& name, const std::vector<int64_t>& v,
                                         std::size_t n, int64_t dflt, int64_t min) {
    if (v.empty()) return std::vector<int64_t>(n, dflt);
    if (v.size() != n)
        throw error(op + ": " + name + " " + to_string(v) + " must have " + std::to_string(n) + " values");
    for (auto x : v)
        if (x < min) throw error(op + ": " + name + " " + to_string(v) + " must be >= " + std::to_string(min));
    return v;
}

// Input x [N, C, spatial...] of rank 3..MXC_MAX_RANK.
inline void check_spatial_input(const std::string& op, const shape& x) {
    if (x.rank() < 3 || x.rank() > MXC_MAX_RANK)
        throw error(op + ": input must be [N, C, spatial...] of rank 3 to " + std::to_string(MXC_MAX_RANK) + ", got " +
                    to_string(x.lens));
}

} // namespace mxc
