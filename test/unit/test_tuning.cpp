// The tuning database (codegen/tuning.hpp): what a tuning run writes reads back the same, and
// the GEMM problems of dot and convolution kernels.
#include "codegen/tune_program.hpp"
#include "codegen/tuning.hpp"
#include "ir/error.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <fstream>

using namespace mxc;

namespace {
kernel_call call(const std::string& kernel, dtype t, std::vector<std::vector<int64_t>> in, std::vector<int64_t> out,
                 std::vector<int64_t> ip = {}) {
    kernel_call k;
    k.kernel = kernel;
    k.type = t;
    for (auto& l : in) k.in_shapes.push_back(shape(t, l));
    k.out_shape = shape(t, out);
    k.params.ip = ip;
    return k;
}
// The tile of an entry for p (on sm_90) as a database written with it reads back (FILE in
// the test's temporary directory); an empty tile where the entry is missing.
gemm_tile read_back(const gemm_problem& p, const gemm_tile& t, const std::string& file) {
    const std::string path = ::testing::TempDir() + file;
    tuning_db db;
    db.put({p, "sm_90", t, 1.5, ""});
    std::ofstream(path) << db.text();
    const tuning_db back = tuning_db::load(path);
    const tuning_entry* e = back.find(p, "sm_90");
    return e ? e->tile : gemm_tile{};
}

// A tile's text without its split.
std::string with_block_text(gemm_tile t) {
    t.splits = 1;
    return t.text();
}
} // namespace

TEST(Tuning, WrittenDatabaseReadsBack) {
    tuning_db db;
    db.put({{"fused_dot", dtype::half_type, 128, 1000, 2048, 1}, "sm_90", {64, 64, 8, 4, 4}, 12.5, ""});
    db.put({{"convolution", dtype::float_type, 64, 3136, 576, 1}, "gfx90a", {128, 128, 8, 8, 8}, -1, ""});
    db.put({{"convolution", dtype::float_type, 64, 3136, 576, 1}, "gfx90a", {16, 128, 16, 2, 4}, 3, ""}); // replaces
    std::string path = ::testing::TempDir() + "/mxc_tuning_roundtrip.tsv";
    std::ofstream(path) << db.text();
    tuning_db back = tuning_db::load(path);
    std::remove(path.c_str());
    EXPECT_EQ(back.size(), 2u);
    const tuning_entry* d = back.find({"dot", dtype::half_type, 128, 1000, 2048, 1}, "sm_90");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->tile.text(), "64x64x8/4x4");
    EXPECT_DOUBLE_EQ(d->us, 12.5);
    const tuning_entry* c = back.find({"fused_convolution", dtype::float_type, 64, 3136, 576, 1}, "gfx90a");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->tile.cpp_type(dtype::float_type), "mxc::hip::gemm_config<16, 128, 16, 2, 4>");
    EXPECT_EQ(back.find({"dot", dtype::half_type, 128, 1000, 2048, 1}, "gfx90a"), nullptr);
    EXPECT_EQ(back.find({"dot", dtype::float_type, 128, 1000, 2048, 1}, "sm_90"), nullptr);
}

