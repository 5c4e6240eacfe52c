// The row kernels on the host SIMT emulator. layer_norm / rms_norm (templates/hip/norm.hpp) against the serial
// row math (mxc_norm_row, templates/common/norm.hpp): rows held in registers on a warp (8 and 32
// elements a lane: lengths up to 256 and 1024, with partial last lanes) and on a block (16 a
// thread: up to 4096), the uncached block form past that, the strided form (a scale that is
// not read with a step), float and half, with and without scale and bias, several rows; the
// cached rows read by 16-byte chunks where they may (norm_rows_vectors: a broadcast scalar
// scale too) and element by element where a row is not a whole number of chunks or x does not
// start on 16 bytes.
// softmax / log_softmax (templates/hip/softmax.hpp) against mxc_softmax_row: contiguous rows in
// registers on a warp (up to 1024; by 16-byte chunks where they are whole chunks), longer ones
// on a block, a softmax along a strided axis, a fully masked (-inf) row, float and half.
#include <gtest/gtest.h>

#include "hip_emu_util.hpp"
#include "templates/hip/norm.hpp"
#include "templates/hip/softmax.hpp"

#include <cmath>
#include <vector>

namespace {

using mxc::test::desc;
using mxc::test::to_device;

// rows x len, normalised over the last dim; scale and bias [len] broadcast over the rows
// (scale_stride 1), a scale read with stride 2 (not stepped: the general form) or one scalar
// (stride 0). x starts x_offset elements into its buffer. chunks: whether the rows are read by
// 16-byte chunks (norm_rows_vectors), checked where the rows are stepped.
template <class T, bool Rms>
void expect_norm(int64_t rows, int64_t len, int n_in, int64_t scale_stride = 1, int64_t x_offset = 0, bool chunks = false) {
    SCOPED_TRACE("rows " + std::to_string(rows) + " len " + std::to_string(len) + " inputs " + std::to_string(n_in) +
                 " scale stride " + std::to_string(scale_stride) + " x offset " + std::to_string(x_offset));
    std::vector<T> x(static_cast<size_t>(rows * len + x_offset)), g(static_cast<size_t>(scale_stride ? len * scale_stride : 1)),
        b(static_cast<size_t>(len));
    for (size_t i = 0; i < x.size(); ++i) x[i] = T(float(int(i * 37 % 101) - 50) * 0.03f + 2.0f);
    for (size_t i = 0; i < g.size(); ++i) g[i] = T(0.5f + float(i % 7) * 0.125f);
    for (size_t i = 0; i < b.size(); ++i) b[i] = T(float(i % 5) * 0.25f - 0.5f);
    const mxc_desc xd = desc({rows, len}, {len, 1}), gd = desc({rows, len}, {0, scale_stride}), bd = desc({rows, len}, {0, 1});
    const mxc_desc ins[3] = {xd, gd, bd};
    const T* host_in[3] = {x.data() + x_offset, g.data(), b.data()};
    std::vector<T> want(size_t(rows * len));
    for (int64_t r = 0; r < rows; ++r) mxc_norm_row<T, Rms>(host_in, ins, n_in, want.data(), xd, 1, 1e-5, r);

    T *dx = to_device(x), *dg = to_device(g), *db = to_device(b), *dy = nullptr;
    ASSERT_EQ(hipMalloc(&dy, want.size() * sizeof(T)), hipSuccess);
    const void* p[3] = {dx + x_offset, dg, db};
    const int64_t ip[1] = {1};
    const double fp[1] = {1e-5};
    const mxc_kargs k = {n_in, p, ins, dy, &xd, ip, 1, fp, 1, nullptr};
    if (scale_stride < 2) EXPECT_EQ(mxc::hip::norm_rows_vectors<T>(k, len), chunks);
    const uint64_t vectors = mxc_emu::vector_accesses();
    if (Rms) mxc::hip::rms_norm<T>(k, hipStream_t{});
    else mxc::hip::layer_norm<T>(k, hipStream_t{});
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
    EXPECT_EQ(mxc_emu::vector_accesses() > vectors, chunks) << "the rows were read by chunks";
    std::vector<T> got(want.size());
    ASSERT_EQ(hipMemcpy(got.data(), dy, got.size() * sizeof(T), hipMemcpyDeviceToHost), hipSuccess);
    for (void* q : {static_cast<void*>(dx), static_cast<void*>(dg), static_cast<void*>(db), static_cast<void*>(dy)}) (void)hipFree(q);
    const float tol = sizeof(T) == 2 ? 1e-2f : 1e-5f;
    for (size_t i = 0; i < want.size(); ++i)
        ASSERT_NEAR(float(got[i]), float(want[i]), tol * (1.0f + std::fabs(float(want[i])))) << "element " << i;
}

} // namespace

