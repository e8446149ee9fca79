"""Exact leave-one-out and k-fold refits of the entropy dual, warm-started
from the full solution on the full Gram matrix.

Leaving a set S of points out of a fit is the same dual with ``a_k = 0`` fixed
for ``k`` in S: no sub-matrix is copied. The refit starts from the full
solution with S taken out (Lee, Keerthi, Ong & DeCoste 2003; DeCoste &
Wagstaff 2000 for folds):

- without an unregularized bias that start is feasible as it is;
- with one, ``y'a = 0`` needs the left-out mass ``a_i`` (``y_i`` side) put
  back: it goes to the nearest points of the same class (largest ``K_ik``)
  that have room below C, and if they have none, comes off the nearest points
  of the other class (at most half of each one's multiplier per pass, so every
  ``a_k`` stays positive, as the entropy requires). Dropping this step leaves
  ``y'a = -y_i a_i``, which the pair steps preserve: the refit would converge
  to the optimum of another problem (a test plants exactly that bug).

The margins of the left-out points are updated with everything else (the
solver updates every margin at every step), so their held-out decision values
``f(x_i) = y_i q_i + b`` are read off the refit's state. A refit ends when
every remaining point meets the modified hinge's KKT measure at ``tol``
(:mod:`svmlab.solvers.entropy_steps`), exactly as a cold fit of the remaining
points would; warm and cold refits differ by at most what ``tol`` allows.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

from svmlab.array_types import Array
from svmlab.solvers import entropy_steps as steps
from svmlab.solvers.base import Budget
from svmlab.solvers.entropy_dual import (
    LOG_FLOOR,
    TOL_FRACTION,
    EntropyState,
)

__all__ = ["NEWTON_AFTER", "Refitter", "remove_points"]


#: Coordinate steps of a refit before its first Newton phase.
NEWTON_AFTER = 10


@njit(cache=True, nogil=True)
def _set(rows, y, a, la, q, lo, hi, k, new, C, tol, delta):
    """``a_k = new`` (at most C): its log, its interval, every margin."""
    new = min(new, C)
    dc = y[k] * (new - a[k])
    a[k] = new
    la[k] = 0.0 if new >= C else max(math.log(new / C), LOG_FLOOR)
    lo[k], hi[k] = steps.interval(la[k], tol, delta)
    if dc != 0.0:
        row = steps.kernel_row(k, rows)
        for t in range(y.shape[0]):
            q[t] += y[t] * dc * row[t]


@njit(cache=True, nogil=True)
def remove_points(rows, y, a, la, q, lo, hi, eligible, group, C, tol, delta, pair,
                  redistribute):  # fmt: skip
    """Leave ``group`` out of the state in place (module docstring): ``a = 0``
    there, every margin updated, and with the bias (``pair``) the left-out
    mass moved to keep ``y'a`` when ``redistribute``."""
    n = y.shape[0]
    for r in range(group.shape[0]):
        eligible[group[r]] = False
    for r in range(group.shape[0]):
        i = group[r]
        amount = a[i]
        row = steps.kernel_row(i, rows)
        if a[i] != 0.0:
            dc = -y[i] * a[i]
            for t in range(n):
                q[t] += y[t] * dc * row[t]
        a[i] = 0.0
        la[i] = LOG_FLOOR
        lo[i], hi[i] = -np.inf, np.inf
        if not redistribute or amount <= 0.0:
            continue
        order = np.argsort(-row)
        for r2 in range(n):
            k = order[r2]
            if not eligible[k] or y[k] != y[i] or a[k] >= C:
                continue
            take = min(C - a[k], amount)
            _set(rows, y, a, la, q, lo, hi, k, a[k] + take, C, tol, delta)
            amount -= take
            if amount <= 0.0:
                break
        for _ in range(64 if pair else 0):
            if amount <= 0.0:
                break
            for r2 in range(n):
                k = order[r2]
                if not eligible[k] or y[k] == y[i] or a[k] <= 0.0:
                    continue
                take = min(0.5 * a[k], amount)
                _set(rows, y, a, la, q, lo, hi, k, a[k] - take, C, tol, delta)
                amount -= take
                if amount <= 0.0:
                    break


