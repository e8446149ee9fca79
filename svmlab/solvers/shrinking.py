"""LIBSVM's decomposition loop, compiled: SMO with shrinking and a kernel-row cache.

.. math::

    \\min_a\\ \\tfrac12 a^\\top Q_d a + p^\\top a
    \\quad\\text{s.t.}\\quad 0 \\le a_i \\le U_i,\\quad [\\,y^\\top a = c\\,],
    \\quad [\\,\\mathbf 1^\\top a = d\\,],
    \\qquad Q_d = Y K Y + \\mathrm{diag}(R)

(``p = -1``, ``R = 0`` the hinge dual; ``R = 1/C`` the squared hinge; any ``p``
for CCCP's subproblems; ``U_i = C w_{y_i}`` with class weights). This is
``Solver::Solve`` of LIBSVM's ``svm.cpp`` (Chang & Lin 2011, sections 4.1 and
5) with the second-order working set of Fan, Chen & Lin (2005), and its
one-variable analogue when there is no equality constraint. With ``nu=True`` it
is ``Solver_NU``, which also keeps ``1'a`` (ν-SVC, ν-SVR): the two variables of
a step then come from one class (:mod:`svmlab.solvers.working_set` holds the
three rules). LIBSVM's other machines are linear terms, bounds and labels on
this one loop (:mod:`svmlab.solvers.family`). :mod:`svmlab.solvers.smo`
documents the step itself.

**Shrinking** (Chang & Lin 2011, section 5.1; ``do_shrinking``, ``be_shrunk``).
Every ``min(n, 1000)`` iterations (LIBSVM's counter; above 5,000 variables more
often, see below) a variable at a bound whose gradient says it
will stay there (``-y_t G_t`` beyond the current ``m(a)`` or ``M(a)`` on the
wrong side; per class for ``Solver_NU``) leaves the *active set*. The active
points are kept at positions ``0 .. active - 1`` by swapping them with inactive
ones (``swap_index``): every
per-point array, the training points and the cached kernel rows are swapped
along, and ``perm`` remembers the original index of each position. The sweeps
(working-set selection, gradient update) are then plain loops over
``0 .. active - 1``, with no index list in between.

**Gradient reconstruction** (``reconstruct_gradient``). The gradient of an
inactive point is not updated while it is out. ``G_bar_t = sum_{a_i = U_i} U_i Q_ti``
is kept for every point (updated only when a variable reaches or leaves ``u``),
so ``G_t = G_bar_t + p_t + sum_{free i} a_i Q_ti`` rebuilds it exactly from the
free variables. When the active set is optimal the whole gradient is rebuilt and
the check repeated on all points; if a shrunk point now violates, the loop
continues with everything active (and shrinks again at the next step). As in
LIBSVM, the first time the violation falls below ``10 tol`` everything is
un-shrunk once and the gradient rebuilt, so that early shrinking decisions are
revisited before the end.

**The interval above 5,000 variables** (a deviation from LIBSVM, issue 48;
:func:`shrink_interval`). LIBSVM's first round comes after 1000 iterations at
any size, and each of them sweeps every point three times (the two working-set
scans and the gradient update). At n = 20,000 on the well separated rings
(C = 3, sigma = 0.5) the fit takes about 1,060 iterations with 24 support
vectors: 20.0 million points swept before and after the one round, which left
23 active. Above 5,000 variables the interval is therefore ``5,000,000 // n``
(never below 100): the points swept between two rounds stay at LIBSVM's at
n = 5,000, so up to there the iterates are LIBSVM's. On the rings that is
every 250 iterations, 5.05 million points swept, 133 -> 44 ms (medians of 3,
load 2.1); the spiral 177 -> 131 ms, the outlier blobs 119 -> 105 ms, the
two circles at C = 500 4.2 -> 3.4 s, the other two within the noise. Shrinking
every 100 or 200 iterations at n = 5,000 made the noisy two circles slower
(71 -> 75 and 85 ms: 3,192 -> 4,094 and 4,424 iterations), so n <= 5,000 keeps
LIBSVM's 1000. A shrinking decision is only a guess: the final check still
rebuilds the gradient and tests every point, as at any interval.

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

from svmlab.array_types import Array
from svmlab.compiled.arguments import read_only
from svmlab.kernels import ROW_DENSE, ROW_PARAMS, KernelRows
from svmlab.kernels.rows import fortran_copy
from svmlab.solvers.base import Budget
from svmlab.solvers.chunked import run_chunked
from svmlab.solvers.row_cache import (
    ACTIVE,
    BOUND_MOVES,
    CACHE_MB,
    COUNTER,
    EVALS,
    INTERVAL,
    N_COUNTERS,
    NEXT,
    PARALLEL_ROWS,
    RECONSTRUCTS,
    SHRINKS,
    SWAPS,
    SWEPT,
    UNSHRINK,
    cache_arrays,
    cached_row,
    row_slot,
    swap_positions,
)
from svmlab.solvers.working_set import (
    TAU,
    max_violator,
    nu_partner,
    nu_violators,
    pair_partner,
    select_single,
)

__all__ = ["NU", "PAIR", "SINGLE", "BoxSMO", "per_variable", "shrink_interval"]


#: Shrink every min(n, SHRINK_EVERY) iterations (LIBSVM's 1000) up to
#: ``SHRINK_SWEEP / SHRINK_EVERY`` = 5,000 variables (:func:`shrink_interval`).
SHRINK_EVERY = 1000
#: Above 5,000 variables, shrink every ``SHRINK_SWEEP // n`` iterations: the
#: points swept between two rounds stay at LIBSVM's 5 million at n = 5,000
#: (issue 48: at n = 20,000 LIBSVM's 1000 spent 94% of the well separated
#: rings' sweeps on points a first round would have shrunk).
SHRINK_SWEEP = 5_000_000
#: ... but never more often than every SHRINK_MIN iterations.
SHRINK_MIN = 100
#: The three modes of the loop: no equality constraint (one variable at a
#: time), one (``y'a`` fixed: ``Solver``), two (``y'a`` and ``1'a`` fixed:
#: ``Solver_NU``).
SINGLE, PAIR, NU = 0, 1, 2


@njit(cache=True, nogil=True, inline="always")
def _add_row(out, c, y, row, n):  # pragma: no cover - compiled
    """``out += c Y row`` over ``0 .. n - 1``."""
    for t in range(n):
        out[t] += y[t] * c * row[t]


@njit(cache=True, nogil=True)
def _init_gradient(vec, src, cache, ist):  # pragma: no cover - compiled
    """``G = Q a + p`` and ``G_bar = sum_{a_i = U_i} U_i Q_i`` from the rows of
    the nonzero ``a_i`` (all points active, none swapped yet).

    ``G_bar`` first: ``G`` shares its terms (one pass over a bound row, not
    two). A Gram matrix handed in is read in place (its rows are the
    variables' rows before any swap): a warm start along a C path has
    hundreds of bound alphas whose rows the loop rarely reads again, and
    copying each into the cache cost more than the products (issue 29)."""
    y, a, G, Gb, _p, _QD, U, R = vec
    K, _X, _perm, kind, _kp = src
    n = y.shape[0]
    dense = kind == ROW_DENSE and K.shape[0] == n and ist[SWAPS] == 0
    for i in range(n):
        if a[i] > 0.0 and a[i] == U[i]:
            if dense:  # two calls: K's rows and the cache's differ in type
                _add_row(Gb, U[i] * y[i], y, K[i], n)
            else:
                _add_row(Gb, U[i] * y[i], y, cached_row(i, n, src, cache, ist), n)
            Gb[i] += R[i] * U[i]
    for t in range(n):
        G[t] += Gb[t]
    for i in range(n):
        if a[i] > 0.0 and a[i] != U[i]:
            if dense:
                _add_row(G, a[i] * y[i], y, K[i], n)
            else:
                _add_row(G, a[i] * y[i], y, cached_row(i, n, src, cache, ist), n)
            G[i] += R[i] * a[i]
            if a[i] > U[i]:  # above the bound (not after repair_init)
                _add_row(Gb, U[i] * y[i], y, cached_row(i, n, src, cache, ist), n)
                Gb[i] += R[i] * U[i]


@njit(cache=True, nogil=True)
def _reconstruct_into(Gout, vec, src, cache, ist):  # pragma: no cover - compiled
    """The gradient of the inactive positions into ``Gout`` (LIBSVM's
    ``reconstruct_gradient``): ``G_bar + p + sum_{free i} a_i Q_i``, from the
    free variables' rows or the inactive points' rows, whichever is less work."""
    y, a, _G, Gb, p, _QD, U, _R = vec
    n = y.shape[0]
    act = ist[ACTIVE]
    if act == n:
        return
    for j in range(act, n):
        Gout[j] = Gb[j] + p[j]
    nfree = 0
    for j in range(act):
        if 0.0 < a[j] < U[j]:
            nfree += 1
    if nfree * n > 2 * act * (n - act):
        for i in range(act, n):
            row = cached_row(i, act, src, cache, ist)
            s = 0.0
            for j in range(act):
                if 0.0 < a[j] < U[j]:
                    s += a[j] * y[j] * row[j]
            Gout[i] += y[i] * s
    else:
        for i in range(act):
            if 0.0 < a[i] < U[i]:
                row = cached_row(i, n, src, cache, ist)
                c = a[i] * y[i]
                for j in range(act, n):
                    Gout[j] += y[j] * c * row[j]
    ist[RECONSTRUCTS] += 1


@njit(cache=True, nogil=True)
def _unshrink(vec, src, cache, ist):  # pragma: no cover - compiled
    G = vec[2]
    _reconstruct_into(G, vec, src, cache, ist)
    ist[ACTIVE] = G.shape[0]
    ist[NEXT] = -2


@njit(cache=True, nogil=True)
def _be_shrunk(t, y, a, G, U, t1, t2, t3, t4):  # pragma: no cover - compiled
    """LIBSVM's ``be_shrunk`` (``Solver_NU``'s four thresholds; ``Solver``'s
    two are the case ``t1 = t3``, ``t2 = t4``): at a bound, and beyond the
    extreme violator on its side."""
    if a[t] >= U[t]:
        return -G[t] > t1 if y[t] > 0.0 else -G[t] > t4
    if a[t] <= 0.0:
        return G[t] > t2 if y[t] > 0.0 else G[t] > t3
    return False


@njit(cache=True, nogil=True)
def _shrink(vec, src, cache, ist, tol, mode):  # pragma: no cover - compiled
    """LIBSVM's ``do_shrinking`` (``Solver`` and ``Solver_NU``); without an
    equality the same rule with the largest projected gradient as every bound."""
    y, a, G, _Gb, _p, _QD, U, _R = vec
    n = y.shape[0]
    act = ist[ACTIVE]
    if mode == SINGLE:
        worst = 0.0
        for t in range(act):
            g = G[t]
            if (a[t] <= 0.0 and g > 0.0) or (a[t] >= U[t] and g < 0.0):
                continue
            worst = max(worst, abs(g))
        # At a lower bound G_t > worst, at the upper -G_t > worst: shrunk.
        t1 = t2 = t3 = t4 = worst
        done = worst <= 10.0 * tol
    else:
        # -y G over each class's I_up (g1: y = +1, g3: y = -1) and y G over
        # each class's I_low (g2: y = +1, g4: y = -1).
        g1 = g2 = g3 = g4 = -np.inf
        for t in range(act):
            if a[t] < U[t]:
                if y[t] > 0.0:
                    g1 = max(g1, -G[t])
                else:
                    g4 = max(g4, -G[t])
            if a[t] > 0.0:
                if y[t] > 0.0:
                    g2 = max(g2, G[t])
                else:
                    g3 = max(g3, G[t])
        if mode == NU:
            t1, t2, t3, t4 = g1, g2, g3, g4
            done = max(g1 + g2, g3 + g4) <= 10.0 * tol
        else:
            m, M = max(g1, g3), max(g2, g4)  # m(a) and -M(a)
            t1, t2, t3, t4 = m, M, m, M
            done = m + M <= 10.0 * tol
    ist[SHRINKS] += 1
    if ist[UNSHRINK] == 0 and done:
        ist[UNSHRINK] = 1
        _unshrink(vec, src, cache, ist)
        act = n
    i = 0
    while i < act:
        if _be_shrunk(i, y, a, G, U, t1, t2, t3, t4):
            act -= 1
            while act > i:
                if not _be_shrunk(act, y, a, G, U, t1, t2, t3, t4):
                    swap_positions(i, act, vec, src, cache, ist)
                    break
                act -= 1
        i += 1
    ist[ACTIVE] = act
    ist[NEXT] = -2


@njit(cache=True, nogil=True)
def _update_bar(t, old, vec, src, cache, ist):  # pragma: no cover - compiled
    """``G_bar`` when ``a_t`` reached or left its upper bound (full row)."""
    y, a, _G, Gb, _p, _QD, U, R = vec
    was, now = old >= U[t], a[t] >= U[t]
    if was == now:
        return
    n = y.shape[0]
    ist[BOUND_MOVES] += 1
    row = cached_row(t, n, src, cache, ist)
    c = U[t] * y[t] if now else -U[t] * y[t]
    for k in range(n):
        Gb[k] += y[k] * c * row[k]
    Gb[t] += R[t] * U[t] if now else -R[t] * U[t]


@njit(cache=True, nogil=True, inline="always")
def _step_pair(i, j, Ki, Kj, y, a, G, QD, U, R, act):  # pragma: no cover - compiled
    """The two-variable step along ``(y_i, -y_j)``, clipped to the box (for
    ``y_i = y_j`` it keeps ``1'a`` too, as ``Solver_NU`` needs); ``Ki, Kj``
    the two kernel rows. Returns the old ``(a_i, a_j)``."""
    yi, yj = y[i], y[j]
    quad = QD[i] + QD[j] - 2.0 * Ki[j]
    if quad <= 0.0:
        quad = TAU
    gmax = -yi * G[i]
    step = (gmax + yj * G[j]) / quad
    lim_i = U[i] - a[i] if yi > 0.0 else a[i]
    lim_j = a[j] if yj > 0.0 else U[j] - a[j]
    old_i, old_j = a[i], a[j]
    if step >= lim_i:
        step = lim_i
    if step >= lim_j:
        step = lim_j
    a[i] = old_i + yi * step
    a[j] = old_j - yj * step
    if step == lim_i:  # land exactly on the bound
        a[i] = U[i] if yi > 0.0 else 0.0
    if step == lim_j:
        a[j] = 0.0 if yj > 0.0 else U[j]
    di = a[i] - old_i
    dj = a[j] - old_j
    ci = yi * di
    cj = yj * dj
    G[i] += R[i] * di
    G[j] += R[j] * dj
    for k in range(act):
        G[k] += y[k] * (ci * Ki[k] + cj * Kj[k])
    return old_i, old_j


@njit(cache=True, nogil=True, inline="always")
def _step_single(k, Kk, y, a, G, QD, U, R, act):  # pragma: no cover - compiled
    """``a_k <- clip(a_k - G_k / Q_kk, 0, U_k)`` (``Kk``: its kernel row);
    returns the old ``a_k``."""
    q = QD[k]
    if q <= 0.0:
        q = TAU
    new = a[k] - G[k] / q
    if new < 0.0:
        new = 0.0
    elif new > U[k]:
        new = U[k]
    old = a[k]
    d = new - old
    a[k] = new
    c = y[k] * d
    for t in range(act):
        G[t] += y[t] * c * Kk[t]
    G[k] += R[k] * d
    return old


@njit(cache=True, nogil=True)
def _chunk(vec, src, cache, ist, tol, shrinking, mode, it, stop_at):  # pragma: no cover
    """Iterations ``it .. stop_at`` of ``Solver::Solve`` (``Solver_NU``'s with
    ``mode == NU``); returns ``(it, converged)``. Resumable: the state is the
    arrays.

    The state tuples are unpacked once, here: the working-set rules, the row
    cache and the steps take the arrays one by one and are inlined (numba
    ``inline="always"``), because a tuple of arrays unpacked in every call
    costs reference counts (measured: 0.75 µs an iteration on 40 points with
    them, 0.34 µs without; LIBSVM's own iterations cost about 0.5 µs)."""
    y, a, G, _Gb, _p, QD, U, R = vec
    K, X, perm, kind, kp = src
    cdata, slot_of, owner, clen, stamp, synced, log = cache
    n = y.shape[0]
    while it < stop_at:
        if shrinking:
            ist[COUNTER] -= 1
            if ist[COUNTER] <= 0:
                ist[COUNTER] = ist[INTERVAL]
                _shrink(vec, src, cache, ist, tol, mode)
        # The rule by mode, written out in this hot loop (no dispatch call);
        # a second pass after an un-shrink when the active set is optimal.
        i = j = -1
        for attempt in range(2):
            act = ist[ACTIVE]
            if mode == PAIR:
                i, gmax = max_violator(y, a, G, U, act)
                j = -1
                if i >= 0:
                    si = row_slot(i, act, K, X, perm, kind, kp, cdata, slot_of,
                                  owner, clen, stamp, synced, log, ist)  # fmt: skip
                    j = pair_partner(i, gmax, cdata[si], y, a, G, QD, U, act, tol)
            elif mode == NU:
                ip, gp, i_n, gn = nu_violators(y, a, G, U, act)
                j = -1
                if ip >= 0 or i_n >= 0:
                    # A class without its i lends the other's row (never read).
                    first = ip if ip >= 0 else i_n
                    second = i_n if i_n >= 0 else ip
                    sp = row_slot(first, act, K, X, perm, kind, kp, cdata, slot_of,
                                  owner, clen, stamp, synced, log, ist)  # fmt: skip
                    sn = row_slot(second, act, K, X, perm, kind, kp, cdata, slot_of,
                                  owner, clen, stamp, synced, log, ist)  # fmt: skip
                    i, j = nu_partner(
                        ip, gp, i_n, gn, cdata[sp], cdata[sn], y, a, G, QD, U, act, tol
                    )
            else:
                j = select_single(a, G, U, act, tol)
            if j >= 0:
                break
            if attempt == 1 or ist[ACTIVE] == n:
                return it, True
            # Optimal on the active set: rebuild the gradient and check all.
            _unshrink(vec, src, cache, ist)
            ist[COUNTER] = 1  # shrink again at the next iteration
        act = ist[ACTIVE]
        ist[SWEPT] += act
        if mode == SINGLE:
            sk = row_slot(j, act, K, X, perm, kind, kp, cdata, slot_of,
                          owner, clen, stamp, synced, log, ist)  # fmt: skip
            old_k = _step_single(j, cdata[sk], y, a, G, QD, U, R, act)
            # Tested here: the call costs even when it returns at once.
            if U[j] < np.inf and (old_k >= U[j]) != (a[j] >= U[j]):
                _update_bar(j, old_k, vec, src, cache, ist)
        else:
            si = row_slot(i, act, K, X, perm, kind, kp, cdata, slot_of,
                          owner, clen, stamp, synced, log, ist)  # fmt: skip
            sj = row_slot(j, act, K, X, perm, kind, kp, cdata, slot_of,
                          owner, clen, stamp, synced, log, ist)  # fmt: skip
            old_i, old_j = _step_pair(
                i, j, cdata[si], cdata[sj], y, a, G, QD, U, R, act
            )
            if U[i] < np.inf and (old_i >= U[i]) != (a[i] >= U[i]):
                _update_bar(i, old_i, vec, src, cache, ist)
            if U[j] < np.inf and (old_j >= U[j]) != (a[j] >= U[j]):
                _update_bar(j, old_j, vec, src, cache, ist)
        it += 1
    return it, False


def shrink_interval(n: int) -> int:
    """Iterations between two shrinking rounds for ``n`` variables:
    ``min(n, SHRINK_EVERY, max(SHRINK_MIN, SHRINK_SWEEP // n))``.

    LIBSVM's ``min(n, 1000)`` up to ``n = 5000``; above, the points swept
    between two rounds are held at LIBSVM's at 5,000 points (``SHRINK_SWEEP``),
    so the interval falls as ``1 / n``, to 100 at 50,000 points. See the module
    docstring (a deviation from LIBSVM) and docs/corrections.md, "LIBSVM
    agreement"."""
    return min(n, SHRINK_EVERY, max(SHRINK_MIN, SHRINK_SWEEP // n))


def per_variable(value: float | Array, n: int) -> Array:
    """``value`` (one number, or one per variable) as a fresh float64 array of
    ``n``: the same numbers as ``np.array(np.broadcast_to(value, (n,)))``
    without broadcast_to's Python wrapper (issue 48: about 8 us a call, two
    or three calls in each pair of a one-vs-one fit)."""
    v = np.asarray(value, dtype=np.float64)
    if v.shape == (n,):
        return v.copy()
    if v.size != 1:
        raise ValueError(f"expected one value or {n}; got shape {v.shape}")
    return np.full(n, v.reshape(()))


class BoxSMO:
    """One LIBSVM-style solve of the box QP in the module docstring.

    Parameters
    ----------
    y
        Labels in {-1, +1}, shape (n,).
    p
        Linear term, shape (n,) (``-1`` for the SVM duals).
    upper
        Box bound ``u``: one number, or one per variable (``inf``: none; the
        squared hinge). Class weights give ``C_i = C w_{y_i}`` (LIBSVM's
        ``Cp``/``Cn``).
    ridge
        ``r`` in ``Q_d = Y K Y + diag(r)``: one number, or one per variable.
    fit_intercept
        Whether ``y'a`` is held fixed (pairs move) or not (single variables).
    K, kernel
        The Gram matrix, or its rows on demand (exactly one of them). For the
        SVR dual's 2n variables a ``K`` of size n serves: variable ``m >= n``
        reads row ``m - n`` (LIBSVM's ``SVR_Q``).
    a
        Start, shape (n,), feasible (None: zero).
    shrinking
        LIBSVM's shrinking on or off.
    cache_mb, dtype
        Size and precision of the kernel-row cache.
    nu
        Hold ``1'a`` fixed too (LIBSVM's ``Solver_NU``: both variables of a
        step from one class); needs ``fit_intercept``.
    """

    def __init__(
        self,
        y: Array,
        p: Array,
        upper: float | Array,
        ridge: float | Array,
        fit_intercept: bool,
        *,
        K: Array | None = None,
        kernel: KernelRows | None = None,
        a: Array | None = None,
        shrinking: bool = True,
        cache_mb: float = CACHE_MB,
        dtype: type = np.float64,
        nu: bool = False,
    ) -> None:
        n = y.shape[0]
        self.n = n
        U = per_variable(upper, n)
        R = per_variable(ridge, n)
        self.mode = (NU if nu else PAIR) if fit_intercept else SINGLE
        self.shrinking = bool(shrinking)
        self.perm = np.arange(n, dtype=np.int64)
        # K read-only whatever the caller's (svmlab.compiled.arguments): one
        # compiled loop for the Explore page's cached K and a fresh one.
        if K is not None:
            K = read_only(np.ascontiguousarray(K, dtype=np.float64))
            X, kind, kp = np.zeros((1, 1)), ROW_DENSE, np.zeros(ROW_PARAMS)
            diag = np.diagonal(K)[np.arange(n) % K.shape[0]].copy()
        else:
            assert kernel is not None
            K = read_only(np.zeros((1, 1)))
            # Column-major: a row's sums run coordinate by coordinate over the
            # points (kernels/rows.py), so each coordinate's column is read
            # contiguously; the same sums in the same order, the same bits.
            # On digits (d = 64) a row took 20x less time, on d = 2 half.
            X, kind, kp = fortran_copy(kernel.X), kernel.kind, kernel.params
            diag = kernel.diagonal()
        self.src = (K, X, self.perm, np.int64(kind), kp)
        self.y = np.array(y, dtype=np.float64)
        self.a = np.zeros(n) if a is None else np.array(a, dtype=np.float64)
        self.G = np.array(p, dtype=np.float64)
        self.vec = (
            self.y,
            self.a,
            self.G,
            np.zeros(n),
            self.G.copy(),
            diag + R,
            U,
            R,
        )
        self.cache = cache_arrays(n, cache_mb, dtype)
        self.ist = np.zeros(N_COUNTERS, dtype=np.int64)
        self.ist[NEXT] = -2
        self.ist[ACTIVE] = n
        self.ist[INTERVAL] = shrink_interval(n)
        self.ist[COUNTER] = self.ist[INTERVAL] + 1
        if a is not None and self.a.any():
            _init_gradient(self.vec, self.src, self.cache, self.ist)
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
            float(tol),
            self.shrinking,
            self.mode,
        )
        self.it, converged, out_of_time = run_chunked(
            _chunk, args, self.it, int(max_iter), budget, snapshot=snapshot
        )
        return self.it, converged, out_of_time

    def _original(self, v: Array) -> Array:
        if self.ist[SWAPS] == 0:
            # No swap yet: positions are the original order (perm is 0 .. n-1).
            return v.copy()
        out = np.empty_like(v)
        out[self.perm] = v
        return out

    def alpha(self) -> Array:
        """The current ``a`` in the original order (a copy)."""
        return self._original(self.a)

    def upper(self) -> Array:
        """The upper bounds ``U`` in the original order (a copy)."""
        return self._original(self.vec[6])

    def gradient(self) -> Array:
        """The whole gradient ``Q_d a + p`` in the original order (a copy; the
        inactive part rebuilt, the state untouched)."""
        G = self.G.copy()
        # Called even when nothing is shrunk (it then returns at once): the
        # warm-up compiles the call on small fits, which end unshrunk, and a
        # page's larger fit must find it compiled (tests/test_precompile.py).
        _reconstruct_into(G, self.vec, self.src, self.cache, self.ist)
        return self._original(G)

    def unshrink(self) -> None:
        """Rebuild the gradient and make every point active (LIBSVM does this
        before it reports a solution cut off by its iteration cap)."""
        _unshrink(self.vec, self.src, self.cache, self.ist)

    @property
    def stats(self) -> dict[str, int]:
        """Active points, kernel entries computed, shrinking rounds and gradient
        reconstructions so far, and the cache's capacity in rows."""
        ist = self.ist.tolist()  # one conversion, not nine (issue 48)
        return {
            "active": ist[ACTIVE],
            "kernel_evaluations": ist[EVALS],
            "shrink_rounds": ist[SHRINKS],
            "reconstructions": ist[RECONSTRUCTS],
            "cache_rows": int(self.cache[0].shape[0]),
            "points_swept": ist[SWEPT],
            "swaps": ist[SWAPS],
            "bound_moves": ist[BOUND_MOVES],
            "parallel_rows": ist[PARALLEL_ROWS],
        }
