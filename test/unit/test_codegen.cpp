// Lowering and emission: locations, weights, output copies, deterministic sources.
#include "codegen/embedded.hpp"
#include "codegen/emit.hpp"
#include "codegen/lower.hpp"
#include "compiler/build_driver.hpp"
#include "ir/error.hpp"

#include <gtest/gtest.h>

using namespace mxc;

namespace {
shape f32(std::vector<int64_t> lens) { return shape(dtype::float_type, std::move(lens)); }

literal iota(std::vector<int64_t> lens, float start) {
    shape s = f32(lens);
    std::vector<float> v(static_cast<std::size_t>(s.elements()));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = start + static_cast<float>(i);
    return literal::from<float>(dtype::float_type, lens, v);
}
} // namespace

TEST(codegen_lower, returned_param_literal_view_and_repeat_get_copies) {
    module m;
    auto* x = m.add_param("x", f32({2, 3}));
    auto* c = m.add_literal(iota({2, 3}, 1));
    auto* r = m.add("relu", {x});
    auto* t = m.add("transpose", {r}, {{{"permutation", std::vector<int64_t>{1, 0}}}});
    m.add_return({x, c, t, r, r});
    auto l = lower(m);
    ASSERT_EQ(l.outputs.size(), 5u);
    EXPECT_EQ(l.outputs[0]->op, "contiguous");
    EXPECT_EQ(l.outputs[1]->op, "contiguous");
    EXPECT_EQ(l.outputs[2]->op, "contiguous");
    EXPECT_EQ(l.outputs[3], r); // the first use of r writes straight into output 3
    EXPECT_EQ(l.outputs[4]->op, "contiguous");
    EXPECT_EQ(l.outputs[4]->inputs[0], r);
    for (auto* o : l.outputs) EXPECT_FALSE(o->is_builtin());
    // r feeds two copies and is read from caller output 3.
    int reads_of_output3 = 0;
    for (auto& k : l.kernels)
        for (auto& in : k.in)
            if (in.kind == location::output && in.index == 3) ++reads_of_output3;
    EXPECT_EQ(reads_of_output3, 2);
    EXPECT_EQ(l.kernels.size(), 5u);
    EXPECT_EQ(l.weights.size(), 256u); // one 24-byte literal, padded to the alignment
}

TEST(codegen_lower, views_of_weights_keep_offset_and_strides) {
    module m;
    auto* x = m.add_param("x", f32({3, 2}));
    auto* a = m.add_literal(iota({5}, 0));          // 20 bytes at 0
    auto* b = m.add_literal(iota({2, 3}, 100));     // at 256
    auto* bt = m.add("transpose", {b}, {{{"permutation", std::vector<int64_t>{1, 0}}}});
    auto* s = m.add("add", {x, bt});
    auto* y = m.add("add", {m.add("relu", {s}), s});
    auto* ar = m.add("relu", {a});
    m.add_return({y, ar});
    auto l = lower(m);
    ASSERT_EQ(l.weights.size(), 512u);
    const kernel_call* add0 = nullptr;
    for (auto& k : l.kernels)
        if (k.ins == s) add0 = &k;
    ASSERT_NE(add0, nullptr);
    EXPECT_EQ(add0->in[0].kind, location::input);
    EXPECT_EQ(add0->in[1].kind, location::weights);
    EXPECT_EQ(add0->in[1].offset, 256);
    EXPECT_EQ(add0->in_shapes[1].strides, (std::vector<int64_t>{1, 3}));
    EXPECT_EQ(add0->out.kind, location::arena);
    float first_b;
    std::memcpy(&first_b, l.weights.data() + 256, 4);
    EXPECT_EQ(first_b, 100.0f);
}

TEST(codegen_emit, source_is_deterministic_and_names_templates) {
    auto build = [] {
        module m;
        auto* x = m.add_param("x \"quoted\"", f32({4}));
        auto* c = m.add_literal(iota({4}, 1));
        m.add_return({m.add("relu", {m.add("add", {x, c})})});
        auto l = lower(m);
        return emit_library(l, "cpu", "net").files;
    };
    auto a = build(), b = build();
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].path, b[i].path);
        EXPECT_EQ(a[i].content, b[i].content) << a[i].path;
    }
    std::string src;
    for (auto& f : a)
        if (f.path == "model.cpp") src = f.content;
    EXPECT_NE(src.find("#include \"templates/cpu/pointwise.hpp\""), std::string::npos);
    EXPECT_NE(src.find("mxc::cpu::add<float>(k)"), std::string::npos);
    EXPECT_NE(src.find("\"x \\\"quoted\\\"\""), std::string::npos);
    EXPECT_NE(src.find("#define MXC_FN(x) net_##x"), std::string::npos);
}

