#include "compiler/mapped_file.hpp"
#include "ir/error.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mxc {

mapped_file::mapped_file(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw error("cannot open '" + path + "': " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) {
        size_ = static_cast<std::size_t>(st.st_size);
        if (size_ == 0) return;
        void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
        if (p != MAP_FAILED) {
            data_ = static_cast<const char*>(p);
            mapped_ = true;
            return;
        }
    }
    char chunk[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd_, chunk, sizeof chunk);
        if (n == 0) break;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int e = errno;
            ::close(fd_);
            throw error("cannot read '" + path + "': " + std::strerror(e));
        }
        buffer_.append(chunk, static_cast<std::size_t>(n));
    }
    data_ = buffer_.data();
    size_ = buffer_.size();
}

mapped_file::~mapped_file() {
    if (mapped_) ::munmap(const_cast<char*>(data_), size_);
    ::close(fd_);
}

} // namespace mxc
