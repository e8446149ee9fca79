"""The exact reference solver: the box-QP dual by an interior-point method.

.. math::

    \\min_a\\ \\tfrac12 a^\\top Y K_d Y a - \\mathbf 1^\\top a
    \\quad\\text{s.t.}\\quad 0 \\le a_i \\le u,\\quad [\\,y^\\top a = 0\\,]

Hinge: ``K_d = K``, ``u = C`` (Sugiyama eq. 27.3; ``u = inf`` is the hard margin).
Squared hinge: ``K_d = K + I/C``, ``u = inf`` (docs/corrections.md "Squared hinge
dual"). The equality holds with an unregularized bias only.

Back ends, chosen by ``benchmarks/qp_backends.py`` (same dual, tol ~1e-10, LIBSVM at
tol 1e-10 as the reference): CVXOPT (dense Hessian, sparse box) takes 4 ms / 0.16 s /
1.4 s at n = 200 / 1000 / 2000, Clarabel 37 ms / 0.97 s / 4.6 s, OSQP 30 ms / 3.3 s /
43 s; all three reach relative objective errors of 1e-11 to 1e-14. CVXOPT is used
for every soft-margin problem; Clarabel for the hard margin (C = inf), because it
reports an unbounded dual -- no separating hyperplane -- as a status.

Interior-point iterates never reach a bound exactly, so the answer is *polished*:
the free set is read off with a relative threshold (1e-7 u), the bound variables
are fixed, and the free ones (with b) are solved for exactly from the KKT linear
system. The polished point is kept only if it is feasible and its KKT violation is
no worse; either way ``extras["polished"]`` says which.

References
----------
Andersen, Dahl, Vandenberghe, CVXOPT (cvxopt.org). Goulart, Chen (2024), Clarabel:
an interior-point solver for conic programs with quadratic objectives. Sugiyama
(2015) §27.2. Zhu, "Support Vector Machine" lecture notes.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import clarabel
import numpy as np
import scipy.linalg
import scipy.sparse as sp
from numpy.typing import NDArray

from svmlab.array_types import Array
from svmlab.errors import ProblemError, short_reason
from svmlab.kernels.psd import psd_note
from svmlab.solvers.base import (
    Budget,
    DualSolution,
    Problem,
    SolverSpec,
    box_dual,
    intercept_from_gradient,
    kkt_violation,
)
from svmlab.solvers.run import Run, solve_function

__all__ = ["SPEC", "BoxQP", "solve"]


def _finite(upper: float | Array) -> bool:
    """Whether the box has an upper bound (one number, or one per point with
    class weights: ``C_i = C w_i``)."""
    return bool(np.all(np.isfinite(upper)))


def _top(upper: float | Array) -> float:
    """The largest bound: the scale of the box."""
    return float(np.max(upper))


@dataclass(frozen=True)
class BoxQP:
    """``min 0.5 a'Qa + p'a``, ``0 <= a <= upper``, and with ``fit_intercept``
    ``y'a = c``: the SVM dual is ``p = -1`` (``None``), ``c = 0``; CCCP's
    subproblems shift both. ``upper`` is one bound or one per point (class
    weights), ``inf`` for none."""

    Q: Array
    y: Array
    upper: float | Array
    fit_intercept: bool
    p: Array | None = None
    c: float = 0.0

    @property
    def linear(self) -> Array:
        """``p`` as a vector."""
        return -np.ones(self.y.shape[0]) if self.p is None else self.p

    def gradient(self, a: Array) -> Array:
        """``Q a + p``."""
        return self.Q @ a + (-1.0 if self.p is None else self.p)


def _clarabel(box: BoxQP) -> tuple[Array, str, int]:
    y, upper = box.y, box.upper
    n = y.shape[0]
    P = sp.csc_matrix(np.triu(box.Q))
    blocks, rhs, cones = [], [], []
    if box.fit_intercept:
        blocks.append(sp.csc_matrix(y[None, :]))
        rhs.append(np.full(1, float(box.c)))
        cones.append(clarabel.ZeroConeT(1))
    blocks.append(-sp.eye(n, format="csc"))
    rhs.append(np.zeros(n))
    n_ineq = n
    if _finite(upper):
        blocks.append(sp.eye(n, format="csc"))
        rhs.append(np.broadcast_to(np.asarray(upper, dtype=np.float64), (n,)))
        n_ineq += n
    cones.append(clarabel.NonnegativeConeT(n_ineq))
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = 1e-10
    settings.tol_feas = 1e-10
    settings.max_iter = 200
    A = sp.vstack(blocks).tocsc()
    solver = clarabel.DefaultSolver(
        P, box.linear, A, np.concatenate(rhs), cones, settings
    )
    result = solver.solve()
    return np.asarray(result.x, dtype=np.float64), str(result.status), result.iterations


def interior_point(P: Array, q: Array, G: Any, h: Any, A: Any, b: Any, *, tol: float):
    """CVXOPT's ``min 0.5 x'Px + q'x`` s.t. ``Gx <= h``, ``Ax = b`` (``G``, ``A``,
    ``b`` as CVXOPT takes them), quiet, to ``tol`` (absolute and relative gap),
    feasible to 1e-10, in at most 200 iterations; its result dictionary. Raises
    what CVXOPT raises (ValueError, ArithmeticError) for the caller to phrase."""
    import cvxopt

    options = {
        "show_progress": False,
        "abstol": tol,
        "reltol": tol,
        "feastol": 1e-10,
        "maxiters": 200,
    }
    return cvxopt.solvers.qp(
        cvxopt.matrix(P),
        cvxopt.matrix(q),
        G,
        cvxopt.matrix(h),
        A,
        b,
        options=options,
    )


def _cvxopt(box: BoxQP) -> tuple[Array, str, int]:
    """CVXOPT's dense-Hessian interior point with the box as a sparse G."""
    import cvxopt

    y, upper, fit_intercept = box.y, box.upper, box.fit_intercept
    n = y.shape[0]
    rows = list(range(n))
    values, cols = [-1.0] * n, list(range(n))
    h = [0.0] * n
    if _finite(upper):
        values += [1.0] * n
        rows += list(range(n, 2 * n))
        cols += list(range(n))
        h += [float(u) for u in np.broadcast_to(upper, (n,))]
    G = cvxopt.spmatrix(values, rows, cols, (len(h), n))
    A = cvxopt.matrix(y[None, :]) if fit_intercept else None
    b = cvxopt.matrix(float(box.c)) if fit_intercept else None
    try:
        result = interior_point(box.Q, box.linear, G, h, A, b, tol=1e-11)
    except (ValueError, ArithmeticError) as error:
        raise _breakdown(upper, error) from error
    status = "Solved" if result["status"] == "optimal" else str(result["status"])
    x = np.asarray(result["x"], dtype=np.float64).ravel()
    return x, status, int(result["iterations"])


