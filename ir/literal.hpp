// A constant tensor: a standard shape and its packed bytes (shared, immutable once built).
#pragma once
#include "ir/shape.hpp"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace mxc {

struct literal {
    shape s;                                          // always standard
    std::shared_ptr<const std::vector<char>> bytes;   // null: data unknown (parsed from a digest)
    std::string digest_text;                          // set when bytes are unknown

    literal() = default;
    literal(shape sh, std::vector<char> data);        // data.size() must equal sh.bytes()
    static literal zeros(const shape& sh);
    template <class T> static literal from(dtype t, std::vector<int64_t> lens, const std::vector<T>& values) {
        std::vector<char> d(values.size() * sizeof(T));
        if (!d.empty()) std::memcpy(d.data(), values.data(), d.size());
        return literal(shape(t, std::move(lens)), std::move(d));
    }

    bool known() const { return bytes != nullptr; }
    const char* data() const { return bytes ? bytes->data() : nullptr; }
    template <class T> const T* as() const { return reinterpret_cast<const T*>(data()); }

    // Values as int64 / double, whatever the dtype (for shape computations and printing).
    std::vector<int64_t> to_ints() const;
    std::vector<double> to_doubles() const;

    std::string digest() const;  // stable 64-bit FNV-1a of type, lens and bytes (as words), as hex
    friend bool operator==(const literal& a, const literal& b);
};

// Number of elements up to which the printer writes a literal's values instead of a digest.
constexpr int64_t literal_print_limit = 16;

} // namespace mxc