TEST(Tuning, GemmProblems) {
    // batched dot [3, 4, 16, 32] x [3, 4, 32, 8]: M 16, N 8, K 32, Z 12
    auto d = gemm_problem_of(call("dot", dtype::float_type, {{3, 4, 16, 32}, {3, 4, 32, 8}}, {3, 4, 16, 8}));
    ASSERT_TRUE(d);
    EXPECT_EQ(d->text(), "16x8x32x12");
    // conv x [2, 64, 56, 56], w [128, 32, 3, 3], group 2, out [2, 128, 28, 28]:
    // M 64, N 2 * 784, K 32 * 9, Z 2
    auto c = gemm_problem_of(call("fused_convolution", dtype::half_type, {{2, 64, 56, 56}, {128, 32, 3, 3}},
                                  {2, 128, 28, 28}, {2, 1, 1, 2, 2, 1, 1}));
    ASSERT_TRUE(c);
    EXPECT_EQ(c->op, "convolution");
    EXPECT_EQ(c->text(), "64x1568x288x2");
    // depthwise 2-d: a direct kernel; integer dot: not the GEMM engine; other ops: none
    EXPECT_FALSE(gemm_problem_of(call("convolution", dtype::float_type, {{1, 8, 6, 6}, {8, 1, 3, 3}}, {1, 8, 4, 4},
                                      {8, 0, 0, 1, 1, 1, 1})));
    EXPECT_FALSE(gemm_problem_of(call("dot", dtype::int32_type, {{4, 4}, {4, 4}}, {4, 4})));
    EXPECT_FALSE(gemm_problem_of(call("add", dtype::float_type, {{4, 4}, {4, 4}}, {4, 4})));
}

// --tune's candidates (codegen/tune_program.hpp): the presets first, every tile one the engine
// runs, no duplicates, at most max_tuning_candidates, and no block wider than a small problem needs.
TEST(Tuning, Candidates) {
    gemm_problem big{"dot", dtype::float_type, 4096, 2048, 1024, 1};
    auto c = tuning_candidates(big);
    ASSERT_EQ(c.size(), max_tuning_candidates); // (more output tiles than split-K has counters: none splits)
    EXPECT_EQ(c[0].text(), "128x128x8/8x8");
    EXPECT_EQ(c[1].text(), "64x64x16/4x4");
    EXPECT_EQ(c[2].text(), "16x128x16/2x4");
    EXPECT_EQ(c[3].text(), "128x16x16/4x2");
    std::set<std::string> seen;
    std::set<std::pair<int, int>> blocks;
    for (auto& t : c) {
        EXPECT_EQ(t.invalid(big.type), "") << t.text();
        EXPECT_TRUE(seen.insert(t.text()).second) << "twice: " << t.text();
        EXPECT_EQ(t.splits, 1) << t.text();
        blocks.insert({t.bm, t.bn});
    }
    EXPECT_EQ(blocks.size(), 11u); // the presets' four and the grid's nine, two of them shared
    // 1024 x 1024: the candidates are split as the rule would split each (mxc_gemm_splits: the
    // large preset's 64 tiles into 5 slices, the medium one's 256 not), and the rule's own
    // preset for it (mxc_gemm_pick: medium) follows at its other splits
    gemm_problem mid{"dot", dtype::float_type, 1024, 1024, 1024, 1};
    auto m = tuning_candidates(mid);
    ASSERT_GT(m.size(), max_tuning_candidates);
    EXPECT_EQ(m[0].text(), "128x128x8/8x8/k5");
    EXPECT_EQ(m[1].text(), "64x64x16/4x4");
    std::set<std::string> extra;
    for (std::size_t i = max_tuning_candidates; i < m.size(); ++i) {
        EXPECT_EQ(with_block_text(m[i]), "64x64x16/4x4");
        EXPECT_GT(m[i].splits, 1);
        EXPECT_TRUE(extra.insert(m[i].text()).second) << m[i].text();
    }
    EXPECT_TRUE(extra.count("64x64x16/4x4/k2"));
    EXPECT_TRUE(extra.count("64x64x16/4x4/k16")); // 64 deep, 4 steps
    // 8 x 16 outputs: the presets, and of the grid only 32 x 32 blocks (3 BK x 8 thread tiles)
    auto s = tuning_candidates({"convolution", dtype::float_type, 8, 16, 32, 1});
    EXPECT_EQ(s.size(), 4u + 24u);
    for (std::size_t i = 4; i < s.size(); ++i) EXPECT_TRUE(s[i].bm == 32 && s[i].bn == 32) << s[i].text();
    EXPECT_EQ(s[4].text(), "32x32x8/2x2"); // 256 threads first
    // double: the shared memory limit counts 8-byte elements
    for (auto& t : tuning_candidates({"dot", dtype::double_type, 4096, 4096, 4096, 1}))
        EXPECT_EQ(t.invalid(dtype::double_type), "") << t.text();
}

