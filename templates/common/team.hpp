// Teams: the threads that share one row (softmax, norms) or one output element (reductions).
// The row and reduction math of templates/common is written once against a team `t`:
// lane t.rank of t.size handles elements t.rank, t.rank + t.size, ..., and t.reduce(v, op)
// combines the lanes' partial values (every lane gets the result). The cpu kernels and the
// reference evaluator use the one-lane team below; the hip kernels use warps and blocks
// (templates/hip/block_reduce.hpp). A team's lanes must all call reduce the same number of
// times (on the GPU it is a warp shuffle or a block barrier).
#pragma once
#include "templates/common/types.hpp"

struct mxc_serial_team {
    int rank = 0, size = 1;
    template <class C, class Op> MXC_HD C reduce(C v, Op) const { return v; }
};

// Combining operators of the reductions (a: the partial value so far, b: the next one).
struct mxc_op_sum {
    template <class C> MXC_HD C operator()(C a, C b) const { return C(a + b); }
};
struct mxc_op_prod {
    template <class C> MXC_HD C operator()(C a, C b) const { return C(a * b); }
};
struct mxc_op_max { // NaN is skipped (as reduce_max and pooling always did)
    template <class C> MXC_HD C operator()(C a, C b) const { return a < b ? b : a; }
};
struct mxc_op_min {
    template <class C> MXC_HD C operator()(C a, C b) const { return b < a ? b : a; }
};
struct mxc_op_max_nan { // NaN propagates (softmax)
    template <class C> MXC_HD C operator()(C a, C b) const { return (a < b || b != b) ? b : a; }
};
