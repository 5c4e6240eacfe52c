// What the end-to-end tests (and test/unit/test_mma.cpp) share. A generated library's C API
// and its dlopen wrapper are compiler/library_api.hpp (the tools use the same).
#pragma once
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace mxc_test {

// A directory mxc-TAG-XXXXXX under the temporary directory, removed with its contents at the
// end of the scope.
struct tmp_dir {
    std::string path;
    explicit tmp_dir(const std::string& tag = "test") {
        std::string t = (std::filesystem::temp_directory_path() / ("mxc-" + tag + "-XXXXXX")).string();
        if (!mkdtemp(t.data())) throw std::runtime_error("cannot create " + t);
        path = t;
    }
    ~tmp_dir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    tmp_dir(const tmp_dir&) = delete;
    tmp_dir& operator=(const tmp_dir&) = delete;
};

} // namespace mxc_test