def _breakdown(upper: float, error: BaseException | None) -> ProblemError:
    """The interior point's failure as one plain sentence (issue 14, item 9).

    CVXOPT's own text ("division by zero", "domain error", "Rank(A) < p ...")
    means nothing to a student; at most a short form of it is kept as a suffix.
    """
    reason = short_reason(error, limit=40) if error is not None else ""
    suffix = f" (CVXOPT: {reason})" if reason else ""
    scale = f"C = {_top(upper):g} is" if _finite(upper) else "the values are"
    return ProblemError(
        "The exact QP solver broke down on this problem: it happens when "
        f"{scale} extreme or the kernel matrix is degenerate (all points alike, "
        f"say). Use a C nearer 1, or the smo solver{suffix}."
    )


def _not_convex(K: Array) -> ProblemError | None:
    """The sentence for a breakdown on a Gram matrix that is not positive
    semidefinite (the sigmoid kernel's, say), else None: an interior-point
    method needs a convex problem, and the sentence must not blame C."""
    lam, note = psd_note(K)
    if note is None:
        return None
    return ProblemError(
        "The exact QP solver needs a convex problem, and this kernel's Gram "
        f"matrix is not positive semidefinite (its smallest eigenvalue is "
        f"{lam:.3g}): use the smo solver, which climbs the non-convex dual to a "
        "point where the KKT conditions hold."
    )


