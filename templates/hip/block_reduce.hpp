// Warp and block reductions, and the launchers of "one team per row" kernels: the row math of
// templates/common (written against a team, templates/common/team.hpp) runs with one thread,
// one warp or one block per row. Warp reductions shuffle over warpSize lanes (32 on NVIDIA,
// 64 on AMD); block reductions go through a small __shared__ array, one slot per warp.
#pragma once
#include <type_traits>

#include "templates/common/team.hpp"
#include "templates/hip/common.hpp"

namespace mxc {
namespace hip {

constexpr int team_block = 256;     // threads per block of the team kernels (a multiple of every warpSize)
constexpr int64_t warp_rows_small = 8192; // up to this many rows, warp teams run in blocks of 64 threads
constexpr int max_warps = 1024 / 32; // shared slots: enough for the largest block of any warp size

// Types the warp shuffles carry (the compute types of the floating and 32/64-bit integer
// element types); teams of more than one lane reduce only these.
template <class C> constexpr bool shuffles() {
    return std::is_same<C, float>::value || std::is_same<C, double>::value || std::is_same<C, int32_t>::value ||
           std::is_same<C, uint32_t>::value || std::is_same<C, int64_t>::value || std::is_same<C, uint64_t>::value;
}

// Every lane of the warp gets op over the warp's values (butterfly).
template <class C, class Op> __device__ inline C warp_reduce(C v, Op op) {
    for (int m = warpSize / 2; m > 0; m /= 2) v = op(v, shfl_xor(v, m));
    return v;
}

// Every thread of the block gets op over the block's values. `slots` is a __shared__ array of
// at least blockDim.x / warpSize elements; the first barrier lets a previous reduction's
// readers finish before the slots are overwritten.
template <class C, class Op> __device__ inline C block_reduce(C v, Op op, C* slots) {
    v = warp_reduce(v, op);
    const int warps = static_cast<int>(blockDim.x) / warpSize;
    block_sync();
    if (threadIdx.x % warpSize == 0) slots[threadIdx.x / warpSize] = v;
    block_sync();
    v = slots[0];
    for (int w = 1; w < warps; ++w) v = op(v, slots[w]);
    return v;
}

struct warp_team {
    int rank, size;
    template <class C, class Op> __device__ C reduce(C v, Op op) const { return warp_reduce(v, op); }
};
template <class S> struct block_team { // S: the type of the shared slots (the compute type)
    int rank, size;
    S* slots;
    template <class C, class Op> __device__ C reduce(C v, Op op) const {
        static_assert(std::is_same<C, S>::value, "block_team reduces its slot type");
        return block_reduce(v, op, slots);
    }
};

// A team's row held in registers, N elements a lane (the cached forms of norm.hpp and
// softmax.hpp). V = 1: lane r holds elements r + j x size; V = row_vec<T>: the V-element chunks
// r + j x size, each read and written by one 16-byte access (the row's length a multiple of V,
// its start on 16 bytes).
template <class T> constexpr int row_vec = int(16 / sizeof(T));
template <class T> struct alignas(16) row_chunk { T v[row_vec<T>]; };
// The row index of the lane's element s (a chunk's elements are valid together).
template <int V, class Team> __device__ __forceinline__ int row_index(const Team& t, int s) {
    return V == 1 ? t.rank + s * t.size : (t.rank + s / V * t.size) * V + s % V;
}
// dst[s] = element row_index(s) of the row at p, read with a step (1: packed; 0: every element
// is p[0]; V > 1 takes only those), `none` past its len elements.
template <int V, class C, int N, class T, class Team>
__device__ __forceinline__ void load_row(const T* p, int step, int len, const Team& t, C none, C (&dst)[N]) {
    static_assert(N % V == 0 && (V == 1 || V == row_vec<T>), "load_row: whole 16-byte chunks a lane");
#pragma unroll
    for (int j = 0; j < N; j += V) {
        const int i = row_index<V>(t, j);
        if constexpr (V == 1) {
            dst[j] = i < len ? C(p[i * step]) : none;
        } else {
            row_chunk<T> c;
            if (i < len && step) c = vector_load<row_chunk<T>>(p + i);
            const C x0 = i < len && !step ? C(p[0]) : none;
#pragma unroll
            for (int e = 0; e < V; ++e) dst[j + e] = i < len && step ? C(c.v[e]) : x0;
        }
    }
}
// y[row_index(s)] = value(s) for the lane's elements within len (a packed row).
template <int V, int N, class T, class Team, class F>
__device__ __forceinline__ void store_row(T* y, int len, const Team& t, F value) {
#pragma unroll
    for (int j = 0; j < N; j += V) {
        const int i = row_index<V>(t, j);
        if (i >= len) continue;
        if constexpr (V == 1) {
            y[i] = value(j);
        } else {
            row_chunk<T> c;
#pragma unroll
            for (int e = 0; e < V; ++e) c.v[e] = value(j + e);
            vector_store(y + i, c);
        }
    }
}

// f(a, row, team) for every row in [0, rows): one block per row (grid-stride over rows)...
template <class S, class F> __global__ void MXC_LAUNCH_BOUNDS_AMD(team_block) rows_per_block(dev_args a, int64_t rows, F f) {
    grid_dependency_sync();
    __shared__ S slots[max_warps];
    const block_team<S> t{static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x), slots};
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) f(a, r, t);
}
// ... one warp per row ...
template <class F> __global__ void MXC_LAUNCH_BOUNDS_AMD(team_block) rows_per_warp(dev_args a, int64_t rows, F f) {
    grid_dependency_sync();
    const int64_t per_block = blockDim.x / warpSize;
    const warp_team t{static_cast<int>(threadIdx.x % warpSize), warpSize};
    for (int64_t r = blockIdx.x * per_block + threadIdx.x / warpSize; r < rows; r += gridDim.x * per_block) f(a, r, t);
}
// ... or one thread per row.
template <class F> __global__ void MXC_LAUNCH_BOUNDS_AMD(team_block) rows_per_thread(dev_args a, int64_t rows, F f) {
    grid_dependency_sync();
    const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
    for (int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows; r += step)
        f(a, r, mxc_serial_team{});
}

