"""LIBSVM's decomposition loop, compiled: SMO with shrinking and a kernel-row cache.

.. math::

    \\min_a\\ \\tfrac12 a^\\top Q_d a + p^\\top a
    \\quad\\text{s.t.}\\quad 0 \\le a_i \\le u,\\quad [\\,y^\\top a = c\\,],
    \\qquad Q_d = Y K Y + r I

(``p = -1``, ``r = 0`` the hinge dual; ``r = 1/C`` the squared hinge; any ``p``
for CCCP's subproblems). This is ``Solver::Solve`` of LIBSVM's ``svm.cpp``
(Chang & Lin 2011, sections 4.1 and 5) with the second-order working set of Fan,
Chen & Lin (2005), and its one-variable analogue when there is no equality
constraint. :mod:`svmlab.solvers.smo` documents the step itself.

**Shrinking** (Chang & Lin 2011, section 5.1; ``do_shrinking``, ``be_shrunk``).
Every ``min(n, 1000)`` iterations a variable at a bound whose gradient says it
will stay there (``-y_t G_t`` beyond the current ``m(a)`` or ``M(a)`` on the
wrong side) leaves the *active set*. The active points are kept at positions
``0 .. active - 1`` by swapping them with inactive ones (``swap_index``): every
per-point array, the training points and the cached kernel rows are swapped
along, and ``perm`` remembers the original index of each position. The sweeps
(working-set selection, gradient update) are then plain loops over
``0 .. active - 1``, with no index list in between.

**Gradient reconstruction** (``reconstruct_gradient``). The gradient of an
inactive point is not updated while it is out. ``G_bar_t = sum_{a_i = u} u Q_ti``
is kept for every point (updated only when a variable reaches or leaves ``u``),
so ``G_t = G_bar_t + p_t + sum_{free i} a_i Q_ti`` rebuilds it exactly from the
free variables. When the active set is optimal the whole gradient is rebuilt and
the check repeated on all points; if a shrunk point now violates, the loop
continues with everything active (and shrinks again at the next step). As in
LIBSVM, the first time the violation falls below ``10 tol`` everything is
un-shrunk once and the gradient rebuilt, so that early shrinking decisions are
revisited before the end.

**Kernel rows** come from the LRU row cache of :mod:`svmlab.solvers.row_cache`
(in the current position order; from ``K`` or computed from the points), which
holds float64 by default (LIBSVM's float32 costs agreement: docs/corrections.md
"libsvm agreement"). The loop runs in time-boxed chunks
(:func:`svmlab.solvers.chunked.run_chunked`).

References
----------
Chang, Lin (2011), LIBSVM: a library for support vector machines, ACM TIST 2
(``svm.cpp``: ``Solver::Solve``, ``do_shrinking``, ``be_shrunk``,
``reconstruct_gradient``, ``Cache::get_data``, ``Cache::swap_index``). Fan, Chen,
Lin (2005), Working set selection using second order information for training
support vector machines, JMLR 6. Joachims (1999), Making large-scale SVM learning
practical (shrinking).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from svmlab.compiled_args import read_only
from svmlab.kernels import ROW_DENSE, KernelRows
from svmlab.solvers.base import Budget
from svmlab.solvers.chunked import run_chunked
from svmlab.solvers.row_cache import (
    ACTIVE,
    BOUND_MOVES,
    CACHE_MB,
    COUNTER,
    EVALS,
    N_COUNTERS,
    NEXT,
    RECONSTRUCTS,
    SHRINKS,
    SWAPS,
    SWEPT,
    UNSHRINK,
    cache_arrays,
    cached_row,
    kernel_times_from_rows,
    swap_positions,
)

__all__ = ["BoxSMO"]

Array = NDArray[np.float64]

#: Curvature used when ``K_ii + K_jj - 2 K_ij <= 0`` (LIBSVM's TAU).
TAU = 1e-12
#: Shrink every min(n, SHRINK_EVERY) iterations (LIBSVM's 1000).
SHRINK_EVERY = 1000


@njit(cache=True, nogil=True)
def _init_gradient(vec, src, cache, ist, upper, ridge):  # pragma: no cover
    """``G = Q_d a + p`` and ``G_bar = sum_{a_i = u} u Q_i`` from the rows of
    the nonzero ``a_i`` (all points active)."""
    y, a, G, Gb, _p, _QD = vec
    n = y.shape[0]
    for i in range(n):
        if a[i] > 0.0:
            R = cached_row(i, n, src, cache, ist)
            c = a[i] * y[i]
            for t in range(n):
                G[t] += y[t] * c * R[t]
            G[i] += ridge * a[i]
            if a[i] >= upper:
                cu = upper * y[i]
                for t in range(n):
                    Gb[t] += y[t] * cu * R[t]
                Gb[i] += ridge * upper


@njit(cache=True, nogil=True)
def _reconstruct_into(Gout, vec, src, cache, ist, upper):  # pragma: no cover
    """The gradient of the inactive positions into ``Gout`` (LIBSVM's
    ``reconstruct_gradient``): ``G_bar + p + sum_{free i} a_i Q_i``, from the
    free variables' rows or the inactive points' rows, whichever is less work."""
    y, a, _G, Gb, p, _QD = vec
    n = y.shape[0]
    act = ist[ACTIVE]
    if act == n:
        return
    for j in range(act, n):
        Gout[j] = Gb[j] + p[j]
    nfree = 0
    for j in range(act):
        if 0.0 < a[j] < upper:
            nfree += 1
    if nfree * n > 2 * act * (n - act):
        for i in range(act, n):
            R = cached_row(i, act, src, cache, ist)
            s = 0.0
            for j in range(act):
                if 0.0 < a[j] < upper:
                    s += a[j] * y[j] * R[j]
            Gout[i] += y[i] * s
    else:
        for i in range(act):
            if 0.0 < a[i] < upper:
                R = cached_row(i, n, src, cache, ist)
                c = a[i] * y[i]
                for j in range(act, n):
                    Gout[j] += y[j] * c * R[j]
    ist[RECONSTRUCTS] += 1


@njit(cache=True, nogil=True)
def _unshrink(vec, src, cache, ist, upper):  # pragma: no cover - compiled
    G = vec[2]
    _reconstruct_into(G, vec, src, cache, ist, upper)
    ist[ACTIVE] = G.shape[0]
    ist[NEXT] = -2


@njit(cache=True, nogil=True)
def _be_shrunk(t, y, a, G, upper, gmax1, gmax2):  # pragma: no cover - compiled
    """LIBSVM's ``be_shrunk``: at a bound, and beyond the extreme violator."""
    if a[t] >= upper:
        return -G[t] > gmax1 if y[t] > 0.0 else -G[t] > gmax2
    if a[t] <= 0.0:
        return G[t] > gmax2 if y[t] > 0.0 else G[t] > gmax1
    return False


