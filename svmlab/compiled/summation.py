"""NumPy's sum of a float64 vector, compiled, to the bit.

A compiled pass that replaces a few NumPy calls must give the numbers NumPy
gave, or a fit's answer changes in its last digits (issue 48 keeps them). A
sum is where the two differ: ``np.add.reduce`` on a contiguous float64 vector
does not add left to right but pairwise (NumPy's ``pairwise_sum`` in
``numpy/_core/src/umath/loops_utils.h.src``): fewer than 8 terms one after the
other; up to 128 in eight running sums, combined as ``((r0 + r1) + (r2 + r3)) +
((r4 + r5) + (r6 + r7))``, then the terms left over; more than 128 split at
half (rounded down to a multiple of 8) and the two halves summed so. The
reduction adds that to its identity, 0.0 (so a sum of ``-0.0`` is ``0.0``).
:func:`numpy_sum` is that order; ``tests/test_summation.py`` compares it with
``np.sum`` itself.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["numpy_sum"]

#: NumPy's ``PW_BLOCKSIZE``: the longest run summed in eight running sums.
_BLOCK = 128


@njit(cache=True, nogil=True)
def _block(a, lo, n):  # pragma: no cover - compiled
    """NumPy's ``pairwise_sum`` of ``a[lo : lo + n]`` for ``n <= 128``."""
    if n < 8:
        res = -0.0  # NumPy starts at 0.; the identity added last settles the sign
        for i in range(n):
            res += a[lo + i]
        return res
    r0 = a[lo]
    r1 = a[lo + 1]
    r2 = a[lo + 2]
    r3 = a[lo + 3]
    r4 = a[lo + 4]
    r5 = a[lo + 5]
    r6 = a[lo + 6]
    r7 = a[lo + 7]
    full = n - n % 8
    i = 8
    while i < full:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


#: Deepest split of :func:`_pairwise` (each halves the run: 2^64 terms).
_DEPTH = 64


@njit(cache=True, nogil=True)
def _pairwise(a, n):  # pragma: no cover - compiled
    """NumPy's ``pairwise_sum`` of ``a[:n]``: its recursion (left half, right
    half, their sum) walked with an explicit stack, because numba's disk cache
    does not keep a recursive function safely (a cached one crashed here)."""
    if n <= _BLOCK:
        return _block(a, 0, n)
    lo = np.empty(_DEPTH, dtype=np.int64)
    size = np.empty(_DEPTH, dtype=np.int64)
    stage = np.zeros(_DEPTH, dtype=np.int64)  # 0: start, 1: left done, 2: both
    left = np.empty(_DEPTH)
    top = 0
    lo[0] = 0
    size[0] = n
    ret = 0.0
    while top >= 0:
        m = size[top]
        if m <= _BLOCK:
            ret = _block(a, lo[top], m)
            top -= 1
            continue
        half = m // 2
        half -= half % 8
        if stage[top] == 0:
            stage[top] = 1
            top += 1
            lo[top], size[top], stage[top] = lo[top - 1], half, 0
        elif stage[top] == 1:
            left[top] = ret
            stage[top] = 2
            top += 1
            lo[top], size[top], stage[top] = lo[top - 1] + half, m - half, 0
        else:
            ret = left[top] + ret
            top -= 1
    return ret


@njit(cache=True, nogil=True)
def numpy_sum(a, n):  # pragma: no cover - compiled
    """``np.sum(a[:n])`` to the bit (``a`` a float64 vector): the identity 0.0
    plus NumPy's pairwise sum."""
    return 0.0 + _pairwise(a, n)
