#include "compiler/cleanup.hpp"
#include "ir/error.hpp"

#include <csignal>
#include <cstring>
#include <mutex>

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace mxc::cleanup {

namespace {
constexpr int slots = 8;
constexpr std::size_t path_max = 4096;
struct entry {
    volatile sig_atomic_t used = 0;
    volatile sig_atomic_t directory = 0;
    volatile sig_atomic_t child[max_children] = {}; // the compiler processes working in it
    char path[path_max] = {};
};
// The one piece of process-wide mutable state in mxc: what a signal handler must remove.
entry entries[slots];
std::mutex lock; // between threads; signals are blocked while a slot changes
const int signals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction previous[3];
bool installed = false;

struct linux_dirent64 {
    ino64_t d_ino;
    off64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

// Removes everything under the open directory `fd` (raw system calls: async-signal-safe).
void remove_tree_at(int fd, int depth) {
    alignas(8) char buf[4096];
    for (;;) {
        long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
        if (n <= 0) return;
        bool removed = false;
        for (long off = 0; off < n;) {
            auto* d = reinterpret_cast<linux_dirent64*>(buf + off);
            off += d->d_reclen;
            const char* name = d->d_name;
            if (!std::strcmp(name, ".") || !std::strcmp(name, "..")) continue;
            if (d->d_type == DT_DIR && depth < 32) {
                int sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (sub >= 0) {
                    remove_tree_at(sub, depth + 1);
                    close(sub);
                }
                unlinkat(fd, name, AT_REMOVEDIR);
            } else {
                unlinkat(fd, name, 0);
            }
            removed = true;
        }
        if (removed) lseek(fd, 0, SEEK_SET); // entries moved: read the directory again
    }
}

void on_signal(int sig) {
    for (auto& e : entries)
        for (auto& c : e.child)
            if (e.used && c > 0) kill(static_cast<pid_t>(c), SIGKILL);
    for (auto& e : entries) {
        if (!e.used) continue;
        if (e.directory) {
            int fd = open(e.path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (fd >= 0) {
                remove_tree_at(fd, 0);
                close(fd);
            }
            rmdir(e.path);
        } else {
            unlink(e.path);
        }
        e.used = 0;
    }
    for (int i = 0; i < 3; ++i)
        if (signals[i] == sig) sigaction(sig, &previous[i], nullptr);
    raise(sig);
}

// Blocks the handled signals while a slot changes.
struct block_signals {
    sigset_t old;
    block_signals() {
        sigset_t s;
        sigemptyset(&s);
        for (int sig : signals) sigaddset(&s, sig);
        pthread_sigmask(SIG_BLOCK, &s, &old);
    }
    ~block_signals() { pthread_sigmask(SIG_SETMASK, &old, nullptr); }
};
} // namespace

int add(const std::string& path, bool directory) {
    if (path.size() >= path_max) throw error("temporary path too long: " + path);
    block_signals b;
    std::lock_guard g(lock);
    if (!installed) {
        installed = true;
        for (int i = 0; i < 3; ++i) {
            struct sigaction sa {};
            sa.sa_handler = on_signal;
            sigemptyset(&sa.sa_mask);
            for (int sig : signals) sigaddset(&sa.sa_mask, sig);
            sigaction(signals[i], nullptr, &previous[i]);
            if (previous[i].sa_handler != SIG_IGN) sigaction(signals[i], &sa, nullptr); // keep nohup's SIG_IGN
        }
    }
    for (int i = 0; i < slots; ++i)
        if (!entries[i].used) {
            std::memcpy(entries[i].path, path.c_str(), path.size() + 1);
            entries[i].directory = directory;
            for (auto& c : entries[i].child) c = 0;
            entries[i].used = 1;
            return i;
        }
    throw error("too many temporary files at once");
}

void remove(int slot) {
    block_signals b;
    std::lock_guard g(lock);
    if (slot >= 0 && slot < slots) entries[slot].used = 0;
}

void set_child(int slot, pid_t pid, int k) {
    if (slot >= 0 && slot < slots && k >= 0 && k < max_children) entries[slot].child[k] = pid;
}

} // namespace mxc::cleanup
