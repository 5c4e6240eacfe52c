#include "ir/literal.hpp"

#include <limits>
#include <type_traits>
#include "ir/error.hpp"
#include "templates/common/types.hpp"

#include <cstdio>
#include <cstring>

namespace mxc {

namespace {
shape checked_standard(shape s, std::size_t bytes) {
    if (!s.standard()) s = s.as_standard();
    if (static_cast<int64_t>(bytes) != s.bytes())
        throw error("literal of " + to_string(s) + " needs " + std::to_string(s.bytes()) + " bytes, got " + std::to_string(bytes));
    return s;
}
} // namespace

literal::literal(shape sh, std::vector<char> data) : s(checked_standard(std::move(sh), data.size())) {
    bytes = std::make_shared<const byte_buffer>(std::move(data));
}
literal::literal(shape sh, std::string data) : s(checked_standard(std::move(sh), data.size())) {
    bytes = std::make_shared<const byte_buffer>(std::move(data));
}

literal literal::zeros(const shape& sh) { return literal(sh.as_standard(), std::vector<char>(sh.bytes())); }

namespace {
template <class R> std::vector<R> convert_all(const literal& l) {
    if (!l.known()) throw error("literal data is unknown (it was read from a digest)");
    std::vector<R> r(static_cast<std::size_t>(l.s.elements()));
    mxc_visit_dtype(static_cast<int>(l.s.type), [&](auto tag) {
        using T = decltype(tag);
        auto* p = l.as<T>();
        for (std::size_t i = 0; i < r.size(); ++i) {
            if constexpr (std::is_integral_v<R> && std::is_integral_v<T>) {
                r[i] = static_cast<R>(p[i]); // exact (INT64_MAX does not survive a trip through double)
            } else if constexpr (std::is_integral_v<R>) {
                // floats to integers saturate (NaN -> 0): an out-of-range cast is undefined
                double v = mxc_to_double(p[i]);
                constexpr double lo = static_cast<double>(std::numeric_limits<R>::min());
                constexpr double hi = static_cast<double>(std::numeric_limits<R>::max());
                r[i] = v != v ? R(0) : v <= lo ? std::numeric_limits<R>::min()
                                     : v >= hi ? std::numeric_limits<R>::max() : static_cast<R>(v);
            } else {
                r[i] = static_cast<R>(mxc_to_double(p[i]));
            }
        }
    });
    return r;
}
} // namespace

std::vector<int64_t> literal::to_ints() const { return convert_all<int64_t>(*this); }
std::vector<double> literal::to_doubles() const { return convert_all<double>(*this); }

std::string literal::digest() const {
    if (!known()) return digest_text;
    uint64_t h = 1469598103934665603ull;
    auto mix = [&](const void* p, std::size_t n) {
        auto* c = static_cast<const unsigned char*>(p);
        for (std::size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 1099511628211ull;
    };
    auto t = static_cast<uint8_t>(s.type);
    mix(&t, 1);
    for (auto l : s.lens) mix(&l, sizeof l);
    // the bytes 8 at a time (FNV-1a over 64-bit words; the tail bytewise): weights are large
    const char* d = bytes->data();
    std::size_t n = bytes->size(), i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        std::memcpy(&w, d + i, 8);
        h = (h ^ w) * 1099511628211ull;
    }
    mix(d + i, n - i);
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

bool operator==(const literal& a, const literal& b) {
    if (a.s != b.s || a.known() != b.known()) return false;
    if (!a.known()) return a.digest_text == b.digest_text;
    return *a.bytes == *b.bytes;
}

} // namespace mxc
