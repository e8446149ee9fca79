"""LIBSVM's SVM family as QP builders on one decomposition solver.

Every machine of LIBSVM's ``svm.cpp`` is the same box QP with another linear
term, other bounds, other labels and a start, solved by ``Solver`` (one
equality) or ``Solver_NU`` (two), both :class:`svmlab.solvers.shrinking.BoxSMO`:

.. math::

    \\min_a\\ \\tfrac12 a^\\top Q a + p^\\top a
    \\quad\\text{s.t.}\\quad 0 \\le a_t \\le U_t,\\quad y^\\top a = c,
    \\quad [\\,\\mathbf 1^\\top a = d\\,]

=============  =====================  ================  ==========  ===========
machine        variables, labels      p                 U           equalities
=============  =====================  ================  ==========  ===========
ν-SVC          n, the classes         0                 1           y'a = 0,
                                                                    1'a = ν n
one-class      n, all +1              0                 1           1'a = ν n
ε-SVR          2n, (+1..., -1...)     (ε - t, ε + t)    C           y'a = 0
ν-SVR          2n, (+1..., -1...)     (-t, t)           C           y'a = 0,
                                                                    1'a = C ν n
=============  =====================  ================  ==========  ===========

with ``Q = Y K Y`` (SVR: ``K`` of the 2n variables is ``[[K, K], [K, K]]``, row
``m >= n`` is row ``m - n``; LIBSVM's ``SVR_Q``). Each builder below is
LIBSVM's ``solve_nu_svc``, ``solve_one_class``, ``solve_epsilon_svr`` or
``solve_nu_svr`` (Chang & Lin 2011, section 2 and 4.2): it sets up the QP and
its feasible start, runs the solver and reads the model back as signed
coefficients ``coef`` and ``rho``, so that every machine's function is

    f(x) = sum_i coef_i k(x_i, x) - rho.

``rho`` comes from the gradient at the solution (``calculate_rho``: the mean of
``y_t G_t`` over free variables, else the middle of the interval the KKT
conditions allow); ``Solver_NU`` computes it per class (:func:`nu_rho`), which
also gives ``r``: ν-SVC's margin (its model is divided by r, the equivalent
C-SVC has ``C = 1/r``) and ν-SVR's tube, ``epsilon = -r``.

The squared ε-insensitive loss ``(C/2) sum max(0, |t_i - f(x_i)| - ε)^2`` has
the ε-SVR dual with ``1/C`` added to the diagonal of all 2n variables and no
upper bound (as the squared hinge is the hinge's dual on ``K + I/C``).

References
----------
Chang, Lin (2011), LIBSVM: a library for support vector machines, ACM TIST 2
(``svm.cpp``: ``solve_nu_svc``, ``solve_one_class``, ``solve_epsilon_svr``,
``solve_nu_svr``, ``Solver::calculate_rho``, ``Solver_NU::calculate_rho``).
Schölkopf, Smola, Williamson, Bartlett (2000), New support vector algorithms,
Neural Computation 12. Schölkopf, Platt, Shawe-Taylor, Smola, Williamson (2001),
Estimating the support of a high-dimensional distribution, Neural Computation 13.
Chang, Lin (2001), Training ν-support vector classifiers: theory and algorithms,
Neural Computation 13.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from svmlab.array_types import Array
from svmlab.errors import ProblemError
from svmlab.kernels import KernelRows, kernel_settings
from svmlab.solvers.base import STOP_REASONS, Budget
from svmlab.solvers.row_cache import CACHE_MB
from svmlab.solvers.shrinking import BoxSMO

__all__ = [
    "FamilySolution",
    "calculate_rho",
    "filled_in_order",
    "nu_rho",
    "run_solver",
    "solve_epsilon_svr",
    "solve_nu_svc",
    "solve_nu_svr",
    "solve_one_class",
    "violation",
]


#: Iterations between two checks of the gradient's floating-point floor
#: (:func:`gradient_floor`): about 0.5 s of the loop at n = 400, so a run that
#: cannot reach tol in float64 stops within a few seconds.
FLOOR_CHECK_EVERY = 100_000


def max_iterations(n: int) -> int:
    """LIBSVM's iteration cap ``max(10^7, 100 n)``."""
    return max(10_000_000, 100 * int(n))


