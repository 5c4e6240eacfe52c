// The text form of the IR (DESIGN.md), the printer half; ir/parse.cpp reads it back.
//
//   module: "main"
//   x = @param:x -> float_type, {1, 4}, {4, 1}
//   main:@0 = @literal{1.0, 2.0, 3.0, 4.0} -> float_type, {1, 4}, {4, 1}
//   main:@1 = add(x,main:@0) -> float_type, {1, 4}, {4, 1}
//   main:@2 = @return(main:@1)
#include "ir/error.hpp"
#include "ir/module.hpp"
#include "templates/common/types.hpp"

#include <type_traits>
#include <unordered_map>

namespace mxc {
namespace {

// Names made of these characters print bare; any other name prints as a quoted string.
bool bare_name(const std::string& s) {
    if (s.empty()) return false;
    for (unsigned char c : s)
        if (c <= ' ' || c >= 0x7f || std::string_view(",()[]{}=\"#\\").find(static_cast<char>(c)) != std::string_view::npos)
            return false;
    return true;
}

std::string name_text(const std::string& s) { return bare_name(s) ? s : to_string(attr_value{s}); }

// Floats print like attribute floats; narrow types only need to read back through their type.
template <class T> std::string element_float_text(T v) {
    double (*to_type)(double) = nullptr;
    if constexpr (!std::is_same_v<T, double>)
        to_type = [](double x) { return mxc_to_double(static_cast<T>(static_cast<float>(x))); };
    return float_text(mxc_to_double(v), to_type);
}

std::string literal_values(const literal& l) {
    std::string r = "{";
    mxc_visit_dtype(static_cast<int>(l.s.type), [&](auto tag) {
        using T = decltype(tag);
        auto* p = l.as<T>();
        for (int64_t i = 0; i < l.s.elements(); ++i) {
            if (i) r += ", ";
            if constexpr (std::is_same_v<T, bool>) r += p[i] ? "1" : "0";
            else if constexpr (std::is_integral_v<T>) r += std::to_string(p[i]);
            else r += element_float_text(p[i]);
        }
    });
    return r + "}";
}

std::string literal_text(const literal& l) {
    if (l.known() && l.s.elements() <= literal_print_limit) return literal_values(l);
    return "[digest=" + l.digest() + "]";
}

} // namespace

std::vector<std::string> instruction_names(const module& m) {
    std::vector<std::string> names;
    int n = 0;
    for (auto& ins : m.instructions)
        names.push_back(ins.is_param() ? ins.param_name : m.name + ":@" + std::to_string(n++));
    return names;
}

std::string print(const module& m) {
    auto names = instruction_names(m);
    std::unordered_map<const instruction*, std::string> name_of;
    std::size_t k = 0;
    for (auto& ins : m.instructions) name_of[&ins] = name_text(names[k++]);

    std::string out = "module: " + to_string(attr_value{m.name}) + "\n";
    for (auto& ins : m.instructions) {
        std::string line = name_of.at(&ins) + " = " + ins.op;
        if (ins.is_param()) {
            line += ":" + name_text(ins.param_name);
        } else if (ins.is_literal()) {
            line += literal_text(ins.lit);
        } else {
            if (!ins.attrs.items.empty()) {
                line += "[";
                for (std::size_t i = 0; i < ins.attrs.items.size(); ++i) {
                    auto& [an, av] = ins.attrs.items[i];
                    line += (i ? "," : "") + an + "=" + to_string(av);
                }
                line += "]";
            }
            line += "(";
            for (std::size_t i = 0; i < ins.inputs.size(); ++i) {
                auto it = name_of.find(ins.inputs[i]);
                if (it == name_of.end()) throw error("print: " + ins.op + " uses a value from outside module '" + m.name + "'");
                line += (i ? "," : "") + it->second;
            }
            line += ")";
        }
        if (!ins.is_return()) line += " -> " + to_string(ins.result);
        out += line + "\n";
    }
    return out;
}

std::string print(const program& p) {
    std::string out;
    for (std::size_t i = 0; i < p.modules.size(); ++i) out += (i ? "\n" : "") + print(*p.modules[i]);
    return out;
}

} // namespace mxc
