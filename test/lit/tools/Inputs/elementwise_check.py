# The outputs y0, y1, y2 of elementwise.onnx for a = [[1,2,3],[4,5,6]], b = [0.5,-1,2], from numpy.
import sys, os
import numpy as np
a = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
b = np.array([0.5, -1, 2], np.float32)
want = [1 / (1 + np.exp(-((a + b) * 2 - a))), np.tanh(a) / b, np.tanh(a) / b]
for i, w in enumerate(want):
    g = np.load(os.path.join(sys.argv[1], "y%d.npy" % i))
    if not np.allclose(g, w, rtol=1e-5, atol=1e-6): sys.exit("y%d: %s, expected %s" % (i, g, w))
