#include "ir/attribute.hpp"
#include "ir/error.hpp"

#include <cmath>
#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace mxc {

attr_kind kind_of(const attr_value& v) { return static_cast<attr_kind>(v.index()); }

std::string float_text(double d, double (*to_type)(double)) {
    if (std::isnan(d)) return "nan";
    if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
    auto reads_back = [&](const char* text) {
        double r = std::strtod(text, nullptr);
        return (to_type ? to_type(r) : r) == d;
    };
    char buf[64];
    int prec = 1;
    for (; prec < 17; ++prec) {
        std::snprintf(buf, sizeof buf, "%.*g", prec, d);
        if (reads_back(buf)) break;
    }
    std::snprintf(buf, sizeof buf, "%.*g", prec, d);
    std::string s = buf;
    // Prefer plain digits ("100.0") to an exponent ("1e+02") when they are no longer.
    if (s.find('e') != std::string::npos) {
        int exp10 = static_cast<int>(std::floor(std::log10(std::fabs(d))));
        int decimals = std::max(0, prec - 1 - exp10);
        std::snprintf(buf, sizeof buf, "%.*f", decimals, d);
        std::string fixed = buf;
        if (fixed.find('.') == std::string::npos) fixed += ".0";
        if (fixed.size() <= s.size() && reads_back(fixed.c_str())) return fixed;
    }
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
}

namespace {
std::string quoted(const std::string& s) {
    std::string r = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') r += '\\';
        if (c == '\n') { r += "\\n"; continue; }
        r += c;
    }
    return r + "\"";
}
} // namespace

std::string to_string(const attr_value& v) {
    switch (kind_of(v)) {
    case attr_kind::i: return std::to_string(std::get<int64_t>(v));
    case attr_kind::f: return float_text(std::get<double>(v));
    case attr_kind::s: return quoted(std::get<std::string>(v));
    case attr_kind::ints: {
        std::string r = "{";
        for (auto& x : std::get<std::vector<int64_t>>(v)) r += (r.size() > 1 ? ", " : "") + std::to_string(x);
        return r + "}";
    }
    case attr_kind::floats: {
        std::string r = "{";
        for (auto& x : std::get<std::vector<double>>(v)) r += (r.size() > 1 ? ", " : "") + float_text(x);
        return r + "}";
    }
    }
    return {};
}

bool attributes::has(const std::string& name) const {
    for (auto& [n, v] : items)
        if (n == name) return true;
    return false;
}

const attr_value& attributes::at(const std::string& name) const {
    for (auto& [n, v] : items)
        if (n == name) return v;
    throw error("missing attribute '" + name + "'");
}

void attributes::set(const std::string& name, attr_value v) {
    for (auto& [n, old] : items)
        if (n == name) {
            old = std::move(v);
            return;
        }
    items.emplace_back(name, std::move(v));
}

namespace {
template <class T> const T& get_as(const attributes& a, const std::string& name, const char* kind) {
    auto& v = a.at(name);
    if (auto* p = std::get_if<T>(&v)) return *p;
    throw error("attribute '" + name + "' is not " + kind);
}
} // namespace

int64_t attributes::get_int(const std::string& n) const { return get_as<int64_t>(*this, n, "an integer"); }
double attributes::get_float(const std::string& n) const {
    auto& v = at(n);
    if (auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
    return get_as<double>(*this, n, "a float");
}
const std::string& attributes::get_string(const std::string& n) const { return get_as<std::string>(*this, n, "a string"); }
const std::vector<int64_t>& attributes::get_ints(const std::string& n) const {
    return get_as<std::vector<int64_t>>(*this, n, "a list of integers");
}
const std::vector<double>& attributes::get_floats(const std::string& n) const {
    return get_as<std::vector<double>>(*this, n, "a list of floats");
}

} // namespace mxc
