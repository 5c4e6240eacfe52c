"""Counts an instruction in each device function whose name contains KERNEL, in a PTX file
(.entry NAME( ... up to the next .entry) or an AMDGPU assembly file (NAME: ... .Lfunc_endN):
prints one line per function, "KERNEL: N INSTRUCTION". Fails when no such function is there.
  python3 count_in_kernel.py FILE KERNEL INSTRUCTION
"""
import re
import sys

path, kernel, what = sys.argv[1:4]
text = open(path).read()
if path.endswith(".ptx"):
    starts = [m for m in re.finditer(r"^\.(?:visible )?\.?entry (\S+)\(", text, re.M)]
    bodies = [(m.group(1), text[m.end():(starts[i + 1].start() if i + 1 < len(starts) else len(text))]) for i, m in enumerate(starts)]
else:
    bodies = []
    for m in re.finditer(r"^(\S+):[^\n]*$", text, re.M):
        if m.group(1).startswith("_Z"):
            end = text.find(".Lfunc_end", m.end())
            bodies.append((m.group(1), text[m.end():end if end >= 0 else len(text)]))
found = [(name, body) for name, body in bodies if kernel in name]
if not found:
    sys.exit("no function named like %s in %s" % (kernel, path))
for name, body in found:
    print("%s: %d %s" % (kernel, body.count(what), what))
