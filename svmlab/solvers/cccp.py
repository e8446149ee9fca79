"""Ramp loss by the concave-convex procedure (CCCP): convex box QPs in a loop.

.. math::

    \\begin{gathered}
    \\min_{f,b}\\ \\tfrac12\\|f\\|_H^2 + C\\sum_i \\operatorname{ramp}(m_i),\\\\
    \\operatorname{ramp}(m) = \\min(1, \\max(0, 1 - m))
    = \\underbrace{\\max(0, 1 - m)}_{\\text{hinge}} - \\max(0, -m)
    \\end{gathered}

**The outer step.** The subtracted part ``C max(0, -m)`` is convex, so it lies above
its tangent at the current margins ``m^t``: ``C max(0, -m) >= const - beta_i m`` with
``beta_i = C`` if ``m_i^t < 0`` else 0 (Collobert et al.'s ``s = 0``). Replacing it
by the tangent gives a convex upper bound that touches the objective at ``f^t``::

    J_t(f, b) = 0.5 ||f||^2 + C sum_i hinge(m_i) + sum_i beta_i m_i + const.

Its minimiser ``f^{t+1}`` satisfies ``J(f^{t+1}) <= J_t(f^{t+1}) <= J_t(f^t) =
J(f^t)``: the objective never increases.

**The subproblem's dual.** With slacks ``xi_i >= 1 - m_i``, ``xi_i >= 0`` and
multipliers ``a_i``, setting the Lagrangian's derivatives to zero gives
``f = K (y * (a - beta)) + b``, ``0 <= a_i <= C`` and, with an unregularized bias,
``sum_i y_i (a_i - beta_i) = 0``. The dual is the hinge dual with ``a - beta`` in the
quadratic (``Q = Y K Y``)::

    min_a 0.5 (a - beta)' Q (a - beta) - 1'a,   0 <= a <= C,   [y'a = y'beta]

that is the box QP ``min 0.5 a'Qa + p'a`` with ``p = -(1 + Q beta)`` and equality
right-hand side ``y'beta``. The box is the hinge's, so each outer step's solution is
a feasible warm start for the next. The returned coefficients are the *effective*
``alpha = a - beta`` (in [-C, C]; in [0, C] at a fixed point), so that
``f = K (alpha * y) + b`` as for every solver. A point with ``m_i < 0`` at a fixed
point has ``a_i = C = beta_i``: ``alpha_i = 0``, it is ignored. That is the
robustness to outliers.

**Squared ramp** (``0.5 min(1, (1 - m)_+)^2``). The split
``0.5 (1 - m)_+^2 - g(m)``, ``g(m) = (0.5 m^2 - m) [m < 0]``, has a curved concave
part: its tangent slopes ``C (1 - m_i^t)`` move with every step and CCCP converges
only in the limit (linearly, slowly at large C). This module uses the split with
the ramp's concave part instead::

    sqramp(m) = h(m) - max(0, -m),
    h(m) = 0.5 - m (m < 0),  0.5 (1 - m)^2 (0 <= m <= 1),  0 (m > 1)

``h`` is convex and C^1 (a squared hinge continued linearly below m = 0), and
``h(m) = max_{0 <= u <= 1} u (1 - m) - u^2 / 2``, so with ``a = C u`` the
subproblem's dual is the squared-hinge dual with the hinge's box: ``Q + I/C``,
``0 <= a <= C``, the same ``p`` and ``beta_i = C [m_i^t < 0]``. CCCP then stops in
finitely many steps, by the same rule as for the ramp. At a fixed point
``alpha_i = C (1 - m_i)`` on ``0 <= m_i < 1`` and 0 elsewhere: the stationarity
conditions of the squared ramp.

**Template** (STYLE rule 7): ``setup`` (the start: the hinge solution by the
registered ``inner`` solver, zero, or ``init``) -> loop(``update``: beta from the
current margins; ``inner solve`` of the box QP, warm-started from the previous
solution; ``check_convergence``) -> ``finalize``. Stopping: ``beta`` unchanged
(the point minimises its own linearisation: a CCCP fixed point); or no decrease of
the objective across two steps, or an increase (possible only with an inexact
inner solve; the current point is then a fixed point up to that accuracy and is
kept); or ``max_iter`` outer steps; or ``max_seconds``.

**Optimality measure** (issue 14, item 7). The ramp is non-convex and not
differentiable, so "optimal" can only mean *locally*: a point is a CCCP fixed
point when it minimises its own convex upper bound ``J_t`` (beta from its own
margins). So the measure is the KKT violation of that last convex subproblem,
evaluated at the returned point with beta read off its margins
(:func:`~svmlab.solvers.base.kkt_violation` computes exactly this for the
ramp: the box dual with ``a = alpha + beta``); it is 0 at a fixed point with an
exact inner solve and says nothing about the global minimum. For the squared
ramp the same construction gives its stationarity residual
``max_i |alpha_i + C l'(m_i)| / C``, also what ``kkt_violation`` reports.
``converged`` is that measure ``<= tol``. When the outer rule stops the loop
(beta unchanged with an inexact SMO inner solve, or a step that did not
decrease the objective) and the measure is above ``tol``, the result has
``stop_reason="rule"`` and a sentence in ``extras["stop_note"]``.

**Budget.** ``max_seconds`` is shared by the start and every inner solve (they
get what is left); it is checked before each outer step and, inside, between
SMO's compiled chunks or the active-set rounds of the ``qp`` inner solve
(CVXOPT's interior point itself cannot be interrupted: it is checked before and
after). An inner solve cut short is discarded: the last complete outer
iterate is returned, with ``stop_reason="max_seconds"``. Every outer iterate
satisfies ``-C <= alpha_i <= C`` and, with the bias, ``sum alpha_i y_i = 0``.

The inner solve: the box QP above. ``inner="auto"`` (default) is qp up to 100
points and smo above. ``inner="smo"`` (issue 16: the fastest hinge solver from
n = 200 on, 4-10x faster than qp there) runs LIBSVM's decomposition loop with shrinking
(:class:`svmlab.solvers.shrinking.BoxSMO`), which takes any linear term ``p``
(LIBSVM's ``Solver`` takes a ``p`` too), from the previous solution made
feasible for the new ``c``: only the points whose ``beta`` flipped are far from
optimal, so a step costs a few hundred SMO updates. It stops at ``inner_tol``
(default ``min(tol, 1e-10)``), so the outer rule stops at a fixed point to about
round-off. ``inner="qp"`` solves it exactly by the interior-point method and
active-set polish of :mod:`svmlab.solvers.qp`, generalised here to a linear term
``p`` and an equality right-hand side ``c`` (``qp`` cannot take them yet); after
the first step it tries the active-set method alone from the previous solution
(exact when it ends: it checks the KKT conditions) and calls the interior-point
method only if that fails. The hinge start is the registered ``inner`` solver's
own answer.

References
----------
Collobert, Sinz, Weston, Bottou (2006), Trading convexity for scalability, ICML.
Yuille, Rangarajan (2003), The concave-convex procedure. Sugiyama (2015) §27.6.3.
"""

