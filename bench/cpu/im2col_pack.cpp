// The im2col packer of the cpu target's implicit GEMM (templates/cpu/convolution.hpp,
// conv_pack_b) alone: a 3x3 convolution's panels, block by block (64 columns) and depth slice by
// depth slice (96 rows), as gemm_block_to packs them, on the baseline path and on the AVX-512
// one, alternated; prints the mean time of a whole layer's panels and the time an element.
//   g++ -O2 -std=c++17 -I. -o /tmp/im2col_pack bench/cpu/im2col_pack.cpp -lpthread
//   /tmp/im2col_pack C H STRIDE [REPS]    (C input channels of H x H, padding 1)
#include "templates/cpu/convolution.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace mxc::cpu;

static mxc_desc packed(std::vector<int64_t> lens) {
    mxc_desc d{};
    d.rank = int32_t(lens.size());
    int64_t st = 1;
    for (int i = d.rank - 1; i >= 0; --i) d.lens[i] = lens[size_t(i)], d.strides[i] = st, st *= lens[size_t(i)];
    return d;
}

int main(int argc, char** argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s C H STRIDE [REPS]\n", argv[0]);
        return 2;
    }
    const int64_t c = atoll(argv[1]), h = atoll(argv[2]), s = atoll(argv[3]), reps = argc > 4 ? atoll(argv[4]) : 20;
    if (c < 1 || h < 3 || s < 1 || reps < 1) {
        fprintf(stderr, "im2col_pack: C >= 1, H >= 3, STRIDE >= 1, REPS >= 1\n");
        return 2;
    }
    const int64_t oh = (h + 2 - 3) / s + 1, kdim = c * 9, plane = oh * oh, kc = 96;
    const mxc_desc xd = packed({1, c, h, h}), wd = packed({64, c, 3, 3}), od = packed({1, 64, oh, oh});
    const int64_t ip[7] = {1, 1, 1, s, s, 1, 1};
    std::vector<float> x(size_t(c * h * h));
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 97) * 0.01f;
    const conv_pack_b<float> pb{x.data(), xd, wd, od, ip + 1, ip + 3, ip + 5, 9};
    std::vector<float> panel(size_t(kc * 64));
    const gemm_isa best = gemm_runtime_isa();
    double ms[2] = {1e30, 1e30};
    for (int round = 0; round < 6; ++round)
        for (int which = 0; which < 2; ++which) {
            gemm_isa isa = which == 0 ? gemm_isa::base : best;
            gemm_isa_pinned() = &isa;
            const auto t0 = std::chrono::steady_clock::now();
            for (int64_t r = 0; r < reps; ++r)
                for (int64_t j0 = 0; j0 < plane; j0 += 64)
                    for (int64_t k0 = 0; k0 < kdim; k0 += kc)
                        pb(k0, kdim - k0 < kc ? kdim - k0 : kc, j0, int(plane - j0 < 64 ? plane - j0 : 64), panel.data(),
                           gemm_nr<16>{});
            const double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / double(reps);
            if (t < ms[which]) ms[which] = t;
            gemm_isa_pinned() = nullptr;
        }
    const char* name = best == gemm_isa::avx512 ? "avx512" : best == gemm_isa::avx2 ? "avx2" : "base";
    printf("C %lld, %lld x %lld, stride %lld: base %.3f ms (%.3f ns an element), %s %.3f ms (%.3f ns), %.2fx (best of 6 alternated rounds)\n",
           (long long)c, (long long)h, (long long)h, (long long)s, ms[0], ms[0] * 1e6 / double(kdim * plane), name, ms[1],
           ms[1] * 1e6 / double(kdim * plane), ms[0] / ms[1]);
}