// Matrix-unit tiles (mma:BMxBNxBK/FMxS): text, C++ type per element type, the rules of
// gemm_mma_config, and the candidates around the rule's tile.
TEST(Tuning, MmaTiles) {
    gemm_tile t;
    ASSERT_TRUE(parse_gemm_tile("mma:64x128x16/2x4", t));
    EXPECT_TRUE(t.mma);
    EXPECT_EQ(t.text(), "mma:64x128x16/2x4");
    EXPECT_EQ(t.cpp_type(dtype::float_type), "mxc::hip::gemm_mma_config<64, 128, 2, 1, 16, 4, float>");
    EXPECT_EQ(t.cpp_type(dtype::half_type), "mxc::hip::gemm_mma_config<64, 128, 2, 1, 16, 4, mxc_half>");
    EXPECT_EQ(t.invalid(dtype::float_type), "");
    // half: 16 is not a whole vector per thread of 8 halves (16 x 64 / 256 = 4 elements)
    EXPECT_NE(t.invalid(dtype::half_type), "");
    EXPECT_NE(t.invalid(dtype::double_type), "");
    // T threads (64, 128 or 256; 256 when not given): the C++ type's minimum blocks 256 / T
    ASSERT_TRUE(parse_gemm_tile("mma:64x64x16/2x4x128", t));
    EXPECT_EQ(t.threads, 128);
    EXPECT_EQ(t.text(), "mma:64x64x16/2x4x128");
    EXPECT_EQ(t.cpp_type(dtype::float_type), "mxc::hip::gemm_mma_config<64, 64, 2, 2, 16, 4, float, 128>");
    EXPECT_EQ(t.invalid(dtype::float_type), "");
    ASSERT_TRUE(parse_gemm_tile("mma:64x64x16/1x4x128", t)); // 4 warps along M, 2 wavefronts of 64
    EXPECT_NE(t.invalid(dtype::float_type), "");
    ASSERT_TRUE(parse_gemm_tile("mma:64x64x16/2x4x96", t));
    EXPECT_NE(t.invalid(dtype::float_type), "");
    EXPECT_FALSE(parse_gemm_tile("64x64x16/4x4x128", t)); // (SIMT tiles: TMxTN only)
    EXPECT_FALSE(parse_gemm_tile("mma:64x64x16/2x4x128x2", t));
    EXPECT_FALSE(parse_gemm_tile("mma:64x64x16", t));
    EXPECT_FALSE(parse_gemm_tile("mma64x64x16/2x4", t));
    ASSERT_TRUE(parse_gemm_tile("64x64x16/4x4", t));
    EXPECT_FALSE(t.mma);
    // the templates' presets are valid tiles, with the rule's own choice for each type
    const gemm_problem vit{"dot", dtype::float_type, 197, 3072, 768, 1}, hv{"dot", dtype::half_type, 197, 3072, 768, 1};
    EXPECT_EQ(rule_mma_tile(vit, false).text(), "mma:64x64x16/2x4x128");                                    // gemm_mma_f32
    EXPECT_EQ(rule_mma_tile(vit, true).text(), "mma:64x64x32/2x4x128");                                     // gemm_mma_f32_deep
    EXPECT_EQ(rule_mma_tile(hv, false).text(), "mma:64x64x32/2x4");                                       // gemm_mma_small
    EXPECT_EQ(rule_mma_tile({"dot", dtype::half_type, 4096, 4096, 64, 1}, true).text(), "mma:128x128x32/4x4"); // large ring
    EXPECT_EQ(rule_mma_tile({"dot", dtype::half_type, 4096, 4096, 64, 1}, false).text(), "mma:128x128x32/4x2"); // large
    for (const gemm_problem& p : {vit, hv}) {
        EXPECT_EQ(rule_mma_tile(p, false).invalid(p.type), "");
        auto c = mma_candidates(p, false);
        EXPECT_GE(c.size(), 5u) << dtype_name(p.type);
        std::set<std::string> seen;
        for (auto& u : c) {
            EXPECT_TRUE(u.mma);
            EXPECT_EQ(u.invalid(p.type), "") << u.text();
            // timed as "mma" at its split (197 x 3072: 192 tiles, two slices; the unsplit one is a variant)
            gemm_tile rule = rule_mma_tile(p, false);
            rule.splits = rule_splits(rule, p);
            EXPECT_NE(u.text(), rule.text());
            EXPECT_TRUE(seen.insert(u.text()).second) << u.text();
        }
    }
    // a small problem gets no block wider than 64
    for (auto& u : mma_candidates({"dot", dtype::float_type, 20, 24, 32, 1}, false)) EXPECT_TRUE(u.bm <= 64 && u.bn <= 64) << u.text();
    // a database entry with such a tile reads back
    EXPECT_EQ(read_back(vit, mma_candidates(vit, false)[0], "mma-db.tsv").text(), mma_candidates(vit, false)[0].text());
}

