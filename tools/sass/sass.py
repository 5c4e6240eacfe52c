#!/usr/bin/env python3
"""What nvcc makes of a model's hip kernels, without a GPU: registers, spills and the
instructions of each loop of the machine code (SASS), for comparing two versions of a template.

    python3 tools/sass/sass.py MODEL [--kernel REGEX] [--loops] [--out DIR] [-- MXC ARGS...]

builds MODEL's sources for sm_90 (`mxc --emit-src`, nothing linked), compiles model.hip and each
kernels*.hip file (the kernels of templates the model source launches itself, layer norm and
softmax among them, are in model.hip) to a cubin with nvcc (-Xptxas -v: registers and spills), disassembles it with nvdisasm
(tools/sass/get-nvdisasm.sh fetches one: CUDA 11.8's, which reads sm_90 code but not the ELF
header CUDA 12.8+ writes, so the header is rewritten in the old form first), and prints per
kernel whose name matches REGEX (default: every one) its registers, spill bytes and
instructions; with --loops, each loop (a backward branch) that holds matrix instructions
(HMMA), or whose instructions are at least an eighth FMAs (FFMA, DFMA, HFMA2: the SIMT GEMM),
or every loop with --all-loops: its static instruction count and opcode mix. A loop's
instructions per K step, against the matrix instructions or FMAs in it, is the number to
compare: the fp32 GEMM's ring loop took 954 a 32-deep step for 192 HMMA before 2026-11-29's
streamed copies, 743 after; the SIMT medium tile's loop 630-707 a 16-deep step for 256 FFMA
register-staged, 366-367 on the ring (bench/gpu/README.md).

MXC is build/mxc unless $MXC names another; NVCC /usr/local/cuda/bin/nvcc unless $NVCC.
"""
import argparse
import collections
import os
import re
import struct
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def nvdisasm():
    d = subprocess.run(["bash", os.path.join(ROOT, "tools/sass/get-nvdisasm.sh")], check=True, capture_output=True,
                       text=True).stdout.strip()
    return os.path.join(d, "nvdisasm")


def old_header(cubin, out):
    """A copy of cubin with the ELF header of CUDA < 12.8 (OS ABI 0x33, ABI version 7, e_flags
    with the SM in its low byte and again in bits 16-23, 0x500 for 64-bit addresses), which is
    all nvdisasm 11.8 refuses in the newer files."""
    d = bytearray(open(cubin, "rb").read())
    flags = struct.unpack_from("<I", d, 0x30)[0]
    sm = (flags >> 8) & 0xff  # the new form: the SM in bits 8-15
    d[7], d[8] = 0x33, 7
    struct.pack_into("<I", d, 0x30, sm | 0x500 | sm << 16)
    open(out, "wb").write(d)


