# The coefficients of mxc_erf_host (templates/common/math.hpp): least-squares fits, weighted for
# relative error, on 4000 Chebyshev points, in double:
#   P(z), degree 6:  erf(x) / x for z = x^2 in [0, 0.81]    (erf(x) = x P(x^2) for |x| < 0.9)
#   Q(x), degree 12: log(erfc(x)) for x in [0.9, 4]         (erf(x) = 1 - exp(Q(x)))
# and the worst error of the float evaluation (Horner, float32 at every step) on a grid of
# [0, 3.95], in ulp of float erf. Prints the coefficients, lowest degree first.
#   /usr/bin/python3 tools/fit_erf.py
from math import erf, erfc, log, pi, sqrt

import numpy as np


def fit(f, a, b, deg):
    k = np.arange(4000)
    u = (a + b) / 2 + (b - a) / 2 * np.cos(np.pi * (k + 0.5) / 4000)
    y = np.array([f(v) for v in u])
    w = 1 / np.abs(y)
    return np.linalg.lstsq(np.vander(u, deg + 1, increasing=True) * w[:, None], y * w, rcond=None)[0]


def horner(c, v):
    p = np.float32(c[-1])
    for a in c[-2::-1]:
        p = np.float32(p * np.float32(v) + np.float32(a))
    return p


T = 0.9
P = fit(lambda z: erf(sqrt(z)) / sqrt(z) if z > 0 else 2 / sqrt(pi), 0, T * T, 6)
Q = fit(lambda x: log(erfc(x)), T, 4.0, 12)
worst = 0.0
for xf in np.linspace(1e-6, 3.95, 200001).astype(np.float32):
    y = xf * horner(P, np.float32(xf * xf)) if xf < T else np.float32(1) - np.float32(np.exp(horner(Q, xf)))
    t = erf(float(xf))
    worst = max(worst, abs(float(y) - t) / float(np.spacing(np.float32(t))))
print("P", [float(v) for v in P])
print("Q", [float(v) for v in Q])
print("worst %.2f ulp (float evaluation, numpy's exp)" % worst)
