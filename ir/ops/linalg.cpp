// det: the determinant of each of a batch of square matrices.
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "templates/cpu/linalg.hpp"

namespace mxc {

MXC_REGISTER_OP(det) {
    op_def d;
    d.name = "det";
    d.doc = "x [..., n, n] (n <= " + std::to_string(MXC_DET_MAX_N) +
            ") -> y [...]: determinant by LU decomposition with partial pivoting (in double); no parameters";
    d.min_inputs = d.max_inputs = 1;
    d.compute_shape = [](const attributes&, const std::vector<shape>& in) {
        auto& x = in[0];
        if (x.rank() < 2 || x.lens[x.rank() - 1] != x.lens[x.rank() - 2])
            throw error("det: x must be [..., n, n], got " + to_string(x.lens));
        if (x.lens.back() > MXC_DET_MAX_N)
            throw error("det: matrices of size " + std::to_string(x.lens.back()) + " exceed the supported " +
                        std::to_string(MXC_DET_MAX_N));
        if (!is_floating(x.type)) throw error("det: x must be floating point, got " + std::string(dtype_name(x.type)));
        return shape(x.type, std::vector<int64_t>(x.lens.begin(), x.lens.end() - 2));
    };
    d.kernel = "det";
    d.cpu = MXC_CPU_KERNELS(det, MXC_FLOAT_TYPES);
    return d;
}

} // namespace mxc
