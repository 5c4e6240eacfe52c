// templates/hip/mma.hpp, the warp-level tile multiply-accumulate: test/emu/mma_test.cpp
// (fp16: one warp 16x48x16, block GEMMs with edges) and test/emu/gemm_mma_test.cpp (the fp16 and
// fp32 GEMMs of templates/hip/gemm.hpp) built for the host SIMT emulator through each of
// the interface's paths (generic; emulated wmma; emulated MFMA with 64-lane wavefronts) and
// compared there with a double-precision product; and the same file compiled for sm_90 (nvcc)
// and gfx90a (clang++-15), checking that the matrix instructions are emitted. Skipped, saying
// why, where the emulator or a compiler is missing.
#include "test/e2e/e2e_util.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {
const std::string src = MXC_SOURCE_DIR;

struct result {
    int status = -1;
    std::string output; // stdout and stderr
};
result run(const std::string& cmd) {
    result r;
    if (FILE* f = popen((cmd + " 2>&1").c_str(), "r")) {
        char buf[512];
        while (std::fgets(buf, sizeof buf, f)) r.output += buf;
        int st = pclose(f);
        r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    }
    return r;
}

bool installed(const std::string& compiler) {
    return access(compiler.c_str(), X_OK) == 0 || run("command -v " + compiler).status == 0;
}

using mxc_test::tmp_dir;

std::string host_cxx() {
    const char* cxx = std::getenv("CXX");
    return cxx && *cxx ? cxx : "g++";
}

bool have_emulator() { return fs::exists(src + "/runtime-stub/emu/hip/hip_runtime.h"); }

// test/emu/NAME.cpp built for the emulator with `defines` (each variant once per process); ""
// after a failure (reported).
const std::string& emu_binary(const std::string& defines, const std::string& name = "mma_test") {
    static tmp_dir d;
    static std::map<std::string, std::string> built;
    const std::string key = name + " " + defines;
    auto it = built.find(key);
    if (it != built.end()) return it->second;
    std::string exe = d.path + "/" + name + std::to_string(built.size());
    auto r = run(host_cxx() + " -std=c++17 -O1 " + defines + " -I" + src + "/runtime-stub/emu -I" + src + " " + src +
                 "/test/emu/" + name + ".cpp -o " + exe);
    EXPECT_EQ(r.status, 0) << r.output;
    return built[key] = r.status == 0 ? exe : "";
}

void run_emu(const std::string& defines, int warp, const std::string& name = "mma_test") {
    if (!have_emulator()) GTEST_SKIP() << "the host SIMT emulator is not there";
    const std::string& exe = emu_binary(defines, name);
    if (exe.empty()) return;
    auto r = run("MXC_EMU_WARP=" + std::to_string(warp) + " " + exe);
    EXPECT_EQ(r.status, 0) << r.output;
    if (name == "mma_test") EXPECT_NE(r.output.find("warp size " + std::to_string(warp) + "\n"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("PASSED"), std::string::npos) << r.output;
}
} // namespace

TEST(mma_emu, generic_path_warp_32) { run_emu("", 32); }
TEST(mma_emu, generic_path_warp_64) { run_emu("", 64); }
TEST(mma_emu, wmma_path) { run_emu("-DMXC_EMU_MMA=wmma", 32); }
TEST(mma_emu, mfma_path) { run_emu("-DMXC_EMU_MMA=mfma", 64); }

// The fp16 GEMM of templates/hip/gemm.hpp (both configurations, edges, batches, layouts) on the
// same paths: test/emu/gemm_mma_test.cpp.
TEST(gemm_mma_emu, generic_path_warp_32) { run_emu("", 32, "gemm_mma_test"); }
TEST(gemm_mma_emu, generic_path_warp_64) { run_emu("", 64, "gemm_mma_test"); }
TEST(gemm_mma_emu, wmma_path) { run_emu("-DMXC_EMU_MMA=wmma", 32, "gemm_mma_test"); }
TEST(gemm_mma_emu, mfma_path) { run_emu("-DMXC_EMU_MMA=mfma", 64, "gemm_mma_test"); }

