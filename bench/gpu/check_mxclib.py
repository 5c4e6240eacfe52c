"""Checks bench/gpu/mxclib.py without a GPU: builds MODEL for the cpu target and for the host
SIMT emulator (--target hip --offload-arch emu, whose "device" memory is host memory), runs
both through mxclib on the same seeded inputs (cpu: host buffers; emu: offload mode and
device-pointer mode on numpy buffers, run and run_async, outputs poisoned with NaN first) and
compares them.

    /usr/bin/python3 bench/gpu/check_mxclib.py [--mxc build/mxc] [MODEL.onnx (examples/cnn.onnx)]
Exit 0 when all agree (max|a-b|/max|b| <= 1e-4), 1 otherwise.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from mxclib import Library, MxcError, run_host  # noqa: E402


def build(mxc, model, lib, *target):
    subprocess.run([mxc, model, "-o", lib, "--name", "m", "-q"] + list(target), check=True)


def inputs_for(lib):
    rng = np.random.default_rng(0)
    return [rng.uniform(-1, 1, i["shape"]).astype(i["dtype"]) if i["dtype"].kind == "f"
            else rng.integers(0, 2, i["shape"]).astype(i["dtype"]) for i in lib.inputs]


def run_device_pointers(path, arrays, use_async=False):
    """Device-pointer mode as bench/gpu/torch_side.py uses it, on emulator (host) memory; with
    use_async, enqueued by run_async on the instance's stream (the emulator's streams run what
    they are given at once, so the outputs are there when it returns)."""
    lib = Library(path, "m", device_pointers=True)
    try:
        outs = [np.full(o["shape"], np.nan, o["dtype"]) for o in lib.outputs]
        lib.set_pointers([a.ctypes.data for a in arrays], [o.ctypes.data for o in outs])
        if use_async:
            lib.run_async(0)
        else:
            lib.run()
        return outs
    finally:
        lib.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", nargs="?", default=os.path.join(ROOT, "examples/cnn.onnx"))
    ap.add_argument("--mxc", default=os.path.join(ROOT, "build/mxc"))
    a = ap.parse_args()
    d = tempfile.mkdtemp(prefix="mxclib-check-")
    cpu, emu = os.path.join(d, "cpu", "libm.so"), os.path.join(d, "emu", "libm.so")
    for p in (cpu, emu):
        os.makedirs(os.path.dirname(p))
    build(a.mxc, a.model, cpu, "--target", "cpu")
    build(a.mxc, a.model, emu, "--target", "hip", "--offload-arch", "emu")
    ref_lib = Library(cpu, "m")
    arrays = inputs_for(ref_lib)
    ref = run_host(ref_lib, arrays)
    try:  # a wrong shape is refused with a message, not run
        run_host(ref_lib, [np.zeros((1,) + x.shape, x.dtype) for x in arrays])
        print("FAIL: a wrong input shape was accepted")
        return 1
    except MxcError as e:
        print("wrong shape refused: %s" % e)
    ref_lib.close()
    emu_lib = Library(emu, "m")
    results = {"emu offload": run_host(emu_lib, arrays)}
    emu_lib.close()
    results["emu device pointers"] = run_device_pointers(emu, [np.ascontiguousarray(x) for x in arrays])
    results["emu device pointers, run_async"] = run_device_pointers(emu, [np.ascontiguousarray(x) for x in arrays], True)
    ok = True
    for what, outs in results.items():
        for o, r in zip(outs, ref):
            err = float(np.max(np.abs(o.astype(np.float64) - r))) / max(float(np.max(np.abs(r))), 1e-30)
            good = o.shape == r.shape and bool(np.all(np.isfinite(o))) and err <= 1e-4
            ok &= good
            print("%s vs cpu: shape %s, max rel %.2e: %s" % (what, o.shape, err, "ok" if good else "FAIL"))
    print("mxclib check: %s (%s)" % ("pass" if ok else "FAIL", d))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