from __future__ import annotations

import importlib
import math
from typing import Any

import numpy as np

from svmlab.array_types import Array
from svmlab.errors import IncompatibleLossError, ParameterError, ProblemError
from svmlab.losses import Hinge, SquaredHinge
from svmlab.solvers import qp
from svmlab.solvers.base import (
    Budget,
    DualSolution,
    Problem,
    SolverSpec,
    intercept_from_gradient,
    primal_objective,
    repair_init,
)
from svmlab.solvers.run import Run, solve_function

__all__ = ["SPEC", "solve"]


STARTS = ("hinge", "zero", "init")
INNERS = ("auto", "qp", "smo")
#: ``inner="auto"`` uses the exact qp up to this many points (a few ms there, and
#: exact on any kernel scale), SMO above (4-10x faster from n = 200 on).
AUTO_QP_MAX_N = 100
#: Cap on SMO updates per subproblem.
SMO_UPDATES = 1_000_000
#: Stopping tolerance of an SMO inner solve (KKT violation, margin units).
INNER_TOL = 1e-10


def _box_qp(
    box: qp.BoxQP, warm: Array | None, budget: Budget | None = None
) -> tuple[Array, float, dict[str, Any]] | None:
    """Solve ``box`` (``min 0.5 a'Qa + p'a, 0 <= a <= upper, [y'a = c]``)
    exactly, by :mod:`svmlab.solvers.qp`'s interior point and active-set polish.

    From a warm start the active-set method runs alone (its answer is a verified
    KKT point); otherwise, or if it fails, CVXOPT then the active-set polish.
    None when ``budget`` ran out before an answer (a polish cut short after the
    interior point keeps the interior point's answer).
    """
    if warm is not None:
        rounds = 50 + box.y.shape[0] // 4
        found = qp._polish(box, warm, max_rounds=rounds, budget=budget)
        if found is not None:
            a, b = found
            return a, _intercept(box, a, b), {"ip": 0}
    if budget is not None and budget.check():
        return None
    a, status, iterations = qp._cvxopt(box)
    if status not in ("Solved", "AlmostSolved") or not np.all(np.isfinite(a)):
        raise ProblemError(
            f"A CCCP subproblem could not be solved (interior point: {status})."
        )
    a = np.clip(a, 0.0, box.upper)
    found = qp._polish(box, a, budget=budget)
    b: float | None = None
    if found is not None:
        a, b = found
    return a, _intercept(box, a, b), {"ip": iterations}