enum class team_kind { thread, warp, block };

// The team for rows of `len` elements: a block for long rows, a warp for short ones (up to
// 8 elements a lane on a 32-lane warp), one thread when the row is tiny, when there are enough
// rows to fill the device with a thread each and the lanes of a team would read with a stride
// (`strided`: the rows interleave in memory, so neighbouring threads reading neighbouring rows
// coalesce), or when C does not shuffle.
template <class C> inline team_kind choose_team(int64_t rows, int64_t len, bool strided) {
    if (!shuffles<C>() || len < 8 || (strided && rows >= 4096)) return team_kind::thread;
    return len <= 256 ? team_kind::warp : team_kind::block;
}

// Launches f over rows with team Kind (only that kernel is instantiated); S is the compute
// type the team reduces (warp and block teams: a type that shuffles).
template <team_kind Kind, class S, class F> inline void launch_rows_as(const dev_args& a, int64_t rows, hipStream_t stream, F f) {
    if (rows <= 0) return;
    const int64_t cap = 65535 * 16;
    // warp teams: blocks of 64 threads (two warps of 32, one wavefront of 64) up to
    // warp_rows_small rows, so that a few hundred rows spread over as many SMs as they can (ViT-B/16's
    // 197 layer-norm rows and BERT-base's 128 took 25 and 16 blocks of 8 warps); more rows, blocks
    // of team_block
    const int threads = Kind == team_kind::warp && rows <= warp_rows_small ? 64 : team_block;
    int64_t grid = Kind == team_kind::block ? rows
                 : Kind == team_kind::warp  ? (rows + threads / 32 - 1) / (threads / 32) // warps of 32 (wavefronts of 64 take two rows in turn)
                                            : (rows + team_block - 1) / team_block;
    if (grid > cap) grid = cap;
    const dim3 g(static_cast<unsigned>(grid)), b(threads);
    if constexpr (Kind == team_kind::block) {
        const auto kernel = rows_per_block<S, F>; // (a template-id with a comma is no macro argument)
        hipLaunchKernelGGL(kernel, g, b, 0, stream, a, rows, f);
    } else if constexpr (Kind == team_kind::warp) {
        hipLaunchKernelGGL(rows_per_warp<F>, g, b, 0, stream, a, rows, f);
    } else {
        hipLaunchKernelGGL(rows_per_thread<F>, g, b, 0, stream, a, rows, f);
    }
}

// Launches f over rows with the chosen team (a type that does not shuffle: one thread a row).
template <class S, class F> inline void launch_rows(const dev_args& a, int64_t rows, team_kind kind, hipStream_t stream, F f) {
    if constexpr (shuffles<S>()) {
        if (kind == team_kind::block) return launch_rows_as<team_kind::block, S>(a, rows, stream, f);
        if (kind == team_kind::warp) return launch_rows_as<team_kind::warp, S>(a, rows, stream, f);
    }
    launch_rows_as<team_kind::thread, S>(a, rows, stream, f);
}

} // namespace hip
} // namespace mxc
