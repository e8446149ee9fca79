"""What every solver shares: the problem, the result type, and its self-checks.

Every solver minimises the same primal (docs/corrections.md, notation)::

    0.5 ||f||_H^2 + C sum_i loss(m_i),   f = K (alpha * y) + b,   m_i = y_i f(x_i)

over the representer coefficients ``alpha`` (and an unregularized ``b`` when
``fit_intercept``). ``K`` is the *effective* Gram matrix: the estimator passes
``K + 1`` for the regularized bias (Rifkin), so solvers only know whether an
unregularized bias with its equality constraint ``sum alpha_i y_i = 0`` is present.

For the hinge and the squared hinge, ``alpha`` is also the dual vector of the
box-constrained QP (Sugiyama eq. 27.3; the squared hinge is the hinge dual on
``K + I/C`` with no upper bound, docs/corrections.md "Squared hinge dual"). Other
losses use the same ``alpha`` as coefficients; their optimality is checked by
stationarity.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np
from numba import njit
from numpy.typing import NDArray

from svmlab.array_types import Array
from svmlab.compiled.arguments import read_only
from svmlab.compiled.summation import numpy_sum
from svmlab.errors import FitCancelled, ParameterError, plain_value
from svmlab.kernels import KernelRows
from svmlab.losses import Loss
from svmlab.solvers.lane import wait_for_lane

__all__ = [
    "POLL_SECONDS",
    "STOP_REASONS",
    "Budget",
    "DualSolution",
    "History",
    "Problem",
    "SolveFunction",
    "SolverSpec",
    "box_dual",
    "box_intercept",
    "cancel_when",
    "dual_objective",
    "intercept_from_gradient",
    "kkt_violation",
    "primal_objective",
    "repair_init",
    "state_multipliers",
    "sv_states",
]


@dataclass(frozen=True)
class Problem:
    """One SVM training problem, as every solver sees it.

    Parameters
    ----------
    K
        Effective Gram matrix, shape (n, n), symmetric positive semidefinite; or
        None when ``kernel`` computes its rows on demand.
    y
        Labels in {-1, +1}, shape (n,).
    loss
        The loss object.
    C
        Cost parameter, > 0; ``math.inf`` is the hard margin (hinge only).
    fit_intercept
        Whether the model has an unregularized bias (``sum alpha_i y_i = 0``).
    kernel
        The Gram matrix as rows on demand (:class:`svmlab.kernels.KernelRows`)
        instead of ``K`` (issue 16): SMO then computes and caches only the rows
        it visits, as LIBSVM does; every other solver gets the full matrix
        (:meth:`dense`). Ignored when ``K`` is given.
    weights
        Per-point multipliers of C, shape (n,), or None: point i costs
        ``C_i = C w_i`` (class weights give ``w_i`` by class: LIBSVM's ``Cp``
        and ``Cn``). Only solvers with ``SolverSpec.weights`` take them.
    """

    K: Array | None
    y: Array
    loss: Loss
    C: float
    fit_intercept: bool
    kernel: KernelRows | None = None
    weights: Array | None = None

    @property
    def n(self) -> int:
        return self.y.shape[0]

    @property
    def costs(self) -> float | Array:
        """``C_i = C w_i`` per point (an array) with weights, else ``C``."""
        if self.weights is None:
            return self.C
        return self.C * np.asarray(self.weights, dtype=np.float64)

    def dense(self) -> Problem:
        """This problem with ``K`` formed (itself when it already has one)."""
        if self.K is not None:
            return self
        if self.kernel is None:
            raise ValueError("a Problem needs K or kernel")
        return replace(self, K=self.kernel.full())

    def kernel_times(self, v: Array, *, absolute: bool = False) -> Array:
        """``K @ v`` (``|K| @ v`` with ``absolute``), shape (n,); without ``K``,
        from the rows where ``v != 0``."""
        if self.K is not None:
            return (np.abs(self.K) if absolute else self.K) @ v
        if self.kernel is None:
            raise ValueError("a Problem needs K or kernel")
        return self.kernel.matvec(v, absolute=absolute)


class SolveFunction(Protocol):
    """The one solver signature (STYLE rule 6); a solver module writes only its
    own options, :func:`svmlab.solvers.run.solve_function` adds the rest."""

    def __call__(
        self,
        problem: Problem,
        *,
        tol: float,
        max_iter: int,
        init: Array | None = None,
        record_history: bool = False,
        max_seconds: float | None = None,
        **options: Any,
    ) -> DualSolution: ...


def box_dual(problem: Problem) -> tuple[Array, float]:
    """The box-QP form of a hinge-type problem: ``(K_dual, upper)``.

    Hinge: ``min 0.5 a'(Y K Y)a - 1'a``, ``0 <= a <= C`` (Sugiyama eq. 27.3).
    Squared hinge: the same on ``K + I/C`` with no upper bound (docs/corrections.md).
    With weights, ``C_i`` per point: the box ``0 <= a_i <= C_i`` and the
    diagonal ``1/C_i`` (``upper`` is then an array).
    """
    name = problem.loss.name
    problem = problem.dense()
    costs = problem.costs
    if name == "squared_hinge":
        K = problem.K + np.diag(np.broadcast_to(1.0 / costs, (problem.n,)))
        return K, math.inf
    if name in ("hinge", "ramp"):
        return problem.K, costs
    raise ValueError(f"loss {name!r} has no box-QP dual")


def decision_values(
    problem: Problem, alpha: Array, b: float, *, Kc: Array | None = None
) -> Array:
    """Training decision values ``f = K (alpha * y) + b``, shape (n,).

    ``Kc`` is ``K (alpha * y)`` when the caller has it already.
    """
    if Kc is None:
        Kc = problem.kernel_times(alpha * problem.y)
    return Kc + b


def primal_objective(
    problem: Problem, alpha: Array, b: float, *, Kc: Array | None = None
) -> float:
    """``0.5 (alpha y)' K (alpha y) + C sum loss(m_i)``: one formula for all solvers.

    With the hard margin (C = inf) it is ``0.5 ||f||^2`` when every margin is at
    least 1 (up to 1e-6) and ``inf`` otherwise. ``Kc`` is ``K (alpha * y)`` when
    the caller has it already.
    """
    coef = alpha * problem.y
    f = decision_values(problem, alpha, b, Kc=Kc)
    norm2 = 0.5 * float(coef @ (f - b))
    losses = problem.loss.value(problem.y * f)
    if math.isinf(problem.C):
        return norm2 if float(losses.max(initial=0.0)) <= 1e-6 else math.inf
    if problem.weights is not None:
        return norm2 + float(np.sum(problem.costs * losses))
    return norm2 + problem.C * float(losses.sum())


def dual_objective(
    problem: Problem, alpha: Array, *, Kc: Array | None = None
) -> float | None:
    """The dual value ``1'a - 0.5 a' Y K_dual Y a`` for hinge-type losses, the
    entropy dual for the modified hinge (:func:`_entropy_dual`), else None.

    With the box-QP dual (Sugiyama eq. 27.3, docs/corrections.md "Squared hinge dual")
    weak duality gives ``primal >= dual``; at the optimum they are equal.
    ``K_dual = K + I/C`` for the squared hinge is applied as ``K c + c / C``
    (no second n x n matrix); ``Kc`` is ``K (alpha * y)`` when the caller has it.
    """
    name = problem.loss.name
    if name == "modified_hinge":
        return _entropy_dual(problem, alpha, Kc)
    if name not in ("hinge", "squared_hinge"):
        return None
    coef = alpha * problem.y
    if Kc is None:
        Kc = problem.kernel_times(coef)
    quad = float(coef @ Kc)
    if name == "squared_hinge":
        quad += float(alpha @ (alpha / problem.costs))
    return float(alpha.sum() - 0.5 * quad)


def _entropy_dual(problem: Problem, alpha: Array, Kc: Array | None) -> float | None:
    """The modified hinge's dual value ``sum a - delta sum a log(a / C) - 0.5
    (a y)' K (a y)`` (docs/modified_hinge_dual.md; C^1 form only), or None
    where ``alpha`` is not dual feasible (outside ``[0, C]``, or ``y'a != 0``
    with an unregularized bias, beyond rounding): only a feasible point gives
    the lower bound that makes ``primal - dual`` a certificate."""
    if getattr(problem.loss, "form", "c1") != "c1" or not math.isfinite(problem.C):
        return None
    C, y = float(problem.C), problem.y
    slack = 1e-9 * C
    if float(alpha.min(initial=0.0)) < -slack or float(alpha.max(initial=0.0)) > C:
        return None
    if problem.fit_intercept and abs(float(alpha @ y)) > slack * max(1.0, len(y)):
        return None
    a = np.clip(alpha, 0.0, C)
    if Kc is None:
        Kc = problem.kernel_times(alpha * y)
    with np.errstate(divide="ignore", invalid="ignore"):
        entropy = float(np.where(a > 0.0, a * np.log(a / C), 0.0).sum())
    delta = float(problem.loss.delta)
    return float(a.sum() - delta * entropy - 0.5 * float((alpha * y) @ Kc))


def intercept_from_gradient(
    y: Array, alpha: Array, G: Array, upper: float, *, eps: float
) -> float:
    """The intercept of a box-QP dual solution, as LIBSVM computes it.

    ``G = Y K_dual Y a - 1`` is the dual gradient. Free support vectors
    (eps < a_i < upper - eps) satisfy ``f(x_i) = y_i``, so ``b = -y_i G_i``; the
    average over them is Zhu's / Sugiyama eq. 27.4's rule (index corrected,
    docs/corrections.md).
    With no free SV, ``b`` is the middle of the interval the KKT conditions allow
    (Fan, Chen, Lin 2005, section 4; LIBSVM ``calculate_rho``).
    """
    yG = y * G
    at_low = alpha <= eps
    at_up = alpha >= upper - eps  # never with upper = inf; upper may be per point
    free = yG[~at_low & ~at_up]
    if free.size:
        # sum / size is NumPy's mean to the bit (the same pairwise add.reduce,
        # then one division), without mean's wrapper (issue 48: 6 us a pair).
        return float(-(free.sum() / free.size))
    # rho = -b lies in [lb, ub] (LIBSVM's calculate_rho).
    ub_set = (at_up & (y < 0)) | (at_low & (y > 0))
    lb_set = (at_up & (y > 0)) | (at_low & (y < 0))
    ub = yG[ub_set].min() if ub_set.any() else math.inf
    lb = yG[lb_set].max() if lb_set.any() else -math.inf
    if math.isinf(ub) and math.isinf(lb):
        return 0.0
    if math.isinf(ub):
        return float(-lb)
    if math.isinf(lb):
        return float(-ub)
    return float(-(ub + lb) / 2.0)


@njit(cache=True, nogil=True)
def box_intercept(y, a, G, U):  # pragma: no cover - compiled
    """:func:`intercept_from_gradient` with ``eps = 0`` and one upper bound
    per variable ``U``, in one compiled pass: the same numbers (the free
    points' ``y_i G_i`` summed in NumPy's order,
    :func:`svmlab.compiled.summation.numpy_sum`; maxima and minima do not
    round). For finite ``G`` only (SMO checks it first):
    NumPy's minimum would carry a NaN that these comparisons skip.

    Issue 48: the NumPy formula's ten small calls took 8 us of each pair of a
    one-vs-one fit on iris."""
    n = y.shape[0]
    free = np.empty(n)
    count = 0
    ub = np.inf
    lb = -np.inf
    for t in range(n):
        yG = y[t] * G[t]
        at_low = a[t] <= 0.0
        at_up = a[t] >= U[t]
        if not at_low and not at_up:
            free[count] = yG
            count += 1
            continue
        # Both at once where U = 0 (at_low and at_up), as NumPy's two masks.
        if (at_up and y[t] < 0.0) or (at_low and y[t] > 0.0):
            ub = min(ub, yG)
        if (at_up and y[t] > 0.0) or (at_low and y[t] < 0.0):
            lb = max(lb, yG)
    if count:
        return -(numpy_sum(free, count) / count)
    if ub == np.inf and lb == -np.inf:
        return 0.0
    if ub == np.inf:
        return -lb
    if lb == -np.inf:
        return -ub
    return -(ub + lb) / 2.0


def _box_violation(
    y: Array, alpha: Array, G: Array, upper: float, fit_intercept: bool, eps: float
) -> float:
    """KKT violation of a box-QP dual point, in margin units (Fan, Chen, Lin 2005).

    With the equality constraint: ``max_{I_up} -y_i G_i - min_{I_low} -y_i G_i``.
    Without: the largest projected-gradient component.
    """
    at_low = alpha <= eps
    at_up = alpha >= upper - eps  # never with upper = inf; upper may be per point
    if fit_intercept:
        minus_yG = -y * G
        i_up = (~at_up & (y > 0)) | (~at_low & (y < 0))
        i_low = (~at_up & (y < 0)) | (~at_low & (y > 0))
        if not i_up.any() or not i_low.any():
            return 0.0
        return max(0.0, float(minus_yG[i_up].max() - minus_yG[i_low].min()))
    projected = np.where(at_low, np.minimum(G, 0.0), G)
    projected = np.where(at_up, np.maximum(projected, 0.0), projected)
    return float(np.abs(projected).max(initial=0.0))


def _alpha_eps(alpha: Array, upper: float) -> float:
    """How close to a bound counts as at the bound (relative, docs/corrections.md
    pitfall).

    Relative to ``min(upper, max_i alpha_i)``, not to ``upper`` alone: at a large
    C (1e10, say) a separable problem's alphas stay of the size the data set
    (about 10), and ``1e-9 C`` would read every one of them as 0.
    """
    return 1e-9 * min(float(np.max(upper)), float(np.abs(alpha).max(initial=0.0)))


def kkt_violation(
    problem: Problem, alpha: Array, b: float, *, Kc: Array | None = None
) -> float:
    """How far ``(alpha, b)`` is from optimal (or, for non-convex losses, stationary).

    - hinge, squared hinge: the box-QP dual violation in margin units
      (``_box_violation``; 0 at the optimum);
    - ramp: the same for the convex hinge problem CCCP linearises at this point
      (Collobert et al. 2006), with ``alpha + beta`` in the box, ``beta_i = C``
      where ``m_i < 0``;
    - modified hinge, squared ramp: the stationarity residual
      ``max_i |alpha_i + C loss'(m_i)| / C`` (docs/corrections.md "Lee (2006)" item 4),
      plus ``|sum alpha_i y_i| / C`` with an unregularized bias.

    ``Kc`` is ``K (alpha * y)`` when the caller has it already.
    """
    y, name = problem.y, problem.loss.name
    if Kc is None:
        Kc = problem.kernel_times(alpha * y)
    if name in ("hinge", "squared_hinge"):
        fast = _box_kkt_compiled(problem, alpha, Kc, squared=name == "squared_hinge")
        if fast is not None:
            return fast
    if name in ("hinge", "squared_hinge", "ramp"):
        costs = problem.costs
        upper = math.inf if name == "squared_hinge" else costs
        a = alpha
        if name == "ramp":
            m = y * decision_values(problem, alpha, b, Kc=Kc)
            a = alpha + np.where(m < 0.0, costs, 0.0)
        # G = Y K_dual Y alpha - 1, with K_dual = K + I/C for the squared hinge.
        G = y * Kc - 1.0
        if name == "squared_hinge":
            G += alpha / costs
        eps = _alpha_eps(a, upper)
        worst = _box_violation(y, a, G, upper, problem.fit_intercept, eps)
        # Outside the box is not a dual solution whatever the gradient says
        # (alpha_i < 0 with G_i = 0 reads as optimal to the projected gradient).
        outside = max(-float(a.min(initial=0.0)), float(np.max(a - upper, initial=0.0)))
        return max(worst, outside / problem.C)
    m = y * decision_values(problem, alpha, b, Kc=Kc)
    residual = np.abs(alpha + problem.C * problem.loss.derivative(m)) / problem.C
    worst = float(residual.max(initial=0.0))
    if problem.fit_intercept:
        worst = max(worst, abs(float(alpha @ y)) / problem.C)
    return worst


def _box_kkt_compiled(
    problem: Problem, alpha: Array, Kc: Array, *, squared: bool
) -> float | None:
    """:func:`kkt_violation` of the hinge or squared hinge in one compiled pass
    (:func:`_box_kkt`, the same numbers: the same elementwise operations, and
    maxima and minima, which do not round), or None where ``alpha``, ``Kc``
    or the costs hold a NaN (NumPy's reductions propagate it, the compiled
    comparisons would skip it: the NumPy formulas then decide).

    Issue 48: NumPy's dozen small passes took 35 us of a one-vs-one pair's
    300 on iris, the compiled pass a tenth of that."""
    costs = np.ascontiguousarray(problem.costs, dtype=np.float64).reshape(-1)
    y = problem.y
    # One compiled specialisation: contiguous float64 vectors of one length.
    for v in (y, alpha, Kc):
        if v.dtype != np.float64 or v.ndim != 1 or not v.flags.c_contiguous:
            return None
    if not (y.shape == alpha.shape == Kc.shape) or costs.shape[0] not in (1, y.size):
        return None
    value = _box_kkt(
        read_only(y),
        read_only(alpha),
        read_only(Kc),
        read_only(costs),
        bool(squared),
        bool(problem.fit_intercept),
        float(problem.C),
    )
    return None if math.isnan(value) else value


@njit(cache=True, nogil=True)
def _box_kkt(y, a, Kc, costs, squared, fit_intercept, C):  # pragma: no cover
    """The hinge's (``squared``: the squared hinge's) branch of
    :func:`kkt_violation`, compiled: ``G = y Kc - 1 (+ a / C_i)``, the bounds
    ``eps`` of :func:`_alpha_eps`, :func:`_box_violation` and the distance
    outside the box over C. ``costs`` is one C or one per point. NaN when a
    NaN is met (the caller then uses the NumPy formulas)."""
    n = a.shape[0]
    per_point = costs.shape[0] > 1
    top = -np.inf  # max over the upper bounds (inf for the squared hinge)
    largest = 0.0  # max |a_t|, initial 0
    for t in range(n):
        if a[t] != a[t] or Kc[t] != Kc[t]:
            return np.nan
        if abs(a[t]) > largest:
            largest = abs(a[t])
    for k in range(costs.shape[0]):
        if costs[k] != costs[k]:
            return np.nan
        top = max(top, np.inf if squared else costs[k])
    eps = 1e-9 * min(top, largest)
    gmax = -np.inf
    gmin = np.inf
    any_up = any_low = False
    projected = 0.0
    outside = 0.0
    for t in range(n):
        c = costs[t] if per_point else costs[0]
        upper = np.inf if squared else c
        g = y[t] * Kc[t] - 1.0
        if squared:
            g += a[t] / c
        at_low = a[t] <= eps
        at_up = a[t] >= upper - eps
        if fit_intercept:
            v = -y[t] * g
            if (not at_up and y[t] > 0) or (not at_low and y[t] < 0):
                any_up = True
                if v > gmax:
                    gmax = v
            if (not at_up and y[t] < 0) or (not at_low and y[t] > 0):
                any_low = True
                if v < gmin:
                    gmin = v
        else:
            p = min(g, 0.0) if at_low else g
            if at_up:
                p = max(p, 0.0)
            if abs(p) > projected:
                projected = abs(p)
        if -a[t] > outside:
            outside = -a[t]
        if a[t] - upper > outside:
            outside = a[t] - upper
    if fit_intercept:
        worst = max(0.0, gmax - gmin) if any_up and any_low else 0.0
    else:
        worst = projected
    return max(worst, outside / C)


def sv_states(
    alpha: Array, C: float | Array, loss: str, *, rel: float | None = None
) -> NDArray[np.int8]:
    """KKT state of each sample: 0 non-SV, 1 free SV, 2 bound SV (Sugiyama 27.3).

    ``|alpha_i| > rel * min(C, max_j |alpha_j|)`` is a support vector and
    ``|alpha_i| >= C - rel * C`` a bound one. The SV threshold is relative to the
    largest alpha, not to C alone: at a large C (1e10, 1e12) the alphas of a
    separable problem stay of the size the data set, and ``1e-8 C`` would call
    every point a non-SV (issue 14, item 3). Exact solvers (polished QP, SMO)
    leave alpha exactly at 0 or C, so ``rel = 1e-8`` (the default for hinge-type
    losses) only absorbs round-off; smooth losses (modified hinge, squared ramp)
    give every point a positive alpha decaying like exp(-m/delta), so their
    default is 1e-6 (docs/corrections.md: say which threshold). Float32 history
    snapshots
    need ``rel = 1e-6`` too. The ramp's effective coefficients may be negative:
    they count by size. The squared hinge has no upper bound, so none of its SVs
    is bound. This state is for display; the estimator's ``support_`` keeps
    every nonzero alpha, so that f never loses a term. ``C`` may be one per
    point (class weights).
    """
    if rel is None:
        rel = 1e-8 if loss in ("hinge", "squared_hinge", "ramp") else 1e-6
    a = np.abs(np.asarray(alpha, dtype=np.float64))
    sv_eps = rel * min(float(np.max(C)), float(a.max(initial=0.0)))
    state = np.where(a > sv_eps, 1, 0).astype(np.int8)
    if np.all(np.isfinite(C)) and loss != "squared_hinge":
        state[a >= C - rel * np.asarray(C)] = 2
    return state


def state_multipliers(problem: Problem, solution: DualSolution) -> Array:
    """The multipliers the KKT states are read from: the solution's ``alpha``,
    or, for a loss whose slope is never 0 (the modified hinge), the ones its
    optimality condition gives at the fitted margins, ``alpha_i = -C_i
    h'(m_i)`` (Lee 2006, eq. (6); Sugiyama §27.6).

    The modified hinge gives every point a positive alpha decaying like
    ``exp(-m/delta)``; how small the far points' alphas come out depends on how
    the solver stopped (at the same objective IRWLS left 135 of 160 above the
    SV threshold on moons, the entropy dual 55). Read from the margins, which
    both solutions share to the fit's tolerance, the count is one definition
    whatever the solver: a point is a support vector when ``-C h'(m_i)`` is
    above :func:`sv_states`' threshold.
    """
    if not problem.loss.slope_never_zero:
        return solution.alpha
    f = decision_values(problem, solution.alpha, solution.b, Kc=solution.kernel_part)
    return -np.asarray(problem.costs) * problem.loss.derivative(problem.y * f)


def repair_init(
    init: Array | None, problem: Problem, upper: float | None = None
) -> Array | None:
    """A warm start made feasible: clipped to ``[0, upper]`` and, with an
    unregularized bias, scaled on its heavier side so that ``sum a_i y_i = 0``.

    Returns None for no usable warm start (None, wrong length, or not finite).
    """
    if init is None:
        return None
    a = np.asarray(init, dtype=np.float64).ravel()
    if a.shape[0] != problem.n or not np.all(np.isfinite(a)):
        return None
    if upper is None:
        upper = (
            box_dual(problem)[1]
            if problem.loss.name
            in (
                "hinge",
                "squared_hinge",
                "ramp",
            )
            else math.inf
        )
    a = np.clip(a, 0.0, upper)
    if problem.fit_intercept:
        y = problem.y
        pos, neg = a[y > 0].sum(), a[y < 0].sum()
        # Shrinking the heavier side keeps every a_i inside the box.
        if pos > neg:
            a[y > 0] *= neg / pos if pos > 0 else 0.0
        elif neg > pos:
            a[y < 0] *= pos / neg if neg > 0 else 0.0
    return a


# -- time budget and cancellation (issue 14, item 6) ------------------------------

#: Why a solver stopped (``DualSolution.stop_reason``): its optimality measure
#: met ``tol``; the iteration cap; the time budget; or a looser rule of its own
#: that it stops by on purpose (``extras["stop_note"]`` then says which).
STOP_REASONS = ("converged", "max_iter", "max_seconds", "rule")

#: The cancel predicate is called at most once per this many seconds of work.
POLL_SECONDS = 0.01


class _Canceller:
    """One ``cancel_when`` block: its predicate, rate-limited, and the blocks
    around it (an outer predicate still applies inside an inner one)."""

    def __init__(
        self, should_stop: Callable[[], bool], outer: _Canceller | None
    ) -> None:
        self.should_stop, self.outer = should_stop, outer
        self.last = -math.inf

    def poll(self, now: float) -> None:
        if now - self.last >= POLL_SECONDS:
            self.last = now
            if self.should_stop():
                raise FitCancelled()
        if self.outer is not None:
            self.outer.poll(now)


_CANCEL: ContextVar[_Canceller | None] = ContextVar("svmlab_cancel", default=None)


@contextmanager
def cancel_when(should_stop: Callable[[], bool]) -> Iterator[None]:
    """Stop every fit inside the block as soon as ``should_stop()`` returns True.

    Each solver calls ``should_stop()`` where it checks its time budget (between
    compiled chunks of about 20 ms, once per outer iteration, before and after
    an uninterruptible interior-point call), at most every
    :data:`POLL_SECONDS` of work, and raises :class:`svmlab.errors.FitCancelled`
    when it returns True. A page wraps its fits in it with a predicate that says
    "this script run has been superseded", so that a fit whose result nobody will
    see stops. The predicate lives in a :class:`contextvars.ContextVar`: it
    applies to the current thread (and asyncio task) only, and blocks nest
    (``with cancel_when(lambda: run_id != current_run()): model.fit(X, y)``).
    """
    token = _CANCEL.set(_Canceller(should_stop, _CANCEL.get()))
    try:
        yield
    finally:
        _CANCEL.reset(token)


def check_max_seconds(max_seconds: object) -> float | None:
    """``max_seconds`` as a float, or None (no budget); a ParameterError unless it
    is None or a positive finite number."""
    if max_seconds is None:
        return None
    if isinstance(max_seconds, bool) or not isinstance(
        max_seconds, int | float | np.integer | np.floating
    ):
        raise ParameterError(
            "max_seconds must be a positive number of seconds or None (no time "
            f"limit); got {plain_value(max_seconds)}."
        )
    value = float(max_seconds)
    if not (math.isfinite(value) and value > 0.0):
        raise ParameterError(
            "max_seconds must be a positive number of seconds or None (no time "
            f"limit); got {plain_value(value)}."
        )
    return value


class Budget:
    """A solver's wall-clock budget, and the place it polls for cancellation.

    ``check()`` is what a solver calls between chunks of work (and the budget
    calls once when it is made): it polls the ``cancel_when`` predicate (which
    may raise :class:`FitCancelled`) and returns True once ``max_seconds`` have
    passed since the budget was made.
    Inner solves share the outer budget by receiving ``remaining()`` as their
    own ``max_seconds``. ``max_seconds=None`` never expires.
    """

    def __init__(self, max_seconds: object = None) -> None:
        seconds = check_max_seconds(max_seconds)
        self.start = time.perf_counter()
        self.deadline = None if seconds is None else self.start + seconds
        self.expired = False
        self.check()  # a fit already superseded does not start

    def check(self) -> bool:
        """Poll for cancellation; whether the time is up (it stays up).

        Inside :func:`svmlab.solvers.lane.long_fits_through`, a fit that has
        worked past the lane's threshold first waits for a slot of the lane
        (still polling for cancellation); the wait does not count against the
        budget.
        """
        now = time.perf_counter()
        canceller = _CANCEL.get()
        if canceller is not None:
            canceller.poll(now)
        waited = wait_for_lane(self.start, now, self._poll)
        if waited:
            now = time.perf_counter()
            if self.deadline is not None:
                self.deadline += waited
        if self.deadline is not None and now >= self.deadline:
            self.expired = True
        return self.expired

    @staticmethod
    def _poll() -> None:
        canceller = _CANCEL.get()
        if canceller is not None:
            canceller.poll(time.perf_counter())

    def remaining(self) -> float | None:
        """Seconds left (a tiny positive number once spent), None without a limit."""
        if self.deadline is None:
            return None
        return max(self.deadline - time.perf_counter(), 1e-9)


#: The registry's ``valid_solvers`` (``svmlab.solvers`` installs it when it is
#: imported): a solver module names the solvers that can do what it cannot
#: without importing the registry, which imports every solver module.
_registry_lookup: Callable[..., list[str]] | None = None


def valid_solvers_for(loss: str, *, fit_intercept: bool) -> list[str]:
    """The registered solvers for ``loss`` in this bias mode (for a sentence)."""
    lookup = _registry_lookup
    return lookup(loss, fit_intercept=fit_intercept) if lookup is not None else []


@dataclass(frozen=True)
class SolverSpec:
    """What a page and the dispatcher need to know about one solver."""

    name: str
    title: str
    solve: SolveFunction
    losses: frozenset[str]
    source: str
    # Most solvers fit with and without an unregularized bias and iterate: only
    # the exceptions (coordinate ascent: no bias; the QP: one shot) say so.
    with_intercept: bool = True
    without_intercept: bool = True
    iterative: bool = True
    hard_margin: bool = False
    #: Takes ``Problem.weights`` (a C per point: class weights).
    weights: bool = False


@dataclass
class History:
    """Per-iteration records, thinned so at most ``max_snapshots`` dual vectors
    are kept however long the run (scalars are kept on the same iterations).

    Each record: iteration, objective, KKT violation, elapsed seconds, intercept
    and a float32 copy of alpha (enough to redraw f at that iteration).
    """

    max_snapshots: int = 200
    stride: int = 1
    iteration: list[int] = field(default_factory=list)
    objective: list[float] = field(default_factory=list)
    kkt_violation: list[float] = field(default_factory=list)
    time: list[float] = field(default_factory=list)
    intercept: list[float] = field(default_factory=list)
    alpha: list[NDArray[np.float32]] = field(default_factory=list)

    def wants(self, it: int) -> bool:
        """Whether iteration ``it`` is on the current recording stride."""
        return it % self.stride == 0

    def record(
        self,
        it: int,
        *,
        objective: float,
        kkt_violation: float,
        time: float,
        alpha: Array,
        intercept: float = 0.0,
    ) -> None:
        """Append one record; halve the kept records when the buffer is full."""
        self.iteration.append(int(it))
        self.objective.append(float(objective))
        self.kkt_violation.append(float(kkt_violation))
        self.time.append(float(time))
        self.intercept.append(float(intercept))
        self.alpha.append(np.asarray(alpha, dtype=np.float32).copy())
        if len(self.iteration) > self.max_snapshots:
            keep = slice(0, None, 2)
            for name in ("iteration", "objective", "kkt_violation", "time"):
                setattr(self, name, getattr(self, name)[keep])
            self.intercept = self.intercept[keep]
            self.alpha = self.alpha[keep]
            self.stride *= 2

    def __len__(self) -> int:
        return len(self.iteration)


@dataclass
class DualSolution:
    """What a solver returns (STYLE rule 6). It can check itself.

    Attributes
    ----------
    alpha
        Coefficients, shape (n,): ``f = K (alpha * y) + b``.
    b
        Intercept (0 without an unregularized bias).
    objective
        The primal objective :func:`primal_objective` at ``(alpha, b)``
        (with :attr:`dual_objective`, computed when first read: issue 48).
    n_iter
        Iterations (outer iterations for CCCP).
    converged
        Whether the optimality measure ``kkt`` meets the solver's ``tol``
        (issue 14, item 7): never True because a looser rule stopped the loop.
    kkt
        :func:`kkt_violation` at the returned point.
    history
        Per-iteration records (empty unless recorded).
    extras
        Solver-specific data (SMO working pairs, IRWLS weights, CCCP starts...);
        ``stop_note`` (with ``stop_reason == "rule"``) is one plain sentence
        naming the rule that stopped the solver and the residual it left.
    fit_time
        Seconds in the solver (set by :func:`svmlab.solvers.solve`).
    stop_reason
        One of :data:`STOP_REASONS`: ``"converged"`` (``kkt <= tol``),
        ``"max_iter"``, ``"max_seconds"`` (the time budget), or ``"rule"`` (a
        looser stopping rule of the solver's own, e.g. Lee's rule in IRWLS).
    kernel_part
        ``K (alpha * y)``, shape (n,): the training decision values without
        ``b``, as :meth:`finish` scored the solution (the estimator reads its
        margins here instead of forming the product again).
    """

    alpha: Array
    b: float
    objective: float
    n_iter: int
    converged: bool
    kkt: float
    dual_objective: float | None = None
    history: History = field(default_factory=History)
    extras: dict[str, Any] = field(default_factory=dict)
    fit_time: float = 0.0
    stop_reason: str = "converged"
    kernel_part: Array | None = field(default=None, repr=False)

    @classmethod
    def finish(
        cls,
        problem: Problem,
        alpha: Array,
        b: float,
        *,
        n_iter: int,
        converged: bool | None = None,
        tol: float | None = None,
        stop_reason: str | None = None,
        rule: str | None = None,
        history: History | None = None,
        extras: dict[str, Any] | None = None,
        Kc: Array | None = None,
        kkt: float | None = None,
    ) -> DualSolution:
        """Build a solution and evaluate its objective, dual value and KKT check.

        With ``tol`` (every registered solver passes it) the measure decides:
        ``converged = kkt <= tol`` and then ``stop_reason = "converged"``,
        whatever ended the loop. Otherwise ``stop_reason`` says what did
        (default ``"max_iter"``); a loop that ended by its own test
        (``"converged"``) while the measure is above ``tol`` is reported as
        ``"rule"``. For ``"rule"``, ``extras["stop_note"]`` is the sentence
        ``"<rule>; the KKT residual is <kkt>, above tol."``, where ``rule``
        names the rule ("IRWLS stopped by Lee's rule (...)"). Without ``tol``
        (solvers written before issue 14) ``converged`` is taken as given.

        ``Kc = K (alpha * y)`` may be handed in by a solver that has it: SMO
        and the entropy dual read it off their gradient (``y (G + 1)`` and
        ``y q``; issue 29, item 4: a fit then forms no kernel product after its
        loop); otherwise it is computed here, once, for the KKT check, the
        primal and the dual. It is kept as :attr:`kernel_part`.

        ``kkt`` may be handed in with ``Kc`` by a solver that computed
        :func:`kkt_violation` at ``(alpha, Kc)`` itself, by the same formula
        (SMO, in its closing compiled pass: issue 48); the check is then not
        made twice.
        """
        alpha = np.asarray(alpha, dtype=np.float64)
        if Kc is None:
            Kc = problem.kernel_times(alpha * problem.y)
            kkt = None  # only a kkt of the Kc it was computed with
        if kkt is None:
            kkt = kkt_violation(problem, alpha, b, Kc=Kc)
        if tol is not None:
            converged = kkt <= tol
            if converged:
                stop_reason = "converged"
            elif stop_reason in (None, "converged"):
                stop_reason = "rule" if stop_reason else "max_iter"
        else:
            converged = bool(converged)
            if stop_reason is None:
                stop_reason = "converged" if converged else "max_iter"
        if stop_reason not in STOP_REASONS:
            raise ValueError(f"unknown stop reason {stop_reason!r}")
        extras = dict(extras or {})
        if stop_reason == "rule":
            what = rule or "The solver stopped by its own rule"
            extras["stop_note"] = f"{what}; the KKT residual is {kkt:.1e}, above tol."
        solution = cls(
            alpha=alpha,
            b=float(b),
            objective=_PENDING,
            n_iter=int(n_iter),
            converged=bool(converged),
            kkt=kkt,
            dual_objective=_PENDING,
            history=history if history is not None else History(),
            extras=extras,
            stop_reason=stop_reason,
            kernel_part=np.asarray(Kc, dtype=np.float64),
        )
        # The primal and dual values on first reading (issue 48: a one-vs-one
        # fit's pairs never read them, 6-8 us a pair), from the same arguments
        # as before, so the same bits.
        solution.__dict__["_pending"] = (problem, b, Kc)
        return solution

    def _evaluate(self) -> None:
        """Compute :attr:`objective` and :attr:`dual_objective` (held back by
        :meth:`finish` until one is read)."""
        problem, b, Kc = self.__dict__.pop("_pending")
        self.__dict__["_objective"] = primal_objective(problem, self.alpha, b, Kc=Kc)
        self.__dict__["_dual_objective"] = dual_objective(problem, self.alpha, Kc=Kc)

    def __getstate__(self) -> dict[str, Any]:
        # A pickled or copied solution carries its values, not the problem.
        if "_pending" in self.__dict__:
            self._evaluate()
        return self.__dict__

    def duality_gap(self) -> float | None:
        """``primal - dual`` (>= 0; 0 at the optimum) where a dual exists."""
        if self.dual_objective is None or not math.isfinite(self.objective):
            return None
        return self.objective - self.dual_objective

    def kkt_violation(self) -> float:
        """See :func:`kkt_violation`."""
        return self.kkt


#: Stands for a value :meth:`DualSolution.finish` computes on first reading.
_PENDING: Any = object()


def _evaluated(name: str) -> property:
    """A :class:`DualSolution` field read through a property: its value, or,
    while it is :data:`_PENDING`, the value computed then (the dataclass's
    ``__init__``, ``__repr__``, ``__eq__`` and ``replace`` read and write the
    field through it)."""
    slot = "_" + name

    def get(self: DualSolution) -> Any:
        if "_pending" in self.__dict__:
            self._evaluate()
        return self.__dict__[slot]

    def set(self: DualSolution, value: Any) -> None:
        if value is not _PENDING and "_pending" in self.__dict__:
            self._evaluate()  # the other value too, before the pending is gone
        self.__dict__[slot] = value

    return property(get, set, doc=f"See :class:`DualSolution` ({name}).")


DualSolution.objective = _evaluated("objective")  # type: ignore[assignment]
DualSolution.dual_objective = _evaluated("dual_objective")  # type: ignore[assignment]
