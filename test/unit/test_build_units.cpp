// Splitting the generated kernels into translation units (codegen/emit.cpp) and the object
// cache's hash (compiler/object_cache.hpp).
#include "codegen/emit.hpp"
#include "codegen/lower.hpp"
#include "compiler/build_driver.hpp"
#include "compiler/object_cache.hpp"

#include <gtest/gtest.h>

using namespace mxc;

namespace {
shape f32(std::vector<int64_t> lens) { return shape(dtype::float_type, std::move(lens)); }

const std::string& file(const emitted_library& e, const std::string& path) {
    for (auto& f : e.files)
        if (f.path == path) return f.content;
    static const std::string none;
    ADD_FAILURE() << "no file " << path;
    return none;
}

// relu, sigmoid, tanh and neg: four template instantiations, each twice.
lowered_module four_kernels_twice(module& m) {
    auto* x = m.add_param("x", f32({8}));
    instruction* v = x;
    for (int round = 0; round < 2; ++round)
        for (const char* op : {"relu", "sigmoid", "tanh", "neg"}) v = m.add(op, {v});
    m.add_return({v});
    return lower(m);
}
} // namespace

TEST(build_units, one_unit_by_default) {
    module m;
    auto l = four_kernels_twice(m);
    auto e = emit_library(l, "cpu", "net");
    EXPECT_TRUE(e.units.empty());
    const std::string& src = file(e, e.model_source);
    for (int i = 0; i < 8; ++i) EXPECT_NE(src.find("kernel_" + std::to_string(i) + "(arena, w, in, out);"), std::string::npos);
}

TEST(build_units, instantiations_of_one_template_share_a_unit) {
    module m;
    auto l = four_kernels_twice(m);
    ASSERT_EQ(l.kernels.size(), 8u);
    emit_flags f;
    f.groups_per_unit = 1;
    auto e = emit_library(l, "cpu", "net", f);
    ASSERT_EQ(e.units.size(), 3u); // four groups: the model source and three kernel units
    EXPECT_EQ(e.units[0], "kernels1.cpp");
    EXPECT_EQ(library_layout(l, "cpu", "net", f).units, e.units);
    const std::string& main = file(e, e.model_source);
    for (std::size_t i = 0; i < l.kernels.size(); ++i) {
        std::string def = "void kernel_" + std::to_string(i) + "(char* arena";
        std::string call = "mxc::cpu::" + l.kernels[i].kernel + "<float>(k)";
        int defined = 0;
        for (auto* src : {&main, &file(e, e.units[0]), &file(e, e.units[1]), &file(e, e.units[2])}) {
            auto p = src->find(def + ", const char* w, const void* const* in, void* const* out) {");
            if (p == std::string::npos) continue;
            ++defined;
            EXPECT_NE(src->find(call, p), std::string::npos) << def;
            // Both kernels of the same template are in this unit.
            std::size_t twin = i < 4 ? i + 4 : i - 4;
            EXPECT_NE(src->find("void kernel_" + std::to_string(twin) + "(char* arena, const char* w, const void* const* in, void* const* out) {"),
                      std::string::npos);
        }
        EXPECT_EQ(defined, 1) << def;
    }
    // The model source declares the others and runs all eight in order.
    EXPECT_NE(main.find("; // in kernels1.cpp"), std::string::npos);
    std::size_t at = 0;
    for (int i = 0; i < 8; ++i) {
        auto p = main.find("    kernel_" + std::to_string(i) + "(arena, w, in, out);", at);
        ASSERT_NE(p, std::string::npos) << i;
        at = p;
    }
    // One command builds them all (build.sh).
    build_options o;
    auto cmd = compile_command(e, o, "lib.so");
    for (auto& u : e.units) EXPECT_NE(std::find(cmd.begin(), cmd.end(), u), cmd.end()) << u;
    auto obj = object_command(e, o, e.units[1], "kernels2.o");
    EXPECT_NE(std::find(obj.begin(), obj.end(), "-c"), obj.end());
    EXPECT_EQ(obj.back(), "kernels2.o");
}

TEST(build_units, hash_sees_every_byte_and_where_pieces_end) {
    auto hex = [](std::vector<std::string> pieces) {
        object_cache::hasher h;
        for (auto& p : pieces) h.add(p);
        return h.hex();
    };
    std::string big(1000, 'a');
    EXPECT_EQ(hex({big}), hex({big}));
    EXPECT_EQ(hex({big}).size(), 32u);
    for (std::size_t i : {0ul, 7ul, 31ul, 32ul, 999ul}) {
        std::string other = big;
        other[i] = 'b';
        EXPECT_NE(hex({big}), hex({other})) << i;
    }
    EXPECT_NE(hex({"ab", "c"}), hex({"a", "bc"}));
    EXPECT_NE(hex({""}), hex({}));
    EXPECT_NE(hex({std::string(33, '\0')}), hex({std::string(34, '\0')}));
}