def _intercept(box: qp.BoxQP, a: Array, b: float | None) -> float:
    if not box.fit_intercept:
        return 0.0
    # Free SVs (0 < a_i < u) have y_i f_i = 1 (hinge) or 1 - a_i / C (squared).
    upper = box.upper
    eps = 0.0 if b is not None else 1e-7 * (upper if math.isfinite(upper) else 1.0)
    return intercept_from_gradient(box.y, a, box.gradient(a), upper, eps=eps)


# -- the inner solvers ----------------------------------------------------------------


class _Inner:
    """The convex subproblem solver: ``"qp"`` (above) or SMO's compiled loops,
    which update ``(a, G)`` in place and so take any linear term ``p``.

    ``solve(p, c, warm)`` returns ``(a, b, converged, info)`` for
    ``min 0.5 a'Q_d a + p'a, 0 <= a <= upper, [y'a = c]``, or None when the
    shared ``budget`` ran out before an answer.
    """

    def __init__(
        self,
        problem: Problem,
        inner: str,
        ramp: bool,
        tol: float,
        budget: Budget,
        inner_tol: float | None = None,
    ) -> None:
        C = problem.C
        self.problem, self.ramp, self.budget = problem, ramp, budget
        # SMO solves each subproblem to INNER_TOL (or tol if tighter): CCCP's
        # outer rule (beta unchanged) then stops at a fixed point to about
        # round-off, as with the exact qp. (Solving the steps between to tol
        # and only the last one tightly was measured no faster, issue 16.)
        if inner_tol is None:
            inner_tol = min(tol, INNER_TOL)
        self.tol = inner_tol if inner == "smo" else tol
        self.upper = C
        self.ridge = 0.0 if ramp else 1.0 / C
        self._Q: Array | None = None
        self.module, self.name, self.fallback = qp, "qp", None
        if inner == "smo":
            try:
                smo = importlib.import_module("svmlab.solvers.smo")
                self.box_smo = importlib.import_module(
                    "svmlab.solvers.shrinking"
                ).BoxSMO
                self.module, self.name = smo, "smo"
            except (ImportError, AttributeError) as error:
                self.fallback = f"smo is not available ({error}); used qp"

    @property
    def Q(self) -> Array:
        """``Y K Y``, formed on first use (only the qp inner solve needs it)."""
        if self._Q is None:
            y = self.problem.y
            self._Q = (y[:, None] * y[None, :]) * self.problem.K
        return self._Q

    def Q_times(self, v: Array) -> Array:
        """``Y K Y v`` without forming ``Y K Y``."""
        y = self.problem.y
        return y * (self.problem.K @ (y * v))

    def start(self, init: Array | None) -> DualSolution:
        """The (squared-)hinge solution by the registered solver, in what is
        left of the budget."""
        p = self.problem
        convex = Problem(
            p.K, p.y, Hinge() if self.ramp else SquaredHinge(), p.C, p.fit_intercept
        )
        return self.module.solve(
            convex, tol=self.tol, init=init, max_seconds=self.budget.remaining()
        )

    def solve(
        self, p: Array, c: float, warm: Array | None
    ) -> tuple[Array, float, bool, dict[str, Any]] | None:
        fit_intercept, upper = self.problem.fit_intercept, self.upper
        y = self.problem.y
        if self.name == "qp":
            Q_d = self.Q + self.ridge * np.eye(y.shape[0]) if self.ridge else self.Q
            box = qp.BoxQP(Q_d, y, upper, fit_intercept, p=p, c=c)
            found = _box_qp(box, warm, self.budget)
            if found is None:
                return None
            a, b, info = found
            return a, b, True, info
        # SMO keeps y'a fixed, so it must start from a feasible point.
        a = np.zeros(y.shape[0]) if warm is None else warm.copy()
        if fit_intercept:
            a = _feasible(a, y, c, upper)
        # LIBSVM's solver with shrinking (svmlab.solvers.shrinking) takes any p,
        # and starts from the previous step's solution: few points change.
        state = self.box_smo(
            y, p, upper, self.ridge, fit_intercept, K=self.problem.K, a=a
        )
        it, done, out_of_time = state.run(self.tol, SMO_UPDATES, self.budget)
        if out_of_time:
            return None
        state.unshrink()
        a, G = state.alpha(), state.gradient()
        b = intercept_from_gradient(y, a, G, upper, eps=0.0) if fit_intercept else 0.0
        return a, b, bool(done), {"inner_iterations": int(it)}


