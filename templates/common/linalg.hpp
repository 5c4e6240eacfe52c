// det: x [..., n, n] -> y [...], the determinant of each matrix by LU decomposition with
// partial pivoting, in double, on a private copy of at most MXC_DET_MAX_N^2 elements.
// No parameters.
#pragma once
#include "templates/common/math.hpp"

#define MXC_DET_MAX_N 32

template <class T>
MXC_HD inline T mxc_det_at(const T* x, const mxc_desc& xd, const mxc_desc& od, int64_t o) {
    int64_t idx[MXC_MAX_RANK];
    mxc_unravel(od, o, idx);
    const int r = xd.rank;
    const int n = static_cast<int>(xd.lens[r - 1]);
    int64_t base = 0;
    for (int d = 0; d < r - 2; ++d) base += idx[d] * xd.strides[d];
    double a[MXC_DET_MAX_N * MXC_DET_MAX_N];
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            a[i * n + j] = static_cast<double>(static_cast<mxc_compute_t<T>>(x[base + i * xd.strides[r - 2] + j * xd.strides[r - 1]]));
    double det = 1.0;
    for (int c = 0; c < n; ++c) {
        int p = c; // the row with the largest magnitude in column c
        for (int i = c + 1; i < n; ++i)
            if (fabs(a[i * n + c]) > fabs(a[p * n + c])) p = i;
        if (a[p * n + c] == 0.0) return T(static_cast<mxc_compute_t<T>>(0.0));
        if (p != c) {
            for (int j = c; j < n; ++j) {
                const double t = a[c * n + j];
                a[c * n + j] = a[p * n + j];
                a[p * n + j] = t;
            }
            det = -det;
        }
        det *= a[c * n + c];
        for (int i = c + 1; i < n; ++i) {
            const double f = a[i * n + c] / a[c * n + c];
            for (int j = c + 1; j < n; ++j) a[i * n + j] -= f * a[c * n + j];
        }
    }
    return T(static_cast<mxc_compute_t<T>>(det));
}
