// Cleanup on Ctrl-C: the build driver registers its private temporary directory and its
// temporary output files here; on SIGINT, SIGTERM or SIGHUP a handler stops the running
// compiler, removes them (async-signal-safe: raw system calls only) and then lets the signal
// do what it did before. Registered paths are unregistered when their owners remove them.
#pragma once
#include <string>
#include <sys/types.h>

namespace mxc::cleanup {

// Registers a path to remove on a signal (a directory: with everything in it); returns a slot.
int add(const std::string& path, bool directory);
void remove(int slot);               // forgets the slot (the owner removed the path or kept it)
// The compilers running in slot's directory: child k of at most max_children (pid 0: none).
constexpr int max_children = 16;
void set_child(int slot, pid_t pid, int k = 0);

} // namespace mxc::cleanup
