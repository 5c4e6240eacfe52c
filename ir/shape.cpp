#include "ir/shape.hpp"
#include "ir/error.hpp"

#include <limits>

namespace mxc {

std::vector<int64_t> standard_strides(const std::vector<int64_t>& lens) {
    std::vector<int64_t> s(lens.size());
    int64_t acc = 1;
    for (std::size_t i = lens.size(); i-- > 0;) {
        s[i] = acc;
        acc = checked_mul(acc, std::max<int64_t>(lens[i], 1));
    }
    return s;
}

int64_t checked_mul(int64_t a, int64_t b) {
    int64_t r = 0;
    if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r))
        throw error("size overflow: " + std::to_string(a) + " * " + std::to_string(b) +
                    " does not fit in 64 bits");
    return r;
}

shape::shape(dtype t, std::vector<int64_t> l) : type(t), lens(std::move(l)), strides(standard_strides(lens)) {}
shape::shape(dtype t, std::vector<int64_t> l, std::vector<int64_t> s)
    : type(t), lens(std::move(l)), strides(std::move(s)) {}

int64_t shape::elements() const {
    int64_t n = 1;
    for (auto l : lens) n = checked_mul(n, l);
    return n;
}

int64_t shape::bytes() const { return checked_mul(elements(), static_cast<int64_t>(dtype_size(type))); }

int64_t shape::element_space() const {
    if (elements() == 0) return 0;
    int64_t last = 0;
    for (std::size_t i = 0; i < lens.size(); ++i) last += (lens[i] - 1) * strides[i];
    return last + 1;
}

bool shape::standard() const {
    if (strides.size() != lens.size()) return false;
    int64_t acc = 1;
    for (std::size_t i = lens.size(); i-- > 0;) {
        if (lens[i] != 1 && strides[i] != acc) return false;
        acc *= lens[i];
    }
    return true;
}

bool shape::broadcasted() const {
    for (std::size_t i = 0; i < lens.size(); ++i)
        if (lens[i] > 1 && strides[i] == 0) return true;
    return false;
}

std::string to_string(const std::vector<int64_t>& v) {
    std::string r = "{";
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i) r += ", ";
        r += std::to_string(v[i]);
    }
    return r + "}";
}

std::string to_string(const shape& s) {
    return std::string(dtype_name(s.type)) + ", " + to_string(s.lens) + ", " + to_string(s.strides);
}

} // namespace mxc
