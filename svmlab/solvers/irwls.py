"""IRWLS for Lee's modified hinge: iteratively reweighted least squares.

.. math::

    \\min_{a,\\,[b]}\\ L(a, b) = \\tfrac12 a^\\top H a + C \\sum_i h_\\delta(r_i),
    \\qquad r = H a + b\\,y,\\quad H = Y K Y

(Lee 2006 eq. 7: ``f = K Y a + b``, ``r_i = y_i f(x_i)``; Lee's model has no
``b``). ``h_delta`` is :class:`svmlab.losses.ModifiedHinge`, by default in its C^1
form (docs/corrections.md "Lee (2006)" item 1); it is smooth and convex, so a point is
optimal iff it is stationary.

**Stationarity.** ``grad_a L = H (a + C h'(r))`` and ``dL/db = C y' h'(r)``. The
canonical minimiser (the one with ``a`` in the span the solver works in, and the
one :func:`~svmlab.solvers.base.kkt_violation` scores) is

    a_i = -C h'(r_i)       [and  sum_i a_i y_i = 0  with the bias].

**The step.** At the current ``r`` put ``rho_i = max(1 - r_i, delta)``,
``w_i = -h'(r_i) / rho_i`` and ``t_i = r_i + rho_i`` (docs/corrections.md item 3: Lee
divides by ``1 - r_i``, which is 0 on the margin and negative beyond it; the guard keeps
``w`` in ``[0, 1/delta]``). Then ``-h'(r_i) = w_i (t_i - r_i)``, so the quadratic
``q_i(s) = h(r_i) + h'(r_i)(s - r_i) + (w_i/2)(s - r_i)^2 = const + (w_i/2)(t_i -
s)^2`` touches ``h`` to first order at ``r_i``. Minimising the model
``0.5 a'Ha + C sum q_i(r_i(a))`` is a weighted ridge problem; setting its gradient
``H (a - C W (t - r(a)))`` to zero gives, without bias,

    (W H + I/C) a = W t        (Lee's step (b), sign of I/C corrected),

and with the unregularized bias (the ``b``-derivative gives ``y'a = 0``) the
bordered system

    [W H + I/C   W y] [a]   [W t]
    [   y'        0 ] [b] = [ 0 ].

Neither is symmetric and ``H`` is numerically singular for the Gaussian kernel, so
``H`` is never inverted: with ``S = W^{1/2}`` and ``a = S z`` they become

    M z = C S t,  M = I + C S H S  (SPD, eigenvalues >= 1),
    M z + C b S y = C S t,  (S y)'z = 0,

solved by one Cholesky factorisation of ``M``; with the bias, ``b`` comes from the
Schur complement: ``p = M^{-1} S t``, ``q = M^{-1} S y``, ``b = (Sy)'p / (Sy)'q``,
``z = C (p - b q)``. Rows with ``w_i = 0`` (the exponential tail underflows) give
``a_i = 0``, as the fixed point requires.

**Fixed point = minimiser.** At a fixed point ``a = C W (t - r) = -C h'(r)`` (and
``y'a = 0``): exactly the stationarity condition above, so the guard does not move
the fixed point. On the tail ``r_i >= 1 - delta`` the guard gives ``rho_i = delta``
and ``w_i = h''(r_i)`` for the C^1 form: there the step is Newton's. On the linear
part (``h'' = 0``) ``w_i = 1/(1 - r_i)`` adds curvature, and the iteration is a
quasi-Newton method.

**Monotone by backtracking.** The model ``Q`` is convex and has the same value
and gradient as ``L`` at the current point, so the full step ``d`` (in ``(a, b)``
with the bias) satisfies ``grad L' d <= Q(a + d) - Q(a) <= 0``: a descent
direction. Nothing guarantees that the full step decreases ``L`` itself (weights
up to ``1/delta`` can overshoot), so if ``L`` increases the step is halved
(``a + d/2, a + d/4, ...``, at most ``max_halvings`` times, default 30) and
``extras["backtracks"]`` counts the halvings. If no halving decreases ``L`` the
run stops with ``extras["stalled"] = True``: round-off level for the C^1 form; for
the printed form (a kink at ``1 - delta``) it happens far from the optimum.
``backtrack=False`` gives Lee's plain iteration, which oscillates with the
printed form at large C (``tests/test_irwls.py``).

**Convergence rate.** Differentiating the fixed-point equation gives the
Jacobian of the IRWLS map at the solution,
``J = (I/C + W H)^{-1} (W - D) H``, ``D = diag(h''(r))``. With the C^1 form
``W = D`` on the tail, so with no point on the linear part the iteration is
Newton's method (locally quadratic); each point on the linear part (a bounded
support vector, ``a_i = C``) contributes ``w_i = 1/(1 - r_i)`` and the residual
then shrinks by about ``rho(J)`` per iteration, near 1 when ``C w_i H_ii`` is large
(e.g. a margin just below ``1 - delta`` with small delta). Measured (n = 50
random problems, three kernels, C 0.1-1000, delta 1e-4-0.5): 1-120 iterations
at Lee's rule with tol 1e-3 (Lee's two circles: 26-80); a stationarity residual
of 1e-9 takes from 10 to about 4500.

**Order of calls.** setup (``H``; start at ``a = 0, b = 0``, where all
``r_i = 0``, ``w_i = 1``, ``t_i = 1``, so the first step is the ridge / LS-SVM
fit ``(H + I/C) a = 1``; or at the repaired ``init`` with ``b`` minimising the
loss term for it) -> loop (weights, solve, backtrack, record, check, budget) ->
finalize.

**Stopping.** ``stop="change"`` (default; Lee, section 4): the mean squared change
``mean((a_new - a)^2)`` over one full IRWLS step is below ``tol`` (Lee used 1e-3,
the SVC default), tested only on a step taken in full that did not raise the
objective (a step that backtracking had to halve is not a step of Lee's map).
The rule says that the map has settled, not that the point is optimal: on two
circles, training seed 1000, Lee's cell (C, sigma_L^2) = (5000, 0.2), it stops
after 31 iterations (71 halvings on the way) at the objective 3469.2 against the
optimum 3159.3, where the full step moves alpha by a mean square of 6.8e-4. It
is absolute, in the units of ``a`` (``0 <= a_i <= C``), so
the same tol is loose at small C and with kernels of large norm: at tol 1e-3
the residual left on those random problems has median 0.13 (at C = 0.1 the first
ridge step can already pass), and at C = 0.1 with a cubic kernel it stops with a
residual above 1e-3 even at tol 1e-10. ``stop="kkt"``: the stationarity residual
``max_i |a_i + C h'(m_i)| / C`` (and ``|y'a| / C`` with the bias,
:func:`~svmlab.solvers.base.kkt_violation`) is below ``tol``; this is the rule
for comparisons (docs/corrections.md, Lee (2006) item 4). Either way the
residual is reported as ``kkt`` and recorded in the history. Round-off keeps it
above about 1e-10, and far above at a large C with a small delta (the tail's
slope 1/delta magnifies the margins' rounding: at C = 500, delta = 1e-4 it
stalls between 7e-10 and 4e-7): with ``stop="kkt"`` a residual whose best value
has not improved by 10 % in :data:`STALL_WINDOW` iterations while the objective
stayed put to 1e-13 stops the run with ``stop_reason="rule"`` and a note that
says so, instead of running to ``max_iter``.

**What is reported** (issue 14, item 7). ``converged`` is ``kkt <= tol``
whichever rule stopped the loop. When Lee's rule stops it with the residual
above ``tol``, or a stall does, the result has ``converged=False``,
``stop_reason="rule"`` and ``extras["stop_note"]``, e.g. "IRWLS stopped by Lee's
rule (mean squared change of alpha below 1e-03); the KKT residual is 1.4e-01,
above tol." The iterates and the iteration count are those of the rule: Lee's
experiments (and :mod:`svmlab.experiments.selection`) get the same numbers as before.
``max_seconds`` is checked after every accepted step (one Cholesky
factorisation, O(n^3) on the support set): out of time, the current iterate is
returned (``stop_reason="max_seconds"``); with the bias it satisfies
``sum a_i y_i = 0`` (the bordered system), as every iterate does.

References
----------
Lee, S.-B. (2006), SVC with modified hinge loss function, section 3.
Perez-Cruz, Navia-Vazquez, Alarcon-Diana, Artes-Rodriguez (2000), An IRWLS
procedure for SVR. docs/corrections.md "Lee (2006)" items 1-4 (corrections).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.optimize

from svmlab.array_types import Array
from svmlab.errors import IncompatibleLossError, ProblemError, UnknownNameError
from svmlab.solvers import cholesky
from svmlab.solvers.base import (
    DualSolution,
    Problem,
    SolverSpec,
    kkt_violation,
    repair_init,
)
from svmlab.solvers.run import Run, solve_function

__all__ = ["OPTIONS", "SPEC", "STOP_RULES", "irwls_weights", "solve"]


#: The keyword options :func:`solve` accepts beyond the common signature.
OPTIONS = ("backtrack", "max_halvings", "stop")

#: Stopping rules: the quantity compared with ``tol``.
STOP_RULES = {
    "change": "mean squared change of alpha over one IRWLS step < tol (Lee 2006)",
    "kkt": "stationarity residual max |a_i + C h'(m_i)| / C < tol",
}


def irwls_weights(loss: Any, r: Array) -> tuple[Array, Array]:
    """The guarded weights and targets at margins ``r`` (docs/corrections.md item 3).

    ``rho = max(1 - r, delta)``, ``w = -h'(r) / rho`` in ``[0, 1/delta]``,
    ``t = r + rho``; shapes (n,).
    """
    rho = np.maximum(1.0 - r, loss.delta)
    w = -loss.derivative(r) / rho
    return w, r + rho


def _factor(M: Array) -> Array:
    """Cholesky factor of ``M`` (:mod:`svmlab.solvers.cholesky`: the server's
    other sessions keep the interpreter meanwhile); a plain ProblemError if it
    is not SPD."""
    try:
        return cholesky.factor(M)
    except np.linalg.LinAlgError as error:
        raise ProblemError(
            "The IRWLS system is not positive definite (the Gram matrix is not "
            "positive semidefinite, or C is too large for double precision). "
            "Lower C or check the kernel."
        ) from error


def _step(
    H: Array, w: Array, t: Array, C: float, y: Array, fit_intercept: bool, b: float
) -> tuple[Array, float]:
    """Solve the (bordered) weighted ridge system of the module docstring.

    Only the points with ``w_i > 0`` enter the factorisation: a row with
    ``w_i = 0`` reads ``z_i = 0``, so ``a_i = 0`` (with delta = 1e-4 the tail
    weight underflows for margins above about 1.07, so this is the usual case
    for well-classified points and shrinks the system to the support set).
    """
    a = np.zeros_like(w)
    idx = np.flatnonzero(w > 0.0)
    if idx.size == 0:
        return a, b
    s = np.sqrt(w[idx])
    M = (C * s)[:, None] * H[np.ix_(idx, idx)] * s[None, :]
    M[np.diag_indices_from(M)] += 1.0
    factor = _factor(M)
    p = cholesky.solve(factor, s * t[idx])
    if fit_intercept:
        v = s * y[idx]
        q = cholesky.solve(factor, v)
        denom = float(v @ q)
        if denom > 0.0:
            b = float(v @ p) / denom
        z = C * (p - b * q)
    else:
        z = C * p
    a[idx] = s * z
    if not np.all(np.isfinite(a)) or not math.isfinite(b):
        raise ProblemError(
            "The IRWLS step produced non-finite coefficients; lower C or raise delta."
        )
    return a, b


def _best_intercept(loss: Any, r0: Array, y: Array) -> float:
    """``argmin_b sum_i h(r0_i + b y_i)``: the intercept that suits a warm start.

    The derivative ``sum_i y_i h'(r0_i + b y_i)`` increases in b from
    ``-n_+`` to ``n_-``, so it has a root; it is bracketed by doubling and found
    by Brent's method (O(n) per evaluation).
    """

    def slope(b: float) -> float:
        return float(y @ loss.derivative(r0 + b * y))

    lo, hi = -1.0, 1.0
    for _ in range(60):
        if slope(lo) <= 0.0:
            break
        lo *= 2.0
    for _ in range(60):
        if slope(hi) >= 0.0:
            break
        hi *= 2.0
    if slope(lo) > 0.0 or slope(hi) < 0.0:
        return 0.0
    return float(scipy.optimize.brentq(slope, lo, hi, xtol=1e-12))


def _objective(loss: Any, C: float, a: Array, b: float, r: Array, y: Array) -> float:
    """``L = 0.5 a'Ha + C sum h(r)``, using ``Ha = r - b y`` (no extra product)."""
    return 0.5 * float(a @ (r - b * y)) + C * float(loss.value(r).sum())