def _linear_solve(M: Array, rhs: Array, kind: str) -> Array:
    """``M^{-1} rhs``; the minimum-norm least-squares answer when M is singular.

    Singular free blocks are normal, not rare: a linear kernel in 2-D has rank 2,
    so more than three free SVs make the KKT equations underdetermined (alpha is
    then not unique, although f is).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("error", scipy.linalg.LinAlgWarning)
        try:
            return scipy.linalg.solve(M, rhs, assume_a=kind)
        except (np.linalg.LinAlgError, scipy.linalg.LinAlgWarning):
            pass
    return scipy.linalg.lstsq(M, rhs, lapack_driver="gelsd")[0]


def _solve_free(
    box: BoxQP, lower: NDArray[np.bool_], at_up: NDArray[np.bool_]
) -> tuple[Array, float | None]:
    """Fix the bound sets and solve the free set's KKT equations exactly.

    Returns ``b = None`` when an intercept model has no free variable (then the
    equations do not determine b).
    """
    Q, y, upper, p = box.Q, box.y, box.upper, box.p
    free = ~lower & ~at_up
    a = np.where(at_up, upper, 0.0)
    F, U = np.flatnonzero(free), np.flatnonzero(at_up)
    rhs = (1.0 if p is None else -p[F]) - Q[np.ix_(F, U)] @ a[U]
    if box.fit_intercept:
        if F.size == 0:
            return a, None
        k = F.size
        M = np.zeros((k + 1, k + 1))
        M[:k, :k] = Q[np.ix_(F, F)]
        M[:k, k] = M[k, :k] = y[F]
        sol = _linear_solve(M, np.append(rhs, box.c - y[U] @ a[U]), "sym")
        a[F] = sol[:k]
        return a, float(sol[k])
    if F.size:
        a[F] = _linear_solve(Q[np.ix_(F, F)], rhs, "pos")
    return a, 0.0


def _polish(
    box: BoxQP, a: Array, *, max_rounds: int = 50, budget: Budget | None = None
) -> tuple[Array, float] | None:
    """A primal active-set method started from the interior-point guess.

    The bound sets are read off with a relative threshold (1e-7 u) and the free
    variables solved for exactly. A step that would leave the box is shortened
    to the first bound it meets, which joins its bound set; a bound variable
    whose multiplier has the wrong sign is freed. From the interior-point guess
    this ends in a few rounds; None if it does not (the caller then keeps the
    interior-point answer). Any guess ``a`` in the box will do (CCCP passes the previous
    outer step's solution as a warm start). With a ``budget`` it is checked
    before every round (each one solve of the free set's equations) and the
    method gives up (None) when the time is out.
    """
    upper = box.upper
    scale = _top(upper) if _finite(upper) else max(1.0, float(a.max(initial=0.0)))
    for lower, at_up in _initial_sets(box, a, scale):
        found = _active_set(box, a, lower, at_up, rounds=max_rounds, budget=budget)
        if found is not None:
            return found
    return None


def _initial_sets(box: BoxQP, a: Array, scale: float):
    """Guesses of the bound sets, most likely first.

    First from alpha alone (threshold 1e-7 u). Then also from the margins: a
    point clearly beyond its margin is at 0 even if the interior point left it a
    small positive alpha, and one clearly inside it is at u (this settles
    degenerate cases, e.g. a linear kernel with more than d + 1 candidates).
    """
    upper = box.upper
    finite = _finite(upper)
    none = np.zeros(a.shape, bool)
    for rel in (1e-7, 1e-5):
        tiny = rel * scale
        lower = a <= tiny
        yield lower, (a >= upper - tiny) & ~lower if finite else none.copy()
    tiny = 1e-7 * scale
    G, y = box.gradient(a), box.y
    b0 = intercept_from_gradient(y, a, G, upper, eps=tiny) if box.fit_intercept else 0.0
    g = G + b0 * y
    lower = (a <= tiny) | (g > 1e-6)
    yield lower, ((a >= upper - tiny) | (g < -1e-6)) & ~lower if finite else none


def _active_set(
    box: BoxQP,
    a: Array,
    lower: NDArray[np.bool_],
    at_up: NDArray[np.bool_],
    *,
    rounds: int = 50,
    budget: Budget | None = None,
) -> tuple[Array, float] | None:
    """The primal active-set iteration from one guess of the bound sets."""
    y, upper, fit_intercept = box.y, box.upper, box.fit_intercept
    x = np.where(lower, 0.0, np.where(at_up, upper, a))
    scale = _top(upper) if _finite(upper) else max(1.0, float(np.abs(a).max()))
    bound = np.broadcast_to(upper, x.shape)
    for _ in range(rounds):
        if budget is not None and budget.check():
            return None
        try:
            out, b = _solve_free(box, lower, at_up)
        except (np.linalg.LinAlgError, ValueError):
            return None
        if not np.all(np.isfinite(out)):
            return None
        free = ~lower & ~at_up
        d = np.where(free, out - x, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            t_low = np.where(free & (d < 0), x / -d, np.inf)
            t_up = np.where(free & (d > 0), (upper - x) / d, np.inf)
        t = min(1.0, float(t_low.min(initial=np.inf)), float(t_up.min(initial=np.inf)))
        if t < 1.0:
            x = x + t * d
            hit_low = free & (t_low <= t)
            hit_up = free & (t_up <= t)
            lower |= hit_low
            at_up |= hit_up
            x[hit_low], x[hit_up] = 0.0, bound[hit_up]
            continue
        x = out
        # All variables at bounds: the sets alone must satisfy the equality.
        if fit_intercept and abs(float(y @ x) - box.c) > 1e-9 * scale * y.shape[0]:
            return None
        G = box.gradient(x)
        if b is None:
            b = intercept_from_gradient(y, x, G, upper, eps=0.0)
        # Reduced gradient of each bound variable must push into its bound.
        g = G + (b * y if fit_intercept else 0.0)
        wrong_low = lower & (g < -1e-9)
        wrong_up = at_up & (g > 1e-9)
        if not (wrong_low.any() or wrong_up.any()):
            # A singular free block solved in the least-squares sense may leave
            # the free equations unmet: then the sets were wrong; give up.
            if np.abs(g[~lower & ~at_up]).max(initial=0.0) > 1e-8:
                return None
            return x, b
        worst = np.argmax(np.where(wrong_low, -g, 0.0) + np.where(wrong_up, g, 0.0))
        lower[worst] = at_up[worst] = False
    return None


@solve_function(max_iter=200)
def solve(problem: Problem, run: Run, **options: Any) -> DualSolution:
    """Solve the hinge or squared-hinge dual exactly (see the module docstring).

    ``max_iter`` and ``init`` are accepted for the common signature: the
    interior-point method runs to 1e-10 regardless and cannot use a warm start
    (interior-point methods start from the central path). ``converged`` is
    ``kkt <= tol`` (with the default tol, always after a clean solve).

    ``max_seconds``: the interior-point call cannot be interrupted (CVXOPT and
    Clarabel run in C until they finish), so the budget and the ``cancel_when``
    predicate are checked before it, after it, and before every round of the
    active-set polish. Out of time after the interior point, the polish is
    skipped and its answer, clipped to the box, is returned
    (``stop_reason="max_seconds"`` unless it meets ``tol``); out of time before
    it (an outer solver's budget spent), ``alpha = 0``, a feasible point.
    """
    budget = run.budget
    K_dual, upper = box_dual(problem)
    if not _finite(upper):
        upper = math.inf  # the hard margin (with class weights too: C_i = inf)
    y = problem.y
    box = BoxQP((y[:, None] * y[None, :]) * K_dual, y, upper, problem.fit_intercept)
    # CVXOPT is 3-10x faster on these dense problems (benchmarks/qp_backends.py);
    # Clarabel reports an unbounded dual (no separating hyperplane) as a status,
    # which the hard margin needs.
    backend = (
        _clarabel if not _finite(upper) and problem.loss.name == "hinge" else _cvxopt
    )
    if budget.check():
        return run.finish(
            problem,
            np.zeros(problem.n),
            0.0,
            n_iter=0,
            stop_reason="max_seconds",
            extras={"status": "not run", "polished": False, "backend": "none"},
        )
    try:
        a, status, iterations = backend(box)
    except ProblemError as error:
        not_convex = _not_convex(K_dual)
        if not_convex is not None:
            raise not_convex from error.__cause__
        # CVXOPT breaks down on badly scaled problems with no box (the squared
        # hinge with a polynomial kernel on wide data: entries of 1e7) where
        # Clarabel's homogeneous embedding and equilibration still get through.
        # With a box (an absurd C) the breakdown is said as it is: Clarabel
        # would call an unbounded box "no separating hyperplane".
        if backend is _clarabel or _finite(upper) or budget.check():
            raise
        backend = _clarabel
        a, status, iterations = backend(box)
    out_of_time = budget.check()
    if status in ("DualInfeasible", "AlmostDualInfeasible"):
        raise ProblemError(
            "The hard-margin SVM has no solution: the two classes cannot be "
            "separated by this kernel. Use a finite C (a soft margin)."
        )
    if status in ("PrimalInfeasible", "AlmostPrimalInfeasible"):
        raise ProblemError("The QP is infeasible; this should not happen for an SVM.")
    if not np.all(np.isfinite(a)):
        raise _breakdown(upper, None)
    a = np.clip(a, 0.0, upper)
    G = box.gradient(a)
    eps = 1e-7 * (_top(upper) if _finite(upper) else max(1.0, float(a.max())))
    b = (
        intercept_from_gradient(y, a, G, upper, eps=eps)
        if problem.fit_intercept
        else 0.0
    )
    raw_kkt = kkt_violation(problem, a, b)
    polished = None if out_of_time else _polish(box, a, budget=budget)
    out_of_time = out_of_time or budget.expired
    used_polish = False
    if polished is not None:
        a_p, b_p = polished
        if problem.fit_intercept:
            b_p = intercept_from_gradient(y, a_p, box.gradient(a_p), upper, eps=0.0)
        if kkt_violation(problem, a_p, b_p) <= max(raw_kkt, 1e-9):
            a, b, used_polish = a_p, b_p, True
    if out_of_time:
        reason = "max_seconds"
    elif status in ("Solved", "AlmostSolved") or used_polish:
        reason = "converged"
    else:
        # Both back ends are capped at 200 iterations; otherwise they gave up.
        reason = "max_iter" if iterations >= 200 else "rule"
    return run.finish(
        problem,
        a,
        b,
        n_iter=iterations,
        stop_reason=reason,
        rule=f"The interior point ({backend.__name__[1:]}) stopped at its own "
        f"accuracy (status {status})",
        extras={
            "status": status,
            "polished": used_polish,
            "backend": backend.__name__[1:],
        },
    )


SPEC = SolverSpec(
    name="qp",
    title="Exact QP (interior point: CVXOPT; Clarabel for C = ∞)",
    solve=solve,
    losses=frozenset({"hinge", "squared_hinge"}),
    iterative=False,
    source="Sugiyama §27.2 eq. (27.3); §27.6.2",
    hard_margin=True,
    weights=True,
)
