"""The kernels of one model's hip library on the GPU (device only): compiles MODEL with mxc for
sm_90, runs it in device-pointer mode on random inputs (uniform -1..1; integer inputs 0), and
prints the median run time over RUNS runs (CUDA events, as bench.py) and the kernels of one run
as CUPTI records them (torch.profiler), longest first.
  python3 bench/gpu/kernel_profile.py MODEL.onnx [--fp16] [--runs 50] [--mxc PATH] [--arch sm_90] [--tuning-db FILE]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--fp16", action="store_true")
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--mxc", default=os.environ.get("MXC", ".carry/bin/mxc"))
    ap.add_argument("--tuning-db", default=None, help="passed to mxc: the tiles --tune chose (docs/tuning.md)")
    a = ap.parse_args()
    import torch
    import torch_side
    from mxclib import Library
    torch_side.setup(False)
    d = tempfile.mkdtemp(prefix="mxc-profile-")
    lib = os.path.join(d, "libm.so")
    src = os.path.join(d, "src")
    cmd = [a.mxc, a.model, "--target", "hip", "--offload-arch", a.arch, "-o", lib, "--name", "m", "-q", "--emit-src", src]
    subprocess.run(cmd + (["--fp16"] if a.fp16 else []) + (["--tuning-db", a.tuning_db] if a.tuning_db else []), check=True)
    probe = Library(lib, "m")
    rng = np.random.default_rng(0)
    feeds = {i["name"]: (rng.uniform(-1, 1, i["shape"]) if i["dtype"].kind == "f" else np.zeros(i["shape"])).astype(i["dtype"])
             for i in probe.inputs}
    probe.close()
    median, times, _, sync = torch_side.run_mxc(lib, "m", feeds, a.runs, 10)
    import timeline
    total, rows, tl = torch_side.profile_mxc(lib, "m", feeds)
    print("%s%s: %.3f ms per run (median of %d, run_async between events; %.3f ms synchronous), kernels %.3f ms in %.0f launches, the rest %.1f us" %
          (os.path.basename(a.model), " --fp16" if a.fp16 else "", median, a.runs, sync, total, sum(r[2] for r in rows),
           1000 * (median - total)))
    print("timeline: %s; the run time minus the busy time: %.1f us" % (timeline.describe(tl), 1000 * (median - tl["busy_ms"])))
    for name, ms, n in rows:
        print("%9.4f ms %5.1f%% x%-4g %s" % (ms, 100 * ms / total if total else 0, n, name[:220]))
    # the GEMM problems and the kernel each got (the comments above the generated launches)
    counts = {}
    for f in sorted(os.listdir(src)):
        if f.endswith(".hip"):
            with open(os.path.join(src, f)) as g:
                for line in g:
                    if line.strip().startswith("// gemm ") or line.strip().startswith("// tuned"):
                        counts[line.strip()[3:]] = counts.get(line.strip()[3:], 0) + 1
    print("GEMM launches (problem MxNxKxZ: configuration):")
    for text, n in sorted(counts.items(), key=lambda t: -t[1]):
        print("  x%-3d %s" % (n, text))


if __name__ == "__main__":
    main()
