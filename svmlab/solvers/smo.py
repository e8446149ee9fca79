"""Sequential minimal optimisation with LIBSVM's second-order working-set selection.

.. math::

    \\min_a\\ \\tfrac12 a^\\top Y K_d Y a - \\mathbf 1^\\top a
    \\quad\\text{s.t.}\\quad 0 \\le a_i \\le u,\\quad [\\,y^\\top a = 0\\,]

Hinge: ``K_d = K``, ``u = C``; squared hinge: ``K_d = K + I/C``, ``u = inf``
(:func:`svmlab.solvers.base.box_dual`; the ridge ``1/C`` is added on the fly, so
no second n x n matrix is built). The gradient ``G = Y K_d Y a - 1`` is kept up
to date in O(n) per step from two rows of K.

**With an unregularized bias** the equality ``y'a = 0`` forces two variables to
move at once (Platt 1998; Rifkin's slides: "modify two z's at a time"). Working
set (Fan, Chen, Lin 2005, WSS 2): ``i`` is the maximal violator
``argmax_{t in I_up} -y_t G_t``; ``j`` minimises the second-order decrease
``-b_it^2 / a_it`` over ``t in I_low`` with ``-y_t G_t < -y_i G_i``, where
``b_it = -y_i G_i + y_t G_t`` and ``a_it = K_ii + K_tt - 2 K_it`` (``tau = 1e-12``
when ``a_it <= 0``). The pair moves along ``(y_i, -y_j)`` by ``b_ij / a_ij``,
clipped to the box: the exact minimiser of the two-variable subproblem.

**Without it** (bias "none", or "regularized" as ``K + 1``) the box is the only
constraint and one variable moves at a time (Rifkin's "simple SVM algorithm"):
the coordinate with the largest projected gradient, updated in closed form
``a_k <- clip(a_k - G_k / K_d,kk, 0, u)``.

Call order: setup (``G`` from the warm start, from the rows of its nonzero
alphas; ``G = -1`` cold) ->
compiled loop (select, check, update) -> finalize (``b`` from ``G`` as LIBSVM's
``calculate_rho`` does, :func:`~svmlab.solvers.base.intercept_from_gradient`).
Stopping rule: LIBSVM's ``m(a) - M(a) <= tol`` (with the bias; without it the
largest projected gradient), which is :func:`~svmlab.solvers.base.kkt_violation`
in margin units; or ``max_iter`` updates, or ``max_seconds`` (then
``converged=False``). ``converged`` is finally decided by
:func:`~svmlab.solvers.base.kkt_violation` at the returned point
(``DualSolution.finish``), with ``K (a y)`` read off the rebuilt gradient
(issue 29: a fit forms no kernel product after its loop; the incrementally
updated ``G`` agrees with a product formed afresh to round-off).

The loop is LIBSVM's ``Solver::Solve`` (:mod:`svmlab.solvers.shrinking`,
compiled with numba, ``cache=True``): **shrinking** (every ``min(n, 1000)``
iterations bound variables that will stay bound leave the active set, kept
contiguous by swapping indices, so the sweeps stay plain loops), **gradient
reconstruction** before the final check on all points, and a **kernel-row cache**
(LRU, float64 by default, 200 MB). Rows come from ``K`` when one is handed in,
or are computed on demand from ``problem.kernel``
(:class:`svmlab.kernels.KernelRows`) when ``problem.K`` is None, so an easy
large problem never forms the n x n matrix. The iteration cap defaults to
LIBSVM's ``max(10^7, 100 n)`` (:func:`max_iterations`): a converging problem is
never cut off; ``max_seconds`` bounds the time. A warm start from another C is
scaled to this one (alpha seeding, :mod:`svmlab.solvers.seeding`).

Measured (issue 16; two cores, one BLAS thread, Gaussian kernel, tol 1e-3,
kernel rows included, scikit-learn SVC as the reference): an earlier attempt at
shrinking swept an active *index list* and was 2-3x slower on short runs; with
LIBSVM's swapped, contiguous active set it costs nothing on short runs and is
4-5x faster on long ones (two circles, n = 2000, C = 500: 460 ms unshrunk,
82-100 ms shrunk, LIBSVM 68-75 ms, load 1.2-2.5). A float32 cache (LIBSVM's)
measured no faster here (80 against 84 ms on the same run) and costs agreement
(docs/corrections.md), so the cache holds float64. Fusing the next working-set
scan into the gradient update was 20% slower (it stops the update loop from
vectorising) and is not done. ``shrinking=False`` sweeps every point, as before.

Time budget and cancellation: the compiled loop runs in chunks of about
``CHUNK_SECONDS`` (the chunk length in iterations adapts to the measured speed,
starting at ``FIRST_CHUNK``); between chunks Python checks ``max_seconds`` and
polls the ``cancel_when`` predicate (:class:`~svmlab.solvers.base.Budget`). The
chunks resume exactly where the last one stopped (the state is ``a``, ``G`` and
the iteration count), so the result does not depend on the chunking; a fit
shorter than ``FIRST_CHUNK`` iterations is one call, as before. Out of time, the
current iterate (feasible: every step stays in the box and keeps ``y'a``) is
returned with ``stop_reason="max_seconds"``.

History: with ``record_history`` the compiled loop also returns to Python at
every iteration up to 25, then 25 times per doubling of the iteration count
(only on iterations ``history.wants``; a long run costs a few hundred returns,
each O(n)). ``objective`` is the primal
``0.5 ||f||^2 + C sum loss(m_i)`` (from ``G`` in O(n); it need not decrease) and
``extras["dual_history"]`` the dual ``1'a - 0.5 a'Qa`` at the same iterations,
which every SMO step raises.

References
----------
Platt (1998), Sequential minimal optimization, MSR-TR-98-14. Fan, Chen, Lin (2005),
Working set selection using second order information for training support vector
machines, JMLR 6. Chang, Lin (2011), LIBSVM, ACM TIST 2 (``Solver::Solve``).
Rifkin (2007), Several views of support vector machines (slides).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
from numba import njit

from svmlab.array_types import Array
from svmlab.compiled.arguments import read_only
from svmlab.errors import ParameterError, ProblemError
from svmlab.solvers.base import (
    DualSolution,
    Problem,
    SolverSpec,
    _box_kkt,
    box_intercept,
    intercept_from_gradient,
    repair_init,
)
from svmlab.solvers.chunked import CHUNK_SECONDS, FIRST_CHUNK, run_chunked
from svmlab.solvers.row_cache import CACHE_MB
from svmlab.solvers.run import Run, solve_function
from svmlab.solvers.seeding import seed_alpha
from svmlab.solvers.shrinking import BoxSMO, per_variable

__all__ = [
    "CHUNK_SECONDS",
    "FIRST_CHUNK",
    "SPEC",
    "max_iterations",
    "run_chunked",
    "solve",
]


#: Curvature used when ``K_ii + K_jj - 2 K_ij <= 0`` (LIBSVM's TAU).
TAU = 1e-12

#: History snapshots per doubling of the iteration count (returns to Python).
SNAPSHOTS = 25


@njit(cache=True, nogil=True)
def _pair_loop(K, y, QD, a, G, upper, ridge, tol, it, stop_at):  # pragma: no cover
    """SMO with WSS 2 from iteration ``it`` until ``stop_at``; a, G in place.

    The unshrunk loop on the dense K from before issue 16, kept as the
    independent reference the shrinking solver is tested against.

    Returns ``(it, converged)``.
    """
    n = y.shape[0]
    while it < stop_at:
        gmax = -np.inf
        i = -1
        for t in range(n):
            if y[t] > 0.0:
                if a[t] < upper and -G[t] >= gmax:
                    gmax = -G[t]
                    i = t
            elif a[t] > 0.0 and G[t] >= gmax:
                gmax = G[t]
                i = t
        if i < 0:
            return it, True
        Ki = K[i]
        qi = QD[i]
        gmin = np.inf
        best = np.inf
        j = -1
        for t in range(n):
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
                obj = -(b * b) / quad
                if obj <= best:
                    best = obj
                    j = t
        if gmax - gmin <= tol or j < 0:
            return it, True
        yi, yj = y[i], y[j]
        quad = qi + QD[j] - 2.0 * Ki[j]
        if quad <= 0.0:
            quad = TAU
        step = (gmax + yj * G[j]) / quad
        # Move a_i by +y_i step and a_j by -y_j step, the longest step in the box.
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
        Kj = K[j]
        for k in range(n):
            G[k] += y[k] * (ci * Ki[k] + cj * Kj[k])
        G[i] += ridge * di
        G[j] += ridge * dj
        it += 1
    return it, False


@njit(cache=True, nogil=True)
def _single_loop(K, y, QD, a, G, upper, ridge, tol, it, stop_at):  # pragma: no cover
    """Greedy coordinate descent (no equality constraint); a, G in place.

    Unshrunk, on the dense K: the reference for the shrinking solver's tests.

    Returns ``(it, converged)``.
    """
    n = y.shape[0]
    while it < stop_at:
        worst = 0.0
        k = -1
        for t in range(n):
            g = G[t]
            if a[t] <= 0.0 and g > 0.0:
                continue
            if a[t] >= upper and g < 0.0:
                continue
            if abs(g) > worst:
                worst = abs(g)
                k = t
        if worst <= tol or k < 0:
            return it, True
        q = QD[k]
        if q <= 0.0:
            q = TAU
        new = a[k] - G[k] / q
        if new < 0.0:
            new = 0.0
        elif new > upper:
            new = upper
        d = new - a[k]
        a[k] = new
        c = y[k] * d
        Kk = K[k]
        for t in range(n):
            G[t] += y[t] * c * Kk[t]
        G[k] += ridge * d
        it += 1
    return it, False


@njit(cache=True, nogil=True)
def _violation(y, a, G, U, fit_intercept):  # pragma: no cover
    """``m(a) - M(a)`` with the bias, else the largest projected gradient
    (``U``: the upper bounds, one per variable)."""
    n = y.shape[0]
    if fit_intercept:
        gmax = -np.inf
        gmin = np.inf
        for t in range(n):
            v = -y[t] * G[t]
            up = a[t] < U[t] if y[t] > 0.0 else a[t] > 0.0
            low = a[t] > 0.0 if y[t] > 0.0 else a[t] < U[t]
            if up and v > gmax:
                gmax = v
            if low and v < gmin:
                gmin = v
        if gmax == -np.inf or gmin == np.inf:
            return 0.0
        return max(0.0, gmax - gmin)
    worst = 0.0
    for t in range(n):
        g = G[t]
        if (a[t] <= 0.0 and g > 0.0) or (a[t] >= U[t] and g < 0.0):
            continue
        worst = max(worst, abs(g))
    return worst


@njit(cache=True, nogil=True)
def _all_finite(a, G):  # pragma: no cover
    """Whether every ``a_t`` and ``G_t`` is finite: one compiled pass, where
    NumPy's ``isfinite`` and ``all`` took four (issue 48: 6 us a pair)."""
    for t in range(a.shape[0]):
        if not (np.isfinite(a[t]) and np.isfinite(G[t])):
            return False
    return True


