// The memory planner, checked by the independent validator on random programs.
#include "ir/error.hpp"
#include "ir/module.hpp"
#include "passes/memory_plan.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <random>

using namespace mxc;

namespace {

// A random program: `groups` shapes of random sizes; each instruction is a relu or an add of
// recent values of one group, so buffers get intervals of random lengths and sizes. Every
// group's last value is an output.
module random_module(int instructions, uint32_t seed, int groups = 6, int window = 8) {
    std::mt19937 rng(seed);
    module m;
    std::vector<std::vector<instruction*>> values(static_cast<std::size_t>(groups));
    for (int g = 0; g < groups; ++g) {
        int64_t n = std::uniform_int_distribution<int64_t>(1, 3000)(rng);
        values[static_cast<std::size_t>(g)].push_back(m.add_param("x" + std::to_string(g), shape(dtype::float_type, {n})));
    }
    auto pick = [&](std::vector<instruction*>& v) {
        auto lo = v.size() > static_cast<std::size_t>(window) ? v.size() - static_cast<std::size_t>(window) : 0;
        return v[std::uniform_int_distribution<std::size_t>(lo, v.size() - 1)(rng)];
    };
    for (int k = 0; k < instructions; ++k) {
        auto& v = values[std::uniform_int_distribution<std::size_t>(0, static_cast<std::size_t>(groups) - 1)(rng)];
        if (rng() % 2) v.push_back(m.add("relu", {pick(v)}));
        else v.push_back(m.add("add", {pick(v), pick(v)}));
    }
    std::vector<instruction*> outs;
    for (auto& v : values) outs.push_back(v.back());
    m.add_return(outs);
    return m;
}

std::vector<int64_t> offsets(const memory_plan& p) {
    std::vector<int64_t> r;
    for (auto& b : p.buffers) r.push_back(b.offset);
    return r;
}

module chain(int n, int64_t len) {
    module m;
    auto* v = m.add_param("x", shape(dtype::float_type, {len}));
    for (int i = 0; i < n; ++i) v = m.add("relu", {v});
    m.add_return({v});
    return m;
}

} // namespace

TEST(memory_plan, random_programs_pass_the_validator) {
    for (uint32_t seed = 1; seed <= 40; ++seed) {
        auto m = random_module(200, seed, 1 + static_cast<int>(seed % 7), 2 + static_cast<int>(seed % 13));
        auto p = plan_memory(m);
        ASSERT_NO_THROW(validate_memory_plan(m, p)) << "seed " << seed;
        EXPECT_GE(p.arena_bytes, p.lower_bound_bytes);
        EXPECT_LE(p.arena_bytes, p.naive_bytes);
        EXPECT_GT(p.buffers.size(), 0u);
    }
}

TEST(memory_plan, other_alignments) {
    auto m = random_module(300, 7);
    for (int64_t a : {1, 4, 64, 4096}) {
        auto p = plan_memory(m, a);
        ASSERT_NO_THROW(validate_memory_plan(m, p)) << "alignment " << a;
        for (auto& b : p.buffers) EXPECT_EQ(b.offset % a, 0);
    }
}

TEST(memory_plan, is_deterministic) {
    auto m = random_module(500, 3);
    auto a = plan_memory(m), b = plan_memory(m);
    EXPECT_EQ(offsets(a), offsets(b));
    EXPECT_EQ(a.arena_bytes, b.arena_bytes);
    // The same program read back from text gets the same plan.
    auto copy = parse_program(print(m));
    EXPECT_EQ(offsets(plan_memory(copy.main())), offsets(a));
}

