// A generated library as a program that loads it sees it: the C API's types (mirroring
// runtime-stub/model.h, which is a template and cannot be included) and the library opened
// with dlopen, its entry points looked up by their prefix. For the tools (session.cpp), the
// conformance runner and the e2e tests.
#pragma once
#include "ir/error.hpp"

#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace mxc {

struct api_tensor_info {
    const char* name;
    int dtype;
    size_t rank;
    int64_t dims[8];
    int64_t strides[8];
    size_t bytes;
};
struct api_options {
    int device;
    int device_pointers;
    void* stream;
    void* workspace;
    size_t workspace_bytes;
    int no_graph;
};

// The library at `path` with the entry points every build has; find/get look up the others.
class library_api {
public:
    int (*create)(void**, const api_options*) = nullptr;
    void (*destroy)(void*) = nullptr;
    size_t (*num_inputs)(const void*) = nullptr;
    size_t (*num_outputs)(const void*) = nullptr;
    int (*input_info)(const void*, size_t, api_tensor_info*) = nullptr;
    int (*output_info)(const void*, size_t, api_tensor_info*) = nullptr;
    int (*run)(void*, const void* const*, void* const*) = nullptr;
    const char* (*last_error)(const void*) = nullptr;

    library_api(const std::string& path, std::string prefix) : prefix_(std::move(prefix)) {
        handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle_) throw error("cannot load " + path + ": " + dlerror());
        try {
            get(create, "create");
            get(destroy, "destroy");
            get(num_inputs, "num_inputs");
            get(num_outputs, "num_outputs");
            get(input_info, "input_info");
            get(output_info, "output_info");
            get(run, "run");
            get(last_error, "last_error");
        } catch (...) {
            dlclose(handle_);
            throw;
        }
    }
    library_api(const library_api&) = delete;
    library_api& operator=(const library_api&) = delete;
    ~library_api() { dlclose(handle_); }

    // PREFIX_what, or false (fn null) when the library does not export it.
    template <class F> bool find(F& fn, const std::string& what) const {
        fn = reinterpret_cast<F>(dlsym(handle_, (prefix_ + "_" + what).c_str()));
        return fn != nullptr;
    }
    template <class F> void get(F& fn, const std::string& what) const {
        if (!find(fn, what)) throw error("the library has no " + prefix_ + "_" + what + " (not built by mxc?)");
    }

private:
    std::string prefix_;
    void* handle_ = nullptr;
};

} // namespace mxc
