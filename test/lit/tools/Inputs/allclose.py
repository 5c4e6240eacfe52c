# allclose.py A.npy B.npy [rtol] [atol]: exit 1 (saying where) unless the arrays match.
import sys
import numpy as np
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
rtol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-5
atol = float(sys.argv[4]) if len(sys.argv) > 4 else 1e-6
if a.shape != b.shape or a.dtype != b.dtype:
    sys.exit("%s: %s %s, %s: %s %s" % (sys.argv[1], a.dtype, a.shape, sys.argv[2], b.dtype, b.shape))
if not np.allclose(a, b, rtol=rtol, atol=atol):
    sys.exit("%s and %s differ: max |a-b| %g" % (sys.argv[1], sys.argv[2], np.abs(a - b).max()))
