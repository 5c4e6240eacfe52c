"""Checks the order of the programmatic-dependent-launch instructions in every kernel of a PTX
file (.entry NAME( ... up to the next .entry): each must wait for the kernel before it
(griddepcontrol.wait) before it lets the next one be scheduled (griddepcontrol.launch_dependents,
templates/hip/common.hpp grid_dependency_sync). Prints "N kernels wait, then launch" and, per
kernel that does otherwise, "NAME: LAUNCHES BEFORE IT WAITS" or "NAME: NO WAIT"; exit status 1
then.
  python3 check_pdl_order.py FILE.ptx
"""
import re
import sys

text = open(sys.argv[1]).read()
starts = list(re.finditer(r"^\.(?:visible )?\.?entry (\S+)\(", text, re.M))
if not starts:
    sys.exit("no kernel in %s" % sys.argv[1])
good, bad = 0, []
for i, m in enumerate(starts):
    body = text[m.end():(starts[i + 1].start() if i + 1 < len(starts) else len(text))]
    ops = re.findall(r"griddepcontrol\.(wait|launch_dependents)", body)
    if not ops or ops[0] != "wait" or "wait" not in ops:
        bad.append("%s: %s" % (m.group(1), "NO WAIT" if "wait" not in ops else "LAUNCHES BEFORE IT WAITS"))
    elif "launch_dependents" in ops:
        good += 1
print("%d kernels wait, then launch" % good)
for line in bad:
    print(line)
sys.exit(1 if bad else 0)
