"""Every kernel (__global__ function) of the given HIP sources calls grid_dependency_sync()
before anything else that can touch global memory, that is among its first statements: with
programmatic dependent launch (runtime-stub/hip_cuda_compat.h, MXC_PDL=1) a kernel that does
not wait reads its inputs before the kernel that writes them has finished (2026-11-24: the
channels-last transpose did not, and ResNet-50 at batch 32 in fp16 gave wrong outputs on the
H200). Prints one line per kernel, and one per offender; exits 1 if there is one.
    check_grid_sync.py FILE..."""
import re
import sys


def kernels(text):
    """(name, body) of each __global__ function definition in text."""
    for m in re.finditer(r"__global__", text):
        brace = text.find("{", m.end())
        semi = text.find(";", m.end())
        if brace < 0 or (0 <= semi < brace):
            continue  # a declaration
        head = text[m.end():brace]
        name = re.findall(r"(\w+)\s*\(", head)
        depth, i = 0, brace
        while i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        yield (name[-1] if name else "?"), text[brace + 1:i]


def main(paths):
    bad = 0
    for p in paths:
        with open(p) as f:
            text = f.read()
        for name, body in kernels(text):
            # allowed before the wait: shared declarations and locals computed from the launch's
            # indices (no loads); the wait must come before the first statement with a [ or ->
            # or a call other than the wait itself
            stmts = [s.strip() for s in body.split(";")]
            ok = False
            for s in stmts:
                if "grid_dependency_sync()" in s:
                    ok = True
                    break
                if not (s.startswith("__shared__") or s == "" or s.startswith("//")):
                    break
            print("%s: %s: %s" % (p.split("/")[-1], name, "waits first" if ok else "DOES NOT WAIT FIRST"))
            bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
