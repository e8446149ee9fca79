"""The compiled core of the entropy-dual solver: 1-D Newton steps, the KKT
intervals, working-set selection with shrinking, and the loop.

The dual (:mod:`svmlab.solvers.entropy_dual`, docs/modified_hinge_dual.md)::

    max_a  D(a) = sum_k a_k - delta sum_k a_k log(a_k / C) - 0.5 a' H a
    s.t.   0 <= a_k <= C   [and y'a = 0 with an unregularized bias]

State (all arrays, so numba compiles it and a chunk resumes where the last
one stopped): ``a`` (the multipliers), ``la = log(a / C)`` (kept beside ``a``
because a multiplier on the exponential tail underflows: ``a = C e^-1000`` is
0.0 but its log is -1000), ``q = H a`` (margins without the bias, updated in
O(n) per step from one or two rows of K) and ``lo``, ``hi``.

**The KKT intervals.** The optimality measure of every modified-hinge fit is
the stationarity residual ``max_k |a_k / C - psi(m_k)|`` with
``psi(m) = -h'(m) = min(1, exp((1 - delta - m) / delta))`` and ``m_k = q_k + b
y_k`` (:func:`svmlab.solvers.base.kkt_violation`). ``psi`` is non-increasing,
so ``|v_k - psi(m_k)| <= tol`` with ``v_k = a_k / C`` holds exactly when ``m_k``
lies in the interval ``[lo_k, hi_k]``::

    lo_k = 1 - delta - delta log(v_k + tol)   (-inf when v_k + tol >= 1)
    hi_k = 1 - delta - delta log(v_k - tol)   (+inf when v_k <= tol)

which depends on ``a_k`` alone: two logarithms when ``a_k`` changes, none when
only the margins move. Without a bias the test is ``lo_k <= q_k <= hi_k``;
with one, some ``b`` must put every ``q_k + b y_k`` in its interval, i.e.
``max_k L_k <= min_k U_k`` with ``[L_k, U_k]`` the interval of ``b`` that point
``k`` allows (``[lo_k - q_k, hi_k - q_k]`` for ``y_k = +1``,
``[q_k - hi_k, q_k - lo_k]`` for ``y_k = -1``). That is LIBSVM's ``m(a) - M(a)``
with the tolerance built into the sets: a point far out on the tail (``v_k <=
tol``) can only ask to grow, a point at ``C`` only to shrink, in margin units,
and no exponential is evaluated in a scan.

**Working set** (Fan, Chen & Lin 2005, with the entropy's curvature): without a
bias the point with the largest interval violation; with one ``i = argmax L_k``
and, among the ``j`` with ``U_j < L_i``, the largest second-order gain
``(y_i G_i - y_j G_j)^2 / (eta_ij + delta / a_i + delta / a_j)``, where
``G_k = 1 - delta - delta la_k - q_k`` is the dual gradient and
``eta_ij = K_ii + K_jj - 2 K_ij``. ``y_i G_i > L_i > U_j > y_j G_j``, so every
chosen pair is an ascent direction.

**The steps** are exact 1-D maximisations. One coordinate (no bias): the
stationarity ``delta log(x / C) + K_kk x = 1 - delta - c`` (``c`` the margin
from the other points) is ``w + log w = L`` in ``w = K_kk x / delta``: Lambert's
W, solved by Newton in ``u = log w`` (convex, increasing: monotone after the
first step), then clipped to ``C``. A pair (with the bias, ``a_i += y_i t``,
``a_j -= y_j t``): ``phi'(t) = y_i G_i(t) - y_j G_j(t)`` is decreasing with a
logarithmic singularity where a multiplier reaches 0, so it is solved by a
safeguarded Newton iteration (bisection when a step leaves the bracket) in
``u = log`` of the *smaller* multiplier of the pair: the log term is then
linear in ``u`` and a multiplier headed for ``e^-1000`` gets there in a few
steps, where Newton in ``t`` would overshoot to negative values.

**Shrinking** (Joachims 1999; Chang & Lin 2011, section 5.1): every
``min(n, 100)`` steps a point whose interval is one-sided (``a_k = C``: only
``hi``; ``v_k <= tol``: only ``lo``) and whose finite side lies beyond the
current extreme violation leaves the active list, which only the scans read:
``q`` is still updated for every point, so no gradient has to be rebuilt and a
point's held-out decision value can be read at any time. When the active points
meet the test every eligible point is checked and, if one fails, all are active
again.

References
----------
Fan, Chen, Lin (2005), Working set selection using second order information for
training support vector machines, JMLR 6. Chang, Lin (2011), LIBSVM, ACM TIST 2.
Yu, Huang, Lin (2011), Dual coordinate descent methods for logistic regression
and maximum entropy models, Machine Learning 85 (Newton on an entropy term, kept
inside the domain).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

from svmlab.kernels import ROW_DENSE, ROW_PARAMS, KernelRows
from svmlab.kernels.rows import fortran_copy
from svmlab.solvers.row_cache import CACHE_MB, N_COUNTERS, cache_arrays, cached_row

__all__ = [
    "N_STATE",
    "all_active",
    "coordinate_optimum",
    "interval",
    "intervals_into",
    "kernel_row",
    "make_rows",
    "margins_from_rows",
    "pair_step",
    "shrink",
    "violation",
]

# Integer state (``ist``): active points, steps to the next shrinking, steps
# taken, shrinking rounds, times every point was made active again, stalls
# (the loop ended because its steps no longer move anything above rounding),
# the current run of rounding-level steps, and whether that run has already
# made every point active again (a second such run is a stall).
NACT, COUNTER, STEPS, SHRINKS, UNSHRINKS, STALLS, TINY, TINY_UNSHRUNK = range(8)
N_STATE = 8
#: A step that changes log(a) by at most this (relative change of the
#: multipliers) is at rounding level; this many in a row (or n) stop the loop.
TINY_STEP = 1e-13
TINY_RUN = 100
#: Shrink every min(n, SHRINK_EVERY) steps. LIBSVM shrinks every 1000; here
#: every 100 (issue 29, n = 2000, SVC.fit CPU time, the six problems of
#: benchmarks/fit_speed.py): a cold start has every point violating its
#: interval, and the points far beyond the margin band that leave the scans
#: early are never picked (nor their rows computed): rings 7.4 -> 5.3 ms, two
#: circles with label noise 24.2 -> 16.5 ms (kernel entries 2.57 -> 1.91
#: million), C = 500 and the others within the noise.
SHRINK_EVERY = 100
#: Newton iterations at most in a 1-D solve (a handful are used).
MAX_NEWTON = 100


def make_rows(
    K: NDArray[np.float64] | None,
    kernel: KernelRows | None,
    n: int,
    cache_mb: float = CACHE_MB,
) -> tuple[tuple, NDArray[np.float64]]:
    """``(rows, diag)``: where the solver's kernel rows come from, and ``K_kk``.

    ``rows = (src, cache, counters)`` of :mod:`svmlab.solvers.row_cache`, in
    the original order (the solver keeps an index list, it never swaps
    points): with ``K`` a row is ``K[k]`` itself (no copy); without it
    (``kernel``, :class:`svmlab.kernels.KernelRows`) rows are computed on
    demand, full length, and kept in the LRU cache, so a fit that moves few
    points never forms the ``n x n`` matrix (issue 29).
    """
    perm = np.arange(n, dtype=np.int64)
    if K is not None:
        src = (K, np.zeros((1, 1)), perm, np.int64(ROW_DENSE), np.zeros(ROW_PARAMS))
        diag = np.ascontiguousarray(np.diagonal(K), dtype=np.float64)
        cache = cache_arrays(n, 0.0, np.float64)  # unused: two empty rows
    else:
        assert kernel is not None
        src = (
            K_NONE,
            fortran_copy(kernel.X),
            perm,
            np.int64(kernel.kind),
            kernel.params,
        )
        diag = np.ascontiguousarray(kernel.diagonal(), dtype=np.float64)
        cache = cache_arrays(n, cache_mb, np.float64)
    return (src, cache, np.zeros(N_COUNTERS, dtype=np.int64)), diag


#: The stand-in Gram matrix of a solver that works from kernel rows.
K_NONE = np.zeros((1, 1))


@njit(cache=True, nogil=True, inline="always")
def kernel_row(k, rows):  # pragma: no cover - compiled
    """Row ``k`` of the (effective) Gram matrix, full length, original order."""
    src, cache, counters = rows
    if src[3] == ROW_DENSE:
        return src[0][k]
    return cached_row(k, src[2].shape[0], src, cache, counters)


@njit(cache=True, nogil=True)
def margins_from_rows(y, a, rows):  # pragma: no cover - compiled
    """``q = Y K Y a`` summed from the rows of the nonzero ``a_k``."""
    n = y.shape[0]
    q = np.zeros(n)
    for k in range(n):
        if a[k] != 0.0:
            row = kernel_row(k, rows)
            c = y[k] * a[k]
            for t in range(n):
                q[t] += c * row[t]
    for t in range(n):
        q[t] *= y[t]
    return q


@njit(cache=True, nogil=True)
def interval(la: float, tol: float, delta: float) -> tuple[float, float]:
    """``(lo, hi)``: the margins ``m`` with ``|v - psi(m)| <= tol``, ``v = e^la``."""
    v = math.exp(la)
    base = 1.0 - delta
    lo = -np.inf if v + tol >= 1.0 else base - delta * math.log(v + tol)
    hi = np.inf if v <= tol else base - delta * math.log(v - tol)
    return lo, hi


@njit(cache=True, nogil=True)
def intervals_into(la, index, tol, delta, lo, hi):
    """``lo[k], hi[k] = interval(la[k], ...)`` for every ``k`` in ``index``."""
    for r in range(index.shape[0]):
        k = index[r]
        lo[k], hi[k] = interval(la[k], tol, delta)


@njit(cache=True, nogil=True)
def _exp_plus_u(L: float) -> float:
    """The root of ``e^u + u = L`` (``u = log W(e^L)``) by Newton's method."""
    if L > 1.0:
        u = math.log(L - math.log(L))
    else:
        u = L - math.exp(L)
    for _ in range(MAX_NEWTON):
        e = math.exp(u)
        du = (e + u - L) / (e + 1.0)
        u -= du
        if abs(du) <= 1e-15 * (1.0 + abs(u)):
            break
    return u