@dataclass
class FamilySolution:
    """One machine's answer: ``f(x) = sum_i coef_i k(x_i, x) - rho``.

    Attributes
    ----------
    coef
        Signed coefficients of the n training points, shape (n,).
    rho
        The offset: ``f = K coef - rho``.
    alpha
        The QP's variables as solved (n, or 2n for SVR), in LIBSVM's scaling.
    upper
        Their upper bounds ``U_t``.
    r
        ``Solver_NU``'s ``r`` (None for ``Solver``): ν-SVC's margin, minus
        ν-SVR's epsilon.
    objective
        The QP's value ``0.5 a'Qa + p'a`` at the answer (LIBSVM's ``obj``;
        for ν-SVC divided by ``r^2``, as LIBSVM reports it).
    n_iter, converged, stop_reason, gap
        Solver steps; whether the gap met ``tol``; ``"converged"``,
        ``"max_iter"`` or ``"max_seconds"``; the final KKT gap (LIBSVM's
        ``m(a) - M(a)``, per class for ``Solver_NU``).
    fit_time
        Seconds in the solver.
    extras
        The solver's counters (kernel evaluations, shrinking rounds, ...).
    """

    coef: Array
    rho: float
    alpha: Array
    upper: Array
    r: float | None
    objective: float
    n_iter: int
    converged: bool
    stop_reason: str
    gap: float
    fit_time: float = 0.0
    extras: dict[str, Any] = field(default_factory=dict)


# -- what LIBSVM reads off the gradient ----------------------------------------------


def _bound_sets(a: Array, U: Array) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """``(at upper, at lower)`` as LIBSVM's ``alpha_status``: a variable is at
    its upper bound when ``a >= U`` and at the lower when ``a <= 0`` (the
    solver lands on bounds exactly)."""
    at_up = a >= U
    return at_up, (a <= 0.0) & ~at_up


def calculate_rho(y: Array, a: Array, G: Array, U: Array) -> float:
    """LIBSVM's ``Solver::calculate_rho``: the mean of ``y_t G_t`` over the free
    variables, else ``(ub + lb) / 2`` with ``ub = min y_t G_t`` over the
    variables that may only move one way and ``lb`` the max over the others.

    ``G`` is the gradient ``Q a + p`` at the solution; ``f = K coef - rho``.
    """
    yG = y * G
    at_up, at_low = _bound_sets(a, U)
    free = ~at_up & ~at_low
    if free.any():
        return float(yG[free].mean())
    ub_set = (at_up & (y < 0)) | (at_low & (y > 0))
    lb_set = (at_up & (y > 0)) | (at_low & (y < 0))
    ub = float(yG[ub_set].min()) if ub_set.any() else math.inf
    lb = float(yG[lb_set].max()) if lb_set.any() else -math.inf
    return _middle(ub, lb)


def _middle(ub: float, lb: float) -> float:
    """``(ub + lb) / 2``, with an infinite side replaced by the other (a set
    that is empty gives no bound; LIBSVM would return inf there)."""
    if math.isinf(ub) and math.isinf(lb):
        return 0.0
    if math.isinf(ub):
        return lb
    if math.isinf(lb):
        return ub
    return (ub + lb) / 2.0


def nu_rho(y: Array, a: Array, G: Array, U: Array) -> tuple[float, float]:
    """LIBSVM's ``Solver_NU::calculate_rho``: ``(rho, r)``.

    Per class c, ``r_c`` is the mean of ``G_t`` over its free variables, else
    the middle of ``[max G over its variables at U, min G over those at 0]``;
    then ``rho = (r_+ - r_-) / 2`` and ``r = (r_+ + r_-) / 2``.
    """
    at_up, at_low = _bound_sets(a, U)
    free = ~at_up & ~at_low
    rs = []
    for cls in (y > 0, y < 0):
        if (free & cls).any():
            rs.append(float(G[free & cls].mean()))
            continue
        ub = float(G[at_low & cls].min()) if (at_low & cls).any() else math.inf
        lb = float(G[at_up & cls].max()) if (at_up & cls).any() else -math.inf
        rs.append(_middle(ub, lb))
    r1, r2 = rs
    return (r1 - r2) / 2.0, (r1 + r2) / 2.0


