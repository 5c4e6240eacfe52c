// The one exception type of mxc. Messages are one line; the driver prints "mxc: error: <msg>".
#pragma once
#include <stdexcept>
#include <string>

namespace mxc {
struct error : std::runtime_error {
    using std::runtime_error::runtime_error;
};
} // namespace mxc