TEST(Tuning, TimingProgram) {
    std::vector<tuning_job> jobs = {{{"dot", dtype::half_type, 16, 8, 32, 2}, {{64, 64, 8, 4, 4}, {32, 32, 16, 2, 2}}},
                                    {{"convolution", dtype::float_type, 4, 16, 18, 2}, {{64, 64, 8, 4, 4}}}};
    std::string src = timing_program(jobs);
    EXPECT_NE(src.find("problem<mxc_half> p(\"dot:half_type:16x8x32x2\", 16, 8, 32, 2,"), std::string::npos);
    EXPECT_NE(src.find("p.time<mxc::hip::gemm_config<32, 32, 16, 2, 2>>(\"32x32x16/2x2\");"), std::string::npos);
    EXPECT_NE(src.find("problem<float> p(\"convolution:float_type:4x16x18x2\", 4, 16, 18, 2,"), std::string::npos);
    EXPECT_NE(src.find("job_1();"), std::string::npos);
    EXPECT_EQ(src.find("p.time<mma_engine"), std::string::npos); // only jobs with mma
    jobs[0].mma = true;
    EXPECT_NE(timing_program(jobs).find("p.time<mxc::hip::gemm_config<32, 32, 16, 2, 2>>(\"32x32x16/2x2\");\n"
                                        "    p.time<mma_engine<false, 1>>(\"mma\");"),
              std::string::npos);
    jobs[0].large_ring = true; // the build's large tile (large_ring_wanted) timed as such
    EXPECT_NE(timing_program(jobs).find("    p.time<mma_engine<true, 1>>(\"mma\");"), std::string::npos);
    // split tiles: launched as gemm_split on the job's scratch, sized for the largest split
    // (the counters, then 2 slices of 16 x 8 floats and 2 batches: 4 slices of K = 32 would be
    // 8 deep, and a slice is whole 16-deep steps), "mma" at the rule's split
    jobs[0].tiles[1].splits = 4;
    jobs[0].mma_splits = 3;
    src = timing_program(jobs);
    EXPECT_NE(src.find("p.time<mxc::hip::gemm_split<mxc::hip::gemm_config<32, 32, 16, 2, 2>, 4>>(\"32x32x16/2x2/k4\");"),
              std::string::npos);
    EXPECT_NE(src.find("p.time<mma_engine<true, 3>>(\"mma\");"), std::string::npos);
    EXPECT_NE(src.find("problem<mxc_half> p(\"dot:half_type:16x8x32x2\", 16, 8, 32, 2, 0x1p-23, 0x1p-10, " +
                       std::to_string(1024 + 2 * 2 * 16 * 8 * 4) + ");"),
              std::string::npos)
        << src.substr(src.find("problem<mxc_half> p("), 120);
}

