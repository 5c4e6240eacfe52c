// The text form of the IR, the parser half (ir/print.cpp writes it). Reads one instruction
// per line; blank lines and lines starting with '#' are skipped. Result shapes are recomputed
// by module::add and must equal the written ones. Every error is "line N: what was wrong".
#include "ir/error.hpp"
#include "ir/module.hpp"
#include "ir/op.hpp"
#include "templates/common/types.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <type_traits>

namespace mxc {
namespace {

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '@'; }
bool is_name_char(char c) {
    auto u = static_cast<unsigned char>(c);
    return u > ' ' && u < 0x7f && std::string_view(",()[]{}=\"#\\").find(c) == std::string_view::npos;
}

// A cursor over one line of text.
struct line_reader {
    std::string_view s;
    int line;
    std::size_t i = 0;

    [[noreturn]] void fail(const std::string& what) const { throw error("line " + std::to_string(line) + ": " + what); }

    void skip_ws() {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    }
    bool at_end() {
        skip_ws();
        return i == s.size();
    }
    std::string rest() const { return std::string(s.substr(i, 20)) + (s.size() - i > 20 ? "..." : ""); }
    std::string here() { return at_end() ? "end of line" : "'" + rest() + "'"; }

    bool consume(std::string_view t) {
        skip_ws();
        if (s.substr(i, t.size()) != t) return false;
        i += t.size();
        return true;
    }
    void expect(std::string_view t) {
        if (!consume(t)) fail("expected '" + std::string(t) + "', found " + here());
    }
    void expect_end() {
        if (!at_end()) fail("unexpected '" + rest() + "' at the end of the line");
    }
    bool peek(char c) {
        skip_ws();
        return i < s.size() && s[i] == c;
    }

    template <class Pred> std::string_view take_while(Pred p) {
        skip_ws();
        std::size_t b = i;
        while (i < s.size() && p(s[i])) ++i;
        return s.substr(b, i - b);
    }

    std::string quoted() {
        skip_ws();
        if (!peek('"')) fail("expected a quoted string, found " + here());
        std::string r;
        for (++i; i < s.size(); ++i) {
            char c = s[i];
            if (c == '"') {
                ++i;
                return r;
            }
            if (c == '\\') {
                if (++i == s.size()) break;
                switch (s[i]) {
                case '"': r += '"'; break;
                case '\\': r += '\\'; break;
                case 'n': r += '\n'; break;
                case 't': r += '\t'; break;
                default: fail(std::string("unknown escape '\\") + s[i] + "' in a string");
                }
                continue;
            }
            r += c;
        }
        fail("unterminated string");
    }

    // A value name: bare (no spaces or punctuation) or a quoted string.
    std::string name(const char* what) {
        if (peek('"')) return quoted();
        auto n = take_while(is_name_char);
        if (n.empty()) fail(std::string("expected ") + what + ", found " + here());
        return std::string(n);
    }

    std::string ident(const char* what) {
        auto n = take_while(is_ident_char);
        if (n.empty()) fail(std::string("expected ") + what + ", found " + here());
        return std::string(n);
    }

