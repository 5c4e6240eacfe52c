// Helpers for the op tests: build a one-op module, run it through the reference evaluator.
#pragma once
#include "ir/error.hpp"
#include "ir/eval.hpp"
#include "ir/module.hpp"
#include "ir/op.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace mxc::test {

inline literal flit(std::vector<int64_t> lens, const std::vector<float>& v) {
    return literal::from<float>(dtype::float_type, std::move(lens), v);
}
inline literal ilit(std::vector<int64_t> lens, const std::vector<int64_t>& v) {
    return literal::from<int64_t>(dtype::int64_type, std::move(lens), v);
}

// Deterministic values in [-1, 1) (a small LCG), so tests need no random seed.
inline std::vector<float> values(int64_t n, uint32_t seed = 1) {
    std::vector<float> v(static_cast<std::size_t>(n));
    for (auto& x : v) {
        seed = seed * 1664525u + 1013904223u;
        x = static_cast<float>((seed >> 8) % 2000) / 1000.0f - 1.0f;
    }
    return v;
}

using module_builder = std::function<instruction*(module&, std::vector<instruction*>&)>;

// Fills m with @param instructions x0, x1, ... for `inputs` and returns `build(m, params)`;
// the feed that binds them.
inline std::map<std::string, literal> build_module(module& m, const std::vector<literal>& inputs,
                                                   const module_builder& build) {
    std::vector<instruction*> ps;
    std::map<std::string, literal> feed;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        auto name = "x" + std::to_string(i);
        ps.push_back(m.add_param(name, inputs[i].s));
        feed[name] = inputs[i];
    }
    m.add_return({build(m, ps)});
    return feed;
}

// Evaluates `build(m, params)` where params are @param instructions for `inputs`.
inline literal run_module(const std::vector<literal>& inputs, const module_builder& build) {
    module m;
    auto feed = build_module(m, inputs, build);
    verify(m);
    return evaluate(m, feed).at(0);
}

// One op over all inputs.
inline literal run_op(const std::string& op, const std::vector<literal>& inputs, attributes attrs = {}) {
    return run_module(inputs, [&](module& m, std::vector<instruction*>& ps) { return m.add(op, ps, attrs); });
}

inline attributes attrs(std::vector<std::pair<std::string, attr_value>> items) { return attributes{std::move(items)}; }

// The error message of adding `op` to a module with params of the given shapes ("" if none).
inline std::string shape_error(const std::string& op, const std::vector<shape>& in, attributes a = {}) {
    module m;
    std::vector<instruction*> ps;
    for (std::size_t i = 0; i < in.size(); ++i) ps.push_back(m.add_param("x" + std::to_string(i), in[i]));
    try {
        m.add(op, ps, std::move(a));
    } catch (const error& e) {
        return e.what();
    }
    return "";
}

inline void expect_near(const std::vector<double>& got, const std::vector<double>& want, double tol = 1e-5) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        EXPECT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << "at element " << i;
}

} // namespace mxc::test
