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

// One thread's fold of f(0), ..., f(count - 1) with op from init, in the order of a team of
// mxc_fold_lanes lanes (the cpu kernels and the reference evaluator: reductions, norms). From
// 2 * mxc_fold_lanes elements on: that many partial values, lane j taking elements j, j + lanes,
// ..., then combined in halves (lane j with lane j + 8, then + 4, + 2, + 1), as a team of that
// many lanes would: loops the compiler vectorises, where one chain of dependent adds takes four
// cycles an element. Fewer elements: one after another.
constexpr int mxc_fold_lanes = 16;
template <class C, class Op, class F> MXC_HD inline C mxc_fold(int64_t count, C init, Op op, const F& f) {
    constexpr int L = mxc_fold_lanes;
    static_assert(L == 16, "mxc_fold: the combining steps below are written for 16 lanes");
    if (count < 2 * L) {
        for (int64_t r = 0; r < count; ++r) init = op(init, f(r));
        return init;
    }
    C part[L];
    for (int j = 0; j < L; ++j) part[j] = init;
    int64_t r = 0;
    for (; r + L <= count; r += L)
        for (int j = 0; j < L; ++j) part[j] = op(part[j], f(r + j));
    for (int j = 0; r + j < count; ++j) part[j] = op(part[j], f(r + j));
    // (each step a loop of fixed length: the compiler keeps the lanes in registers, where a
    // loop over the widths went through the stack and stalled on every step)
    for (int j = 0; j < 8; ++j) part[j] = op(part[j], part[j + 8]);
    for (int j = 0; j < 4; ++j) part[j] = op(part[j], part[j + 4]);
    for (int j = 0; j < 2; ++j) part[j] = op(part[j], part[j + 2]);
    return op(part[0], part[1]);
}