@njit(cache=True, nogil=True)
def _shrink(vec, src, cache, ist, upper, tol, pair):  # pragma: no cover
    """LIBSVM's ``do_shrinking`` (with the bias); without it the same rule with
    the largest projected gradient as both bounds."""
    y, a, G, _Gb, _p, _QD = vec
    n = y.shape[0]
    act = ist[ACTIVE]
    gmax1 = -np.inf  # max -y G over I_up
    gmax2 = -np.inf  # max y G over I_low
    if pair:
        for t in range(act):
            if y[t] > 0.0:
                if a[t] < upper and -G[t] >= gmax1:
                    gmax1 = -G[t]
                if a[t] > 0.0 and G[t] >= gmax2:
                    gmax2 = G[t]
            else:
                if a[t] < upper and -G[t] >= gmax2:
                    gmax2 = -G[t]
                if a[t] > 0.0 and G[t] >= gmax1:
                    gmax1 = G[t]
        done = gmax1 + gmax2 <= 10.0 * tol
    else:
        worst = 0.0
        for t in range(act):
            g = G[t]
            if (a[t] <= 0.0 and g > 0.0) or (a[t] >= upper and g < 0.0):
                continue
            worst = max(worst, abs(g))
        # At a lower bound G_t > worst, at the upper -G_t > worst: shrunk.
        gmax1 = gmax2 = worst
        done = worst <= 10.0 * tol
    ist[SHRINKS] += 1
    if ist[UNSHRINK] == 0 and done:
        ist[UNSHRINK] = 1
        _unshrink(vec, src, cache, ist, upper)
        act = n
    i = 0
    while i < act:
        if _be_shrunk(i, y, a, G, upper, gmax1, gmax2):
            act -= 1
            while act > i:
                if not _be_shrunk(act, y, a, G, upper, gmax1, gmax2):
                    swap_positions(i, act, vec, src, cache, ist)
                    break
                act -= 1
        i += 1
    ist[ACTIVE] = act
    ist[NEXT] = -2