TEST(codegen_emit, hip_source_passes_the_stream) {
    module m;
    auto* x = m.add_param("x", f32({4}));
    m.add_return({m.add("relu", {x})});
    auto l = lower(m);
    bool have_hip_relu = false;
    for (auto& f : embedded_files()) have_hip_relu |= std::string(f.path) == "templates/hip/pointwise.hpp";
    if (!have_hip_relu) {
        EXPECT_THROW(emit_library(l, "hip", "net"), error);
        GTEST_SKIP() << "templates/hip/pointwise.hpp does not exist yet (hip kernels not merged)";
    }
    auto e = emit_library(l, "hip", "net");
    std::string src;
    for (auto& f : e.files)
        if (f.path == e.model_source) src = f.content;
    EXPECT_NE(src.find("mxc::hip::relu<float>(k, stream)"), std::string::npos);
    EXPECT_NE(src.find("#define MXC_TARGET_HIP"), std::string::npos);
}

TEST(codegen_emit, header_has_prefix_and_workspace_macro) {
    module m;
    auto* x = m.add_param("x", f32({64}));
    auto* r = m.add("relu", {x});
    m.add_return({m.add("add", {r, r})});
    auto l = lower(m);
    std::string h = emit_header(l, "tiny", "cpu");
    EXPECT_NE(h.find("#define TINY_WORKSPACE_BYTES ((size_t)256)"), std::string::npos);
    EXPECT_NE(h.find("MXC_API mxc_status tiny_create(mxc_model** out, const mxc_options* opts);"), std::string::npos);
    EXPECT_EQ(h.find("@NAME"), std::string::npos);
}

TEST(codegen_emit, c_string_escapes_everything) {
    EXPECT_EQ(c_string(std::string("a\"b\\c\n?") + "?="), "\"a\\\"b\\\\c\\012\\077\\077=\"");
}

TEST(codegen_driver, names) {
    EXPECT_EQ(default_name("out/libmodel.so"), "model");
    EXPECT_EQ(default_name("libresnet-50.v2.so"), "resnet_50");
    EXPECT_EQ(default_name("lib3d.so"), "m3d");
    EXPECT_EQ(default_name("/tmp/.so"), "model");
    EXPECT_EQ(header_path("out/libmodel.so"), "out/libmodel.h");
    EXPECT_NO_THROW(check_name("my_model2"));
    EXPECT_THROW(check_name("2x"), error);
    EXPECT_THROW(check_name("a-b"), error);
    EXPECT_THROW(check_name(""), error);
}

TEST(codegen_driver, compile_commands) {
    module m;
    m.add_return({m.add("relu", {m.add_param("x", f32({4}))})});
    auto l = lower(m);
    emitted_library e;
    e.name = "net";
    e.target = "hip";
    e.model_source = "model.hip";
    e.weights_source = "weights.cpp";
    e.exports = "exports.map";
    build_options o;
    o.target = "hip";
    o.offload_arch = "gfx90a";
    auto amd = compile_command(e, o, "/o/lib.so");
    EXPECT_EQ(amd[0], "clang++-15");
    EXPECT_NE(std::find(amd.begin(), amd.end(), "--offload-arch=gfx90a"), amd.end());
    EXPECT_NE(std::find(amd.begin(), amd.end(), "-lamdhip64"), amd.end());
    o.offload_arch = "sm_90";
    auto nv = compile_command(e, o, "/o/lib.so");
    EXPECT_EQ(nv[0], "/usr/local/cuda/bin/nvcc");
    EXPECT_NE(std::find(nv.begin(), nv.end(), "-arch=sm_90"), nv.end());
    o.offload_arch = "gfx90a; rm -rf /";
    EXPECT_THROW(compile_command(e, o, "/o/lib.so"), error);
    o.offload_arch = "volta";
    EXPECT_THROW(compile_command(e, o, "/o/lib.so"), error);
}
