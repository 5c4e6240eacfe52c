// A shape is an element type plus lens and strides (in elements). A "standard" shape is
// packed row-major; views (transpose, broadcast, ...) have other strides over their input.
#pragma once
#include "ir/dtype.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace mxc {

struct shape {
    dtype type = dtype::float_type;
    std::vector<int64_t> lens;
    std::vector<int64_t> strides;

    shape() = default;
    shape(dtype t, std::vector<int64_t> l);                              // standard strides
    shape(dtype t, std::vector<int64_t> l, std::vector<int64_t> s);

    std::size_t rank() const { return lens.size(); }
    int64_t elements() const;          // product of lens (1 for a scalar)
    int64_t bytes() const;             // elements() * dtype size: the size of a packed copy
    int64_t element_space() const;     // elements spanned by the strides (what a view reads)
    bool standard() const;             // packed row-major (size-1 dims may have any stride)
    bool broadcasted() const;          // some stride is 0 on a dim with len > 1
    shape as_standard() const { return shape(type, lens); }
    shape with_type(dtype t) const { return shape(t, lens, strides); }

    friend bool operator==(const shape& a, const shape& b) {
        return a.type == b.type && a.lens == b.lens && a.strides == b.strides;
    }
    friend bool operator!=(const shape& a, const shape& b) { return !(a == b); }
};

std::vector<int64_t> standard_strides(const std::vector<int64_t>& lens);

// Checked arithmetic for sizes coming from untrusted models: throws mxc::error on overflow.
int64_t checked_mul(int64_t a, int64_t b);

// "float_type, {1, 3}, {3, 1}" (the text form).
std::string to_string(const shape& s);
std::string to_string(const std::vector<int64_t>& v); // "{1, 3}"

} // namespace mxc
