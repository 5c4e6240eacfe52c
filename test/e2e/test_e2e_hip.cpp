// The hip sources of a model build for AMD (clang++-15, gfx90a) and for NVIDIA (nvcc, sm_90)
// when those compilers are installed; skipped, saying why, when they are not.
#include "codegen/embedded.hpp"
#include "compiler/build_driver.hpp"
#include "ir/error.hpp"
#include "test/e2e/e2e_util.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

using namespace mxc;
namespace fs = std::filesystem;

namespace {
bool have_hip_template(const std::string& family) {
    for (auto& f : embedded_files())
        if (f.path == "templates/hip/" + family + ".hpp") return true;
    return false;
}

// A module using weights, a broadcast view and two outputs: relu(x + w), and its transpose.
module small_module() {
    module m;
    shape s(dtype::float_type, {2, 3});
    auto* x = m.add_param("x", s);
    auto* w = m.add_literal(literal::from<float>(dtype::float_type, {3}, {1, -2, 3}));
    auto* wb = m.add("multibroadcast", {w}, {{{"out_lens", std::vector<int64_t>{2, 3}}}});
    auto* r = m.add("relu", {m.add("add", {x, wb})});
    m.add_return({r, m.add("transpose", {r}, {{{"permutation", std::vector<int64_t>{1, 0}}}})});
    return m;
}

void build_for(const std::string& arch, const std::string& compiler) {
    if (access(compiler.c_str(), X_OK) != 0 && std::system(("command -v " + compiler + " >/dev/null 2>&1").c_str()) != 0)
        GTEST_SKIP() << compiler << " is not installed: cannot check the " << arch << " build";
    if (!have_hip_template("pointwise")) GTEST_SKIP() << "templates/hip/pointwise.hpp does not exist yet";
    mxc_test::tmp_dir d("hip");
    const std::string& dir = d.path;
    module m = small_module();
    build_options o;
    o.target = "hip";
    o.offload_arch = arch;
    try {
        auto st = compile_module(m, dir + "/libsmall.so", o);
        EXPECT_EQ(st.kernels, 3); // add, relu, and the copy of the transposed output
        EXPECT_TRUE(fs::exists(dir + "/libsmall.so"));
        EXPECT_TRUE(fs::exists(dir + "/libsmall.h"));
    } catch (const error& e) {
        ADD_FAILURE() << e.what();
    }
}
} // namespace

TEST(e2e_hip, builds_for_gfx90a_with_clang) { build_for("gfx90a", "clang++-15"); }
TEST(e2e_hip, builds_for_sm_90_with_nvcc) { build_for("sm_90", "/usr/local/cuda/bin/nvcc"); }
