#include "compiler/compare_values.hpp"
#include "ir/error.hpp"

#include <cmath>

namespace mxc {

value_diff diff_values(const literal& a, const literal& b, double rtol, double atol) {
    auto x = a.to_doubles(), y = b.to_doubles();
    if (x.size() != y.size()) throw error("internal: comparing values of different sizes");
    value_diff d;
    double sq = 0, max_b = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        double e = std::fabs(x[i] - y[i]);
        if (std::isnan(x[i]) != std::isnan(y[i])) e = INFINITY;
        else if (std::isnan(x[i])) e = 0;
        if (e > d.max_abs || d.where < 0) d.max_abs = e, d.where = static_cast<int64_t>(i), d.a = x[i], d.b = y[i];
        if (e > atol + rtol * std::fabs(y[i])) d.mismatches++;
        sq += e * e;
        max_b = std::fmax(max_b, std::fabs(y[i]));
    }
    double n = static_cast<double>(x.size());
    d.nrms = x.empty() ? 0 : std::sqrt(sq) / (std::sqrt(n) * (max_b > 0 ? max_b : 1));
    return d;
}

} // namespace mxc