TEST(memory_plan, a_chain_needs_two_slots_or_one_in_place) {
    auto m = chain(50, 1000);
    plan_options unshared;
    unshared.share = false;
    auto p = plan_memory(m, unshared);
    validate_memory_plan(m, p);
    EXPECT_EQ(p.buffers.size(), 49u); // the last relu is the output
    EXPECT_EQ(p.arena_bytes, 2 * 4096);
    EXPECT_EQ(p.lower_bound_bytes, 2 * 4096);
    EXPECT_EQ(p.naive_bytes, 49 * 4096);
    // In place: every relu overwrites its input, which dies there.
    auto q = plan_memory(m);
    validate_memory_plan(m, q);
    EXPECT_EQ(q.arena_bytes, 4096);
    EXPECT_EQ(q.lower_bound_bytes, 4096);
    for (std::size_t i = 1; i < q.buffers.size(); ++i) EXPECT_EQ(q.buffers[i].in_place_of, static_cast<int>(i) - 1);
}

TEST(memory_plan, ten_thousand_buffers_quickly) {
    auto m = random_module(10000, 11, 8, 30);
    auto start = std::chrono::steady_clock::now();
    auto p = plan_memory(m);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_GE(p.buffers.size(), 9900u);
    EXPECT_LT(seconds, 1.0); // the limit (includes the sharing decisions)
    validate_memory_plan(m, p);
    // Interval colouring of short-lived buffers stays close to the lower bound.
    EXPECT_LT(p.arena_bytes, p.lower_bound_bytes * 3 / 2);
}

TEST(memory_plan, validator_catches_overlap) {
    auto m = chain(3, 64); // buffers: relu 1 [1, 2], relu 2 [2, 3]
    plan_options unshared;
    unshared.share = false;
    auto p = plan_memory(m, unshared);
    validate_memory_plan(m, p);
    ASSERT_EQ(p.buffers.size(), 2u);
    p.buffers[1].offset = p.buffers[0].offset;
    try {
        validate_memory_plan(m, p);
        FAIL() << "overlap not caught";
    } catch (const error& e) {
        std::string msg = e.what();
        EXPECT_NE(msg.find("instruction 1 (relu)"), std::string::npos) << msg;
        EXPECT_NE(msg.find("instruction 2 (relu)"), std::string::npos) << msg;
        EXPECT_NE(msg.find("overlap"), std::string::npos) << msg;
    }
}

TEST(memory_plan, validator_catches_other_breakage) {
    auto m = random_module(100, 5);
    auto good = plan_memory(m);
    validate_memory_plan(m, good);
    auto expect_broken = [&](auto change, const char* what) {
        auto p = good;
        change(p);
        EXPECT_THROW(validate_memory_plan(m, p), error) << what;
    };
    expect_broken([](memory_plan& p) { p.buffers[0].offset += 4; }, "misaligned");
    expect_broken([](memory_plan& p) { p.buffers[0].offset = p.arena_bytes; }, "outside the arena");
    expect_broken([](memory_plan& p) { p.buffers[0].last -= 1; }, "short interval");
    expect_broken([](memory_plan& p) { p.buffers[0].bytes /= 2; }, "wrong size");
    expect_broken([](memory_plan& p) { p.buffers.pop_back(); }, "missing buffer");
    expect_broken([](memory_plan& p) { p.buffers.push_back(p.buffers[0]); }, "buffer twice");
    expect_broken([](memory_plan& p) { p.lower_bound_bytes += 256; }, "wrong lower bound");
    expect_broken([](memory_plan& p) { p.arena_bytes = 0; }, "arena too small");
}

TEST(memory_plan, views_and_outputs) {
    module m;
    auto* x = m.add_param("x", shape(dtype::float_type, {8, 8}));
    auto* a = m.add("relu", {x});                                               // 1
    auto* t = m.add("transpose", {a}, {{{"permutation", std::vector<int64_t>{1, 0}}}}); // 2
    auto* b = m.add("relu", {x});                                               // 3
    auto* c = m.add("add", {b, t});                                             // 4
    m.add_return({c});                                                          // 5
    auto p = plan_memory(m);
    validate_memory_plan(m, p);
    ASSERT_EQ(p.buffers.size(), 2u);
    ASSERT_TRUE(p.find(a) && p.find(b));
    EXPECT_EQ(p.find(a)->last, 4); // through the transpose
    EXPECT_EQ(p.find(t), nullptr);
    EXPECT_EQ(p.find(c), nullptr);
    EXPECT_NE(p.find(a)->offset, p.find(b)->offset);
}