def violation(y: Array, a: Array, G: Array, U: Array, *, nu: bool) -> float:
    """The solver's stopping measure at ``a``: ``m(a) - M(a)`` with
    ``m = max_{I_up} -y_t G_t`` and ``M = min_{I_low} -y_t G_t`` (Fan, Chen &
    Lin 2005); for ``Solver_NU`` the larger of the two classes' gaps."""
    v = -y * G
    i_up = ((y > 0) & (a < U)) | ((y < 0) & (a > 0))
    i_low = ((y > 0) & (a > 0)) | ((y < 0) & (a < U))

    def gap(mask: NDArray[np.bool_]) -> float:
        up, low = i_up & mask, i_low & mask
        if not up.any() or not low.any():
            return 0.0
        return max(0.0, float(v[up].max() - v[low].min()))

    if nu:
        return max(gap(y > 0), gap(y < 0))
    return gap(np.ones_like(y, dtype=bool))


# -- the solver run shared by every machine ------------------------------------------


@dataclass
class _Run:
    a: Array
    G: Array
    U: Array
    n_iter: int
    converged: bool
    stop_reason: str
    gap: float
    fit_time: float
    extras: dict[str, Any]


def run_solver(
    y: Array,
    p: Array,
    upper: float | Array,
    a0: Array,
    kernel: Array | KernelRows,
    *,
    nu: bool = False,
    ridge: float | Array = 0.0,
    tol: float = 1e-3,
    max_iter: int | None = None,
    max_seconds: float | None = None,
    shrinking: bool = True,
    cache_mb: float = CACHE_MB,
    cache_precision: str = "float64",
) -> _Run:
    """``Solver::Solve`` (``Solver_NU::Solve`` with ``nu``) from the feasible
    start ``a0``: LIBSVM's loop with shrinking, in chunks under the budget.

    ``kernel`` is the Gram matrix ``K`` (n x n, or the machine's own size) or
    :class:`~svmlab.kernels.KernelRows` (rows on demand for the variables'
    points); ``max_iter=None`` is LIBSVM's
    ``max(10^7, 100 n)``. ``cache_precision="float32"`` rounds the kernel rows as
    LIBSVM's cache does. It is not a step-for-step copy of LIBSVM's float32
    run: the starting gradient is summed in another order, and on the
    degenerate ν-SVR problem of docs/corrections.md ("LIBSVM agreement") the
    two part at step 382. Like LIBSVM, it agrees with an exact solver only to
    about 1e-4 where the coefficients are large. The gradient is rebuilt
    before the answer is read (LIBSVM's ``reconstruct_gradient`` when cut off).
    """
    start = time.perf_counter()
    budget = Budget(max_seconds)
    n = y.shape[0]
    state = BoxSMO(
        y,
        p,
        upper,
        ridge,
        True,
        # BoxSMO takes the two sources under their own names.
        K=None if isinstance(kernel, KernelRows) else kernel,
        kernel=kernel if isinstance(kernel, KernelRows) else None,
        a=a0,
        shrinking=shrinking,
        cache_mb=cache_mb,
        dtype=np.dtype(cache_precision).type,
        nu=nu,
    )
    cap = max_iterations(n) if max_iter is None else int(max_iter)
    floored = None
    while True:
        # In windows, so that a gradient whose rounding exceeds tol (issue 44,
        # item 6) stops the run instead of LIBSVM's 10^7 steps.
        stop_at = min(cap, state.it + FLOOR_CHECK_EVERY)
        it, converged, out_of_time = state.run(tol, stop_at, budget)
        if converged or out_of_time or it >= cap:
            break
        floor = gradient_floor(state.gradient())
        if floor > tol:
            floored = floor
            break
    state.unshrink()
    a, G, U = state.alpha(), state.gradient(), state.upper()
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(G))):
        raise ProblemError(
            "The solver produced numbers that are not finite; the kernel values "
            "may be too large. Scale the data or change the kernel's parameters."
        )
    gap = violation(y, a, G, U, nu=nu)
    extras = {k: v for k, v in state.stats.items() if k != "active"}
    if converged or gap <= tol:
        reason = "converged"
    elif floored is not None:
        reason = "rule"
        extras["stop_note"] = floor_note(floored, gap, int(it))
    else:
        reason = "max_seconds" if out_of_time else "max_iter"
    assert reason in STOP_REASONS
    return _Run(
        a,
        G,
        U,
        int(it),
        reason == "converged",
        reason,
        gap,
        time.perf_counter() - start,
        extras,
    )


