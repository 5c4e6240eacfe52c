// libFuzzer harness: text IR -> parser -> verifier -> printer (and the printed text must parse
// again). Every input must end in a program or an mxc::error.
#include "ir/error.hpp"
#include "ir/module.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    mxc::program p;
    try {
        p = mxc::parse_program(text);
        for (auto& m : p.modules) mxc::verify(*m);
    } catch (const mxc::error&) {
        return 0;
    }
    // A verified program prints to text that parses back (a failure here is a bug: no catch).
    mxc::parse_program(mxc::print(p));
    return 0;
}