// Split-K in the database and the tuner: "/kS" after the tile, a launch type of gemm_split,
// and the splits the launcher runs (gemm_run: none where K makes one slice or the output
// tiles outnumber the counters).
TEST(Tuning, Splits) {
    gemm_tile t;
    ASSERT_TRUE(parse_gemm_tile("mma:64x64x32/2x4x128/k3", t));
    EXPECT_EQ(t.splits, 3);
    EXPECT_EQ(t.threads, 128);
    EXPECT_EQ(t.text(), "mma:64x64x32/2x4x128/k3");
    EXPECT_EQ(t.cpp_type(dtype::float_type), "mxc::hip::gemm_mma_config<64, 64, 2, 2, 32, 4, float, 128>");
    EXPECT_EQ(t.launch_type(dtype::float_type), "mxc::hip::gemm_split<mxc::hip::gemm_mma_config<64, 64, 2, 2, 32, 4, float, 128>, 3>");
    EXPECT_EQ(t.invalid(dtype::float_type), "");
    ASSERT_TRUE(parse_gemm_tile("32x32x32/2x4/k6", t));
    EXPECT_FALSE(t.mma);
    EXPECT_EQ(t.splits, 6);
    EXPECT_EQ(t.text(), "32x32x32/2x4/k6");
    ASSERT_TRUE(parse_gemm_tile("32x32x32/2x4/k64", t));
    EXPECT_NE(t.invalid(dtype::float_type), ""); // over max_gemm_tile_splits
    ASSERT_TRUE(parse_gemm_tile("32x32x32/2x4", t));
    EXPECT_EQ(t.splits, 1);
    EXPECT_EQ(t.launch_type(dtype::float_type), t.cpp_type(dtype::float_type));
    for (const char* bad : {"32x32x32/2x4/k", "32x32x32/2x4/k0", "32x32x32/2x4/kx", "32x32x32/k2", "mma:64x64x32/k2", "32x32x32/2x4/k2/k2",
                            "gemv/k", "gemv/k2/k2", "mma:gemv", "gemv/1x1", "gemv2"})
        EXPECT_FALSE(parse_gemm_tile(bad, t)) << bad;
    // the GEMV kernel: its 1 x 128 x 8 tile, split or not
    ASSERT_TRUE(parse_gemm_tile("gemv/k12", t));
    EXPECT_TRUE(t.gemv && !t.mma);
    EXPECT_EQ(t.splits, 12);
    EXPECT_EQ(t.bm * 1000 + t.bn * 10 + t.bk, 1000 + 1280 + 8);
    EXPECT_EQ(t.text(), "gemv/k12");
    EXPECT_EQ(t.launch_type(dtype::half_type), "mxc::hip::gemm_split<mxc::hip::gemm_gemv, 12>");
    EXPECT_EQ(t.invalid(dtype::double_type), "");
    ASSERT_TRUE(parse_gemm_tile("gemv", t));
    EXPECT_EQ(t.text(), "gemv");
    EXPECT_EQ(t.launch_type(dtype::float_type), "mxc::hip::gemm_gemv");
    const gemm_problem head{"dot", dtype::float_type, 1, 1000, 768, 1};
    EXPECT_EQ(rule_splits(gemv_tile(), head), 12);
    std::vector<std::string> names;
    for (auto& u : tuning_candidates(head))
        if (u.gemv) names.push_back(u.text());
    EXPECT_EQ(names, (std::vector<std::string>{"gemv/k12", "gemv", "gemv/k2", "gemv/k3", "gemv/k4", "gemv/k6", "gemv/k8",
                                                 "gemv/k16", "gemv/k24", "gemv/k32"}));
    names.clear();
    for (auto& u : tuning_candidates({"convolution", dtype::float_type, 1, 1000, 768, 1}))
        if (u.gemv) names.push_back(u.text());
    EXPECT_TRUE(names.empty()); // dot products only
    // the launcher's splits: ViT-B/16's fc2 (197 x 768 x 3072) on the deep fp32 tile, 48 tiles
    const gemm_problem fc2{"dot", dtype::float_type, 197, 768, 3072, 1};
    const gemm_tile deep = rule_mma_tile(fc2, true);
    EXPECT_EQ(rule_splits(deep, fc2), 6);
    EXPECT_EQ(launcher_splits(deep, fc2, 4), 4);
    EXPECT_EQ(launcher_splits(deep, {"dot", dtype::float_type, 197, 768, 16, 1}, 4), 1); // one K step: one slice
    EXPECT_EQ(launcher_splits(deep, {"dot", dtype::float_type, 2048, 2048, 3072, 1}, 4), 1); // 1024 tiles
    // its other splits: 1, 2, 3, 4, 8, 12, 16, 24, 32 (6 is the rule's; 32 slices of 96)
    std::vector<std::string> v;
    for (auto& u : split_variants(deep, fc2)) v.push_back(u.text());
    EXPECT_EQ(v, (std::vector<std::string>{"mma:64x64x32/2x4x128", "mma:64x64x32/2x4x128/k2", "mma:64x64x32/2x4x128/k3",
                                           "mma:64x64x32/2x4x128/k4", "mma:64x64x32/2x4x128/k8", "mma:64x64x32/2x4x128/k12",
                                           "mma:64x64x32/2x4x128/k16", "mma:64x64x32/2x4x128/k24", "mma:64x64x32/2x4x128/k32"}));
    // the matrix-unit candidates end with them; the others are split as the rule would
    auto c = mma_candidates(fc2, true);
    ASSERT_GE(c.size(), v.size());
    for (std::size_t i = 0; i < v.size(); ++i) EXPECT_EQ(c[c.size() - v.size() + i].text(), v[i]);
    for (std::size_t i = 0; i + v.size() < c.size(); ++i) EXPECT_EQ(c[i].splits, rule_splits(c[i], fc2)) << c[i].text();
    // QKV (197 x 2304 x 768): 144 tiles, which the rule splits in two (one wave and a small
    // second); the variants unsplit and at more slices (16 slices would be 48 deep, 12 again;
    // 24 and 32, one K step)
    const gemm_problem qkv{"dot", dtype::float_type, 197, 2304, 768, 1};
    EXPECT_EQ(rule_splits(deep, qkv), 2);
    v.clear();
    for (auto& u : split_variants(deep, qkv)) v.push_back(u.text());
    EXPECT_EQ(v, (std::vector<std::string>{"mma:64x64x32/2x4x128", "mma:64x64x32/2x4x128/k3", "mma:64x64x32/2x4x128/k4",
                                           "mma:64x64x32/2x4x128/k6", "mma:64x64x32/2x4x128/k8", "mma:64x64x32/2x4x128/k12"}));
    // a database entry with a split reads back with it
    const gemm_tile k3 = read_back(fc2, split_variants(deep, fc2)[2], "split-db.tsv");
    EXPECT_EQ(k3.splits, 3);
    EXPECT_EQ(k3.text(), "mma:64x64x32/2x4x128/k3");
}

