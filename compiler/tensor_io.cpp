#include "compiler/tensor_io.hpp"
#include "compiler/json.hpp"
#include "compiler/onnx_node.hpp"
#include "ir/error.hpp"
#include "templates/common/types.hpp"

#include <onnx/onnx_pb.h>

#include <cctype>
#include <cmath>
#include <limits>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <type_traits>

namespace mxc {

namespace {
std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw error("cannot read '" + path + "'");
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

std::string lens_text(const std::vector<int64_t>& v) {
    std::string r = "{";
    for (std::size_t i = 0; i < v.size(); ++i) r += (i ? ", " : "") + std::to_string(v[i]);
    return r + "}";
}

struct npy_type {
    const char* descr;
    dtype t;
};
const npy_type npy_types[] = {{"<f4", dtype::float_type}, {"<f2", dtype::half_type},  {"<f8", dtype::double_type},
                              {"|i1", dtype::int8_type},  {"<i2", dtype::int16_type}, {"<i4", dtype::int32_type},
                              {"<i8", dtype::int64_type}, {"|u1", dtype::uint8_type}, {"<u2", dtype::uint16_type},
                              {"<u4", dtype::uint32_type}, {"<u8", dtype::uint64_type}, {"|b1", dtype::bool_type}};

// The value of 'key': in a numpy header dict.
std::string npy_field(const std::string& header, const std::string& key, const std::string& path) {
    auto k = header.find("'" + key + "'");
    if (k == std::string::npos) throw error(path + ": not a .npy file (its header has no '" + key + "')");
    auto colon = header.find(':', k);
    auto b = header.find_first_not_of(' ', colon + 1);
    if (colon == std::string::npos || b == std::string::npos) throw error(path + ": bad .npy header");
    char open = header[b];
    char close = open == '(' ? ')' : open == '\'' ? '\'' : ',';
    auto e = header.find(close, b + 1);
    if (e == std::string::npos) throw error(path + ": bad .npy header");
    return header.substr(b, e - b + 1);
}
// The numbers in "(2, 3)" or "{2, 3}" (anything else separates them); each must fit an int64.
std::vector<int64_t> dims_in(const std::string& text, const std::string& path) {
    std::vector<int64_t> lens;
    for (std::size_t i = 0; i < text.size();) {
        if (!std::isdigit(static_cast<unsigned char>(text[i]))) {
            ++i;
            continue;
        }
        int64_t d = 0;
        for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i)
            if (__builtin_mul_overflow(d, 10, &d) || __builtin_add_overflow(d, text[i] - '0', &d))
                throw error(path + ": a dimension of its shape does not fit in 64 bits");
        lens.push_back(d);
    }
    return lens;
}
} // namespace

dtype dtype_from_name(const std::string& n, const std::string& what) {
    static const std::pair<const char*, dtype> names[] = {
        {"float32", dtype::float_type}, {"float", dtype::float_type},    {"float16", dtype::half_type},
        {"half", dtype::half_type},     {"bfloat16", dtype::bf16_type},  {"float64", dtype::double_type},
        {"double", dtype::double_type}, {"int8", dtype::int8_type},      {"int16", dtype::int16_type},
        {"int32", dtype::int32_type},   {"int64", dtype::int64_type},    {"uint8", dtype::uint8_type},
        {"uint16", dtype::uint16_type}, {"uint32", dtype::uint32_type},  {"uint64", dtype::uint64_type},
        {"bool", dtype::bool_type},     {"float8e4m3fn", dtype::float8e4m3fn_type}, {"float8e4m3fnuz", dtype::float8e4m3fnuz_type},
        {"float8e5m2", dtype::float8e5m2_type}, {"float8e5m2fnuz", dtype::float8e5m2fnuz_type},
        {"float8e8m0", dtype::float8e8m0_type}, {"float4e2m1", dtype::float4e2m1_type}, {"int4", dtype::int4_type},
        {"uint4", dtype::uint4_type}, {"int2", dtype::int2_type}, {"uint2", dtype::uint2_type}};
    for (auto& [s, t] : names)
        if (n == s) return t;
    if (auto t = parse_dtype(n)) return *t;
    throw error(what + ": unknown type '" + n + "' (expected float32, float16, float64, int8..int64, uint8..uint64, bool, float8e4m3fn, float8e4m3fnuz, float8e5m2, float8e5m2fnuz, float8e8m0, float4e2m1, int4, uint4, int2 or uint2)");
}