def functions(sass):
    """{mangled name: [(label or None, text)]} of nvdisasm -c output."""
    funcs, cur = {}, None
    for line in sass.split("\n"):
        m = re.match(r"^\.text\.(\S+):", line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        if cur is None:
            continue
        m = re.match(r"^\s*(\.L_x_\d+):", line)
        if m:
            cur.append((m.group(1), None))
            continue
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;", line)
        if m:
            cur.append((None, m.group(1)))
    return funcs


def opcode(text):
    return re.sub(r"^@!?U?P[T0-9]+\s+", "", text).split()[0]


def loops(body, all_loops):
    """[(first, last, Counter of opcodes)] of the backward branches' bodies."""
    labels, ins = {}, []
    for label, text in body:
        if label:
            labels[label] = len(ins)
        else:
            ins.append(text)
    found = []
    for j, text in enumerate(ins):
        m = re.search(r"BRA\s+`?\(?(\.L_x_\d+)", text)
        if m and m.group(1) in labels and labels[m.group(1)] <= j:
            c = collections.Counter(opcode(t) for t in ins[labels[m.group(1)]:j + 1])
            fma = sum(v for k, v in c.items() if k.split(".")[0] in ("FFMA", "DFMA", "HFMA2"))
            if all_loops or any(k.startswith("HMMA") or k.startswith("HGMMA") for k in c) or 8 * fma >= sum(c.values()):
                found.append((labels[m.group(1)], j, c))
    return len(ins), found


def ptxas_info(log):
    """{mangled name: (registers, spill store bytes, spill load bytes)} from ptxas -v."""
    info, name, spill = {}, None, (0, 0)
    for line in log.split("\n"):
        m = re.search(r"Compiling entry function '(\S+)'", line)
        if m:
            name, spill = m.group(1), (0, 0)
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            spill = (int(m.group(1)), int(m.group(2)))
        m = re.search(r"Used (\d+) registers", line)
        if m and name:
            info[name] = (int(m.group(1)),) + spill
            name = None
    return info


def demangle(name):
    """The kernel's demangled name without its parameter list (the template arguments say which
    instantiation it is)."""
    try:
        pretty = subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.strip() or name
    except OSError:
        return name
    if pretty.endswith(")"):
        depth = 0
        for i in range(len(pretty) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(pretty[i], 0)
            if depth == 0:
                return pretty[:i]
    return pretty


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("--kernel", default="", help="regular expression on the demangled kernel names")
    ap.add_argument("--loops", action="store_true", help="each loop with matrix instructions or at least an eighth FMAs: count and opcode mix")
    ap.add_argument("--all-loops", action="store_true", help="every loop, with --loops")
    ap.add_argument("--out", help="keep the sources, cubins and SASS here (default: a temporary folder)")
    ap.add_argument("--arch", default="sm_90")
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    a = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    a.mxc_args = extra  # after --: more mxc arguments (--fp16, ...)
    mxc = os.environ.get("MXC", os.path.join(ROOT, "build/mxc"))
    nvcc = os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc")
    dis = nvdisasm()
    with tempfile.TemporaryDirectory(prefix="mxc-sass-") as tmp:
        out = a.out or tmp
        os.makedirs(out, exist_ok=True)
        subprocess.run([mxc, a.model, "--target", "hip", "--offload-arch", a.arch, "--hip-compiler", "/bin/true", "--no-cache",
                        "-q", "--emit-src", out, "-o", os.path.join(out, "unused.so")] + a.mxc_args, check=True)
        sources = sorted(f for f in os.listdir(out) if re.match(r"(kernels\d*|model)\.hip$", f))

        def build(src):
            base = os.path.join(out, src[:-4])
            r = subprocess.run([nvcc, "-x", "cu", "-std=c++17", "-arch=" + a.arch, "-O2", "-I" + os.path.join(out, "runtime-stub/cuda"),
                                "-I" + out, "-Xptxas", "-v", "-cubin", os.path.join(out, src), "-o", base + ".cubin"],
                               capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit("nvcc failed on %s:\n%s" % (src, r.stderr[-3000:]))
            old_header(base + ".cubin", base + ".old.cubin")
            sass = subprocess.run([dis, "-c", base + ".old.cubin"], check=True, capture_output=True, text=True).stdout
            open(base + ".sass", "w").write(sass)
            return r.stderr, sass

        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            results = list(pool.map(build, sources))
        info, funcs = {}, {}
        for log, sass in results:
            info.update(ptxas_info(log))
            funcs.update(functions(sass))
        pattern = re.compile(a.kernel)
        for name in sorted(info):
            pretty = demangle(name)
            if not pattern.search(pretty) or name not in funcs:
                continue
            regs, st, ld = info[name]
            count, found = loops(funcs[name], a.all_loops)
            shown = pretty if len(pretty) <= 300 else pretty[:200] + " ... " + pretty[-95:]
            print("%s\n  %d registers, spills %d/%d bytes, %d instructions" % (shown, regs, st, ld, count))
            if a.loops:
                for first, last, c in found:
                    print("  loop %d..%d: %d instructions: %s" % (first, last, sum(c.values()),
                                                                 ", ".join("%s %d" % kv for kv in c.most_common(12))))


if __name__ == "__main__":
    main()
