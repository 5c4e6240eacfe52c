"""Checks the 3xTF32 operand split of the fp32 matrix-unit GEMM in a PTX file (templates/hip/
mma.hpp, mma_tile<float>): in each device function whose name contains KERNEL, prints
  KERNEL: N shared-state f32 loads, G generic, P m16n8k8 products, W wmma ones, B conversion blocks without a product
where the loads are the fragments' elements (ld.shared.f32 against a generic ld.f32), the
products mma.sync m16n8k8 TF32 (wmma's 16x16x8 shape took twice the instructions), and a
"conversion block" is a basic block (between PTX labels) that holds a rounding to TF32
(cvt.rna.tf32.f32, or mma_tile<float>::tf32_round's add of 4096 and `and` with -8192) and
no mma.sync: a conversion the compiler put behind its own branch, which splits a K step into
blocks the scheduler cannot interleave products across.
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
    shared = len(re.findall(r"\bld\.shared\.f32\b", body))
    generic = len(re.findall(r"\bld\.f32\b", body))
    products = len(re.findall(r"^\s*mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.tf32\.tf32\.f32", body, re.M))
    wmma = len(re.findall(r"wmma\.mma\.sync\.aligned\.\w+\.\w+\.m16n16k8", body))
    blocks = re.split(r"^\$L__\w+:", body, flags=re.M)
    rounds = lambda b: "cvt.rna.tf32.f32" in b or re.search(r"and\.b32\s+%r\d+, %r\d+, -8192;", b)
    lonely = sum(1 for b in blocks if rounds(b) and "mma.sync" not in b)
    print("%s: %d shared-state f32 loads, %d generic, %d m16n8k8 products, %d wmma ones, %d conversion blocks without a product" %
          (kernel, shared, generic, products, wmma, lonely))
if not found:
    sys.exit("no function named like %s in %s" % (kernel, path))