@njit(cache=True, nogil=True)
def _select_pair(vec, src, cache, ist, upper, tol):  # pragma: no cover
    """WSS 2 over the active set: ``(i, j)``, ``j = -1`` when optimal there."""
    y, a, G, _Gb, _p, QD = vec
    act = ist[ACTIVE]
    i = ist[NEXT]
    if i == -2:  # not known from the last update: scan
        gmax = -np.inf
        i = -1
        for t in range(act):
            if y[t] > 0.0:
                if a[t] < upper and -G[t] >= gmax:
                    gmax = -G[t]
                    i = t
            elif a[t] > 0.0 and G[t] >= gmax:
                gmax = G[t]
                i = t
    if i < 0:
        return -1, -1
    gmax = -y[i] * G[i]
    Ki = cached_row(i, act, src, cache, ist)
    qi = QD[i]
    gmin = np.inf
    # Largest b^2 / quad, compared as b^2 best_quad >= best_b2 quad: no division.
    best_b2, best_quad = 0.0, 1.0
    j = -1
    for t in range(act):
        if y[t] > 0.0:
            if not a[t] > 0.0:
                continue
            v = -G[t]
        else:
            if not a[t] < upper:
                continue
            v = G[t]
        if v < gmin:
            gmin = v
        b = gmax - v
        if b > 0.0:
            quad = qi + QD[t] - 2.0 * Ki[t]
            if quad <= 0.0:
                quad = TAU
            b2 = b * b
            if b2 * best_quad >= best_b2 * quad:
                best_b2, best_quad = b2, quad
                j = t
    if gmax - gmin <= tol:
        return i, -1
    return i, j


@njit(cache=True, nogil=True)
def _select_single(vec, ist, upper, tol):  # pragma: no cover - compiled
    """The active coordinate with the largest projected gradient, or -1."""
    _y, a, G, _Gb, _p, _QD = vec
    worst = 0.0
    k = -1
    for t in range(ist[ACTIVE]):
        g = G[t]
        if a[t] <= 0.0 and g > 0.0:
            continue
        if a[t] >= upper and g < 0.0:
            continue
        if abs(g) > worst:
            worst = abs(g)
            k = t
    if worst <= tol:
        return -1
    return k


@njit(cache=True, nogil=True)
def _update_bar(t, old, vec, src, cache, ist, upper, ridge):  # pragma: no cover
    """``G_bar`` when ``a_t`` reached or left the upper bound (full row)."""
    y, a, _G, Gb, _p, _QD = vec
    was, now = old >= upper, a[t] >= upper
    if was == now:
        return
    n = y.shape[0]
    ist[BOUND_MOVES] += 1
    R = cached_row(t, n, src, cache, ist)
    c = upper * y[t] if now else -upper * y[t]
    for k in range(n):
        Gb[k] += y[k] * c * R[k]
    Gb[t] += ridge * upper if now else -ridge * upper


