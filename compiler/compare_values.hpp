// Comparing two runs' values: the error measures of mxc compare and mxc verify.
#pragma once
#include "ir/literal.hpp"

#include <string>

namespace mxc {

struct value_diff {
    double max_abs = 0;   // max |a - b|
    int64_t where = -1;   // its element
    double a = 0, b = 0;  // the values there
    double nrms = 0;      // ||a - b||_2 / (sqrt(n) * max|b|)
    int64_t mismatches = 0; // elements with |a - b| > atol + rtol * |b|
};

value_diff diff_values(const literal& a, const literal& b, double rtol, double atol);

} // namespace mxc