@njit(cache=True, nogil=True)
def _closing(y, a, G, U, R, costs, squared, fit_intercept, C):  # pragma: no cover
    """What the solve reports, from the final ``a`` and whole gradient ``G``,
    in one compiled call (issue 48: six calls and a dozen NumPy passes took
    about 20 us of each pair of a one-vs-one fit on iris): whether both are
    finite (nothing else is computed when not), the violation ``m(a) - M(a)``
    (:func:`_violation`), ``K (a y) = y (G + 1 - R a)``, the intercept
    (:func:`svmlab.solvers.base.box_intercept`, 0 without the bias) and the
    KKT check :func:`svmlab.solvers.base.kkt_violation` scores the result
    with (its compiled branch, ``_box_kkt``, on that ``K (a y)``: the same
    formula, so the same number; NaN where it meets one). Every number is
    the one the NumPy formulas gave, to the bit."""
    n = y.shape[0]
    Kc = np.empty(n)
    if not _all_finite(a, G):
        return False, np.nan, Kc, np.nan, np.nan
    gap = _violation(y, a, G, U, fit_intercept)
    for t in range(n):
        # The squared hinge's ridge is R = 1/C_i; the hinge's is 0, and
        # G + 1 - 0 a is G + 1 to the bit (NumPy's order: (G + 1) - R a).
        Kc[t] = y[t] * ((G[t] + 1.0) - R[t] * a[t]) if squared else y[t] * (G[t] + 1.0)
    b = box_intercept(y, a, G, U) if fit_intercept else 0.0
    kkt = _box_kkt(y, a, Kc, costs, squared, fit_intercept, C)
    return True, gap, Kc, b, kkt