@njit(cache=True, nogil=True)
def _step_pair(i, j, vec, src, cache, ist, upper, ridge):  # pragma: no cover
    """The two-variable step along ``(y_i, -y_j)``, clipped to the box."""
    y, a, G, _Gb, _p, QD = vec
    act = ist[ACTIVE]
    Ki = cached_row(i, act, src, cache, ist)
    Kj = cached_row(j, act, src, cache, ist)
    yi, yj = y[i], y[j]
    quad = QD[i] + QD[j] - 2.0 * Ki[j]
    if quad <= 0.0:
        quad = TAU
    gmax = -yi * G[i]
    step = (gmax + yj * G[j]) / quad
    lim_i = upper - a[i] if yi > 0.0 else a[i]
    lim_j = a[j] if yj > 0.0 else upper - a[j]
    old_i, old_j = a[i], a[j]
    if step >= lim_i:
        step = lim_i
    if step >= lim_j:
        step = lim_j
    a[i] = old_i + yi * step
    a[j] = old_j - yj * step
    if step == lim_i:  # land exactly on the bound
        a[i] = upper if yi > 0.0 else 0.0
    if step == lim_j:
        a[j] = 0.0 if yj > 0.0 else upper
    di = a[i] - old_i
    dj = a[j] - old_j
    ci = yi * di
    cj = yj * dj
    G[i] += ridge * di
    G[j] += ridge * dj
    for k in range(act):
        G[k] += y[k] * (ci * Ki[k] + cj * Kj[k])
    if upper < np.inf:
        _update_bar(i, old_i, vec, src, cache, ist, upper, ridge)
        _update_bar(j, old_j, vec, src, cache, ist, upper, ridge)


@njit(cache=True, nogil=True)
def _step_single(k, vec, src, cache, ist, upper, ridge):  # pragma: no cover
    """``a_k <- clip(a_k - G_k / Q_kk, 0, u)``."""
    y, a, G, _Gb, _p, QD = vec
    act = ist[ACTIVE]
    q = QD[k]
    if q <= 0.0:
        q = TAU
    new = a[k] - G[k] / q
    if new < 0.0:
        new = 0.0
    elif new > upper:
        new = upper
    old = a[k]
    d = new - old
    a[k] = new
    c = y[k] * d
    Kk = cached_row(k, act, src, cache, ist)
    for t in range(act):
        G[t] += y[t] * c * Kk[t]
    G[k] += ridge * d
    if upper < np.inf:
        _update_bar(k, old, vec, src, cache, ist, upper, ridge)


@njit(cache=True, nogil=True)
def _chunk(vec, src, cache, ist, upper, ridge, tol, shrinking, pair, it, stop_at):
    """Iterations ``it .. stop_at`` of ``Solver::Solve``; returns
    ``(it, converged)``. Resumable: the state is the arrays."""  # pragma: no cover
    n = vec[0].shape[0]
    while it < stop_at:
        if shrinking:
            ist[COUNTER] -= 1
            if ist[COUNTER] <= 0:
                ist[COUNTER] = min(n, SHRINK_EVERY)
                _shrink(vec, src, cache, ist, upper, tol, pair)
        i, j = -1, -1
        if pair:
            i, j = _select_pair(vec, src, cache, ist, upper, tol)
        else:
            j = _select_single(vec, ist, upper, tol)
        if j < 0:
            if ist[ACTIVE] == n:
                return it, True
            # Optimal on the active set: rebuild the gradient and check all.
            _unshrink(vec, src, cache, ist, upper)
            if pair:
                i, j = _select_pair(vec, src, cache, ist, upper, tol)
            else:
                j = _select_single(vec, ist, upper, tol)
            if j < 0:
                return it, True
            ist[COUNTER] = 1  # shrink again at the next iteration
        ist[SWEPT] += ist[ACTIVE]
        if pair:
            _step_pair(i, j, vec, src, cache, ist, upper, ridge)
        else:
            _step_single(j, vec, src, cache, ist, upper, ridge)
        it += 1
    return it, False