// A half job also times the matrix-unit kernel: when it wins, no entry (the rule's choice).
TEST(Tuning, ReadTimingsMma) {
    std::vector<tuning_job> jobs = {{{"dot", dtype::half_type, 64, 64, 64, 1}, {{64, 64, 8, 4, 4}}, true}};
    auto r = read_timings(jobs, "dot:half_type:64x64x64x1 64x64x8/4x4 5\ndot:half_type:64x64x64x1 mma 2.5\n", "gfx90a");
    EXPECT_TRUE(r.winners.empty());
    ASSERT_EQ(r.mma_won.size(), 1u);
    EXPECT_EQ(r.mma_won[0].text(), "64x64x64x1");
    r = read_timings(jobs, "dot:half_type:64x64x64x1 64x64x8/4x4 5\ndot:half_type:64x64x64x1 mma dropped: x\n", "gfx90a");
    ASSERT_EQ(r.winners.size(), 1u);
    EXPECT_TRUE(r.mma_won.empty());
    EXPECT_THROW(read_timings(jobs, "dot:half_type:64x64x64x1 64x64x8/4x4 5\n", "gfx90a"), error); // no mma line
    // erase: the stale entry of such a problem goes
    tuning_db db;
    db.put({jobs[0].problem, "gfx90a", {64, 64, 8, 4, 4}, 5, ""});
    db.erase(jobs[0].problem, "gfx90a");
    EXPECT_EQ(db.size(), 0u);
}