def _feasible(a: Array, y: Array, c: float, upper: float) -> Array:
    """``a`` moved inside the box so that ``y'a = c``, each coordinate in
    proportion to its room (SMO preserves ``y'a``, so it needs this start)."""
    a = np.clip(a, 0.0, upper)
    r = c - float(y @ a)
    if r == 0.0:
        return a
    # Raising y'a: a_i up where y_i > 0, down where y_i < 0 (and the reverse).
    up = np.where(y > 0, upper - a, a) if r > 0 else np.where(y > 0, a, upper - a)
    room = float(up.sum())
    if room < abs(r) * (1.0 - 1e-9):
        raise ProblemError("A CCCP subproblem has no feasible point.")
    return np.clip(a + np.sign(r) * y * up * min(1.0, abs(r) / room), 0.0, upper)


# -- CCCP -----------------------------------------------------------------------------


def _best_intercept(problem: Problem, g: Array) -> float:
    """The b minimising ``sum loss(y_i (g_i + b))`` over the loss's breakpoints
    (``m_i = 0`` or 1); exact for the piecewise-linear ramp."""
    y = problem.y
    candidates = np.concatenate([-g, y - g])
    values = problem.loss.value(y[None, :] * (g[None, :] + candidates[:, None]))
    return float(candidates[np.argmin(values.sum(axis=1))])


def _beta(problem: Problem, m: Array) -> Array:
    """The tangent's slopes at margins ``m``: ``C [m < 0]`` (module docstring)."""
    return np.where(m < 0.0, problem.C, 0.0)


