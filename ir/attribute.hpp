// Op attributes: typed values, kept in the order the op definition declares them.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace mxc {

enum class attr_kind { i, f, s, ints, floats };

using attr_value = std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>>;

attr_kind kind_of(const attr_value& v);
std::string to_string(const attr_value& v); // 1, 0.5, "text", {1, 2}, {0.5, 1.0}: exact round trip

// The shortest text that reads back to d ("10.0", "0.1", "1e-05", "nan", "-inf"), always with
// '.', 'e', "inf" or "nan" so that it reads as a float. `to_type`, when given, rounds a read
// value to a narrower element type (float, half...): the text then only has to read back to d
// through it.
std::string float_text(double d, double (*to_type)(double) = nullptr);

// An ordered list of (name, value); small, so lookups are linear.
struct attributes {
    std::vector<std::pair<std::string, attr_value>> items;

    bool has(const std::string& name) const;
    const attr_value& at(const std::string& name) const; // throws mxc::error if missing
    void set(const std::string& name, attr_value v);      // replaces or appends

    int64_t get_int(const std::string& name) const;
    double get_float(const std::string& name) const;
    const std::string& get_string(const std::string& name) const;
    const std::vector<int64_t>& get_ints(const std::string& name) const;
    const std::vector<double>& get_floats(const std::string& name) const;

    friend bool operator==(const attributes& a, const attributes& b) { return a.items == b.items; }
};

} // namespace mxc
