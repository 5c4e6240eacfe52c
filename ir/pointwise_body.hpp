// Fused elementwise bodies: the `body` attribute of the pointwise, fused_convolution and
// fused_dot ops, e.g. "relu(add(x0,x1))" (xN is input N of the kernel's elementwise part).
// The ops are those of MXC_PW_OPS (templates/common/pointwise_program.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace mxc {

struct body_node {
    std::string op;               // empty for an input
    int input = -1;               // xN
    std::vector<body_node> args;
};

body_node parse_body(const std::string& text);       // throws mxc::error saying what is wrong
std::string print_body(const body_node& b);          // the canonical text (no spaces)
int body_inputs(const body_node& b);                 // 1 + the highest input index used
std::vector<int64_t> body_program(const body_node& b); // the postfix program (see the header)
std::string body_cxx(const body_node& b);            // C++ over `x[N]` with the mxc_pw_* functors
bool is_body_op(const std::string& op);              // in MXC_PW_OPS

} // namespace mxc