def gradient_floor(G: Array) -> float:
    """The spacing of float64 numbers at the gradient's largest entry
    (``numpy.spacing(max |G_t|)``): the KKT gap, a difference of two entries
    of ``G``, cannot be resolved below it wherever those entries are that
    large, however long the solver runs (a lower bound: the sums that form G
    round by more)."""
    top = float(np.abs(G).max(initial=0.0))
    return float(np.spacing(top)) if math.isfinite(top) else math.inf


def floor_note(floor: float, gap: float, iterations: int) -> str:
    """The sentence of a run stopped because its gradient's rounding exceeds
    tol (:func:`gradient_floor`)."""
    return (
        f"after {iterations:,} iterations the kernel values times the multipliers "
        f"make the gradient so large that float64 spaces its numbers {floor:.2g} "
        f"apart (the rounding of the gradient), above tol, so the KKT gap (now "
        f"{gap:.2g}) cannot be resolved to tol and the solver stopped there "
        "instead of running to max_iter. Scale the data or the kernel (its "
        "largest values are far above its smallest), or raise tol."
    )


def _objective(run: _Run, p: Array) -> float:
    """``0.5 a'Qa + p'a = 0.5 a'(G + p)`` (LIBSVM's ``si->obj``)."""
    return 0.5 * float(run.a @ (run.G + p))


def _solution(
    run: _Run, coef: Array, rho: float, r: float | None, objective: float
) -> FamilySolution:
    return FamilySolution(
        coef=coef,
        rho=float(rho),
        alpha=run.a,
        upper=run.U,
        r=r,
        objective=objective,
        n_iter=run.n_iter,
        converged=run.converged,
        stop_reason=run.stop_reason,
        gap=run.gap,
        fit_time=run.fit_time,
        extras=run.extras,
    )


# -- the machines ----------------------------------------------------------------------


#: ν-SVC's |w|^2 below this fraction of ``r sum a`` is no margin (:func:`no_margin`).
ZERO_MARGIN_RATIO = 1e-3


def no_margin(run: _Run, r: float) -> bool:
    """Whether ν-SVC's answer has no margin: r not finite, not above the
    gradient's rounding (``1e-10 max(1, |G|)``), or ``|w|^2 = a'Qa`` (``a'G``:
    ν-SVC has no linear term) below :data:`ZERO_MARGIN_RATIO` of ``r sum a``.

    Why the ratio (issue 44, item 3): at the optimum ``|w|^2 = r sum a -
    sum xi``, and with no margin ``w = 0`` while r, a mean of the gradient
    over the free multipliers, is whatever the solver's resolution leaves:
    it came out anywhere in about +-tol (linear kernel, n = 40, nu = 0.55:
    -2e-5 raised the error, +4e-7 returned a model with C = 2.6e6 and
    margins of noise). Measured there, ``|w|^2 / (r sum a)`` was 1e-7 to
    3e-5 on such zero-margin fits and 0.4 to 0.9 on fits with a margin, so
    the test is relative to the problem's own scale, whichever sign r has."""
    if not math.isfinite(r):
        return True
    if r <= 1e-10 * max(1.0, float(np.abs(run.G).max(initial=0.0))):
        return True
    return float(run.a @ run.G) <= ZERO_MARGIN_RATIO * r * float(run.a.sum())


