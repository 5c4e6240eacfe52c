// libFuzzer harness: the input readers of `mxc run` (.npy, TensorProto .pb, JSON, inline
// arrays). The first byte picks the reader; the rest is the file. Every input must end in a
// tensor or an mxc::error.
#include "compiler/tensor_io.hpp"
#include "ir/error.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    static const std::string path = "/tmp/mxc-fuzz-tensor-" + std::to_string(getpid());
    std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
    try {
        switch (data[0] % 4) {
        case 0:
        case 1:
        case 2: {
            FILE* f = std::fopen(path.c_str(), "wb");
            if (!f) return 0;
            std::fwrite(body.data(), 1, body.size(), f);
            std::fclose(f);
            if (data[0] % 4 == 0) mxc::read_npy(path);
            else if (data[0] % 4 == 1) mxc::read_tensor_proto(path);
            else mxc::read_json_tensor(path, "x");
            break;
        }
        default: mxc::parse_inline_array(body, mxc::dtype::float_type); break;
        }
    } catch (const mxc::error&) {
    }
    return 0;
}
