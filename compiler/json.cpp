#include "compiler/json.hpp"
#include "ir/error.hpp"

#include <cstdio>
#include <cstdlib>

namespace mxc {

const json* json::find(const std::string& key) const {
    for (auto& [k, v] : obj)
        if (k == key) return &v;
    return nullptr;
}

namespace {
struct reader {
    const std::string& s;
    const std::string& what;
    std::size_t p = 0;
    int depth = 0;

    [[noreturn]] void fail(const std::string& msg) const {
        int line = 1, col = 1;
        for (std::size_t i = 0; i < p && i < s.size(); ++i) {
            if (s[i] == '\n') line++, col = 1;
            else col++;
        }
        throw error(what + ": JSON error at line " + std::to_string(line) + " column " + std::to_string(col) + ": " + msg);
    }
    void ws() {
        while (p < s.size() && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n' || s[p] == '\r')) p++;
    }
    bool eat(char c) {
        ws();
        if (p < s.size() && s[p] == c) return ++p, true;
        return false;
    }
    void expect(char c) {
        if (!eat(c)) fail(std::string("expected '") + c + "'");
    }
    bool word(const char* w) {
        std::string t(w);
        if (s.compare(p, t.size(), t) == 0) return p += t.size(), true;
        return false;
    }
    std::string string_value() {
        expect('"');
        std::string r;
        while (true) {
            if (p >= s.size()) fail("unterminated string");
            char c = s[p++];
            if (c == '"') return r;
            if (c != '\\') {
                r += c;
                continue;
            }
            if (p >= s.size()) fail("unterminated string");
            char e = s[p++];
            switch (e) {
            case 'n': r += '\n'; break;
            case 't': r += '\t'; break;
            case 'r': r += '\r'; break;
            case 'b': r += '\b'; break;
            case 'f': r += '\f'; break;
            case 'u': {
                if (p + 4 > s.size()) fail("bad \\u escape");
                unsigned v = static_cast<unsigned>(std::strtoul(s.substr(p, 4).c_str(), nullptr, 16));
                p += 4;
                if (v < 0x80) r += static_cast<char>(v);
                else if (v < 0x800) r += static_cast<char>(0xc0 | (v >> 6)), r += static_cast<char>(0x80 | (v & 63));
                else r += static_cast<char>(0xe0 | (v >> 12)), r += static_cast<char>(0x80 | ((v >> 6) & 63)),
                     r += static_cast<char>(0x80 | (v & 63));
                break;
            }
            default: r += e;
            }
        }
    }
    json value() {
        if (++depth > 256) fail("nested too deeply");
        ws();
        json v;
        if (p >= s.size()) fail("unexpected end of input");
        char c = s[p];
        if (c == '{') {
            v.kind = json::object;
            p++;
            if (!eat('}')) {
                do {
                    ws();
                    std::string k = string_value();
                    expect(':');
                    v.obj.push_back({std::move(k), value()});
                } while (eat(','));
                expect('}');
            }
        } else if (c == '[') {
            v.kind = json::array;
            p++;
            if (!eat(']')) {
                do v.arr.push_back(value());
                while (eat(','));
                expect(']');
            }
        } else if (c == '"') {
            v.kind = json::string;
            v.str = string_value();
        } else if (word("true")) {
            v.kind = json::boolean, v.b = true;
        } else if (word("false")) {
            v.kind = json::boolean;
        } else if (word("null")) {
        } else {
            const char* begin = s.c_str() + p;
            char* end = nullptr;
            v.num = std::strtod(begin, &end);
            if (end == begin) fail("unexpected character '" + std::string(1, c) + "'");
            v.kind = json::number;
            p += static_cast<std::size_t>(end - begin);
        }
        depth--;
        return v;
    }
};
} // namespace

json parse_json(const std::string& text, const std::string& what) {
    reader r{text, what};
    json v = r.value();
    r.ws();
    if (r.p != text.size()) r.fail("unexpected text after the value");
    return v;
}

std::string json_quote(const std::string& s) {
    std::string r = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') r += '\\', r += static_cast<char>(c);
        else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            r += buf;
        } else r += static_cast<char>(c);
    }
    return r + "\"";
}

} // namespace mxc