TEST(HipNorm, RowsInRegistersMatchTheSerialRowMath) {
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
    for (int64_t len : {8, 33, 256, 257, 768, 1000, 1024, 1025, 1500, 4096, 4097}) {
        const bool chunks = len % 4 == 0; // whole 16-byte chunks of float
        expect_norm<float, false>(3, len, 3, 1, 0, chunks);
        expect_norm<float, false>(2, len, 1, 1, 0, chunks);
        expect_norm<float, true>(3, len, 2, 1, 0, chunks);
    }
    expect_norm<float, false>(19, 768, 3, 1, 0, true);      // more rows than one block's warps
    expect_norm<float, false>(300, 768, 3, 1, 0, true);     // more rows than blocks of 64 threads take in one round
    expect_norm<float, false>(9000, 40, 3, 1, 0, true);     // blocks of 256 threads
    expect_norm<float, false>(3, 768, 3, 2);                // a strided scale: the general form
    expect_norm<float, false>(3, 768, 3, 0, 0, true);       // a scalar scale, broadcast into the chunks
    expect_norm<float, false>(3, 768, 3, 1, 1);             // x off 16 bytes: element by element
    expect_norm<float, false>(3, 2000, 3, 1, 1);            // the same on a block
    expect_norm<mxc_half, false>(5, 768, 3, 1, 0, true);
    expect_norm<mxc_half, false>(5, 772, 3, 1, 0, false);   // not whole chunks of 8 halves
    expect_norm<mxc_half, false>(5, 768, 3, 1, 4, false);   // 8 bytes off
    expect_norm<mxc_half, true>(5, 200, 2, 1, 0, true);
}

namespace {
template <class T, bool Log> void expect_softmax(int64_t rows, int64_t len, bool last_axis = true, bool masked_row = false) {
    SCOPED_TRACE("rows " + std::to_string(rows) + " len " + std::to_string(len) + (last_axis ? "" : " axis 0") +
                 (Log ? " log" : "") + (masked_row ? " masked" : ""));
    std::vector<T> x(static_cast<size_t>(rows * len));
    for (size_t i = 0; i < x.size(); ++i) x[i] = T(float(int(i * 37 % 101) - 50) * 0.07f);
    if (masked_row)
        for (int64_t i = 0; i < len; ++i) x[size_t(len + i)] = T(-INFINITY); // row 1 (last_axis)
    // last_axis: [rows, len] along axis 1; else [len, rows] along axis 0 (strided rows)
    const mxc_desc xd = last_axis ? desc({rows, len}, {len, 1}) : desc({len, rows}, {rows, 1});
    const int64_t axis = last_axis ? 1 : 0;
    std::vector<T> want(x.size());
    for (int64_t r = 0; r < rows; ++r) mxc_softmax_row<T, Log>(x.data(), xd, want.data(), xd, axis, r);
    T *dx = to_device(x), *dy = nullptr;
    ASSERT_EQ(hipMalloc(&dy, want.size() * sizeof(T)), hipSuccess);
    const void* p[1] = {dx};
    const int64_t ip[1] = {axis};
    const mxc_kargs k = {1, p, &xd, dy, &xd, ip, 1, nullptr, 0, nullptr};
    const uint64_t vectors = mxc_emu::vector_accesses();
    if (Log) mxc::hip::log_softmax<T>(k, hipStream_t{});
    else mxc::hip::softmax<T>(k, hipStream_t{});
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
    // contiguous rows in registers (8 to 1024 elements) by 16-byte chunks when they are whole chunks
    const bool chunks = last_axis && len >= 8 && len <= 1024 && len % int64_t(16 / sizeof(T)) == 0;
    EXPECT_EQ(mxc_emu::vector_accesses() > vectors, chunks) << "the rows were read by chunks";
    std::vector<T> got(want.size());
    ASSERT_EQ(hipMemcpy(got.data(), dy, got.size() * sizeof(T), hipMemcpyDeviceToHost), hipSuccess);
    (void)hipFree(dx);
    (void)hipFree(dy);
    const float tol = sizeof(T) == 2 ? 1e-2f : 1e-5f;
    for (size_t i = 0; i < want.size(); ++i) {
        const float w = float(want[i]), g = float(got[i]);
        if (std::isinf(w)) ASSERT_EQ(g, w) << "element " << i;
        else ASSERT_NEAR(g, w, tol * (1.0f + std::fabs(w))) << "element " << i;
    }
}
} // namespace

TEST(HipSoftmax, RowsInRegistersMatchTheSerialRowMath) {
    ASSERT_EQ(hipDeviceReset(), hipSuccess);
    for (int64_t len : {8, 33, 197, 256, 257, 1000, 1024, 1025}) {
        expect_softmax<float, false>(3, len);
        expect_softmax<float, true>(3, len);
    }
    expect_softmax<float, false>(19, 197);
    expect_softmax<float, false>(3, 197, true, true);
    expect_softmax<float, true>(3, 300, true, true);
    expect_softmax<float, false>(5, 197, false);
    expect_softmax<mxc_half, false>(5, 197);
    expect_softmax<mxc_half, true>(5, 600);
    expect_softmax<mxc_half, false>(3, 256, true, true); // a masked row by chunks
    expect_softmax<float, false>(300, 64);              // more rows than blocks of 64 threads take in one round
}
