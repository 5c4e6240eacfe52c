// A small JSON reader and string quoting, for the tools' input files (mxc run --input x:f.json)
// and trace files (mxc profile). Numbers are doubles.
#pragma once
#include <string>
#include <vector>

namespace mxc {

struct json {
    struct member; // {key, value}: std::pair<std::string, json> would need json complete here (clang refuses)
    enum kind_t { null, boolean, number, string, array, object } kind = null;
    bool b = false;
    double num = 0;
    std::string str;
    std::vector<json> arr;
    std::vector<member> obj; // in file order

    const json* find(const std::string& key) const; // objects: the member, or null
};

struct json::member {
    std::string key;
    json value;
};

// Throws mxc::error "<what>: JSON error at line L column C: ...".
json parse_json(const std::string& text, const std::string& what);

// A JSON string literal for any text.
std::string json_quote(const std::string& s);

} // namespace mxc
