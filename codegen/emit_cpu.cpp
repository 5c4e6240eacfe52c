// The cpu emitter: kernels are plain function calls, mxc::cpu::<kernel><T>(k).
#include "codegen/emit.hpp"

namespace mxc {
target_style cpu_style() {
    target_style s;
    s.target = "cpu";
    s.source_name = "model.cpp";
    return s;
}
} // namespace mxc