literal literal_from_doubles(dtype t, std::vector<int64_t> lens, const std::vector<double>& values) {
    shape s(t, std::move(lens));
    std::vector<char> d(static_cast<std::size_t>(s.bytes()));
    mxc_visit_dtype(static_cast<int>(t), [&](auto tag) {
        using T = decltype(tag);
        T* p = reinterpret_cast<T*>(d.data());
        for (std::size_t i = 0; i < values.size(); ++i) {
            if constexpr (std::is_same_v<T, mxc_half> || std::is_same_v<T, mxc_bf16>) p[i] = T(static_cast<float>(values[i]));
            else if constexpr (std::is_same_v<T, bool>) p[i] = values[i] != 0;
            else if constexpr (std::is_integral_v<T>) {
                // saturate (NaN -> 0): an out-of-range float-to-integer cast is undefined
                double v = values[i];
                constexpr double lo = static_cast<double>(std::numeric_limits<T>::min());
                constexpr double hi = static_cast<double>(std::numeric_limits<T>::max());
                p[i] = v != v ? T(0) : v <= lo ? std::numeric_limits<T>::min()
                                     : v >= hi ? std::numeric_limits<T>::max() : static_cast<T>(v);
            } else p[i] = static_cast<T>(values[i]);
        }
    });
    return literal(s, std::move(d));
}

literal read_npy(const std::string& path) {
    std::string b = slurp(path);
    if (b.size() < 10 || b.compare(0, 6, "\x93NUMPY") != 0) throw error(path + ": not a .npy file (bad magic)");
    int major = static_cast<unsigned char>(b[6]);
    std::size_t hlen = 0, start = 0;
    if (major == 1) hlen = static_cast<unsigned char>(b[8]) | static_cast<unsigned char>(b[9]) << 8, start = 10;
    else if (major == 2 || major == 3) {
        if (b.size() < 12) throw error(path + ": truncated .npy header");
        for (int i = 0; i < 4; ++i) hlen |= static_cast<std::size_t>(static_cast<unsigned char>(b[8 + i])) << (8 * i);
        start = 12;
    } else throw error(path + ": unsupported .npy version " + std::to_string(major));
    if (start + hlen > b.size()) throw error(path + ": truncated .npy header");
    std::string header = b.substr(start, hlen);
    std::string descr = npy_field(header, "descr", path);
    if (npy_field(header, "fortran_order", path).find("False") == std::string::npos)
        throw error(path + ": Fortran-order .npy files are not supported (save with np.ascontiguousarray)");
    std::string shape_text = npy_field(header, "shape", path);
    const npy_type* type = nullptr;
    for (auto& t : npy_types)
        if (descr == "'" + std::string(t.descr) + "'") type = &t;
    if (!type) throw error(path + ": unsupported .npy dtype " + descr);
    std::vector<int64_t> lens = dims_in(shape_text, path);
    shape s(type->t, lens);
    std::size_t have = b.size() - start - hlen;
    if (have != static_cast<std::size_t>(s.bytes()))
        throw error(path + ": holds " + std::to_string(have) + " data bytes, but shape " + lens_text(lens) + " of " +
                    descr + " needs " + std::to_string(s.bytes()));
    return literal(s, std::vector<char>(b.begin() + static_cast<std::ptrdiff_t>(start + hlen), b.end()));
}

void write_npy(const std::string& path, const literal& l) {
    if (is_low_precision(l.s.type)) {
        // numpy has no such types: the exact values as int8 / uint8 (sub-byte integers) or float32
        dtype wide = is_floating(l.s.type) ? dtype::float_type : is_signed(l.s.type) ? dtype::int8_type : dtype::uint8_type;
        return write_npy(path, literal_from_doubles(wide, l.s.lens, l.to_doubles()));
    }
    const char* descr = nullptr;
    for (auto& t : npy_types)
        if (t.t == l.s.type) descr = t.descr;
    if (!descr) throw error("cannot write " + std::string(dtype_name(l.s.type)) + " to .npy (" + path + ")");
    std::string shape_text = "(";
    for (auto d : l.s.lens) shape_text += std::to_string(d) + ", ";
    if (l.s.lens.size() > 1) shape_text.resize(shape_text.size() - 2);
    else if (l.s.lens.size() == 1) shape_text.resize(shape_text.size() - 1);
    shape_text += ")";
    std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape_text + ", }";
    std::size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    std::string out = "\x93NUMPY\x01";
    out += '\0';
    out += static_cast<char>(header.size() & 0xff);
    out += static_cast<char>(header.size() >> 8);
    out += header;
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << out;
    if (l.s.bytes()) f.write(l.data(), static_cast<std::streamsize>(l.s.bytes()));
    f.close();
    if (!f) throw error("cannot write '" + path + "'");
}

literal read_tensor_proto(const std::string& path) {
    std::string b = slurp(path);
    onnx::TensorProto t;
    if (!t.ParseFromString(b)) throw error(path + ": not an ONNX TensorProto (.pb)");
    return onnx_detail::tensor_to_literal(t, path);
}

namespace {
void flatten(const json& v, std::vector<double>& out, std::vector<int64_t>& lens, std::size_t depth,
             const std::string& what) {
    if (v.kind == json::number || v.kind == json::boolean) {
        if (depth != lens.size()) throw error(what + ": the array is ragged (a number where a list was expected)");
        out.push_back(v.kind == json::number ? v.num : v.b);
        return;
    }
    if (v.kind != json::array) throw error(what + ": expected numbers and nested lists");
    if (depth == lens.size()) {
        if (!out.empty()) throw error(what + ": the array is ragged (a list where a number was expected)");
        lens.push_back(static_cast<int64_t>(v.arr.size()));
    } else if (depth > lens.size() || lens[depth] != static_cast<int64_t>(v.arr.size())) {
        throw error(what + ": the array is ragged (lists of different lengths at depth " + std::to_string(depth) + ")");
    }
    for (auto& e : v.arr) flatten(e, out, lens, depth + 1, what);
}
} // namespace