@njit(cache=True, nogil=True)
def coordinate_optimum(c: float, kkk: float, C: float, delta: float) -> float:
    """``log(x / C)`` of the maximiser over ``(0, C]`` of
    ``x - delta x log(x / C) - 0.5 kkk x^2 - c x`` (docstring of the module)."""
    r = (1.0 - delta - c) / delta
    if kkk <= 0.0:
        return min(r, 0.0)
    shift = math.log(kkk * C / delta)
    return min(_exp_plus_u(r + shift) - shift, 0.0)


@njit(cache=True, nogil=True)
def _pair_slope(t, u, k_small, A, yi, yj, ai, aj, eta, logC, delta):
    """``phi'(t)`` and ``d phi' / du`` of the pair step, ``u = log`` of the
    smaller multiplier (``k_small`` 0: a_i, 1: a_j) at ``t``."""
    if k_small == 0:
        d = math.exp(u)
        lam_i = u - logC
        other = aj - yj * t
        lam_j = math.log(other) - logC if other > 0.0 else -np.inf
        s = yi
        inv_other = 1.0 / other if other > 0.0 else np.inf
    else:
        d = math.exp(u)
        lam_j = u - logC
        other = ai + yi * t
        lam_i = math.log(other) - logC if other > 0.0 else -np.inf
        s = -yj
        inv_other = 1.0 / other if other > 0.0 else np.inf
    slope = A - delta * (yi * lam_i - yj * lam_j) - eta * t
    # phi'' = -eta - delta / d - delta / other, and dt / du = s d.
    dslope = s * (-eta * d - delta - delta * d * inv_other)
    return slope, dslope


