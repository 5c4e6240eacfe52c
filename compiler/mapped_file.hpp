// A file's bytes for reading: a regular file mapped read-only (a model or library of hundreds
// of MB is neither read into a buffer nor copied), anything else (a pipe) read whole.
#pragma once
#include <cstddef>
#include <string>

namespace mxc {

class mapped_file {
public:
    explicit mapped_file(const std::string& path); // throws mxc::error: "cannot open/read 'PATH': why"
    mapped_file(const mapped_file&) = delete;
    mapped_file& operator=(const mapped_file&) = delete;
    ~mapped_file();
    const char* data() const { return data_; }
    std::size_t size() const { return size_; }

private:
    int fd_ = -1;
    const char* data_ = nullptr;
    std::size_t size_ = 0;
    bool mapped_ = false;
    std::string buffer_;
};

} // namespace mxc
