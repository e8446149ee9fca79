"""The row cache's swap log (issue 48): a swap is logged and each cached row
applies the swaps it missed when it is next read, instead of every row at every
swap (LIBSVM's ``swap_index``). Checked against the plain meaning of a swap, a
permutation of the variables kept on the side: row ``pos`` read with length
``L`` must be ``K[p[pos], p[:L]]`` for the permutation ``p`` of all swaps so
far, through evictions, cut rows and the log filling up and being applied."""

from __future__ import annotations

import numpy as np
import pytest

from svmlab.solvers import row_cache


def _state(K: np.ndarray, cache_mb: float):
    n = K.shape[0]
    src = (K, np.zeros((n, 1)), np.arange(n), 0, np.zeros(6))
    vec = tuple(np.arange(n, dtype=np.float64) for _ in range(8))
    cache = row_cache.cache_arrays(n, cache_mb, np.float64)
    ist = np.zeros(row_cache.N_COUNTERS, dtype=np.int64)
    return src, vec, cache, ist


@pytest.mark.parametrize("rows_held", [2, 7, 60])
def test_rows_read_after_swaps_are_the_permuted_kernel(rows_held: int) -> None:
    rng = np.random.default_rng(rows_held)
    n = 60
    Z = rng.normal(size=(n, 3))
    K = np.exp(-((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1))
    src, vec, cache, ist = _state(K, rows_held * n * 8 / 2**20)
    assert cache[0].shape[0] == rows_held
    capacity = cache[-1].shape[0]
    p = np.arange(n)  # the reference: where each variable now stands
    reads = 0
    # Enough swaps to fill the log three times; reads of every length, so rows
    # are cut (a swap past their end), grown again and evicted.
    for step in range(3 * capacity + 500):
        if rng.random() < 0.7:
            i, j = rng.choice(n, size=2, replace=False)
            row_cache.swap_positions(int(i), int(j), vec, src, cache, ist)
            p[[i, j]] = p[[j, i]]
            assert np.array_equal(src[2], p)
        else:
            pos, length = int(rng.integers(n)), int(rng.integers(1, n + 1))
            row = row_cache.cached_row(pos, length, src, cache, ist)
            assert np.array_equal(row[:length], K[p[pos], p[:length]]), step
            reads += 1
    assert ist[row_cache.SWAPS] > 2 * capacity and reads > 1000
    # Every row still held, read whole, is right (the ones not read since the
    # last swaps included).
    for pos in np.flatnonzero(cache[1] >= 0):
        row = row_cache.cached_row(int(pos), n, src, cache, ist)
        assert np.array_equal(row, K[p[pos], p])


def test_a_row_held_through_swaps_is_not_recomputed() -> None:
    """The log is not a cache flush: a row that holds both swapped positions is
    reordered, not computed again (the kernel evaluations stay the same)."""
    n = 30
    K = np.arange(n * n, dtype=np.float64).reshape(n, n)
    src, vec, cache, ist = _state(K, 1.0)
    row_cache.cached_row(4, n, src, cache, ist)
    evals = ist[row_cache.EVALS]
    for i, j in [(0, 29), (3, 17), (4, 9), (0, 3)]:
        row_cache.swap_positions(i, j, vec, src, cache, ist)
    perm = src[2]
    pos = int(np.flatnonzero(perm == 4)[0])
    row = row_cache.cached_row(pos, n, src, cache, ist)
    assert np.array_equal(row, K[4, perm])
    assert ist[row_cache.EVALS] == evals
