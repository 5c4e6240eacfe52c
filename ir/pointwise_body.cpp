#include "ir/pointwise_body.hpp"
#include "ir/error.hpp"
#include "templates/common/pointwise_program.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace mxc {
namespace {
const std::map<std::string, std::pair<int, int>>& table() { // name -> (code, arity)
    static const std::map<std::string, std::pair<int, int>> t = {
#define MXC_PW_ENTRY(n, a) {#n, {mxc_pw_code_##n, a}},
        MXC_PW_OPS(MXC_PW_ENTRY)
#undef MXC_PW_ENTRY
    };
    return t;
}

struct parser {
    const std::string& s;
    std::size_t p = 0;
    [[noreturn]] void fail(const std::string& what) const {
        throw error("body \"" + s + "\": " + what + " at offset " + std::to_string(p));
    }
    body_node node(int depth) {
        if (depth > 64) fail("nested too deeply");
        std::size_t start = p;
        while (p < s.size() && (std::isalnum(static_cast<unsigned char>(s[p])) || s[p] == '_')) ++p;
        std::string word = s.substr(start, p - start);
        if (word.empty()) fail("expected an op or an input");
        body_node n;
        if (p < s.size() && s[p] == '(') {
            auto it = table().find(word);
            if (it == table().end()) fail("unknown op '" + word + "'");
            n.op = word;
            ++p;
            for (;;) {
                n.args.push_back(node(depth + 1));
                if (p < s.size() && s[p] == ',') { ++p; continue; }
                if (p < s.size() && s[p] == ')') { ++p; break; }
                fail("expected ',' or ')'");
            }
            if (static_cast<int>(n.args.size()) != it->second.second)
                fail("'" + word + "' takes " + std::to_string(it->second.second) + " arguments");
            return n;
        }
        if (word.size() < 2 || word[0] != 'x' || !std::all_of(word.begin() + 1, word.end(), ::isdigit) || word.size() > 4)
            fail("expected an input xN, got '" + word + "'");
        n.input = std::stoi(word.substr(1));
        return n;
    }
};

void postfix(const body_node& b, std::vector<int64_t>& out) {
    if (b.op.empty()) {
        out.push_back(b.input);
        return;
    }
    for (auto& a : b.args) postfix(a, out);
    out.push_back(-1 - table().at(b.op).first);
}

int depth(const body_node& b) { // stack slots the postfix program needs
    int d = 1, k = 0;
    for (auto& a : b.args) d = std::max(d, k++ + depth(a));
    return d;
}
} // namespace

body_node parse_body(const std::string& text) {
    std::string s;
    for (char c : text)
        if (!std::isspace(static_cast<unsigned char>(c))) s += c;
    parser p{s};
    auto n = p.node(0);
    if (p.p != s.size()) p.fail("unexpected text after the expression");
    if (depth(n) > mxc_pw_max_stack) p.fail("needs more than " + std::to_string(mxc_pw_max_stack) + " stack slots");
    return n;
}

std::string print_body(const body_node& b) {
    if (b.op.empty()) return "x" + std::to_string(b.input);
    std::string r = b.op + "(";
    for (std::size_t i = 0; i < b.args.size(); ++i) r += (i ? "," : "") + print_body(b.args[i]);
    return r + ")";
}

int body_inputs(const body_node& b) {
    int n = b.input + 1;
    for (auto& a : b.args) n = std::max(n, body_inputs(a));
    return n;
}

std::vector<int64_t> body_program(const body_node& b) {
    std::vector<int64_t> r;
    postfix(b, r);
    return r;
}

std::string body_cxx(const body_node& b) {
    if (b.op.empty()) return "x[" + std::to_string(b.input) + "]";
    std::string r = "mxc_pw_" + b.op + "{}(";
    for (std::size_t i = 0; i < b.args.size(); ++i) r += (i ? ", " : "") + body_cxx(b.args[i]);
    return r + ")";
}

bool is_body_op(const std::string& op) { return table().count(op) > 0; }

} // namespace mxc