@njit(cache=True, nogil=True)
def _objectives(y, a, G, R, b, C, squared):  # pragma: no cover
    """``(primal, dual)`` in O(n) from the gradient (``R`` the ridge and ``C``
    the cost, one per point).

    ``G + 1 = Y K_d Y a``, so ``y * (K (a y)) = G + 1 - R a``: the margins are
    ``m = G + 1 - R a + b y`` and ``||f||^2 = sum a (G + 1 - R a)``. The
    dual ``1'a - 0.5 a'Qa`` is ``0.5 a'(1 - G)``.
    """
    norm2 = 0.0
    loss = 0.0
    dual = 0.0
    for t in range(y.shape[0]):
        yKc = G[t] + 1.0 - R[t] * a[t]
        norm2 += a[t] * yKc
        dual += a[t] * (1.0 - G[t])
        xi = 1.0 - (yKc + b * y[t])
        if xi > 0.0:
            loss += C[t] * (0.5 * xi * xi if squared else xi)
    return 0.5 * norm2 + loss, 0.5 * dual


def _next_stop(it: int, stride: int) -> int:
    """The next iteration to snapshot: every iteration up to ``SNAPSHOTS``, then
    ``SNAPSHOTS`` per doubling of the count (spacing a power of 2 that is a
    multiple of the history's stride, so ``history.wants`` holds there)."""
    spacing = 1
    while 2 * spacing * SNAPSHOTS <= it:
        spacing *= 2
    spacing = max(spacing, stride)
    return (it // spacing + 1) * spacing


def _intercept(problem: Problem, a: Array, G: Array, upper: float) -> float:
    if not problem.fit_intercept:
        return 0.0
    return intercept_from_gradient(problem.y, a, G, upper, eps=0.0)


def max_iterations(n: int) -> int:
    """LIBSVM's iteration cap, ``max(10^7, 100 n)`` (``Solver::Solve``): a
    converging problem is never cut off by it; ``max_seconds`` bounds the time."""
    return max(10_000_000, 100 * int(n))


@solve_function(max_iter=None)
def solve(
    problem: Problem,
    run: Run,
    *,
    shrinking: bool = True,
    cache_mb: float = CACHE_MB,
    cache_precision: str = "float64",
    seed: bool = True,
    **options: Any,
) -> DualSolution:
    """Solve the hinge or squared-hinge dual by SMO (see the module docstring).

    Parameters
    ----------
    problem
        The training problem; loss ``"hinge"`` or ``"squared_hinge"``, finite C.
        With ``problem.K = None`` the kernel rows come from ``problem.kernel``
        on demand (cached), and the ``n x n`` matrix is never formed.
    tol
        Stop when the KKT violation ``m(a) - M(a)`` (margin units) is <= tol.
    max_iter
        Most variable updates (pair updates with the bias, single ones without);
        None: :func:`max_iterations` (LIBSVM's ``max(10^7, 100 n)``).
    init
        Previous alpha, shape (n,), as a warm start (repaired to be feasible).
    record_history
        Keep per-iteration snapshots (thinned to at most 200).
    max_seconds
        Time budget (None: unlimited); checked between compiled chunks.
    shrinking
        LIBSVM's shrinking (default on); off, every iteration sweeps all points.
    cache_mb, cache_precision
        Size (megabytes) and precision (``"float64"`` or ``"float32"``) of the
        kernel-row cache.
    seed
        Scale a warm start from another C by ``C / C_old`` (alpha seeding,
        :func:`svmlab.solvers.seeding.seed_alpha`).
    options
        None others are accepted.

    Returns
    -------
    DualSolution
        ``extras``: ``working_pairs`` (pair updates), ``coordinate_updates``
        (single updates), ``final_gap`` (the violation at the returned point),
        ``shrinking``, ``kernel_evaluations`` (kernel entries computed or
        gathered into the cache), ``shrink_rounds``, ``reconstructions``,
        ``cache_rows`` and, with history, ``dual_history``.
    """
    if options:
        raise ParameterError(
            f"The smo solver has no option {sorted(options)[0]!r}; its options are "
            "shrinking, cache_mb, cache_precision and seed."
        )
    if cache_precision not in ("float64", "float32"):
        raise ParameterError(
            f"cache_precision must be 'float64' or 'float32'; got {cache_precision!r}."
        )
    tol, history = run.tol, run.history
    if problem.loss.name not in SPEC.losses:
        raise ProblemError(
            f"SMO solves the hinge and squared-hinge duals, not the "
            f"{problem.loss.name} loss."
        )
    if not math.isfinite(problem.C):
        raise ProblemError(
            "SMO needs a finite C; the hard margin is solved by the qp solver."
        )
    start = time.perf_counter()
    # Read-only whatever the caller's (svmlab.compiled.arguments): one compiled check.
    y = read_only(np.ascontiguousarray(problem.y, dtype=np.float64))
    squared = problem.loss.name == "squared_hinge"
    # One C per point with class weights (LIBSVM's Cp, Cn): a box bound per
    # variable for the hinge, a ridge 1/C_i per variable for the squared hinge.
    costs = per_variable(problem.costs, problem.n)
    ridge = 1.0 / costs if squared else np.zeros(problem.n)
    upper = np.full(problem.n, math.inf) if squared else costs
    max_iter = max_iterations(problem.n) if run.max_iter is None else int(run.max_iter)
    a0 = repair_init(run.init, problem, upper)
    warm = a0 is not None and bool(a0.any())
    if warm and seed and problem.weights is None:
        a0 = seed_alpha(a0, float(upper[0]))
    state = BoxSMO(
        y,
        -np.ones(problem.n),
        upper,
        ridge,
        problem.fit_intercept,
        K=problem.K,
        kernel=problem.kernel,
        a=a0 if warm else None,
        shrinking=shrinking,
        cache_mb=cache_mb,
        dtype=np.dtype(cache_precision).type,
    )
    duals: dict[int, float] = {}

    def record(it: int) -> None:
        a, G = state.alpha(), state.gradient()
        b = _intercept(problem, a, G, upper)
        primal, dual = _objectives(y, a, G, ridge, b, read_only(costs), squared)
        kkt = _violation(y, a, G, upper, problem.fit_intercept)
        elapsed = time.perf_counter() - start
        history.record(
            it, objective=primal, kkt_violation=kkt, time=elapsed, alpha=a, intercept=b
        )
        duals[it] = dual

    def snapshot_at(it: int) -> int:
        return _next_stop(it, history.stride)

    def snapshot(it: int) -> None:
        if history.wants(it):
            record(it)

    if run.record_history:
        record(0)
    it, converged, out_of_time = state.run(
        tol,
        max_iter,
        run.budget,
        snapshot=(snapshot_at, snapshot) if run.record_history else None,
    )
    if run.record_history and converged and history.wants(it):
        if history.iteration[-1] != it:
            record(it)
    # Cut off (max_iter, max_seconds): LIBSVM rebuilds the gradient before it
    # reports, so that the intercept and the check below see every point.
    state.unshrink()
    a, G = state.alpha(), state.gradient()
    finite, gap, Kc, b, kkt = _closing(
        y, a, G, upper, ridge, costs, squared, problem.fit_intercept, float(problem.C)
    )
    if not finite:
        raise ProblemError(
            "SMO produced non-finite values; the kernel matrix may contain NaN or "
            "infinite entries."
        )
    extras: dict[str, Any] = {
        "working_pairs": it if problem.fit_intercept else 0,
        "coordinate_updates": 0 if problem.fit_intercept else it,
        "final_gap": gap,
        "shrinking": bool(shrinking),
        **{k: v for k, v in state.stats.items() if k != "active"},
    }
    if run.record_history:
        extras["dual_history"] = [duals[i] for i in history.iteration]
    if converged or gap <= tol:
        reason = "converged"
    else:
        reason = "max_seconds" if out_of_time else "max_iter"
    # K (a y) from the whole (reconstructed) gradient, G + 1 = Y K_d Y a
    # (issue 29, item 4; _closing): no kernel product after the loop. It
    # agrees with a product formed afresh to rounding (the tests check it).
    rule = "SMO met tol on its running gradient, not on one recomputed from K"
    return run.finish(
        problem,
        a,
        b,
        n_iter=it,
        stop_reason=reason,
        rule=rule,
        extras=extras,
        Kc=Kc,
        kkt=None if math.isnan(kkt) else kkt,
    )


SPEC = SolverSpec(
    name="smo",
    title="SMO (LIBSVM working-set selection)",
    solve=solve,
    losses=frozenset({"hinge", "squared_hinge"}),
    source=(
        "Rifkin (2007) slides 'A simple SVM algorithm' and 'unregularized bias'; "
        "Platt (1998); Fan, Chen, Lin (2005) WSS 2"
    ),
    weights=True,
)
