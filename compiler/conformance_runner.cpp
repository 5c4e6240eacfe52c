// The conformance runner's scheduler: every test runs in a forked child (its own process
// group, so a compiler it started dies with it) that writes "status\tdetail\n" into a pipe.
// A child that crashes, exits without a result or runs past the time limit is a failure that
// names the signal; the run always goes on.
#include "compiler/build_driver.hpp"
#include "compiler/conformance.hpp"
#include "ir/error.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace mxc::conformance {

namespace {
using clock = std::chrono::steady_clock;

struct child {
    pid_t pid = -1;
    int fd = -1;
    std::size_t index = 0;
    std::string data;
    clock::time_point deadline;
    bool timed_out = false;
};

void write_all(int fd, const std::string& s) {
    std::size_t done = 0;
    while (done < s.size()) {
        ssize_t n = write(fd, s.data() + done, s.size() - done);
        if (n > 0) done += static_cast<std::size_t>(n);
        else if (n < 0 && errno != EINTR) return;
    }
}

child start(const test_case& t, std::size_t index, const run_options& o) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw error(std::string("conformance: cannot create a pipe: ") + std::strerror(errno));
    std::fflush(stdout);
    std::fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        throw error(std::string("conformance: cannot start a process: ") + std::strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        setpgid(0, 0);
        if (o.target != "hip" || is_emu_arch(o.offload_arch)) { // a runaway model must not take the machine's memory (GPU runtimes reserve more)
            rlimit lim{16ull << 30, 16ull << 30};
            setrlimit(RLIMIT_AS, &lim);
        }
        result r = run_test(t, o);
        write_all(fds[1], r.status + "\t" + r.detail + "\n");
        _exit(0);
    }
    setpgid(pid, pid); // also here, so the group exists before the parent may kill it
    close(fds[1]);
    child c;
    c.pid = pid;
    c.fd = fds[0];
    c.index = index;
    c.deadline = clock::now() + std::chrono::seconds(o.timeout_s);
    return c;
}

// The result of a finished child from its wait status and what it wrote.
result finish(const child& c, int status, const test_case& t, const run_options& o) {
    result r{t.name, "error", ""};
    if (c.timed_out) {
        r.status = "fail";
        r.detail = "timeout: killed after " + std::to_string(o.timeout_s) + " s";
        return r;
    }
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        r.status = "fail";
        r.detail = "crashed: signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
        return r;
    }
    auto tab = c.data.find('\t');
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && tab != std::string::npos && !c.data.empty() && c.data.back() == '\n') {
        r.status = c.data.substr(0, tab);
        r.detail = c.data.substr(tab + 1, c.data.size() - tab - 2);
        return r;
    }
    r.detail = "the test process exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
               " without a result";
    return r;
}

void progress_line(std::size_t done, std::size_t total, const std::vector<result>& results, const std::string& last) {
    std::size_t passed = 0;
    for (auto& r : results)
        if (r.status == "pass") ++passed;
    std::fprintf(stderr, "\r\033[K[%zu/%zu] %zu passed  %s", done, total, passed, last.c_str());
    if (done == total) std::fprintf(stderr, "\n");
    std::fflush(stderr);
}
} // namespace

std::vector<result> run_tests(const std::vector<test_case>& tests, const run_options& o) {
    prepare_builds(o);
    std::vector<result> results(tests.size());
    std::vector<child> running;
    std::size_t next = 0, done = 0;
    const std::size_t jobs = static_cast<std::size_t>(std::max(1, o.jobs));
    while (done < tests.size()) {
        while (running.size() < jobs && next < tests.size()) {
            running.push_back(start(tests[next], next, o));
            ++next;
        }
        auto now = clock::now();
        auto wait = std::chrono::milliseconds(1000);
        for (auto& c : running)
            wait = std::min(wait, std::chrono::duration_cast<std::chrono::milliseconds>(c.deadline - now) +
                                      std::chrono::milliseconds(1));
        std::vector<pollfd> pfds;
        for (auto& c : running) pfds.push_back({c.fd, POLLIN, 0});
        if (poll(pfds.data(), pfds.size(), static_cast<int>(std::max<int64_t>(0, wait.count()))) < 0 && errno != EINTR)
            throw error(std::string("conformance: poll failed: ") + std::strerror(errno));
        now = clock::now();
        for (std::size_t i = 0; i < running.size();) {
            child& c = running[i];
            bool ended = false;
            if (pfds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
                char buf[4096];
                ssize_t n = read(c.fd, buf, sizeof buf);
                if (n > 0) c.data.append(buf, static_cast<std::size_t>(n));
                else if (n == 0 || errno != EINTR) ended = true;
            }
            if (!ended && now >= c.deadline) {
                kill(-c.pid, SIGKILL);
                kill(c.pid, SIGKILL);
                c.timed_out = true;
                ended = true;
            }
            if (!ended) {
                ++i;
                continue;
            }
            close(c.fd);
            int status = 0;
            while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {}
            if (!c.timed_out) kill(-c.pid, SIGKILL); // anything the child left running
            results[c.index] = finish(c, status, tests[c.index], o);
            ++done;
            if (o.progress) progress_line(done, tests.size(), results, tests[c.index].name);
            pfds.erase(pfds.begin() + static_cast<std::ptrdiff_t>(i));
            running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
        }
    }
    return results;
}

} // namespace mxc::conformance
