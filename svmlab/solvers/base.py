"""What every solver shares: the problem, the result type, and its self-checks.

Every solver minimises the same primal (MATH.md, notation)::

    0.5 ||f||_H^2 + C sum_i loss(m_i),   f = K (alpha * y) + b,   m_i = y_i f(x_i)

over the representer coefficients ``alpha`` (and an unregularized ``b`` when
``fit_intercept``). ``K`` is the *effective* Gram matrix: the estimator passes
``K + 1`` for the regularized bias (Rifkin), so solvers only know whether an
unregularized bias with its equality constraint ``sum alpha_i y_i = 0`` is present.

For the hinge and the squared hinge, ``alpha`` is also the dual vector of the
box-constrained QP (Sugiyama eq. 27.3; the squared hinge is the hinge dual on
``K + I/C`` with no upper bound, MATH.md "Squared hinge dual"). Other losses use
the same ``alpha`` as coefficients; their optimality is checked by stationarity.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from svmlab.losses import Loss

__all__ = [
    "DualSolution",
    "History",
    "Problem",
    "SolveFunction",
    "SolverSpec",
    "box_dual",
    "dual_objective",
    "intercept_from_gradient",
    "kkt_violation",
    "primal_objective",
    "repair_init",
    "sv_states",
]

Array = NDArray[np.float64]


@dataclass(frozen=True)
class Problem:
    """One SVM training problem, as every solver sees it.

    Parameters
    ----------
    K
        Effective Gram matrix, shape (n, n), symmetric positive semidefinite.
    y
        Labels in {-1, +1}, shape (n,).
    loss
        The loss object.
    C
        Cost parameter, > 0; ``math.inf`` is the hard margin (hinge only).
    fit_intercept
        Whether the model has an unregularized bias (``sum alpha_i y_i = 0``).
    """

    K: Array
    y: Array
    loss: Loss
    C: float
    fit_intercept: bool

    @property
    def n(self) -> int:
        return self.y.shape[0]


class SolveFunction(Protocol):
    """The one solver signature (STYLE rule 6)."""

    def __call__(
        self,
        problem: Problem,
        *,
        tol: float,
        max_iter: int,
        init: Array | None = None,
        record_history: bool = False,
        **options: Any,
    ) -> DualSolution: ...


def box_dual(problem: Problem) -> tuple[Array, float]:
    """The box-QP form of a hinge-type problem: ``(K_dual, upper)``.

    Hinge: ``min 0.5 a'(Y K Y)a - 1'a``, ``0 <= a <= C`` (Sugiyama eq. 27.3).
    Squared hinge: the same on ``K + I/C`` with no upper bound (MATH.md).
    """
    name = problem.loss.name
    if name == "squared_hinge":
        K = problem.K + np.eye(problem.n) / problem.C
        return K, math.inf
    if name in ("hinge", "ramp"):
        return problem.K, problem.C
    raise ValueError(f"loss {name!r} has no box-QP dual")


def decision_values(problem: Problem, alpha: Array, b: float) -> Array:
    """Training decision values ``f = K (alpha * y) + b``, shape (n,)."""
    return problem.K @ (alpha * problem.y) + b


def primal_objective(problem: Problem, alpha: Array, b: float) -> float:
    """``0.5 (alpha y)' K (alpha y) + C sum loss(m_i)``: one formula for all solvers.

    With the hard margin (C = inf) it is ``0.5 ||f||^2`` when every margin is at
    least 1 (up to 1e-6) and ``inf`` otherwise.
    """
    coef = alpha * problem.y
    f = problem.K @ coef + b
    norm2 = 0.5 * float(coef @ (f - b))
    losses = problem.loss.value(problem.y * f)
    if math.isinf(problem.C):
        return norm2 if float(losses.max(initial=0.0)) <= 1e-6 else math.inf
    return norm2 + problem.C * float(losses.sum())


def dual_objective(problem: Problem, alpha: Array) -> float | None:
    """The dual value ``1'a - 0.5 a' Y K_dual Y a`` for hinge-type losses, else None.

    With the box-QP dual (Sugiyama eq. 27.3, MATH.md "Squared hinge dual") weak
    duality gives ``primal >= dual``; at the optimum they are equal.
    """
    if problem.loss.name not in ("hinge", "squared_hinge"):
        return None
    K_dual, _ = box_dual(problem)
    coef = alpha * problem.y
    return float(alpha.sum() - 0.5 * coef @ (K_dual @ coef))


def intercept_from_gradient(
    y: Array, alpha: Array, G: Array, upper: float, *, eps: float
) -> float:
    """The intercept of a box-QP dual solution, as LIBSVM computes it.

    ``G = Y K_dual Y a - 1`` is the dual gradient. Free support vectors
    (eps < a_i < upper - eps) satisfy ``f(x_i) = y_i``, so ``b = -y_i G_i``; the
    average over them is Zhu's / Sugiyama eq. 27.4's rule (index corrected, MATH.md).
    With no free SV, ``b`` is the middle of the interval the KKT conditions allow
    (Fan, Chen, Lin 2005, section 4; LIBSVM ``calculate_rho``).
    """
    yG = y * G
    at_low = alpha <= eps
    at_up = alpha >= upper - eps if math.isfinite(upper) else np.zeros_like(at_low)
    free = ~at_low & ~at_up
    if free.any():
        return float(-yG[free].mean())
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


def _box_violation(
    y: Array, alpha: Array, G: Array, upper: float, fit_intercept: bool, eps: float
) -> float:
    """KKT violation of a box-QP dual point, in margin units (Fan, Chen, Lin 2005).

    With the equality constraint: ``max_{I_up} -y_i G_i - min_{I_low} -y_i G_i``.
    Without: the largest projected-gradient component.
    """
    at_low = alpha <= eps
    at_up = alpha >= upper - eps if math.isfinite(upper) else np.zeros_like(at_low)
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
    """How close to a bound counts as at the bound (relative, MATH.md pitfall)."""
    scale = upper if math.isfinite(upper) else max(1.0, float(alpha.max(initial=0.0)))
    return 1e-9 * scale


def kkt_violation(problem: Problem, alpha: Array, b: float) -> float:
    """How far ``(alpha, b)`` is from optimal (or, for non-convex losses, stationary).

    - hinge, squared hinge: the box-QP dual violation in margin units
      (``_box_violation``; 0 at the optimum);
    - ramp: the same for the convex hinge problem CCCP linearises at this point
      (Collobert et al. 2006), with ``alpha + beta`` in the box, ``beta_i = C``
      where ``m_i < 0``;
    - modified hinge, squared ramp: the stationarity residual
      ``max_i |alpha_i + C loss'(m_i)| / C`` (MATH.md "Lee (2006)" item 4), plus
      ``|sum alpha_i y_i| / C`` with an unregularized bias.
    """
    y, name = problem.y, problem.loss.name
    if name in ("hinge", "squared_hinge", "ramp"):
        K_dual, upper = box_dual(problem)
        a = alpha
        if name == "ramp":
            m = y * decision_values(problem, alpha, b)
            a = alpha + np.where(m < 0.0, problem.C, 0.0)
        G = y * (K_dual @ (alpha * y)) - 1.0
        eps = _alpha_eps(a, upper)
        worst = _box_violation(y, a, G, upper, problem.fit_intercept, eps)
        # Outside the box is not a dual solution whatever the gradient says
        # (alpha_i < 0 with G_i = 0 reads as optimal to the projected gradient).
        outside = max(-float(a.min(initial=0.0)), float(a.max(initial=0.0)) - upper)
        return max(worst, outside / problem.C)
    m = y * decision_values(problem, alpha, b)
    residual = np.abs(alpha + problem.C * problem.loss.derivative(m)) / problem.C
    worst = float(residual.max(initial=0.0))
    if problem.fit_intercept:
        worst = max(worst, abs(float(alpha @ y)) / problem.C)
    return worst


def sv_states(
    alpha: Array, C: float, loss: str, *, rel: float | None = None
) -> NDArray[np.int8]:
    """KKT state of each sample: 0 non-SV, 1 free SV, 2 bound SV (Sugiyama 27.3).

    ``|alpha_i| > eps`` is a support vector, ``|alpha_i| >= C - eps`` a bound one,
    with ``eps = rel * C``. Exact solvers (polished QP, SMO) leave alpha exactly at
    0 or C, so ``rel = 1e-8`` (the default for hinge-type losses) only absorbs
    round-off; smooth losses (modified hinge, squared ramp) give every point a
    positive alpha decaying like exp(-m/delta), so their default is 1e-6 (MATH.md:
    say which threshold). Float32 history snapshots need ``rel = 1e-6`` too. The
    ramp's effective coefficients may be negative: they count by size. The
    squared hinge has no upper bound, so none of its SVs is bound.
    """
    if rel is None:
        rel = 1e-8 if loss in ("hinge", "squared_hinge", "ramp") else 1e-6
    a = np.abs(np.asarray(alpha, dtype=np.float64))
    scale = C if math.isfinite(C) else max(1.0, float(a.max(initial=0.0)))
    eps = rel * scale
    state = np.where(a > eps, 1, 0).astype(np.int8)
    if math.isfinite(C) and loss != "squared_hinge":
        state[a >= C - eps] = 2
    return state


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


@dataclass(frozen=True)
class SolverSpec:
    """What a page and the dispatcher need to know about one solver."""

    name: str
    title: str
    solve: SolveFunction
    losses: frozenset[str]
    with_intercept: bool
    without_intercept: bool
    iterative: bool
    source: str
    hard_margin: bool = False


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
        The primal objective :func:`primal_objective` at ``(alpha, b)``.
    n_iter
        Iterations (outer iterations for CCCP).
    converged
        Whether the stopping rule was met before ``max_iter``.
    kkt
        :func:`kkt_violation` at the returned point.
    history
        Per-iteration records (empty unless recorded).
    extras
        Solver-specific data (SMO working pairs, IRWLS weights, CCCP starts...).
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

    @classmethod
    def finish(
        cls,
        problem: Problem,
        alpha: Array,
        b: float,
        *,
        n_iter: int,
        converged: bool,
        history: History | None = None,
        extras: dict[str, Any] | None = None,
    ) -> DualSolution:
        """Build a solution and evaluate its objective, dual value and KKT check."""
        alpha = np.asarray(alpha, dtype=np.float64)
        return cls(
            alpha=alpha,
            b=float(b),
            objective=primal_objective(problem, alpha, b),
            n_iter=int(n_iter),
            converged=bool(converged),
            kkt=kkt_violation(problem, alpha, b),
            dual_objective=dual_objective(problem, alpha),
            history=history if history is not None else History(),
            extras=extras or {},
        )

    def duality_gap(self) -> float | None:
        """``primal - dual`` (>= 0; 0 at the optimum) where a dual exists."""
        if self.dual_objective is None or not math.isfinite(self.objective):
            return None
        return self.objective - self.dual_objective

    def kkt_violation(self) -> float:
        """See :func:`kkt_violation`."""
        return self.kkt