// The output reader: the fastest tile that matched wins; dropped tiles never do; other lines
// are ignored; a missing line or a problem with no correct tile is an error.
TEST(Tuning, ReadTimings) {
    std::vector<tuning_job> jobs = {{{"dot", dtype::float_type, 16, 8, 32, 2}, {{64, 64, 8, 4, 4}, {32, 32, 16, 2, 2}, {32, 32, 8, 2, 2}}},
                                    {{"convolution", dtype::float_type, 4, 16, 18, 2}, {{64, 64, 8, 4, 4}}}};
    const std::string out = "mxc hip-emu: something else\n"
                            "dot:float_type:16x8x32x2 64x64x8/4x4 12.5\n"
                            "dot:float_type:16x8x32x2 32x32x16/2x2 dropped: output 3 is 1, the reference 2\n"
                            "dot:float_type:16x8x32x2 32x32x8/2x2 7.25\n"
                            "dot:float_type:9x8x32x2 32x32x8/2x2 1.0\n"
                            "convolution:float_type:4x16x18x2 64x64x8/4x4 3\n";
    tuning_outcome r = read_timings(jobs, out, "sm_90");
    ASSERT_EQ(r.winners.size(), 2u);
    EXPECT_EQ(r.winners[0].tile.text(), "32x32x8/2x2");
    EXPECT_DOUBLE_EQ(r.winners[0].us, 7.25);
    EXPECT_EQ(r.winners[0].arch, "sm_90");
    EXPECT_EQ(r.winners[1].problem.op, "convolution");
    EXPECT_EQ(r.dropped.size(), 1u);
    EXPECT_EQ(r.timings.size(), 3u);
    // the fastest line dropped instead: the next one wins
    std::string slower = out;
    slower.replace(slower.find("32x32x8/2x2 7.25"), 16, "32x32x8/2x2 dropped: the launch failed: x");
    EXPECT_EQ(read_timings(jobs, slower, "sm_90").winners[0].tile.text(), "64x64x8/4x4");
    // a tile with no line
    std::string missing = out.substr(0, out.find("convolution:"));
    try {
        read_timings(jobs, missing, "sm_90");
        FAIL() << "no error";
    } catch (const error& e) {
        EXPECT_STREQ(e.what(), "--tune: the timing program printed no result for convolution:float_type:4x16x18x2 tile 64x64x8/4x4");
    }
    // every tile of a problem dropped
    std::string none = out;
    none.replace(none.find("64x64x8/4x4 3"), 13, "64x64x8/4x4 dropped: output 0 is nan, the reference 1");
    try {
        read_timings(jobs, none, "sm_90");
        FAIL() << "no error";
    } catch (const error& e) {
        EXPECT_STREQ(e.what(), "--tune: no candidate tile computed convolution:float_type:4x16x18x2 correctly (1 dropped); "
                               "the database is left as it was");
    }
}