class BoxSMO:
    """One LIBSVM-style solve of the box QP in the module docstring.

    Parameters
    ----------
    y
        Labels in {-1, +1}, shape (n,).
    p
        Linear term, shape (n,) (``-1`` for the SVM duals).
    upper
        Box bound ``u`` (``inf`` for the squared hinge).
    ridge
        ``r`` in ``Q_d = Y K Y + r I``.
    fit_intercept
        Whether ``y'a`` is held fixed (pairs move) or not (single variables).
    K, kernel
        The Gram matrix, or its rows on demand (exactly one of them).
    a
        Start, shape (n,), feasible (None: zero).
    shrinking
        LIBSVM's shrinking on or off.
    cache_mb, dtype
        Size and precision of the kernel-row cache.
    """

    def __init__(
        self,
        y: Array,
        p: Array,
        upper: float,
        ridge: float,
        fit_intercept: bool,
        *,
        K: Array | None = None,
        kernel: KernelRows | None = None,
        a: Array | None = None,
        shrinking: bool = True,
        cache_mb: float = CACHE_MB,
        dtype: type = np.float64,
    ) -> None:
        n = y.shape[0]
        self.n, self.upper, self.ridge = n, float(upper), float(ridge)
        self.pair, self.shrinking = bool(fit_intercept), bool(shrinking)
        self.perm = np.arange(n, dtype=np.int64)
        # K read-only whatever the caller's (svmlab.compiled_args): one
        # compiled loop for the Explore page's cached K and a fresh one.
        if K is not None:
            K = read_only(np.ascontiguousarray(K, dtype=np.float64))
            X, kind, kp = np.zeros((1, 1)), ROW_DENSE, np.zeros(6)
            diag = np.diagonal(K).copy()
        else:
            assert kernel is not None
            K = read_only(np.zeros((1, 1)))
            X, kind, kp = kernel.X.copy(), kernel.kind, kernel.params
            diag = kernel.diagonal()
        self.src = (K, X, self.perm, np.int64(kind), kp)
        self.y = np.array(y, dtype=np.float64)
        self.a = np.zeros(n) if a is None else np.array(a, dtype=np.float64)
        self.G = np.array(p, dtype=np.float64)
        self.vec = (self.y, self.a, self.G, np.zeros(n), self.G.copy(), diag + ridge)
        self.cache = cache_arrays(n, cache_mb, dtype)
        self.ist = np.zeros(N_COUNTERS, dtype=np.int64)
        self.ist[NEXT] = -2
        self.ist[ACTIVE] = n
        self.ist[COUNTER] = min(n, SHRINK_EVERY) + 1
        if self.a.any():
            _init_gradient(self.vec, self.src, self.cache, self.ist, upper, ridge)
        self.it = 0

    def run(
        self, tol: float, max_iter: int, budget: Budget, *, snapshot: Any = None
    ) -> tuple[int, bool, bool]:
        """Iterate until ``tol`` (all points checked), ``max_iter`` or the
        budget; returns ``(iterations so far, converged, out_of_time)``."""
        args = (
            self.vec,
            self.src,
            self.cache,
            self.ist,
            self.upper,
            self.ridge,
            float(tol),
            self.shrinking,
            self.pair,
        )
        self.it, converged, out_of_time = run_chunked(
            _chunk, args, self.it, int(max_iter), budget, snapshot=snapshot
        )
        return self.it, converged, out_of_time

    def _original(self, v: Array) -> Array:
        out = np.empty_like(v)
        out[self.perm] = v
        return out

    def alpha(self) -> Array:
        """The current ``a`` in the original order (a copy)."""
        return self._original(self.a)

    def gradient(self) -> Array:
        """The whole gradient ``Q_d a + p`` in the original order (a copy; the
        inactive part rebuilt, the state untouched)."""
        G = self.G.copy()
        _reconstruct_into(G, self.vec, self.src, self.cache, self.ist, self.upper)
        return self._original(G)

    def unshrink(self) -> None:
        """Rebuild the gradient and make every point active (LIBSVM does this
        before it reports a solution cut off by its iteration cap)."""
        _unshrink(self.vec, self.src, self.cache, self.ist, self.upper)

    def kernel_times(self, v: Array) -> Array:
        """``K v`` (original order) from kernel rows, where ``v != 0``."""
        out = kernel_times_from_rows(v[self.perm], self.src, self.cache, self.ist)
        return self._original(out)

    @property
    def stats(self) -> dict[str, int]:
        """Active points, kernel entries computed, shrinking rounds and gradient
        reconstructions so far, and the cache's capacity in rows."""
        return {
            "active": int(self.ist[ACTIVE]),
            "kernel_evaluations": int(self.ist[EVALS]),
            "shrink_rounds": int(self.ist[SHRINKS]),
            "reconstructions": int(self.ist[RECONSTRUCTS]),
            "cache_rows": int(self.cache[0].shape[0]),
            "points_swept": int(self.ist[SWEPT]),
            "swaps": int(self.ist[SWAPS]),
            "bound_moves": int(self.ist[BOUND_MOVES]),
        }
