"""The entropy-dual solver's compiled loop: working-set selection, the steps'
bookkeeping and shrinking, on per-point arrays that make the scans branch-free.

The working set, the steps and the intervals are those of
:mod:`svmlab.solvers.entropy_steps` (the module docstring there derives them);
this module is the loop that runs them, written for speed (issue 29: the
modified hinge at most 2x SMO's hinge time).

**The scan arrays.** Every step scans the active points twice (the largest
``L_k``, then the best partner ``j``). Written from ``lo``, ``hi``, ``la``
and ``a`` each candidate costs a branch on ``y_k`` (the labels are in no
order, so it is mispredicted half the time) and a division for the entropy's
curvature. The loop keeps, per point,

    BL_k = lo_k (y_k = +1) or -hi_k (y_k = -1),  so L_k = BL_k - y_k q_k
    BU_k = hi_k (y_k = +1) or -lo_k (y_k = -1),  so U_k = BU_k - y_k q_k
    P_k  = y_k (1 - delta - delta max(la_k, 2 log tol)),  y_k G_k = P_k - y_k q_k
    CV_k = delta / max(a_k, tol C)                (the curvature of the pair gain)

which change only when ``a_k`` does (O(1) a step); the margins ``q`` change
for every point and stay the one array the steps update. ``L`` and ``U``
equal the ones written out from ``lo`` and ``hi`` to the last bit (negation
is exact).

**The gain's gradient** is taken at ``a_k >= tol^2 C`` (``P_k``), as its
curvature is at ``a_k >= tol C``: a multiplier never moved sits at ``a_k =
0`` with ``log(a_k / C)`` at -700, where the entropy's gradient ``-delta
log(a_k / C)`` is 70 at delta = 0.1 and made every untouched violator the
best partner, so that almost every step brought in a new point and computed
its row, many of which ended back on the tail (outlier blobs, n = 2000: 849
rows for 430 multipliers above tol C; 625 rows with the floor). Only the
choice among violating pairs changes (the pair step is exact on the true
dual). Measured (solver CPU time, n = 2000, tol 1e-3) without -> with it:
outlier blobs 8.6 -> 6.0 ms, spiral 17.0 -> 12.2, overlapping Gaussians 34
-> 30.4, rings 4.2 -> 3.7, C = 500 105 -> 103.5; two circles with label
noise 11.7 -> 17.5 (its margins build more slowly, and shrinking starts at
step 1300 rather than 400). tol C, or tol^3 C: worse on most. A later scan of
the floor ``f log tol`` (``SVC.fit``, modified hinge / hinge, the compiled cache
emptied for each f): f = 0.7, 2 (this one), 3, 4, 6, 10, 50 gave two circles
with label noise 2.33, 2.19, 2.08, 1.88, 1.85, 1.89, 1.78 and outlier blobs
3.85, 2.39, 2.52, 2.73, 2.44, 2.99, 3.18; a floor of 6 for the first n / 4 or
n / 8 steps, then 2: 1.80 and 1.87 with label noise, 2.60 and 2.71 on outlier
blobs. No floor serves both. The arrays are
rebuilt at the start of each chunk (O(n), every few thousand steps), so the
Newton phases and the refits, which move ``a`` between chunks, need not keep
them.

**Rows** come through :func:`svmlab.solvers.entropy_steps.kernel_row` (the
Gram matrix's row, or the row cache's), two or three a step. A pair step's two
margin updates are one pass over ``q``.

**The next i from the margin update.** With the bias, while at least half the
points are active, the pass that updates ``q`` also writes every ``L_k`` (``BL``
is ``-inf`` off the active list) and the next step's ``i`` is the first of
their largest (:func:`_first_max`: eight running maxima the compiler
vectorises, then the first entry equal to their maximum), instead of a scan of
the active list for it (LIBSVM's SMO finds its next ``i`` in its gradient
update the same way). The same ``i`` to the last bit: the list is kept in
ascending order. Measured (issue 29, n = 2000, ``SVC.fit`` CPU time, medians
of 7 interleaved rounds, load 6.4): rings 5.16 -> 4.73 ms, two circles with
label noise 19.8 -> 18.7, C = 500 107 -> 100, overlapping Gaussians 29.9 ->
28.3, spiral 14.0 -> 13.7, outlier blobs 7.14 -> 6.88; the steps and the
multipliers unchanged. Where the step time goes (K handed in, cycle counters
around each phase): the partner scan 58-76 %, this scan 9-25 %, the margin
update 5-14 %, the pair step 2-6 %. The partner scan then lost its smallest-U
tracking (a pass of its own when no pair has a gain) and a redundant
``isfinite``: 5-8 % more (same steps). Both together, benchmarks/
fit_speed.py at load 3.7, modified hinge / hinge: rings 1.51, circles
with label noise 2.12, C = 500 1.63, overlapping Gaussians 1.86, spiral 1.72,
outlier blobs 2.35 (before, load 0.6: 1.55, 2.41, 1.77, 2.20, 1.98, 2.62).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from svmlab.solvers.entropy_steps import (
    COUNTER,
    NACT,
    SHRINK_EVERY,
    STALLS,
    STEPS,
    TINY,
    TINY_RUN,
    TINY_STEP,
    TINY_UNSHRUNK,
    UNSHRINKS,
    all_active,
    coordinate_optimum,
    interval,
    kernel_row,
    pair_step,
    shrink,
)

__all__ = ["FUSE_SHARE", "chunk"]

#: The margin update finds the next step's i (the largest ``L_k``) when at
#: least 1 / FUSE_SHARE of the points are active (issue 29; measured below).
FUSE_SHARE = 2


@njit(cache=True, nogil=True, inline="always")
def _scan_values(yk, ak, lak, lok, hik, delta, floor, lfloor):  # pragma: no cover
    """``(BL_k, BU_k, P_k, CV_k)`` of one point, ``lfloor = 2 log tol``
    (scalars in and out: a helper taking the arrays costs their reference
    counts, measured 90 ns a call)."""
    if yk > 0.0:
        bl, bu = lok, hik
    else:
        bl, bu = -hik, -lok
    g = 1.0 - delta - delta * max(lak, lfloor)
    return bl, bu, yk * g, delta / max(ak, floor)


@njit(cache=True, nogil=True, inline="always")
def _partner(
    i, Ki, kii, y, q, diag, BU, P, CV, act, nact, full, big_l
):  # pragma: no cover
    """``(j, gain)``: among the active ``k`` with ``U_k < L_i`` the largest
    second-order gain ``(y_i G_i - y_k G_k)^2 / (eta_ik + CV_i + CV_k)``
    (:mod:`svmlab.solvers.entropy_steps`); ``(-1, 0)`` when none has a gain
    (then :func:`_smallest_u`).

    The curvature ``CV_k = delta / max(a_k, tol C)``: a point on the tail that
    violates its interval is headed above ``tol C``, where its curvature is at
    most that, and at its current ``a_k`` (1e-13 C after a cold start) the
    quadratic model would rate its step as worthless (measured: such points
    waited 10^6 steps). With every point active (``act`` is then ``0 .. n -
    1``: shrinking keeps the list's order) the scans read the arrays directly,
    contiguous loads (``full``). An infinite or NaN ``quad`` never wins: the
    comparison is then false (``x > inf``, ``x > 0 * inf``), so it needs no
    test of its own in this, the solver's hottest loop."""
    gi = P[i] - y[i] * q[i]
    curv_i = CV[i]
    best_b2, best_quad = 0.0, 1.0
    j = -1
    for r in range(nact):
        k = r if full else act[r]
        yq = y[k] * q[k]
        if BU[k] - yq >= big_l:
            continue
        b = gi - (P[k] - yq)
        curv = diag[k] + kii - 2.0 * Ki[k]
        quad = max(curv, 0.0) + curv_i + CV[k]
        b2 = b * b
        if b2 * best_quad > best_b2 * quad:
            best_b2, best_quad, j = b2, quad, k
    gain = best_b2 / best_quad if j >= 0 else 0.0
    return j, gain


@njit(cache=True, nogil=True, inline="always")
def _smallest_u(y, q, BU, act, nact, full, big_l):  # pragma: no cover
    """The first active ``k`` of the smallest ``U_k < L_i`` (-1 if none): the
    partner when no pair has a second-order gain (rare; a pass of its own
    rather than two more compares for every point of :func:`_partner`'s)."""
    small_u, fallback = np.inf, -1
    for r in range(nact):
        k = r if full else act[r]
        U = BU[k] - y[k] * q[k]
        if U >= big_l:
            continue
        if U < small_u:
            small_u, fallback = U, k
    return fallback


@njit(cache=True, nogil=True, inline="always")
def _max_l(y, q, BL, act, nact, full):  # pragma: no cover - compiled
    """``(i, L_i)``: the active point with the largest ``L_k``."""
    big_l, i = -np.inf, -1
    for r in range(nact):
        k = r if full else act[r]
        L = BL[k] - y[k] * q[k]
        if L > big_l:
            big_l, i = L, k
    return i, big_l


@njit(cache=True, nogil=True, inline="always")
def _first_max(v, m):  # pragma: no cover - compiled
    """``(t, v[t])``: the first index of the largest ``v[t] > -inf`` among
    ``v[:m]`` (``(-1, -inf)`` if none; NaN never wins), as :func:`_max_l`'s
    strict ``>`` over an ascending list finds it. Eight running maxima (a loop
    the compiler vectorises, where one running argmax is a chain of dependent
    compares), then the first entry equal to their maximum."""
    b0 = b1 = b2 = b3 = b4 = b5 = b6 = b7 = -np.inf
    t = 0
    while t + 8 <= m:
        x = v[t]
        b0 = x if x > b0 else b0
        x = v[t + 1]
        b1 = x if x > b1 else b1
        x = v[t + 2]
        b2 = x if x > b2 else b2
        x = v[t + 3]
        b3 = x if x > b3 else b3
        x = v[t + 4]
        b4 = x if x > b4 else b4
        x = v[t + 5]
        b5 = x if x > b5 else b5
        x = v[t + 6]
        b6 = x if x > b6 else b6
        x = v[t + 7]
        b7 = x if x > b7 else b7
        t += 8
    while t < m:
        x = v[t]
        b0 = x if x > b0 else b0
        t += 1
    best = max(max(max(b0, b1), max(b2, b3)), max(max(b4, b5), max(b6, b7)))
    if best == -np.inf:
        return -1, -np.inf
    for t in range(m):
        if v[t] == best:
            return t, best
    return -1, -np.inf


@njit(cache=True, nogil=True, inline="always")
def _mask_inactive(BL, act, nact, mark):  # pragma: no cover - compiled
    """``BL[k] = -inf`` for every point off the active list, so that a pass
    over all ``n`` points finds the largest ``L_k`` of the active ones."""
    mark[:] = False
    for r in range(nact):
        mark[act[r]] = True
    for k in range(BL.shape[0]):
        if not mark[k]:
            BL[k] = -np.inf


@njit(cache=True, nogil=True, inline="always")
def _eligible_count(eligible):  # pragma: no cover - compiled
    count = 0
    for k in range(eligible.shape[0]):
        count += eligible[k]
    return count


@njit(cache=True, nogil=True, inline="always")
def _unshrink(
    y, a, la, lo, hi, eligible, act, ist, BL, BU, P, CV, delta, floor, lfloor, mark
):  # pragma: no cover - compiled
    """Every eligible point active again, with its scan values."""
    all_active(eligible, act, ist)
    for k in range(y.shape[0]):
        BL[k], BU[k], P[k], CV[k] = _scan_values(
            y[k], a[k], la[k], lo[k], hi[k], delta, floor, lfloor
        )
    _mask_inactive(BL, act, ist[NACT], mark)
    ist[UNSHRINKS] += 1


@njit(cache=True, nogil=True)
def chunk(rows, diag, y, a, la, q, lo, hi, eligible, act, ist, C, delta, tol, pair,
          shrinking, it, stop_at):  # fmt: skip  # pragma: no cover - compiled
    """Steps ``it .. stop_at`` of the solver (state in place); returns
    ``(it, converged)``. Points with ``eligible[k] = False`` never move (left
    out of a refit); their margins are still updated.

    With the bias, the pair ``i = argmax L``, ``j`` its best partner (a pair
    with no gain: the smallest ``U``). Without it, the point with the largest
    interval violation moves alone, unless a pair promises a larger
    second-order gain (:mod:`svmlab.solvers.entropy_steps`)."""
    n = y.shape[0]
    floor = tol * C
    lfloor = 2.0 * math.log(tol)  # the gain's gradient floor (module docstring)
    BL, BU, P, CV = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    Lb, mark = np.empty(n), np.empty(n, dtype=np.bool_)
    for k in range(n):
        BL[k], BU[k], P[k], CV[k] = _scan_values(
            y[k], a[k], la[k], lo[k], hi[k], delta, floor, lfloor
        )
    _mask_inactive(BL, act, ist[NACT], mark)
    # The next step's i and L_i, found by the last step's margin update (-2:
    # not known, scan for it).
    next_i, next_l = -2, -np.inf
    while it < stop_at:
        if shrinking:
            ist[COUNTER] -= 1
            if ist[COUNTER] <= 0:
                ist[COUNTER] = min(n, SHRINK_EVERY)
                shrink(y, a, q, lo, hi, act, ist, pair)
                _mask_inactive(BL, act, ist[NACT], mark)
                next_i = -2
        i = j = -1
        fuse = False
        for attempt in range(2):
            nact = ist[NACT]
            full = nact == n
            # The margin update finds i in a pass over all n points when at
            # least half are active (FUSE_SHARE); below that the scan over the
            # active list is the cheaper.
            fuse = pair and FUSE_SHARE * nact >= n
            pick = -1
            if not pair:
                # The single step on the largest interval violation, unless a
                # pair promises more.
                best = 0.0
                for r in range(nact):
                    k = r if full else act[r]
                    v = max(lo[k] - q[k], q[k] - hi[k])
                    if v > best:
                        best, pick = v, k
            if next_i != -2:
                i, big_l = next_i, next_l
                next_i = -2
            else:
                i, big_l = _max_l(y, q, BL, act, nact, full)
            j = -1
            gain = 0.0
            if i >= 0 and (pair or pick >= 0):
                Ki = kernel_row(i, rows)
                j, gain = _partner(
                    i, Ki, diag[i], y, q, diag, BU, P, CV, act, nact, full, big_l
                )
                if j < 0:
                    j = _smallest_u(y, q, BU, act, nact, full, big_l)
            if pair:
                if j < 0:
                    i = -1
            elif pick < 0:
                i = j = -1
            else:
                g = 1.0 - delta - delta * la[pick] - q[pick]
                curv = diag[pick] + delta / max(a[pick], floor)
                single = g * g / curv if curv > 0.0 else np.inf
                if not (j >= 0 and gain > single):
                    i, j = pick, -1
            if i >= 0:
                break
            if attempt == 1:
                return it, True
            if nact == _eligible_count(eligible):
                return it, True
            _unshrink(y, a, la, lo, hi, eligible, act, ist, BL, BU, P, CV,
                      delta, floor, lfloor, mark)  # fmt: skip
            ist[COUNTER] = 1  # shrink again at the next step
        Ki = kernel_row(i, rows)
        if j >= 0:
            la_i, la_j, new_i, new_j = pair_step(
                y[i],
                y[j],
                a[i],
                a[j],
                la[i],
                la[j],
                q[i],
                q[j],
                diag[i],
                diag[j],
                Ki[j],
                C,
                delta,
            )
            change = max(abs(la_i - la[i]), abs(la_j - la[j]))
            ci = y[i] * (new_i - a[i]) if la_i != la[i] else 0.0
            cj = y[j] * (new_j - a[j]) if la_j != la[j] else 0.0
            if la_i != la[i]:
                a[i], la[i] = new_i, la_i
                lo[i], hi[i] = interval(la_i, tol, delta)
                BL[i], BU[i], P[i], CV[i] = _scan_values(
                    y[i], a[i], la[i], lo[i], hi[i], delta, floor, lfloor
                )
            if la_j != la[j]:
                a[j], la[j] = new_j, la_j
                lo[j], hi[j] = interval(la_j, tol, delta)
                BL[j], BU[j], P[j], CV[j] = _scan_values(
                    y[j], a[j], la[j], lo[j], hi[j], delta, floor, lfloor
                )
            # Each update written out with and without the next L pass (the
            # same sums, so the margins do not depend on it).
            if ci != 0.0 and cj != 0.0:
                Kj = kernel_row(j, rows)
                if fuse:
                    for t in range(n):
                        qt = q[t] + y[t] * (ci * Ki[t] + cj * Kj[t])
                        q[t] = qt
                        Lb[t] = BL[t] - y[t] * qt
                else:
                    for t in range(n):
                        q[t] += y[t] * (ci * Ki[t] + cj * Kj[t])
            elif ci != 0.0 or cj != 0.0:
                # One multiplier moved: its row alone.
                c, R = (ci, Ki) if ci != 0.0 else (cj, kernel_row(j, rows))
                if fuse:
                    for t in range(n):
                        qt = q[t] + y[t] * c * R[t]
                        q[t] = qt
                        Lb[t] = BL[t] - y[t] * qt
                else:
                    for t in range(n):
                        q[t] += y[t] * c * R[t]
            if fuse and (ci != 0.0 or cj != 0.0):
                next_i, next_l = _first_max(Lb, n)
        else:
            c = q[i] - diag[i] * a[i]
            la_i = coordinate_optimum(c, diag[i], C, delta)
            change = abs(la_i - la[i])
            if la_i != la[i]:
                new = C * math.exp(la_i)
                ci = y[i] * (new - a[i])
                a[i], la[i] = new, la_i
                lo[i], hi[i] = interval(la_i, tol, delta)
                BL[i], BU[i], P[i], CV[i] = _scan_values(
                    y[i], a[i], la[i], lo[i], hi[i], delta, floor, lfloor
                )
                if ci != 0.0:
                    for t in range(n):
                        q[t] += y[t] * ci * Ki[t]
        it += 1
        ist[STEPS] += 1
        if not change > TINY_STEP:
            ist[TINY] += 1
            if ist[TINY] >= max(TINY_RUN, n):
                if ist[NACT] < _eligible_count(eligible) and ist[TINY_UNSHRUNK] == 0:
                    # The active points are at their floor, but shrinking
                    # left points out whose margins have moved since: every
                    # eligible point is active again before the loop may
                    # call its steps stalled (issue 44, item 1).
                    _unshrink(y, a, la, lo, hi, eligible, act, ist, BL, BU, P, CV,
                              delta, floor, lfloor, mark)  # fmt: skip
                    ist[TINY] = 0
                    ist[TINY_UNSHRUNK] = 1
                    next_i = -2
                    continue
                # Steps at rounding level only, every point active (or made
                # active once already in this run of them): the test
                # cannot be met at this tol in float64 (the margins'
                # rounding, magnified by the tail's slope 1/delta); stop
                # rather than loop.
                ist[STALLS] += 1
                return it, False
        else:
            ist[TINY] = 0
            ist[TINY_UNSHRUNK] = 0
    return it, False