#: With ``stop="kkt"``: iterations without a 10 % gain in the best KKT residual
#: (the objective unchanged to 1e-13 meanwhile) after which the run stops, stalled.
STALL_WINDOW = 100


def _stall_watch(
    best: float, trail: tuple[int, float, float], residual: float, L: float, it: int
) -> tuple[float, tuple[int, float, float] | None]:
    """Track the best KKT residual; ``trail`` (iteration, best, objective at
    the last 10 % gain) becomes None when the residual has stalled: no 10 %
    gain in :data:`STALL_WINDOW` iterations while the objective did not move
    by more than 1e-13 of itself (rounding, not slow progress)."""
    best = min(best, residual)
    since, best_then, L_then = trail
    if best <= 0.9 * best_then:
        return best, (it, best, L)
    if it - since >= STALL_WINDOW:
        if abs(L - L_then) <= 1e-13 * max(abs(L), 1.0):
            return best, None
        return best, (it, best, L)
    return best, trail


@solve_function(max_iter=500)
def solve(problem: Problem, run: Run, **options: Any) -> DualSolution:
    """Minimise the modified-hinge primal by guarded IRWLS (module docstring).

    Parameters
    ----------
    problem
        The problem; ``problem.loss`` must be a :class:`~svmlab.losses.ModifiedHinge`
        (either form). ``problem.fit_intercept`` selects the bordered system.
    tol
        Threshold of the stopping rule ``stop`` (Lee 2006: 1e-3).
    max_iter
        Iteration cap; reaching it returns ``converged=False``.
    init
        A previous ``alpha`` (warm start), clipped to ``[0, C]`` and repaired to
        ``sum a_i y_i = 0`` with the bias; the intercept then starts at the
        minimiser of the loss term over b for that ``a`` (one-dimensional).
    record_history
        Record objective, stationarity residual, time, ``a`` and ``b`` per
        iteration (iteration 0 is the start).
    max_seconds
        Time budget (None: unlimited), checked after every step.
    backtrack
        Halve a step that increases the objective (default True).
    max_halvings
        Halvings tried before the run is declared stalled (default 30).
    stop
        ``"change"`` (default, Lee): mean squared change of ``a`` over one full
        step below ``tol``; ``"kkt"``: stationarity residual below ``tol``.

    Returns
    -------
    DualSolution
        ``extras``: ``weights`` (w at the returned point, shape (n,)),
        ``backtracks`` (halvings in all), ``damped_steps`` (iterations that
        halved), ``stalled`` (no decrease found along a step), ``change`` (the
        last mean squared change), ``stop_rule`` and, when a rule stopped it
        above tol, ``stop_note``.
    """
    unknown = set(options) - set(OPTIONS)
    if unknown:
        raise UnknownNameError("IRWLS option", sorted(unknown)[0], OPTIONS)
    backtrack = bool(options.get("backtrack", True))
    max_halvings = int(options.get("max_halvings", 30))
    stop = options.get("stop", "change")
    if stop not in STOP_RULES:
        raise UnknownNameError("IRWLS stopping rule", stop, STOP_RULES)
    tol = run.tol
    loss = problem.loss
    if loss.name != "modified_hinge":
        raise IncompatibleLossError("irwls", f"the {loss.name} loss", ["irwls"])
    C = float(problem.C)
    if not math.isfinite(C):
        raise ProblemError("IRWLS needs a finite C (the hard margin is hinge-only).")
    y, fit_intercept = problem.y, problem.fit_intercept
    H = (y[:, None] * y[None, :]) * problem.K

    a = repair_init(run.init, problem, upper=C)  # the optimum has 0 < a_i <= C
    if a is None:
        a, b, r = np.zeros(problem.n), 0.0, np.zeros(problem.n)
    else:
        r = H @ a
        b = _best_intercept(loss, r, y) if fit_intercept else 0.0
        r = r + b * y
    L = _objective(loss, C, a, b, r, y)
    run.record(0, problem, a, b, objective=L)

    backtracks = damped = 0
    stalled = False
    best, trail = math.inf, (0, math.inf, math.inf)
    reason, rule = "max_iter", None
    change = math.inf
    it = 0
    for it in range(1, run.max_iter + 1):
        w, t = irwls_weights(loss, r)
        a_full, b_full = _step(H, w, t, C, y, fit_intercept, b)
        d, db = a_full - a, b_full - b
        change = float(np.mean(d * d))
        dr = H @ d + db * y
        step, L_new = 1.0, _objective(loss, C, a_full, b_full, r + dr, y)
        slack = 1e-12 * max(abs(L), 1.0)
        halvings = 0
        while backtrack and L_new > L + slack and halvings < max_halvings:
            step *= 0.5
            halvings += 1
            L_new = _objective(loss, C, a + step * d, b + step * db, r + step * dr, y)
        if backtrack and L_new > L + slack:
            # No decrease along a descent direction: round-off level for the C^1
            # form; a kink (the printed form's joint) otherwise. Keep a, stop.
            stalled = True
            backtracks += halvings
            reason = "rule"
            rule = (
                "IRWLS stalled: no step along the IRWLS direction decreased the "
                "objective"
            )
            break
        backtracks += halvings
        damped += halvings > 0
        L_before = L
        a, b, r, L = a + step * d, b + step * db, r + step * dr, L_new
        run.record(it, problem, a, b, objective=L)
        # Lee's rule is tested only on a step taken in full that did not raise
        # the objective: a step halved by backtracking (or an increase, without
        # it) says nothing about whether the IRWLS map has settled.
        full_step = halvings == 0 and L_new <= L_before + slack
        if stop == "kkt":
            residual = kkt_violation(problem, a, b)
            if residual < tol:
                reason = "converged"
                break
            best, trail = _stall_watch(best, trail, residual, L, it)
            if trail is None:
                reason = "rule"
                rule = (
                    f"IRWLS stopped where its KKT residual stalled (best "
                    f"{best:.1e} over the last {STALL_WINDOW} iterations, "
                    "the objective unchanged to rounding): float64 margins carry "
                    "rounding errors that the loss's tail, of slope 1/δ, turns "
                    "into residuals of this size, so a smaller tol cannot be met "
                    "here; a larger tol or δ, or a smaller C, can"
                )
                break
        elif full_step and change < tol:
            reason = "converged"
            rule = (
                "IRWLS stopped by Lee's rule (mean squared change of alpha "
                f"below {tol:g})"
            )
            break
        if run.budget.check():
            reason = "max_seconds"
            break

    w, _ = irwls_weights(loss, H @ a + b * y)
    return run.finish(
        problem,
        a,
        b,
        n_iter=it,
        stop_reason=reason,
        rule=rule,
        extras={
            "weights": w,
            "backtracks": backtracks,
            "damped_steps": damped,
            "stalled": stalled,
            "change": change,
            "stop_rule": STOP_RULES[stop],
        },
    )


SPEC = SolverSpec(
    name="irwls",
    title="IRWLS (Lee 2006, modified hinge)",
    solve=solve,
    losses=frozenset({"modified_hinge"}),
    source="Lee (2006) §3, eqs. (7)-(9), corrected (Notes on the sources)",
)
