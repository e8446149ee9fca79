"""LIBSVM's kernel cache in position order: rows on demand, least recently used
out first, and ``swap_index`` for a shrinking solver's contiguous active set.

A row is computed only up to the length asked for (LIBSVM's ``get_Q(i, len)``):
the rows of the active points only, while the solver is shrunk. A miss gathers
the row from a Gram matrix handed in, or computes it from the points
(:func:`svmlab.kernels.kernel_row_into`) when there is none, so a problem with
few support vectors never forms the ``n x n`` matrix. A swap exchanges the two
entries in every cached row long enough to hold both, and truncates a row that
holds only the first (LIBSVM deletes it; keeping the valid part is cheaper).
Unlike LIBSVM, a swap only goes into a log: each row applies the swaps it has
not seen when it is next read (so a row evicted unread never pays for them),
and the whole log is applied to every row when it fills.

The state is plain arrays so that numba compiles it: ``src = (K, X, perm, kind,
params)`` (where the rows come from), ``cache = (rows, slot_of, owner, length,
stamp, synced, log)`` and the integer counters ``ist`` (indices below), shared with the
solver loop in :mod:`svmlab.solvers.shrinking`.

References
----------
Chang, Lin (2011), LIBSVM: a library for support vector machines, ACM TIST 2,
section 4.1 (``svm.cpp``: ``Cache::get_data``, ``Cache::swap_index``).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from svmlab.kernels import kernel_row_into

__all__ = [
    "CACHE_MB",
    "cache_arrays",
    "cached_row",
    "row_slot",
    "swap_positions",
]

#: Kernel cache size in megabytes (scikit-learn's default ``cache_size``).
CACHE_MB = 200.0

# Integer state (``ist``): active-set size, iterations to the next shrinking,
# whether the one-time un-shrink happened, LRU clock, cache slots in use, kernel
# entries computed, shrinking rounds, gradient reconstructions, points swept
# (active points summed over iterations), swaps, moves to or from the upper
# bound, the next iteration's ``i`` found during the last update (-2:
# unknown), the rows computed in parallel and the shrinking interval.
ACTIVE, COUNTER, UNSHRINK, CLOCK, USED, EVALS, SHRINKS, RECONSTRUCTS, SWEPT = range(9)
SWAPS, BOUND_MOVES, NEXT = 9, 10, 11
#: Rows computed on every core (:func:`svmlab.kernels.kernel_row_into`).
PARALLEL_ROWS = 12
#: Iterations between two shrinking rounds (set by the solver, read by its loop).
INTERVAL = 13
#: Swaps logged and not yet applied to every cached row (:func:`swap_positions`).
LOGGED = 14
N_COUNTERS = 15


def cache_arrays(n: int, cache_mb: float, dtype: type) -> tuple[NDArray, ...]:
    """An empty cache of at most ``cache_mb`` megabytes of rows of length ``n``
    (at least two rows: a pair step needs both): ``(rows, slot_of, owner,
    length, stamp, synced, log)``, the last two the swaps not yet applied to
    every row (:func:`swap_positions`)."""
    itemsize = np.dtype(dtype).itemsize
    cap = int(min(n, max(2, cache_mb * 2**20 // (n * itemsize))))
    return (
        np.empty((cap, n), dtype=dtype),
        np.full(n, -1, dtype=np.int64),
        np.zeros(cap, dtype=np.int64),
        np.zeros(cap, dtype=np.int64),
        np.zeros(cap, dtype=np.int64),
        np.zeros(cap, dtype=np.int64),
        np.zeros((max(n, SWAP_LOG_MIN), 2), dtype=np.int64),
    )


#: The swap log holds at least this many swaps (then n) before it is applied
#: to every row at once.
SWAP_LOG_MIN = 1024


@njit(cache=True, nogil=True, inline="always")
def _replay(s, cdata, clen, synced, log, logged):  # pragma: no cover - compiled
    """Apply to row slot ``s`` the logged swaps it has not seen, in order:
    exchange the two entries where the row holds both, cut it where it holds
    only the first (LIBSVM's ``swap_index``, one row at a time)."""
    row = cdata[s]
    for e in range(synced[s], logged):
        lo = log[e, 0]
        if clen[s] > lo:
            hi = log[e, 1]
            if clen[s] > hi:
                row[lo], row[hi] = row[hi], row[lo]
            else:
                clen[s] = lo
    synced[s] = logged


@njit(cache=True, nogil=True, inline="always")
def row_slot(pos, length, K, X, perm, kind, kp, cdata, slot_of, owner, clen, stamp,
             synced, log, ist):  # fmt: skip  # pragma: no cover
    """The cache slot holding row ``pos`` of K (positions ``0 .. length - 1``
    valid): ``cdata[slot]`` is the row. The arrays one by one, for a hot loop
    that unpacked ``src`` and ``cache`` once (a tuple unpacked per call costs
    reference counts)."""
    ist[CLOCK] += 1
    s = slot_of[pos]
    if s < 0:
        cap = cdata.shape[0]
        if ist[USED] < cap:
            s = ist[USED]
            ist[USED] += 1
        else:  # evict the least recently used row
            s = 0
            oldest = stamp[0]
            for q in range(1, cap):
                if stamp[q] < oldest:
                    oldest = stamp[q]
                    s = q
            slot_of[owner[s]] = -1
        owner[s] = pos
        slot_of[pos] = s
        clen[s] = 0
        synced[s] = ist[LOGGED]
    elif synced[s] < ist[LOGGED]:
        _replay(s, cdata, clen, synced, log, ist[LOGGED])
    stamp[s] = ist[CLOCK]
    have = clen[s]
    if have < length:
        if kernel_row_into(K, X, perm, kind, kp, pos, have, length, cdata[s]):
            ist[PARALLEL_ROWS] += 1
        clen[s] = length
        ist[EVALS] += length - have
    return s


@njit(cache=True, nogil=True, inline="always")
def cached_row(pos, length, src, cache, ist):  # pragma: no cover - compiled
    """Row ``pos`` of K (positions ``0 .. length - 1`` valid), from the cache."""
    K, X, perm, kind, kp = src
    cdata, slot_of, owner, clen, stamp, synced, log = cache
    s = row_slot(pos, length, K, X, perm, kind, kp, cdata, slot_of, owner, clen,
                 stamp, synced, log, ist)  # fmt: skip
    return cdata[s]


@njit(cache=True, nogil=True)
def swap_positions(i, j, vec, src, cache, ist):  # pragma: no cover - compiled
    """Exchange positions i and j everywhere (LIBSVM's ``swap_index``)."""
    y, a, G, Gb, p, QD, U, R = vec
    _K, X, perm, kind, _kp = src
    cdata, slot_of, owner, clen, _stamp, synced, log = cache
    y[i], y[j] = y[j], y[i]
    a[i], a[j] = a[j], a[i]
    G[i], G[j] = G[j], G[i]
    Gb[i], Gb[j] = Gb[j], Gb[i]
    p[i], p[j] = p[j], p[i]
    QD[i], QD[j] = QD[j], QD[i]
    U[i], U[j] = U[j], U[i]
    R[i], R[j] = R[j], R[i]
    perm[i], perm[j] = perm[j], perm[i]
    if kind != 0:
        for k in range(X.shape[1]):
            X[i, k], X[j, k] = X[j, k], X[i, k]
    si, sj = slot_of[i], slot_of[j]
    slot_of[i], slot_of[j] = sj, si
    if si >= 0:
        owner[si] = j
    if sj >= 0:
        owner[sj] = i
    ist[SWAPS] += 1
    ist[NEXT] = -2
    # The rows' entries are exchanged when a row is next read (row_slot), not
    # here: LIBSVM's swap_index walks every cached row at each swap, and with
    # 200 MB of rows (1,310 at n = 20,000) a shrinking round's thousands of
    # swaps cost two cache misses a row each, for rows mostly evicted unread.
    logged = ist[LOGGED]
    if logged == log.shape[0]:  # full: apply it to every row, start afresh
        for s in range(ist[USED]):
            if synced[s] < logged:
                _replay(s, cdata, clen, synced, log, logged)
            synced[s] = 0
        logged = 0
    log[logged, 0] = min(i, j)
    log[logged, 1] = max(i, j)
    ist[LOGGED] = logged + 1