def filled_in_order(bounds: Array, total: float) -> Array:
    """LIBSVM's feasible start of the ν machines: ``total`` poured into the
    variables in order, each up to its bound, ``a_i = min(U_i, total - sum_{j<i}
    a_j)`` (``solve_nu_svc`` per class, ``solve_one_class``, ``solve_nu_svr``
    for ``a`` and ``a*`` alike; scikit-learn's weighted versions the same way).
    """
    a0 = np.zeros(bounds.shape[0])
    left = total
    for i in range(bounds.shape[0]):
        if left <= 0.0:
            break
        a0[i] = min(float(bounds[i]), left)
        left -= a0[i]
    return a0


def solve_nu_svc(
    y: Array,
    nu: float,
    kernel: Array | KernelRows,
    *,
    weights: Array | None = None,
    **options: Any,
) -> FamilySolution:
    """ν-SVC (LIBSVM's ``solve_nu_svc``; Schölkopf et al. 2000).

    ``min 0.5 a'YKYa`` s.t. ``0 <= a <= 1``, ``y'a = 0``, ``1'a = ν n``,
    started from ``ν n / 2`` spread over each class in order. The model is
    divided by ``r`` (the margin): ``coef = a y / r``, ``rho / r``, and the
    equivalent C-SVC has ``C = 1/r``. Feasible only for
    ``ν <= 2 min(n+, n-) / n`` (the caller checks; LIBSVM's "specified nu is
    infeasible"). With positive ``weights`` w (scikit-learn's LIBSVM) the
    bounds are ``a_i <= w_i`` and ``1'a = ν sum w``.
    """
    y = np.asarray(y, dtype=np.float64)
    n = y.shape[0]
    upper = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    a0 = np.zeros(n)
    for cls in (y > 0, y < 0):
        a0[cls] = filled_in_order(upper[cls], nu * float(upper.sum()) / 2.0)
    run = run_solver(
        y,
        np.zeros(n),
        1.0 if weights is None else upper,
        a0,
        kernel,
        nu=True,
        **options,
    )
    rho, r = nu_rho(y, run.a, run.G, run.U)
    if no_margin(run, r):
        if run.converged:
            # Chang & Lin (2001): at or below the least fraction of margin
            # errors the data allow, the optimum has r = 0 (C = 1/r = inf).
            raise ProblemError(
                f"ν-SVC found no margin here (r = {r:.3g}, |w|² = "
                f"{float(run.a @ run.G):.2g}): nu = {nu:g} is at or below the "
                "smallest fraction of margin errors these data allow with this "
                "kernel (the equivalent C would be infinite). Use a larger nu."
            )
        limit = "time budget" if run.stop_reason == "max_seconds" else "max_iter"
        raise ProblemError(
            f"The solver stopped at its {limit} before ν-SVC found its margin "
            f"(r = {r:.3g}), so there is no model to report yet. Give it more "
            "time or iterations, or a larger nu."
        )
    objective = _objective(run, np.zeros(n)) / (r * r)
    return _solution(run, run.a * y / r, rho / r, r, objective)


def solve_one_class(
    nu: float,
    n: int,
    kernel: Array | KernelRows,
    *,
    weights: Array | None = None,
    **options: Any,
) -> FamilySolution:
    """The one-class SVM (LIBSVM's ``solve_one_class``; Schölkopf et al. 2001).

    ``min 0.5 a'Ka`` s.t. ``0 <= a <= 1``, ``1'a = ν n``, started with the
    first ``floor(ν n)`` variables at 1 and the next at the rest. ``f(x) =
    sum a_i k(x_i, x) - rho``: the data's side of the hyperplane through
    ``rho`` in feature space is ``f >= 0``, at most a fraction ν of the points
    lies outside it and at least ν are support vectors. With positive
    ``weights`` w: ``a_i <= w_i``, ``1'a = ν sum w``, filled in order from the
    first.
    """
    y = np.ones(n)
    # LIBSVM's first floor(ν n) at 1 and the next at ν n - floor(ν n) is this
    # fill with unit bounds, to the bit (ν n - k is exact for whole k <= ν n).
    bounds = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    a0 = filled_in_order(bounds, nu * float(bounds.sum()))
    upper = 1.0 if weights is None else bounds
    run = run_solver(y, np.zeros(n), upper, a0, kernel, **options)
    rho = calculate_rho(y, run.a, run.G, run.U)
    return _solution(run, run.a.copy(), rho, None, _objective(run, np.zeros(n)))