@solve_function(max_iter=100)
def solve(
    problem: Problem,
    run: Run,
    *,
    start: str | None = None,
    inner: str = "auto",
    inner_tol: float | None = None,
    **options: Any,
) -> DualSolution:
    """Minimise the ramp (or squared ramp) objective by CCCP (module docstring).

    Parameters
    ----------
    problem
        The training problem; its loss must be ``ramp`` or ``squared_ramp``.
    tol
        ``converged`` means the KKT violation of the last convex subproblem at
        the returned point is at most ``tol`` (module docstring); also the
        inner SMO's stopping tolerance (the ``qp`` inner solve is exact).
    max_iter
        Cap on outer steps (convex subproblems after the start).
    init
        A previous ``alpha`` (effective coefficients, e.g. from a nearby C).
    record_history
        Record the start (iteration 0) and every outer step.
    start
        ``"hinge"``: the hinge solution (squared hinge for the squared ramp),
        from the registered ``inner`` solver (warm-started from ``init`` when
        given); ``"zero"``: ``alpha = 0, b = 0``, whose margins are all 0, so the
        first step is the hinge solution again (for the ramp);
        ``"init"``: ``init`` itself, with the best intercept over the loss's
        breakpoints. Default: ``"init"`` if a usable ``init`` is given, else
        ``"hinge"``. CCCP finds a local minimum near its start (docs/corrections.md).
    inner
        ``"smo"`` (the fastest from n = 200 on: LIBSVM's solver with shrinking,
        :mod:`svmlab.solvers.shrinking`, from the previous solution, to
        ``inner_tol``), ``"qp"`` (exact: interior point and active-set polish,
        warm-started by the active-set method alone) or ``"auto"`` (default:
        qp up to ``AUTO_QP_MAX_N`` = 100 points, smo above); if smo cannot be
        imported, qp is used and ``extras["inner_fallback"]`` says why.
    inner_tol
        The SMO inner solves' tolerance (and the hinge start's); default
        ``min(tol, INNER_TOL)`` = ``min(tol, 1e-10)``, so that a fixed point of
        the outer rule is one to about round-off, as with ``"qp"``.
    max_seconds
        Time budget (None: unlimited) shared by the start and the inner solves.

    Returns
    -------
    DualSolution
        ``alpha = a - beta``; ``extras``: ``start``, ``inner``,
        ``outer_iterations``, ``objectives`` (start first, one per outer step),
        ``flips`` (samples whose beta changed before each step), ``flipped``
        (samples whose beta would still change: 0 on convergence), ``ignored``
        (indices with ``m < 0``: effective alpha 0 at a fixed point),
        ``hinge_objective`` (with ``start="hinge"``), ``stalled`` (None, or the
        objective change of a rejected last step), ``inner_info`` (per step:
        interior-point iterations, 0 when the warm active-set method sufficed,
        or SMO updates) and, when the outer rule stopped it above tol,
        ``stop_note``.
    """
    if options:
        raise ParameterError(
            f"The cccp solver has no option {sorted(options)[0]!r}; its options are "
            "start, inner and inner_tol."
        )
    name = problem.loss.name
    if name not in SPEC.losses:
        raise IncompatibleLossError("cccp", f"the {name} loss", sorted(SPEC.losses))
    if inner not in INNERS:
        raise ParameterError(f"inner must be one of {INNERS}; got {inner!r}.")
    tol, init, budget = run.tol, run.init, run.budget
    if inner == "auto":
        inner = "qp" if problem.n <= AUTO_QP_MAX_N else "smo"
    y, K = problem.y, problem.K
    ramp = name == "ramp"
    warm_alpha = repair_init(init, problem)
    if start is None:
        start = "init" if warm_alpha is not None else "hinge"
    if start not in STARTS:
        raise ParameterError(f"start must be one of {STARTS}; got {start!r}.")
    if start == "init" and warm_alpha is None:
        raise ParameterError(
            "start='init' needs init: a previous alpha with one finite value per "
            "training point."
        )
    solver = _Inner(problem, inner, ramp, tol, budget, inner_tol)

    # setup: the start (alpha, b), its box variable a, and the beta it solved for.
    extras: dict[str, Any] = {"start": start, "inner": solver.name}
    if solver.fallback:
        extras["inner_fallback"] = solver.fallback
    beta_used: Array | None = None
    start_out_of_time = False
    if start == "hinge":
        first = solver.start(init)
        alpha, b = first.alpha, first.b
        start_out_of_time = first.stop_reason == "max_seconds"
        # The hinge problem is the subproblem with beta = 0; so is the squared
        # hinge when no alpha exceeds C (alpha_i = C (1 - m_i)_+ there: no m_i < 0).
        if ramp or float(alpha.max(initial=0.0)) <= problem.C:
            beta_used = np.zeros(problem.n)
    elif start == "zero":
        alpha, b = np.zeros(problem.n), 0.0
    else:
        alpha = warm_alpha
        g = K @ (alpha * y)
        b = _best_intercept(problem, g) if problem.fit_intercept else 0.0
    m = y * (K @ (alpha * y) + b)
    a = np.clip(alpha + _beta(problem, m), 0.0, solver.upper)
    objective = primal_objective(problem, alpha, b)
    if start == "hinge":
        extras["hinge_objective"] = objective

    run.record(0, problem, alpha, b, objective=objective)
    objectives, flips, inner_info = [objective], [], []
    stalled, it, ties = None, 0, 0
    reason, rule = "max_iter", None
    accuracy = "to about 1e-10"
    while True:
        # update: the tangent at the current margins.
        beta = _beta(problem, y * (K @ (alpha * y) + b))
        changed = int(
            np.count_nonzero(beta != beta_used if beta_used is not None else beta)
        )
        if beta_used is not None and changed == 0:
            reason = "converged"
            rule = (
                "CCCP stopped at a fixed point of its outer rule (no margin changed "
                f"sign); its inner {solver.name} solve is accurate {accuracy} only"
            )
            break
        if it >= run.max_iter:
            break
        if start_out_of_time or budget.check():
            reason = "max_seconds"
            break
        # inner solve: the convex box QP, warm-started from the last solution.
        found = solver.solve(
            -(1.0 + solver.Q_times(beta)), float(y @ beta), a if a.any() else None
        )
        if found is None:  # out of time: keep the last complete outer step
            reason = "max_seconds"
            break
        a_new, b_new, _, info = found
        alpha_new = a_new - beta
        new_objective = primal_objective(problem, alpha_new, b_new)
        # check_convergence: an exact inner solve never raises J; an inexact one
        # (SMO at tol) may, and then the current point is kept: it is a fixed
        # point up to the inner accuracy. A tie (no decrease) is accepted, since
        # its coefficients fit the new beta; two ties in a row end the loop.
        change, slack = new_objective - objective, 1e-12 * max(1.0, abs(objective))
        if change > slack or (change >= -slack and ties):
            stalled, reason = change, "rule"
            rule = (
                "CCCP stopped because its last step did not decrease the objective "
                f"(its inner {solver.name} solve is accurate {accuracy} only)"
            )
            break
        ties = ties + 1 if change >= -slack else 0
        it += 1
        a, alpha, b, objective, beta_used = a_new, alpha_new, b_new, new_objective, beta
        objectives.append(objective)
        flips.append(changed)
        inner_info.append(info)
        run.record(it, problem, alpha, b, objective=objective)

    m = y * (K @ (alpha * y) + b)
    extras.update(
        outer_iterations=it,
        objectives=objectives,
        flips=flips,
        flipped=changed,
        ignored=np.flatnonzero(m < 0.0),
        stalled=stalled,
        inner_info=inner_info,
    )
    return run.finish(
        problem, alpha, b, n_iter=it, stop_reason=reason, rule=rule, extras=extras
    )


SPEC = SolverSpec(
    name="cccp",
    title="CCCP (ramp loss as a sequence of hinge QPs)",
    solve=solve,
    losses=frozenset({"ramp", "squared_ramp"}),
    source="Sugiyama §27.6.3; Collobert, Sinz, Weston, Bottou (2006)",
)