namespace {

// Random programs with storage sharing: 1-D values of 64..1024 floats (so concat slices are
// aligned), relu / add / concat of recent values. Concats of 1-D values have contiguous
// slices; every few values one is used again much later (a long-lived skip).
module random_sharing_module(int instructions, uint32_t seed) {
    std::mt19937 rng(seed);
    module m;
    std::vector<instruction*> v;
    for (int i = 0; i < 3; ++i) v.push_back(m.add_param("x" + std::to_string(i), shape(dtype::float_type, {64 * (1 + i)})));
    auto recent = [&](std::size_t window) {
        auto lo = v.size() > window ? v.size() - window : 0;
        return v[lo + rng() % (v.size() - lo)];
    };
    for (int k = 0; k < instructions; ++k) {
        int what = static_cast<int>(rng() % 6);
        auto* a = recent(what == 5 ? 40 : 6);
        if (what <= 2) v.push_back(m.add(what == 0 ? "relu" : what == 1 ? "neg" : "tanh", {a}));
        else if (what == 3) v.push_back(m.add("add", {a, a}));
        else {
            auto* b = recent(6);
            if (a->result.elements() + b->result.elements() > 4096) v.push_back(m.add("relu", {a}));
            else v.push_back(m.add("concat", {a, b}, {{{"axis", int64_t{0}}}}));
        }
    }
    m.add_return({v.back(), v[v.size() / 2]});
    return m;
}

int count_sharing(const memory_plan& p, bool in_place) {
    int n = 0;
    for (auto& b : p.buffers) n += in_place ? b.in_place_of >= 0 : b.slice_of >= 0;
    return n;
}

} // namespace

TEST(memory_plan, sharing_on_random_programs_passes_the_validator) {
    int in_place = 0, slices = 0;
    for (uint32_t seed = 1; seed <= 40; ++seed) {
        auto m = random_sharing_module(150, seed);
        auto p = plan_memory(m);
        ASSERT_NO_THROW(validate_memory_plan(m, p)) << "seed " << seed;
        plan_options unshared;
        unshared.share = false;
        auto q = plan_memory(m, unshared);
        ASSERT_NO_THROW(validate_memory_plan(m, q)) << "seed " << seed;
        // Sharing never raises the lower bound.
        EXPECT_LE(p.lower_bound_bytes, q.lower_bound_bytes) << "seed " << seed;
        in_place += count_sharing(p, true);
        slices += count_sharing(p, false);
    }
    EXPECT_GT(in_place, 100);
    EXPECT_GT(slices, 20);
}

TEST(memory_plan, sharing_keeps_results) {
    // The plan's sharing only changes where values live; evaluating the module is unaffected,
    // but a generated library reads the plan: see test/e2e (in_place_and_concat_slices).
    auto m = random_sharing_module(60, 99);
    auto a = plan_memory(m), b = plan_memory(m);
    EXPECT_EQ(offsets(a), offsets(b));
    for (std::size_t i = 0; i < a.buffers.size(); ++i) {
        EXPECT_EQ(a.buffers[i].in_place_of, b.buffers[i].in_place_of);
        EXPECT_EQ(a.buffers[i].slice_of, b.buffers[i].slice_of);
    }
}