def _stacked(kernel: Array | KernelRows) -> Array | KernelRows:
    """Rows on demand for the 2n SVR variables (the points twice); a dense
    ``K`` of size n serves as it is (row ``m >= n`` reads row ``m - n``)."""
    if not isinstance(kernel, KernelRows):
        return kernel
    X2 = np.vstack([kernel.X, kernel.X])
    return KernelRows(X2, shift=kernel.shift, **kernel_settings(kernel))


def solve_epsilon_svr(
    t: Array,
    C: float,
    epsilon: float,
    kernel: Array | KernelRows,
    *,
    squared: bool = False,
    weights: Array | None = None,
    **options: Any,
) -> FamilySolution:
    """ε-SVR (LIBSVM's ``solve_epsilon_svr``; Vapnik 1995, Smola & Schölkopf
    2004).

    Variables ``(a, a*)``, labels ``(+1, -1)``, ``p = (ε - t, ε + t)``, ``0 <=
    a, a* <= C``, ``sum a - sum a* = 0``, from zero; ``coef = a - a*``. With
    ``squared`` the loss is ``(C/2) max(0, |r| - ε)^2``: no upper bound and
    ``1/C`` on the diagonal. Positive ``weights`` w make point i's C ``C w_i``
    (both its variables). ``C = inf`` is the hard tube (no upper bound).
    """
    t = np.asarray(t, dtype=np.float64)
    n = t.shape[0]
    y = np.concatenate([np.ones(n), -np.ones(n)])
    p = np.concatenate([epsilon - t, epsilon + t])
    Ci = C if weights is None else C * np.tile(np.asarray(weights, dtype=np.float64), 2)
    upper = math.inf if squared else Ci
    ridge = 1.0 / Ci if squared else 0.0
    run = run_solver(
        y,
        p,
        upper,
        np.zeros(2 * n),
        _stacked(kernel),
        ridge=ridge,
        **options,
    )
    rho = calculate_rho(y, run.a, run.G, run.U)
    return _solution(run, run.a[:n] - run.a[n:], rho, None, _objective(run, p))


def solve_nu_svr(
    t: Array,
    C: float,
    nu: float,
    kernel: Array | KernelRows,
    *,
    weights: Array | None = None,
    **options: Any,
) -> FamilySolution:
    """ν-SVR (LIBSVM's ``solve_nu_svr``; Schölkopf et al. 2000).

    Variables ``(a, a*)``, labels ``(+1, -1)``, ``p = (-t, t)``, ``0 <= a, a*
    <= C``, ``sum a - sum a* = 0`` and ``sum a + sum a* = C ν n``, started at
    ``min(C, what is left of C ν n / 2)`` for both ``a_i`` and ``a*_i`` in
    order. The tube's half-width is found: ``epsilon = -r``. Positive
    ``weights`` w make point i's C ``C w_i`` and the sum ``ν sum_i C w_i``.
    """
    t = np.asarray(t, dtype=np.float64)
    n = t.shape[0]
    y = np.concatenate([np.ones(n), -np.ones(n)])
    p = np.concatenate([-t, t])
    Ci = np.full(n, C) if weights is None else C * np.asarray(weights, dtype=float)
    half = filled_in_order(
        Ci, C * nu * n / 2.0 if weights is None else nu * float(Ci.sum()) / 2.0
    )
    a0 = np.concatenate([half, half])
    upper = C if weights is None else np.tile(Ci, 2)
    run = run_solver(y, p, upper, a0, _stacked(kernel), nu=True, **options)
    rho, r = nu_rho(y, run.a, run.G, run.U)
    return _solution(run, run.a[:n] - run.a[n:], rho, r, _objective(run, p))