literal parse_inline_array(const std::string& text, dtype t) {
    json v = parse_json(text, "inline array");
    std::vector<double> values;
    std::vector<int64_t> lens;
    flatten(v, values, lens, 0, "inline array " + (text.size() > 40 ? text.substr(0, 40) + "..." : text));
    return literal_from_doubles(t, lens, values);
}

literal read_json_tensor(const std::string& path, const std::string& name) {
    json doc = parse_json(slurp(path), path);
    const json* t = doc.find(name);
    if (!t) {
        if (doc.find("shape") || doc.find("raw")) t = &doc;
        else throw error(path + ": has no tensor '" + name + "'");
    }
    const json* sh = t->find("shape");
    const json* ty = t->find("type");
    const json* raw = t->find("raw");
    if (!sh || sh->kind != json::array) throw error(path + ": '" + name + "' needs \"shape\": [dims]");
    if (!raw || raw->kind != json::array) throw error(path + ": '" + name + "' needs \"raw\": [values]");
    std::vector<int64_t> lens;
    for (auto& d : sh->arr) {
        // (the range check comes first: casting 1e300 or NaN to int64 is undefined)
        if (d.kind != json::number || !(d.num >= 0 && d.num < 0x1p63) || d.num != std::floor(d.num))
            throw error(path + ": '" + name + "' shape must hold non-negative integers");
        lens.push_back(static_cast<int64_t>(d.num));
    }
    dtype type = ty && ty->kind == json::string ? dtype_from_name(ty->str, path) : dtype::float_type;
    std::vector<double> values;
    for (auto& e : raw->arr) {
        if (e.kind != json::number && e.kind != json::boolean) throw error(path + ": '" + name + "' raw must hold numbers");
        values.push_back(e.kind == json::number ? e.num : e.b);
    }
    int64_t n = shape(type, lens).elements();
    if (static_cast<int64_t>(values.size()) != n)
        throw error(path + ": '" + name + "' has " + std::to_string(values.size()) + " values, but shape " + lens_text(lens) +
                    " needs " + std::to_string(n));
    return literal_from_doubles(type, lens, values);
}

literal read_input_value(const std::string& value, const std::string& name, const shape& expected) {
    literal l;
    std::string what;
    if (!value.empty() && value[0] == '[') {
        l = parse_inline_array(value, expected.type);
        what = "the inline array";
    } else if (value.ends_with(".npy")) {
        l = read_npy(value);
        what = value;
    } else if (value.ends_with(".pb")) {
        l = read_tensor_proto(value);
        what = value;
    } else if (value.ends_with(".json")) {
        l = read_json_tensor(value, name);
        what = value;
    } else {
        throw error("--input " + name + ":" + value + ": expected a .npy, .pb or .json file or an inline array like [[1,2],[3,4]]");
    }
    if (l.s.lens != expected.lens)
        throw error("--input " + name + ": " + what + " has shape " + lens_text(l.s.lens) + ", but the model expects " +
                    lens_text(expected.lens));
    if (l.s.type != expected.type)
        throw error("--input " + name + ": " + what + " holds " + std::string(dtype_name(l.s.type)) + ", but the model expects " +
                    std::string(dtype_name(expected.type)));
    return l;
}

std::string tensor_text(const literal& l) {
    std::ostringstream o;
    o << dtype_name(l.s.type) << " " << lens_text(l.s.lens) << "\n";
    o.precision(9);
    for (double v : l.to_doubles()) o << v << "\n";
    return o.str();
}

literal read_tensor_text(const std::string& path) {
    std::istringstream in(slurp(path));
    std::string type, rest;
    in >> type;
    std::getline(in, rest);
    auto t = parse_dtype(type);
    if (!t) throw error(path + ": not an mxc text dump (first line: TYPE {DIMS})");
    std::vector<int64_t> lens = dims_in(rest, path);
    std::vector<double> values;
    for (std::string w; in >> w;) values.push_back(std::strtod(w.c_str(), nullptr));
    int64_t n = shape(*t, lens).elements();
    if (static_cast<int64_t>(values.size()) != n)
        throw error(path + ": has " + std::to_string(values.size()) + " values, but shape " + lens_text(lens) + " needs " +
                    std::to_string(n));
    return literal_from_doubles(*t, lens, values);
}

literal random_tensor(const shape& s, uint64_t seed) {
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> real(-1.0, 1.0);
    std::vector<double> v(static_cast<std::size_t>(s.elements()));
    for (auto& x : v)
        x = s.type == dtype::bool_type ? static_cast<double>(gen() % 2)
            : is_floating(s.type)      ? real(gen)
                                       : static_cast<double>(gen() % 10);
    return literal_from_doubles(s.type, s.lens, v);
}

} // namespace mxc
