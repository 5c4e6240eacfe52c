// A constant tensor: a standard shape and its packed bytes (shared, immutable once built).
#pragma once
#include "ir/shape.hpp"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace mxc {

// Immutable bytes, shared (std::shared_ptr<const byte_buffer>) by literals and the evaluator's
// tensors: a vector's, or a string's taken over without a copy (an initializer's raw data as
// the ONNX parser left it: a model's weights are copied once on import, not twice). Neither
// copied nor moved once made (data() points into its own member).
class byte_buffer {
public:
    explicit byte_buffer(std::vector<char> v) : v_(std::move(v)), data_(v_.data()), size_(v_.size()) {}
    explicit byte_buffer(std::string s) : s_(std::move(s)), data_(s_.data()), size_(s_.size()) {}
    byte_buffer(const byte_buffer&) = delete;
    byte_buffer& operator=(const byte_buffer&) = delete;
    const char* data() const { return data_; }
    std::size_t size() const { return size_; }
    const char* begin() const { return data_; }
    const char* end() const { return data_ + size_; }
    friend bool operator==(const byte_buffer& a, const byte_buffer& b) {
        return a.size_ == b.size_ && (a.size_ == 0 || std::memcmp(a.data_, b.data_, a.size_) == 0);
    }

private:
    std::vector<char> v_;
    std::string s_;
    const char* data_;
    std::size_t size_;
};

struct literal {
    shape s;                                        // always standard
    std::shared_ptr<const byte_buffer> bytes;       // null: data unknown (parsed from a digest)
    std::string digest_text;                        // set when bytes are unknown

    literal() = default;
    literal(shape sh, std::vector<char> data);      // data.size() must equal sh.bytes()
    literal(shape sh, std::string data);            // the same, taking the string's buffer
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
