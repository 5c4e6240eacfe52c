#include "compiler/build_util.hpp"
#include "compiler/cleanup.hpp"
#include "compiler/mapped_file.hpp"
#include "ir/error.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace mxc {

void write_file(const std::filesystem::path& path, std::string_view content) {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(content.data(), static_cast<std::streamsize>(content.size()));
    f.close();
    if (!f) throw error("cannot write " + path.string());
}

bool same_file_content(const std::string& a, const std::string& b) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(a, ec) || !std::filesystem::is_regular_file(b, ec)) return false;
    const auto size = std::filesystem::file_size(a, ec);
    if (ec || size != std::filesystem::file_size(b, ec) || ec) return false;
    try {
        mapped_file fa(a), fb(b);
        return fa.size() == fb.size() && (fa.size() == 0 || std::memcmp(fa.data(), fb.data(), fa.size()) == 0);
    } catch (const error&) {
        return false;
    }
}

process_result run_process(const std::vector<std::string>& args, const std::string& cwd, int cleanup_slot) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw error(std::string("cannot create a pipe: ") + std::strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        throw error(std::string("cannot start a process: ") + std::strerror(errno));
    }
    if (pid == 0) { // the child: only async-signal-safe calls until exec
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
        execvp(argv[0], argv.data());
        const char msg[] = "mxc: exec failed\n";
        ssize_t ignored = write(2, msg, sizeof msg - 1);
        (void)ignored;
        _exit(127);
    }
    close(fds[1]);
    cleanup::set_child(cleanup_slot, pid);
    process_result r;
    char buf[4096];
    for (;;) {
        ssize_t n = read(fds[0], buf, sizeof buf);
        if (n > 0) r.output.append(buf, static_cast<std::size_t>(n));
        else if (n == 0 || errno != EINTR) break;
    }
    close(fds[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    cleanup::set_child(cleanup_slot, 0);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    return r;
}

} // namespace mxc