@njit(cache=True, nogil=True)
def pair_step(yi, yj, ai, aj, lai, laj, qi, qj, kii, kjj, kij, C, delta):
    """The exact maximiser of the dual along ``a_i += y_i t, a_j -= y_j t``.

    Returns ``(la_i, la_j, a_i, a_j)``: the new ``log(a / C)`` of the pair
    (0 exactly at C) and the multipliers.
    """
    logC = math.log(C)
    eta = max(kii + kjj - 2.0 * kij, 0.0)
    A = yi * (1.0 - delta - qi) - yj * (1.0 - delta - qj)
    slope0 = A - delta * (yi * lai - yj * laj)
    if slope0 == 0.0:
        return lai, laj, ai, aj
    sigma = 1.0 if slope0 > 0.0 else -1.0
    # How far t may go in direction sigma: a variable growing stops at C
    # (closed end), one shrinking at 0 (open end, phi' infinite there).
    closed_i = sigma * yi > 0.0
    closed_j = -sigma * yj > 0.0
    room_i = C - ai if closed_i else ai
    room_j = C - aj if closed_j else aj
    if room_i <= room_j:
        t_end, closed = room_i, closed_i
    else:
        t_end, closed = room_j, closed_j
    # Work in u = log of the smaller multiplier (its log singularity is nearest).
    k_small = 0 if lai <= laj else 1
    s_small = yi if k_small == 0 else -yj
    a_small = ai if k_small == 0 else aj
    u0 = (lai if k_small == 0 else laj) + logC
    t_stop = sigma * t_end
    if closed:
        d_end = a_small + s_small * t_stop
        u_end = math.log(d_end) if d_end > 0.0 else -np.inf
        slope_end, _ = _pair_slope(
            t_stop, u_end, k_small, A, yi, yj, ai, aj, eta, logC, delta
        )
        if sigma * slope_end >= 0.0:  # still ascending at the end: clip there
            t = t_stop
            return _pair_result(t, k_small, u_end, yi, yj, ai, aj, C, logC)
    else:
        d_end = a_small + s_small * t_stop
        u_end = math.log(d_end) if d_end > 0.0 else -np.inf
    # Bracket in u between u0 (slope sign sigma) and u_end (the other sign).
    u_pos, u_neg = u0, u_end  # where sigma * slope > 0 and < 0
    u = u0
    slope = slope0
    _, dslope = _pair_slope(0.0, u0, k_small, A, yi, yj, ai, aj, eta, logC, delta)
    width = 1.0
    for _ in range(MAX_NEWTON):
        lo_u, hi_u = min(u_pos, u_neg), max(u_pos, u_neg)
        u_new = np.nan
        if dslope != 0.0 and math.isfinite(dslope):
            u_new = u - slope / dslope
            if abs(u_new - u) <= 1e-15 * (1.0 + abs(u)):
                # Newton's step is at rounding level: u is the root. (Tested
                # before the bracket: at the root u is often an end of it, a
                # step onto that end is refused, and bisection took some 50
                # more iterations back to the same u, 4 us a step; issue 29.)
                break
        if not (lo_u < u_new < hi_u):
            if math.isinf(lo_u):  # walk towards 0 geometrically
                width *= 2.0
                u_new = hi_u - width
            else:
                u_new = 0.5 * (lo_u + hi_u)
        if abs(u_new - u) <= 1e-15 * (1.0 + abs(u)):
            u = u_new
            break
        u = u_new
        t = s_small * (math.exp(u) - a_small)
        slope, dslope = _pair_slope(t, u, k_small, A, yi, yj, ai, aj, eta, logC, delta)
        if slope == 0.0:
            break
        if sigma * slope > 0.0:
            u_pos = u
        else:
            u_neg = u
    t = s_small * (math.exp(u) - a_small)
    return _pair_result(t, k_small, u, yi, yj, ai, aj, C, logC)


