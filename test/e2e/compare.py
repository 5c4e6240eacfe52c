#!/usr/bin/python3
"""Compares two raw little-endian arrays: compare.py A.bin B.bin DTYPE [--rtol R] [--atol A]
Passes when |a - b| <= atol + rtol * |b| everywhere (b is the reference); prints the max
absolute and relative errors either way."""
import argparse
import sys
import numpy as np

p = argparse.ArgumentParser()
p.add_argument("a"); p.add_argument("b"); p.add_argument("dtype")
p.add_argument("--rtol", type=float, default=1e-5); p.add_argument("--atol", type=float, default=1e-6)
args = p.parse_args()
a = np.fromfile(args.a, dtype=args.dtype).astype(np.float64)
b = np.fromfile(args.b, dtype=args.dtype).astype(np.float64)
if a.shape != b.shape:
    print(f"FAIL: sizes differ: {a.size} vs {b.size}"); sys.exit(1)
err = np.abs(a - b)
rel = err / np.maximum(np.abs(b), 1e-30)
ok = bool(np.all(err <= args.atol + args.rtol * np.abs(b)))
print(f"{'PASS' if ok else 'FAIL'}: {a.size} values, max abs error {err.max() if a.size else 0:.3g}, "
      f"max rel error {rel.max() if a.size else 0:.3g} (rtol {args.rtol}, atol {args.atol})")
sys.exit(0 if ok else 1)
