// attention (passes/fuse_attention.cpp): y = softmax(body(q . kt, e1, ...)) . v along the keys,
// per batch (the leading dims) and query row, the scores never stored.
//   inputs: q [..., Lq, D], kt [..., D, Lk], v [..., Lk, Dv], then extra inputs e1.. of the
//           scores' lens [..., Lq, Lk] (the scale, the mask: body xN = eN, x0 = the product)
//   ip:     [r, permutation (r values), the body's postfix program]
//   output: [..., Lq, Dv] with its dims permuted (the last one stays last), packed: the
//           heads' merge of multi-head attention, [B, H, S, Dv] stored as [B, S, H, Dv]
// A row whose scores are all -inf (fully masked) gives 0, as the softmax op does. Sums, the
// maximum and the softmax's normaliser are kept in the compute type (fp32 for half types).
// Helpers shared by the cpu and hip kernels: the sizes, and each batch's offsets.
#pragma once
#include "templates/common/math.hpp"

// The largest head (D and Dv) the op takes: the hip kernel holds a row's outputs in registers.
#define MXC_ATTENTION_MAX_HEAD 256

struct mxc_attention_dims {
    int rank;
    int64_t batches, lq, d, lk, dv;
    int64_t out_strides[MXC_MAX_RANK]; // the output's stride of each unpermuted dim (batch..., Lq, Dv)
};

MXC_HD inline mxc_attention_dims mxc_attention_dims_of(const mxc_desc* in, const mxc_desc& od, const int64_t* ip) {
    mxc_attention_dims a{};
    const int r = in[0].rank;
    a.rank = r;
    a.lq = in[0].lens[r - 2];
    a.d = in[0].lens[r - 1];
    a.lk = in[1].lens[r - 1];
    a.dv = in[2].lens[r - 1];
    a.batches = 1;
    for (int i = 0; i < r - 2; ++i) a.batches *= in[0].lens[i];
    for (int p = 0; p < r; ++p) a.out_strides[ip[1 + p]] = od.strides[p]; // result dim p is unpermuted dim perm[p]
    return a;
}

// The offset of batch b's first element where the leading dims step by `strides`: an input's
// (its leading dims are q's) or the output's (mxc_attention_dims::out_strides).
MXC_HD inline int64_t mxc_attention_offset(const int64_t* strides, const mxc_attention_dims& a, const mxc_desc& q, int64_t b) {
    int64_t off = 0;
    for (int i = a.rank - 3; i >= 0; --i) {
        const int64_t len = q.lens[i];
        off += (b % len) * strides[i];
        b /= len;
    }
    return off;
}