TEST(memory_plan, validator_checks_each_sharing_decision) {
    // x -> a = relu(x) -> b = relu(a) -> c = concat(b, d) with d = neg(x) -> out = tanh(c), and
    // a is read again by e = add(a, a) after b: b cannot overwrite a.
    module m;
    auto* x = m.add_param("x", shape(dtype::float_type, {64}));
    auto* a = m.add("relu", {x});      // 1
    auto* b = m.add("relu", {a});      // 2
    auto* d = m.add("neg", {x});       // 3
    auto* c = m.add("concat", {b, d}, {{{"axis", int64_t{0}}}}); // 4
    auto* e = m.add("add", {a, a});    // 5
    auto* t = m.add("tanh", {c});      // 6
    m.add_return({t, m.add("tanh", {e})});
    auto p = plan_memory(m);
    validate_memory_plan(m, p);
    auto idx = [&](const instruction* ins) { return static_cast<int>(p.find(ins) - p.buffers.data()); };
    EXPECT_EQ(p.find(b)->in_place_of, -1) << "a is used after b";
    EXPECT_EQ(p.find(b)->slice_of, idx(c));
    EXPECT_EQ(p.find(d)->slice_of, idx(c));
    EXPECT_EQ(p.find(d)->slice_offset, 256);
    EXPECT_EQ(p.find(d)->offset, p.find(c)->offset + 256);

    auto expect_broken = [&](auto change, const char* what) {
        auto q = p;
        change(q);
        try {
            validate_memory_plan(m, q);
            ADD_FAILURE() << what << ": not caught";
        } catch (const error& err) {
            EXPECT_NE(std::string(err.what()).find("memory plan"), std::string::npos) << err.what();
        }
    };
    expect_broken([&](memory_plan& q) { q.buffers[static_cast<std::size_t>(idx(b))].in_place_of = idx(a);
                                        q.buffers[static_cast<std::size_t>(idx(b))].offset = q.find(a)->offset; },
                  "in place of an input used later");
    expect_broken([&](memory_plan& q) { q.buffers[static_cast<std::size_t>(idx(d))].slice_offset = 0; }, "wrong slice offset");
    expect_broken([&](memory_plan& q) { q.buffers[static_cast<std::size_t>(idx(d))].offset += 256; }, "slice not at its offset");
    expect_broken([&](memory_plan& q) { q.buffers[static_cast<std::size_t>(idx(d))].slice_of = idx(a); }, "slice of a relu");
    expect_broken([&](memory_plan& q) { q.buffers[static_cast<std::size_t>(idx(e))].in_place_of = idx(d); }, "in place of a non-input");
    expect_broken([&](memory_plan& q) { q.buffers[static_cast<std::size_t>(idx(b))].slice_of = 99; }, "partner out of range");
}

TEST(memory_plan, no_slices_when_the_slice_is_not_contiguous) {
    module m;
    auto* x = m.add_param("x", shape(dtype::float_type, {2, 64}));
    auto* a = m.add("relu", {x});
    auto* b = m.add("neg", {x});
    auto* c = m.add("concat", {a, b}, {{{"axis", int64_t{1}}}}); // batch 2: slices interleave
    m.add_return({m.add("tanh", {c})});
    auto p = plan_memory(m);
    validate_memory_plan(m, p);
    EXPECT_EQ(count_sharing(p, false), 0);
}

TEST(memory_plan, no_in_place_when_a_view_reads_the_input) {
    module m;
    auto* x = m.add_param("x", shape(dtype::float_type, {8, 8}));
    auto* a = m.add("relu", {x});
    auto* t = m.add("transpose", {a}, {{{"permutation", std::vector<int64_t>{1, 0}}}});
    auto* s = m.add("add", {a, t}); // a dies here, but is also read transposed
    m.add_return({m.add("tanh", {s})});
    auto p = plan_memory(m);
    validate_memory_plan(m, p);
    EXPECT_EQ(p.find(s)->in_place_of, -1);
    auto q = p; // forcing it is caught
    auto& sb = q.buffers[static_cast<std::size_t>(q.find(s) - q.buffers.data())];
    sb.in_place_of = static_cast<int>(q.find(a) - q.buffers.data());
    sb.offset = q.find(a)->offset;
    EXPECT_THROW(validate_memory_plan(m, q), error);
}
