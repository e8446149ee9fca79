"""``exp`` of a row of non-positive numbers in loops the compiler vectorises:
the Gaussian kernel rows that the solvers compute on demand.

numba calls the C library's ``exp`` once per entry (no vector math library is
installed here), about 5 ns an entry: at n = 2000 a Gaussian row took 10-11 us,
most of a modified-hinge fit that computes several hundred rows (issue 29).
:func:`exp_into` splits ``exp`` into three plain loops that LLVM vectorises,
measured 3.8 against 16.8 us for 2000 entries on this machine:

1. range reduction (Cody and Waite): ``x = k ln 2 + r``, ``|r| <= ln 2 / 2``,
   with ``k`` rounded by adding ``1.5 * 2^52`` (its integer then sits in the
   low bits of the sum) and ``ln 2`` split in two so that ``k ln 2`` is exact;
   ``e^r`` by its Taylor polynomial of degree 13 (remainder below 4e-18 on
   that interval) in Horner form;
2. ``2^k`` built from the bits of the rounded sum (an integer loop);
3. the product.

Accuracy: within 2 units in the last place of the C library's ``exp`` (tested
against ``np.exp`` over [-708, 0] in tests/test_vector_exp.py), far inside the
1e-13 to which kernel rows must equal :func:`svmlab.kernels.gram`. Below -708
(``exp < 3.3e-308``) the result is 0.

References
----------
Cody, Waite (1980), Software manual for the elementary functions (the
reduction); Muller (2016), Elementary functions, chapter 11.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["EXP_FLOOR", "exp_into"]

#: Below this argument the result is 0 (the true value is under 3.3e-308).
EXP_FLOOR = -708.0
_LOG2E = 1.4426950408889634
# ln 2 in two parts; the first has its low bits zero, so k * _LN2_HI is exact
# for |k| < 2^11 (fdlibm's constants).
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
# 1.5 * 2^52: adding it rounds to an integer, which then sits in the low bits.
_ROUND = 6755399441055744.0
_ROUND_BITS = 0x4338000000000000
#: Below this many entries the scalar C library loop (no work array).
SHORT = 16


@njit(cache=True, nogil=True)
def exp_into(v, start, end):  # pragma: no cover - compiled
    """``v[t] = exp(v[t])`` for ``start <= t < end``, every ``v[t] <= 0``."""
    m = end - start
    if m < SHORT:
        for t in range(start, end):
            v[t] = math.exp(v[t]) if v[t] >= EXP_FLOOR else 0.0
        return
    w = v[start:end]
    bits = np.empty(m, dtype=np.int64)
    scale = bits.view(np.float64)
    for t in range(m):
        x = w[t]
        xc = max(x, EXP_FLOOR)
        s = xc * _LOG2E + _ROUND
        k = s - _ROUND
        r = (xc - k * _LN2_HI) - k * _LN2_LO
        p = 1.0 / 6227020800.0
        p = p * r + 1.0 / 479001600.0
        p = p * r + 1.0 / 39916800.0
        p = p * r + 1.0 / 3628800.0
        p = p * r + 1.0 / 362880.0
        p = p * r + 1.0 / 40320.0
        p = p * r + 1.0 / 5040.0
        p = p * r + 1.0 / 720.0
        p = p * r + 1.0 / 120.0
        p = p * r + 1.0 / 24.0
        p = p * r + 1.0 / 6.0
        p = p * r + 0.5
        p = p * r + 1.0
        p = p * r + 1.0
        w[t] = p if x >= EXP_FLOOR else 0.0
        scale[t] = s
    for t in range(m):
        bits[t] = (bits[t] - _ROUND_BITS + 1023) << 52
    for t in range(m):
        w[t] *= scale[t]