@njit(cache=True, nogil=True)
def _pair_result(t, k_small, u, yi, yj, ai, aj, C, logC):
    """``(la_i, la_j, a_i, a_j)`` at step ``t``: the smaller multiplier from
    ``u`` exactly, the other moved by ``t`` (so that ``y'a`` keeps its value)."""
    if k_small == 0:
        new_i = min(math.exp(u), C)
        la_i = min(u - logC, 0.0)
        new_j = min(max(aj - yj * t, 0.0), C)
        la_j = math.log(new_j / C) if new_j > 0.0 else -745.0 - logC
    else:
        new_j = min(math.exp(u), C)
        la_j = min(u - logC, 0.0)
        new_i = min(max(ai + yi * t, 0.0), C)
        la_i = math.log(new_i / C) if new_i > 0.0 else -745.0 - logC
    return la_i, la_j, new_i, new_j


@njit(cache=True, nogil=True)
def _bounds(k, y, q, lo, hi):
    """``(L_k, U_k)``: the interval of ``b`` that point k allows."""
    if y[k] > 0.0:
        return lo[k] - q[k], hi[k] - q[k]
    return q[k] - hi[k], q[k] - lo[k]


@njit(cache=True, nogil=True)
def violation(y, q, lo, hi, index, count, pair):
    """The largest interval violation over ``index[:count]`` (margin units):
    ``max L - min U`` with the bias, ``max max(lo - q, q - hi)`` without.
    Returns ``(violation, max L, min U)`` (the last two are NaN without bias)."""
    if pair:
        big_l, small_u = -np.inf, np.inf
        for r in range(count):
            k = index[r]
            L, U = _bounds(k, y, q, lo, hi)
            big_l = max(big_l, L)
            small_u = min(small_u, U)
        if math.isinf(big_l) or math.isinf(small_u):
            return -np.inf, big_l, small_u
        return big_l - small_u, big_l, small_u
    worst = -np.inf
    for r in range(count):
        k = index[r]
        worst = max(worst, lo[k] - q[k], q[k] - hi[k])
    return worst, np.nan, np.nan


@njit(cache=True, nogil=True)
def shrink(y, a, q, lo, hi, act, ist, pair):
    """Drop one-sided points whose finite side lies beyond the current
    extreme violation from the active list (module docstring)."""
    nact = ist[NACT]
    worst, big_l, small_u = violation(y, q, lo, hi, act, nact, pair)
    kept = 0
    for r in range(nact):
        k = act[r]
        one_sided = math.isinf(lo[k]) or math.isinf(hi[k])
        drop = False
        if one_sided:
            if pair:
                L, U = _bounds(k, y, q, lo, hi)
                drop = (math.isinf(L) or L < small_u) and (math.isinf(U) or U > big_l)
            else:
                slack = min(q[k] - lo[k], hi[k] - q[k])
                drop = slack > max(worst, 0.0)
        if not drop:
            act[kept] = k
            kept += 1
    ist[NACT] = kept
    ist[SHRINKS] += 1


@njit(cache=True, nogil=True)
def all_active(eligible, act, ist):
    count = 0
    for k in range(eligible.shape[0]):
        if eligible[k]:
            act[count] = k
            count += 1
    ist[NACT] = count