class Refitter:
    """Refits of one entropy-dual problem without given points.

    Parameters
    ----------
    K
        The effective Gram matrix of all n points (``K + 1`` for the
        regularized bias), shape (n, n).
    y
        Labels in {-1, +1}.
    C, delta, tol
        The model and the KKT tolerance of every refit.
    pair
        Whether the model has an unregularized bias (``y'a = 0``).
    alpha
        The full solution (from :mod:`svmlab.solvers.entropy_dual`, or any
        feasible point: the refits only start there).
    la
        ``log(alpha / C)`` as the solver kept it (exact where ``alpha``
        underflowed to 0); from ``alpha`` when None.
    redistribute
        Keep ``y'a = 0`` when points leave (always, except in the test that
        shows what dropping it breaks).
    """

    def __init__(
        self,
        K: Array,
        y: Array,
        C: float,
        delta: float,
        tol: float,
        pair: bool,
        alpha: Array,
        *,
        la: Array | None = None,
        redistribute: bool = True,
    ) -> None:
        self.K = np.ascontiguousarray(K, dtype=np.float64)
        self.y = np.ascontiguousarray(y, dtype=np.float64)
        a = np.maximum(np.asarray(alpha, dtype=np.float64), 0.0)
        if la is not None:
            la = np.array(la, dtype=np.float64)
        self.state = EntropyState(self.K, self.y, C, delta, tol, pair, a, la=la)
        # A refit starts next to its optimum: Newton's method (quadratic there)
        # after a few coordinate steps, rather than after n (measured on the
        # Model selection page's default sweep: leave-one-out 1.6 s with n,
        # 0.85 s with 10, 0.90 s with 20, under a load of 7).
        self.state.newton_after = NEWTON_AFTER
        s = self.state
        self.saved = tuple(v.copy() for v in (s.a, s.la, s.q, s.lo, s.hi))
        self.redistribute = bool(redistribute)
        self.steps = 0

    def _reset(self, warm: bool, group: NDArray[np.int64]) -> None:
        s, n = self.state, self.y.shape[0]
        if warm:
            targets = (s.a, s.la, s.q, s.lo, s.hi)
            for target, source in zip(targets, self.saved, strict=True):
                np.copyto(target, source)
        else:  # the cold start of the remaining points, as a fresh fit's
            s.a[:] = 0.0
            s.la[:] = LOG_FLOOR
            s.q[:] = 0.0
            s._intervals(np.arange(n, dtype=np.int64))
        s.eligible[:] = True
        remove_points(
            s.rows,
            self.y,
            s.a,
            s.la,
            s.q,
            s.lo,
            s.hi,
            s.eligible,
            group,
            s.C,
            TOL_FRACTION * s.tol,
            s.delta,
            s.pair,
            self.redistribute and warm,
        )
        count = int(s.eligible.sum())
        s.act[:count] = np.flatnonzero(s.eligible)
        s.ist[:] = 0
        s.ist[steps.NACT] = count
        s.ist[steps.COUNTER] = min(n, steps.SHRINK_EVERY) + 1
        s.it = 0

    def refit(
        self,
        group: NDArray[np.int64],
        *,
        warm: bool = True,
        max_iter: int | None = None,
        budget: Budget | None = None,
    ) -> tuple[Array, bool]:
        """The decision values ``f(x_k)`` at the points of ``group`` of the
        fit without them, and whether that fit met ``tol``."""
        group = np.asarray(group, dtype=np.int64)
        self._reset(warm, group)
        s = self.state
        n = self.y.shape[0]
        cap = max(10_000_000, 100 * n) if max_iter is None else int(max_iter)
        _, converged, _ = s.run(cap, budget if budget is not None else Budget())
        self.steps += s.it
        b = s.intercept()
        return self.y[group] * s.q[group] + b, bool(converged)

    def alpha(self) -> Array:
        """The multipliers of the last refit (0 at the left-out points)."""
        return self.state.a.copy()