// The emulated vendor APIs reject what the hardware does not do.
TEST(mma_emu, emulated_apis_report_misuse) {
    if (!have_emulator()) GTEST_SKIP() << "the host SIMT emulator is not there";
    const std::string &wmma = emu_binary("-DMXC_EMU_MMA=wmma"), &mfma = emu_binary("-DMXC_EMU_MMA=mfma");
    if (wmma.empty() || mfma.empty()) return;
    auto r = run(wmma + " misaligned");
    EXPECT_NE(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("wmma::load_matrix_sync: the pointer is not 256-bit aligned"), std::string::npos) << r.output;
    r = run("MXC_EMU_WARP=32 " + mfma);
    EXPECT_NE(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("needs 64-lane wavefronts"), std::string::npos) << r.output;
}

// The vendor paths compile, and the matrix instructions (and on sm_90 the asynchronous copies)
// are in the device code.
TEST(mma_compile, sm_90_uses_wmma) {
    const std::string nvcc = "/usr/local/cuda/bin/nvcc";
    if (!installed(nvcc)) GTEST_SKIP() << nvcc << " is not installed";
    tmp_dir d;
    for (const std::string name : {"mma_test", "gemm_mma_test"}) {
        auto r = run("cd " + src + " && " + nvcc + " -x cu -std=c++17 -arch=sm_90 -O2 -Iruntime-stub/cuda -I. -ptx test/emu/" +
                     name + ".cpp -o " + d.path + "/mma.ptx");
        ASSERT_EQ(r.status, 0) << r.output;
        std::ifstream f(d.path + "/mma.ptx");
        std::stringstream ptx;
        ptx << f.rdbuf();
        EXPECT_NE(ptx.str().find("wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32"), std::string::npos) << name;
        EXPECT_NE(ptx.str().find("wmma.load.a.sync.aligned.row.m16n16k16"), std::string::npos) << name;
        if (name == "gemm_mma_test") { // the pipelined loop of gemm_mma_small (templates/hip/async_copy.hpp)
            EXPECT_NE(ptx.str().find("cp.async.cg.shared.global"), std::string::npos);
            EXPECT_NE(ptx.str().find("cp.async.wait_group 2;"), std::string::npos);
            // gemm_mma_f32: TF32 products of operands rounded to TF32 (3xTF32) on mma.sync's
            // m16n8k8 shape (mma_m16n8k8_tf32; wmma's 16x16x8 took twice the instructions), the
            // fragments read from the shared stages as such
            EXPECT_NE(ptx.str().find("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"), std::string::npos);
            EXPECT_EQ(ptx.str().find("wmma.mma.sync.aligned.row.row.m16n16k8"), std::string::npos);
            // (mma_tile<float>::tf32_round: an add of half the dropped bits' unit and a mask)
            EXPECT_NE(ptx.str().find(", 4096;"), std::string::npos);
            EXPECT_NE(ptx.str().find(", -8192;"), std::string::npos);
            EXPECT_NE(ptx.str().find("ld.shared.f32"), std::string::npos);
            // gemm_mma_large_ring: its stages in dynamic shared memory (templates/hip/common.hpp)
            EXPECT_NE(ptx.str().find(".extern .shared .align 128 .b8 _ZN3mxc3hip24mxc_dynamic_shared_bytesE[];"), std::string::npos);
        }
    }
}

TEST(mma_compile, gfx90a_uses_mfma) {
    const std::string clang = "clang++-15";
    if (!installed(clang)) GTEST_SKIP() << clang << " is not installed";
    tmp_dir d;
    for (const std::string name : {"mma_test", "gemm_mma_test"}) {
        auto r = run("cd " + src + " && " + clang +
                     " -x hip -std=c++17 --rocm-path=/usr --rocm-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
                     " --offload-arch=gfx90a --cuda-device-only -O2 -I. -S test/emu/" + name + ".cpp -o " + d.path + "/mma.s");
        ASSERT_EQ(r.status, 0) << r.output;
        std::ifstream f(d.path + "/mma.s");
        std::stringstream s;
        s << f.rdbuf();
        EXPECT_NE(s.str().find("v_mfma_f32_16x16x16f16"), std::string::npos) << name;
        if (name == "gemm_mma_test") EXPECT_NE(s.str().find("v_mfma_f32_16x16x4f32"), std::string::npos) << name; // gemm_mma_f32
    }
}
