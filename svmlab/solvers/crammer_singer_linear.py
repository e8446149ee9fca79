"""Crammer-Singer with the linear kernel: the sequential dual method on ``w``.

The dual is :mod:`svmlab.solvers.crammer_singer`'s, with ``K = X X'`` (plus 1
for the regularized bias: a column of ones appended to ``X``). With a linear
kernel the scores ``f_m(x) = w_m' x`` need not go through ``K``: the block
method keeps ``W = X' alpha`` (d x k) and reads a block's scores as ``x_i' W``
(``O(d k)``) instead of a row of ``K alpha`` (the kernel path updates all ``n``
scores of every class a block changes: ``O(n k)`` per block, and the ``n x n``
Gram matrix besides). This is Keerthi, Sundararajan, Chang, Hsieh & Lin's
(2008) sequential dual method as LIBLINEAR's ``-s 4`` runs it
(``Solver_MCSVM_CS::Solve``):

* the points in a random order each sweep; for point i the gradient
  ``G_m = x_i' w_m - [m = y_i]``, its violation ``max_m G_m - min_{m below
  bound} G_m``, and the block's exact minimiser by
  :func:`svmlab.solvers.crammer_singer.block_sub_problem` (``A = ||x_i||^2``);
  ``w_m += d_m x_i`` for the entries that moved;
* shrinking: an entry at its bound whose gradient is below the block's
  ``min G`` leaves the block's active set, a block with one active entry
  leaves the sweep; once a sweep's largest violation is below
  ``max(10 tol, 1)`` (then halved each time, down to ``tol``), everything is
  active again, and the run stops when a sweep over *all* blocks finds none
  violating by more than ``tol`` (LIBLINEAR's ``eps_shrink`` and
  ``start_from_all``).

``tol`` is the kernel path's (the largest block violation, in margin units),
so both paths stop at the same measure; the answer is checked afresh at the
end (``F = X W``). scikit-learn's ``LinearSVC(multi_class="crammer_singer")``
is LIBLINEAR: ``tests/test_multiclass.py`` compares decision values with it.

Sweeps run in batches inside one compiled call (with the shrinking schedule
and the random order, numba's generator seeded from ``random_state`` per
batch), each batch about 5 million multiply-adds (a few milliseconds), so the
time budget and a cancel request are checked between batches.

References
----------
Keerthi, Sundararajan, Chang, Hsieh, Lin (2008), A sequential dual method for
large scale multi-class linear SVMs, KDD. Fan, Chang, Hsieh, Wang, Lin (2008),
LIBLINEAR: a library for large linear classification, JMLR 9
(``linear.cpp``: ``Solver_MCSVM_CS``). Crammer, Singer (2001), JMLR 2.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from svmlab.array_types import Array
from svmlab.compiled.arguments import read_only
from svmlab.solvers.base import Budget
from svmlab.solvers.crammer_singer import (
    CSSolution,
    block_sub_problem,
    block_violations,
)

__all__ = ["solve_linear"]


@njit(cache=True, nogil=True)
def _gradient(X, W, i, yi, idx, act_i, G):  # pragma: no cover - compiled
    """``G[m] = x_i' w_{idx[m]} - [idx[m] = y_i]`` over the block's ``act_i``
    active entries."""
    for m in range(act_i):
        G[m] = -1.0 if idx[m] == yi else 0.0
    for f in range(X.shape[1]):
        v = X[i, f]
        if v != 0.0:
            for m in range(act_i):
                G[m] += W[f, idx[m]] * v


@njit(cache=True, nogil=True)
def _sweep(X, QD, codes, C, W, alpha, index, act_block, order, active):
    # pragma: no cover - compiled
    """One sweep over the ``active`` blocks listed first in ``order`` (already
    permuted); returns ``(largest violation met, blocks still active)``.
    ``index[i]`` lists block i's entries, its first ``act_block[i]`` active
    (LIBLINEAR's ``alpha_index`` and ``active_size_i``)."""
    k = W.shape[1]
    G = np.empty(k)
    B = np.empty(k)
    new = np.empty(k)
    worst = 0.0
    s = 0
    while s < active:
        i = order[s]
        A = QD[i]
        if A <= 0.0:  # x_i = 0 moves no score
            s += 1
            continue
        yi = codes[i]
        act_i = act_block[i]
        idx = index[i]
        _gradient(X, W, i, yi, idx, act_i, G)
        big, low = -np.inf, np.inf
        for m in range(act_i):
            bound = C if idx[m] == yi else 0.0
            if alpha[i, idx[m]] < bound and G[m] < low:
                low = G[m]
            if G[m] > big:
                big = G[m]
        # Shrink the entries at their bound whose gradient is below min G.
        m = 0
        while m < act_i:
            bound = C if idx[m] == yi else 0.0
            if alpha[i, idx[m]] == bound and G[m] < low:
                act_i -= 1
                idx[m], idx[act_i] = idx[act_i], idx[m]
                G[m], G[act_i] = G[act_i], G[m]
            else:
                m += 1
        act_block[i] = act_i
        if act_i <= 1:
            active -= 1
            order[s], order[active] = order[active], order[s]
            continue
        s += 1
        violation = big - low
        if violation > worst:
            worst = violation
        if violation <= 1e-12:
            continue
        own = -1
        for m in range(act_i):
            B[m] = G[m] - A * alpha[i, idx[m]]
            if idx[m] == yi:
                own = m
        block_sub_problem(A, B, own, C, act_i, new)
        for m in range(act_i):
            c = idx[m]
            dm = new[m] - alpha[i, c]
            if dm != 0.0:
                alpha[i, c] = new[m]
                for f in range(X.shape[1]):
                    v = X[i, f]
                    if v != 0.0:
                        W[f, c] += dm * v
    return worst, active


#: Multiply-adds of ``X W`` a batch of sweeps may take (about 5-10 ms).
_BATCH_WORK = 5_000_000


@njit(cache=True, nogil=True)
def _sweeps(
    arrays, C, active, eps_shrink, from_all, tol, n_sweeps, seed
):  # pragma: no cover - compiled
    """Up to ``n_sweeps`` sweeps, each over the active blocks in a fresh
    random order, with LIBLINEAR's shrinking schedule between them (module
    docstring). Returns ``(sweeps run, whether to confirm, active,
    eps_shrink, from_all)``: it stops early, asking for a confirmation, after
    a sweep over every block met ``tol`` (LIBLINEAR stops there; the caller
    confirms it afresh). ``arrays``: ``(X, QD, codes, W, alpha, index,
    act_block, order)`` as :func:`_sweep` takes them."""
    X, QD, codes, W, alpha, index, act_block, order = arrays
    # numba's compiled code draws from its own per-thread state (the legacy
    # API is what it offers); seeded per batch from the fit's random_state.
    np.random.seed(seed)  # noqa: NPY002
    n = order.shape[0]
    k = W.shape[1]
    for ran in range(1, n_sweeps + 1):
        for s in range(active - 1):  # Fisher-Yates over the active blocks
            j = np.random.randint(s, active)  # noqa: NPY002
            order[s], order[j] = order[j], order[s]
        worst, active = _sweep(
            X, QD, codes, C, W, alpha, index, act_block, order, active
        )
        if worst < eps_shrink:
            if worst <= tol and from_all:
                return ran, True, active, eps_shrink, from_all
            # Everything active again, and a tighter threshold for the next.
            active = n
            for i in range(n):
                act_block[i] = k
            eps_shrink = max(eps_shrink / 2.0, tol)
            from_all = True
        else:
            from_all = False
    return n_sweeps, False, active, eps_shrink, from_all


def solve_linear(
    X: Array,
    codes: NDArray[np.int64],
    k: int,
    C: float,
    *,
    tol: float = 1e-3,
    max_iter: int = 10_000,
    random_state: int | None = 0,
    budget: Budget | None = None,
) -> tuple[CSSolution, Array]:
    """The Crammer-Singer dual with ``K = X X'`` by the sequential dual method
    (module docstring); returns the solution (``alpha`` (n, k), as the kernel
    path's) and ``W = X' alpha`` (d, k). ``max_iter`` sweeps at most."""
    X = read_only(np.ascontiguousarray(X, dtype=np.float64))
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    n, d = X.shape
    budget = budget if budget is not None else Budget(None)
    QD = np.einsum("ij,ij->i", X, X)
    W = np.zeros((d, k))
    alpha = np.zeros((n, k))
    index = np.tile(np.arange(k, dtype=np.int64), (n, 1))
    act_block = np.full(n, k, dtype=np.int64)
    order = np.arange(n, dtype=np.int64)
    rng = np.random.default_rng(random_state)
    active = n
    eps_shrink = max(10.0 * tol, 1.0)
    from_all = True
    # Sweeps run in batches of about ``_BATCH_WORK`` multiply-adds in one
    # compiled call: on iris a sweep is a few microseconds, less than the
    # Python around it (a permutation, a call, a clock read), which made the
    # fit 3-4x LIBLINEAR's (issue 48). The clock and a cancel are read
    # between batches (a few milliseconds apart).
    batch = max(1, int(_BATCH_WORK // max(1, n * d * k)))
    arrays = (X, QD, codes, W, alpha, index, act_block, order)
    sweeps, stop = 0, "max_iter"
    while sweeps < max_iter:
        ran, confirm, active, eps_shrink, from_all = _sweeps(
            arrays,
            float(C),
            active,
            eps_shrink,
            from_all,
            float(tol),
            min(batch, max_iter - sweeps),
            int(rng.integers(2**31 - 1)),
        )
        sweeps += ran
        if confirm:
            # The measure met along a sweep over every block; confirmed
            # afresh (``W`` carries the rounding of every update).
            if _kkt(X, alpha, codes, C) <= tol:
                stop = "converged"
                break
            # Everything active again, with the tightest threshold.
            active = n
            act_block[:] = k
            eps_shrink = tol
            from_all = True
        if budget.check():
            stop = "max_seconds"
            break
    F = X @ (X.T @ alpha)
    kkt = float(block_violations(F, alpha, codes, C).max(initial=0.0))
    own = float(alpha[np.arange(n), codes].sum())
    objective = own - 0.5 * float(np.sum(alpha * F))
    solution = CSSolution(
        alpha=alpha,
        objective=objective,
        kkt=kkt,
        converged=kkt <= tol,
        stop_reason="converged" if kkt <= tol else stop,
        n_iter=sweeps,
        method="linear",
    )
    return solution, W


def _kkt(X: Array, alpha: Array, codes: NDArray[np.int64], C: float) -> float:
    """The largest block violation from scores formed afresh (``W`` carries
    the rounding of every update)."""
    F = X @ (X.T @ alpha)
    return float(block_violations(F, alpha, codes, C).max(initial=0.0))