    // The text of one number: digits, signs, '.', exponents, nan, inf, hex floats.
    std::string number_text() {
        auto t = take_while([](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-'; });
        if (t.empty()) fail("expected a number, found " + here());
        return std::string(t);
    }

    template <class I> I integer() {
        auto t = number_text();
        I v{};
        auto* b = t.data() + (t[0] == '+' ? 1 : 0);
        auto [p, ec] = std::from_chars(b, t.data() + t.size(), v);
        if (ec == std::errc::result_out_of_range) fail("integer '" + t + "' is out of range");
        if (ec != std::errc{} || p != t.data() + t.size()) fail("expected an integer, found '" + t + "'");
        return v;
    }

    double floating() {
        auto t = number_text();
        char* end = nullptr;
        double d = std::strtod(t.c_str(), &end);
        if (end != t.c_str() + t.size()) fail("expected a number, found '" + t + "'");
        return d;
    }

    // "{a, b, c}" with each element read by `elem`.
    template <class F> void list(F elem) {
        expect("{");
        if (consume("}")) return;
        do elem();
        while (consume(","));
        expect("}");
    }

    std::vector<int64_t> ints() {
        std::vector<int64_t> r;
        list([&] { r.push_back(integer<int64_t>()); });
        return r;
    }

    shape shape_() {
        auto tn = ident("a type name");
        auto t = parse_dtype(tn);
        if (!t) fail("unknown type '" + tn + "'");
        expect(",");
        auto lens = ints();
        expect(",");
        auto strides = ints();
        if (lens.size() != strides.size())
            fail("shape has " + std::to_string(lens.size()) + " lens but " + std::to_string(strides.size()) + " strides");
        for (auto l : lens)
            if (l < 0) fail("negative dimension " + std::to_string(l) + " in a shape");
        return shape(*t, std::move(lens), std::move(strides));
    }

    attr_value attr(attr_kind kind) {
        switch (kind) {
        case attr_kind::i: return integer<int64_t>();
        case attr_kind::f: return floating();
        case attr_kind::s: return quoted();
        case attr_kind::ints: return ints();
        case attr_kind::floats: {
            std::vector<double> r;
            list([&] { r.push_back(floating()); });
            return r;
        }
        }
        fail("bad attribute kind");
    }

    // "{v, ...}" of a literal of type t: floats through float for the narrow types (as printed).
    std::vector<char> literal_values(dtype t) {
        std::vector<char> bytes;
        mxc_visit_dtype(static_cast<int>(t), [&](auto tag) {
            using T = decltype(tag);
            list([&] {
                T v{};
                if constexpr (std::is_same_v<T, bool>) {
                    auto x = integer<int64_t>();
                    if (x != 0 && x != 1) fail("a bool_type value must be 0 or 1, got " + std::to_string(x));
                    v = x != 0;
                } else if constexpr (std::is_integral_v<T>) {
                    using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
                    auto x = integer<W>();
                    if (x < static_cast<W>(std::numeric_limits<T>::min()) || x > static_cast<W>(std::numeric_limits<T>::max()))
                        fail("value " + std::to_string(x) + " does not fit " + std::string(dtype_name(t)));
                    v = static_cast<T>(x);
                } else if constexpr (std::is_same_v<T, double>) {
                    v = floating();
                } else {
                    v = T(static_cast<float>(floating()));
                }
                auto* p = reinterpret_cast<const char*>(&v);
                bytes.insert(bytes.end(), p, p + sizeof(T));
            });
        });
        return bytes;
    }
};

struct parser {
    program prog;
    module* m = nullptr;
    int module_line = 0;
    std::map<std::string, instruction*> names;
    std::set<std::string> module_names;
    bool returned = false; // the current module has its @return

    void finish_module() {
        if (!m) return;
        try {
            verify(*m);
        } catch (const error& e) {
            throw error("line " + std::to_string(module_line) + ": module '" + m->name + "': " + e.what());
        }
    }

    void start_module(line_reader& r) {
        r.expect("module:");
        auto name = r.quoted();
        r.expect_end();
        if (!module_names.insert(name).second) r.fail("duplicate module '" + name + "'");
        finish_module();
        if (!m) {
            m = &prog.main();
        } else {
            prog.modules.push_back(std::make_unique<module>());
            m = prog.modules.back().get();
        }
        m->name = name;
        module_line = r.line;
        names.clear();
        returned = false;
    }

    instruction* lookup(line_reader& r, const std::string& n) {
        auto it = names.find(n);
        if (it == names.end()) r.fail("undefined name '" + n + "'");
        return it->second;
    }

    std::vector<instruction*> inputs(line_reader& r) {
        std::vector<instruction*> in;
        r.expect("(");
        if (r.consume(")")) return in;
        do in.push_back(lookup(r, r.name("an input name")));
        while (r.consume(","));
        r.expect(")");
        return in;
    }

    instruction* param(line_reader& r) {
        r.expect(":");
        auto pname = r.name("a parameter name");
        r.expect("->");
        auto s = r.shape_();
        r.expect_end();
        if (m->find_param(pname)) r.fail("duplicate parameter '" + pname + "'");
        if (!m->instructions.empty() && !m->instructions.back().is_param())
            r.fail("parameter '" + pname + "' must come before the other instructions");
        return m->add_param(pname, s);
    }

    instruction* literal_(line_reader& r) {
        bool digest = r.peek('[');
        std::string digest_text;
        std::size_t values_at = r.i;
        if (digest) {
            r.expect("[");
            r.expect("digest");
            r.expect("=");
            digest_text = r.take_while([](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
            if (digest_text.empty()) r.fail("expected a hexadecimal digest, found " + r.here());
            r.expect("]");
        } else {
            r.list([&] { r.number_text(); }); // values are read once the type is known
        }
        r.expect("->");
        auto s = r.shape_();
        r.expect_end();
        if (!s.standard()) r.fail("a literal must have a standard shape, got " + to_string(s));
        literal l;
        if (digest) {
            l.s = s;
            l.digest_text = digest_text;
        } else {
            line_reader values{r.s, r.line, values_at};
            auto bytes = values.literal_values(s.type);
            auto n = static_cast<int64_t>(bytes.size() / dtype_size(s.type));
            if (n != s.elements())
                r.fail("literal has " + std::to_string(n) + " values but its shape " + to_string(s) + " has " +
                       std::to_string(s.elements()) + " elements");
            l = literal(s, std::move(bytes));
        }
        return m->add_literal(std::move(l));
    }

    instruction* op(line_reader& r, const std::string& opname) {
        auto* def = find_op(opname);
        if (!def) r.fail("unknown op '" + opname + "'");
        attributes attrs;
        if (r.consume("[")) {
            do {
                auto an = r.ident("an attribute name");
                auto spec = std::find_if(def->attrs.begin(), def->attrs.end(), [&](auto& a) { return a.name == an; });
                if (spec == def->attrs.end()) {
                    std::string known;
                    for (auto& a : def->attrs) known += (known.empty() ? "" : ", ") + a.name;
                    r.fail(opname + " has no attribute '" + an + "' (it has: " + (known.empty() ? "none" : known) + ")");
                }
                if (attrs.has(an)) r.fail("attribute '" + an + "' given twice");
                r.expect("=");
                attrs.set(an, r.attr(kind_of(spec->default_value)));
            } while (r.consume(","));
            r.expect("]");
        }
        auto in = inputs(r);
        r.expect("->");
        auto written = r.shape_();
        r.expect_end();
        instruction* ins = nullptr;
        try {
            ins = m->add(opname, std::move(in), std::move(attrs));
        } catch (const error& e) {
            r.fail(e.what());
        }
        if (ins->result != written)
            r.fail(opname + ": result shape is written as " + to_string(written) + " but the inputs give " +
                   to_string(ins->result));
        return ins;
    }

    void instruction_line(line_reader& r) {
        if (!m) r.fail("expected 'module: \"<name>\"' before the first instruction");
        if (returned) r.fail("instruction after @return (module '" + m->name + "')");
        auto name = r.name("an instruction name");
        r.expect("=");
        if (names.count(name)) r.fail("duplicate name '" + name + "'");
        auto opname = r.ident("an op name");
        instruction* ins = nullptr;
        if (opname == "@param") ins = param(r);
        else if (opname == "@literal") ins = literal_(r);
        else if (opname == "@return") {
            auto in = inputs(r);
            r.expect_end();
            ins = m->add_return(std::move(in));
            returned = true;
        } else ins = op(r, opname);
        names[name] = ins;
    }
};

} // namespace

program parse_program(const std::string& text) {
    parser p;
    int line = 0;
    std::size_t b = 0;
    while (b <= text.size()) {
        auto e = text.find('\n', b);
        if (e == std::string::npos) e = text.size();
        std::string_view s(text.data() + b, e - b);
        if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
        ++line;
        b = e + 1;
        line_reader r{s, line};
        if (r.at_end() || r.peek('#')) continue;
        if (s.substr(r.i, 7) == "module:") p.start_module(r);
        else p.instruction_line(r);
    }
    if (!p.m) throw error("line " + std::to_string(line) + ": no module found (expected 'module: \"<name>\"')");
    p.finish_module();
    return std::move(p.prog);
}

} // namespace mxc
