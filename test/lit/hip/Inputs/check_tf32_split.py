"""Checks the 3xTF32 operand split of the fp32 matrix-unit GEMM in a PTX file (templates/hip/
mma.hpp, mma_tile<float>): in each device function whose name contains KERNEL, prints
  KERNEL: N shared-state tf32 loads, G generic, B conversion blocks without a product
where a "conversion block" is a basic block (between PTX labels) that holds a rounding to
TF32 (cvt.rna.tf32.f32, or mma_tile<float>::tf32_round's add of 4096 and `and` with -8192)
and no wmma.mma.sync: a conversion the compiler put behind its own branch, which splits a K
step into blocks the scheduler cannot interleave products across.
  python3 check_tf32_split.py FILE KERNEL
"""
import re
import sys

path, kernel = sys.argv[1:3]
text = open(path).read()
starts = list(re.finditer(r"^\.(?:visible )?\.?entry (\S+)\(", text, re.M))
found = 0
for i, m in enumerate(starts):
    if kernel not in m.group(1):
        continue
    found += 1
    body = text[m.end():(starts[i + 1].start() if i + 1 < len(starts) else len(text))]
    shared = len(re.findall(r"wmma\.load\.[ab]\.sync\.aligned\.\w+\.m16n16k8\.shared\.tf32", body))
    generic = len(re.findall(r"wmma\.load\.[ab]\.sync\.aligned\.\w+\.m16n16k8\.tf32", body))
    blocks = re.split(r"^\$L__\w+:", body, flags=re.M)
    rounds = lambda b: "cvt.rna.tf32.f32" in b or re.search(r"and\.b32\s+%r\d+, %r\d+, -8192;", b)
    lonely = sum(1 for b in blocks if rounds(b) and "wmma.mma.sync" not in b)
    print("%s: %d shared-state tf32 loads, %d generic, %d conversion blocks without a product" % (kernel, shared, generic, lonely))
if not found:
    sys.exit("no function named like %s in %s" % (kernel, path))
