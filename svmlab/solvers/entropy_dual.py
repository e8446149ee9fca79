"""The modified hinge's dual: the hinge dual plus an entropy term, solved exactly
by coordinate and pair steps (docs/modified_hinge_dual.md).

.. math::

    \\max_a\\ \\sum_k a_k - \\delta \\sum_k a_k \\log\\frac{a_k}{C}
    - \\tfrac12 a^\\top H a
    \\quad\\text{s.t.}\\quad 0 \\le a_k \\le C,\\quad [\\,y^\\top a = 0\\,],
    \\qquad H = Y K Y

Lee's C^1 modified hinge ``h(m) = delta exp((1 - m - delta) / delta)`` for
``m >= 1 - delta`` (``1 - m`` below; :class:`svmlab.losses.ModifiedHinge`) has the
convex conjugate ``h*(-v) = -v + delta v log v`` on ``[0, 1]`` (infinite
elsewhere), so the dual of ``0.5 ||f||^2 + C sum h(m_k)`` is the problem above;
at its optimum ``a_k = -C h'(m_k)`` (``= C`` on the straight part, ``C e^{(1 -
delta - m_k) / delta}`` on the tail) and the primal and dual values are equal.
The entropy term makes the dual strictly concave and keeps every ``a_k > 0``;
``a_k = C`` stays a bound. The derivation and its numerical check are in
docs/modified_hinge_dual.md.

**Without an unregularized bias** (``bias="none"``; ``"regularized"`` is the
kernel ``K + 1``) one coordinate moves at a time, to its exact maximiser (a
Lambert-W equation solved by Newton); **with it** (``y'a = 0``) two move at once
along ``(y_i, -y_j)``, SMO-style, to the exact maximiser on that line (a
safeguarded Newton solve in the log of the smaller multiplier). Working set,
KKT intervals, shrinking and the steps: :mod:`svmlab.solvers.entropy_steps`;
the compiled loop that runs them: :mod:`svmlab.solvers.entropy_loop`; the
Newton phases: :mod:`svmlab.solvers.entropy_newton`.

**Stopping** is the modified hinge's own KKT measure, the stationarity residual
``max_k |a_k / C - psi(m_k)|`` (``psi = -h'``) of
:func:`svmlab.solvers.base.kkt_violation`, tested on the running margins in
margin units through per-point intervals (no exponential in a scan), at
``0.9 tol`` so that the check of :meth:`DualSolution.finish` meets ``tol``.
The bias is the middle of the interval of ``b`` that every point allows.
The margins, objective and KKT measure of the result come from the solver's
running margins ``q = H a`` (``K (a y) = y q``; issue 29, item 4): no kernel
product after the loop. A step that moves nothing at rounding level stops the
loop (``stop_reason="rule"`` with a note): the residual cannot be pushed below
what float64 margins resolve (``psi`` has slope ``1/delta``, so at a large C and
a small delta a residual near 1e-9 may be out of reach).

**Warm starts** (``init``): repaired to the box and ``y'a = 0``
(:func:`~svmlab.solvers.base.repair_init`), scaled from another C by alpha
seeding (:mod:`svmlab.solvers.seeding`). **Cold start**: ``a = 0``, the hinge's
(the entropy's gradient is infinite there, so every multiplier the steps touch
leaves 0 at once; one never touched stays below ``tol C``, which the measure
allows; its ``log(a / C)`` is kept at :data:`LOG_FLOOR`).

Call order: setup (``a``, ``la = log(a / C)``, ``q = H a``, the intervals) ->
compiled loop in chunks of about 20 ms (:func:`svmlab.solvers.chunked.run_chunked`:
``max_seconds`` and the ``cancel_when`` predicate between chunks) -> finalize
(``b``, the result from ``q``).

References
----------
Lee (2006), SVC with modified hinge loss function (the loss; his algorithm is
IRWLS, :mod:`svmlab.solvers.irwls`). Platt (1998); Fan, Chen, Lin (2005) (SMO,
working sets); Keerthi, Shevade, Bhattacharyya, Murthy (2001) (the KKT
intervals). Yu, Huang, Lin (2011), Dual coordinate descent methods for logistic
regression and maximum entropy models (the entropy-term Newton step).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
from numpy.typing import NDArray

from svmlab.array_types import Array
from svmlab.errors import IncompatibleLossError, ParameterError, ProblemError
from svmlab.kernels import KernelRows
from svmlab.solvers import entropy_loop, entropy_newton
from svmlab.solvers import entropy_steps as steps
from svmlab.solvers.base import (
    Budget,
    DualSolution,
    Problem,
    SolverSpec,
    kkt_violation,
    repair_init,
    valid_solvers_for,
)
from svmlab.solvers.chunked import run_chunked
from svmlab.solvers.row_cache import EVALS
from svmlab.solvers.run import Run, solve_function
from svmlab.solvers.seeding import seed_alpha
from svmlab.solvers.smo import max_iterations

__all__ = ["LOG_FLOOR", "SPEC", "EntropyState", "entropy_dual_value", "solve"]


#: ``log(a_k / C)`` of a multiplier that underflowed to 0.0 (its true value is
#: below 1e-300 C: it never changes a margin).
LOG_FLOOR = -700.0
#: The loop tests its intervals at this fraction of tol, so that the final
#: check (the same measure, from exponentials rather than logarithms) meets it.
TOL_FRACTION = 0.9
#: A multiplier whose entropy curvature delta / a_k exceeds this many times
#: K_kk is left to the coordinate steps: its row of the Newton system is
#: diagonally dominant, so one coordinate step does what Newton would.
STIFF = 1e3
#: Newton iterations per Newton phase (each one Cholesky factorisation).
NEWTON_ROUNDS = 20
#: Coordinate steps between two Newton phases of a fit (measured on the 10 x 10
#: leave-one-out grid at n = 200: the 100 full fits took 0.24 s with 50, 0.31 s
#: with 200, 0.43 s with 1000).
NEWTON_EVERY = 50
#: ... and at least n / NEWTON_EVERY_DIVISOR (a Newton iteration updates the
#: margins of all n points from each of up to NEWTON_MAX_FREE rows, a step from
#: two). Measured at n = 2000, tol 1e-3, CPU time of the solver on the six
#: problems of benchmarks/fit_speed.py (issue 29): a phase every 50 steps
#: against the first after 500: two circles with label noise 15.0 -> 11.3 ms,
#: rings 4.5 -> 4.0, outlier blobs 8.9 -> 8.4, C = 500 110 -> 102, the spiral
#: 16.5 -> 17.4, overlapping Gaussians 33.8 -> 32.6. n <= 200 (the leave-one-out
#: grids above) keeps 50.
NEWTON_EVERY_DIVISOR = 4
#: Free multipliers above which a Newton phase is skipped: its factorisation,
#: O(f^3), would cost more than the coordinate steps it saves.
NEWTON_MAX_FREE = 150
#: float64's unit roundoff.
UNIT_ROUNDOFF = 2.0**-53
#: The margins' rounding in units of ``u max_k sqrt(K_kk) sum_j a_j sqrt(K_jj)``
#: (:meth:`EntropyState.margin_floor`). Measured on two circles (n = 100, C =
#: 5000, sigma^2 = 0.35, delta = 1e-4, tol 1e-10; issue 44, item 1): that unit
#: was 4.4e-12 and the interval violation wandered between 2.5e-13 and 6e-12
#: once it stopped falling.
FLOOR_ULPS = 4.0
#: Steps the loop goes on once in the floor phase, keeping its best iterate:
#: FLOOR_ROUNDS n, at least FLOOR_STEPS.
FLOOR_ROUNDS = 10
FLOOR_STEPS = 1000
#: The loosest rung of a run's ladder of tols (:func:`tol_ladder`).
LADDER_TOP = 1e-3
#: A stop whose residual is within this factor of the floor's is called a stop
#: at the floor; above it the note says the steps stalled above the floor.
FLOOR_SLACK = 10.0


def entropy_dual_value(alpha: Array, Kc: Array, y: Array, C: float, delta: float):
    """``sum a - delta sum a log(a / C) - 0.5 (a y)' K (a y)``; ``Kc = K (a y)``."""
    a = np.asarray(alpha, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        ent = np.where(a > 0.0, a * np.log(a / C), 0.0)
    return float(a.sum() - delta * ent.sum() - 0.5 * float((a * y) @ Kc))


def _start(problem: Problem, init: Array | None, C: float) -> Array:
    """The first iterate: the repaired, seeded warm start, or the cold start
    ``a = 0`` (every multiplier at the floor of the entropy's domain, kept as
    ``log(a / C) = LOG_FLOOR``: as the hinge's SMO starts, and no kernel
    product is needed for its margins)."""
    a = repair_init(init, problem, upper=C)
    if a is not None and a.any():
        return seed_alpha(a, C).copy()
    return np.zeros(problem.n)


class EntropyState:
    """The solver's state: multipliers, their logs, margins and intervals.

    ``K`` is the effective Gram matrix (``K + 1`` for the regularized bias),
    or None with ``kernel`` (:class:`svmlab.kernels.KernelRows`, the shift
    included) giving its rows on demand; ``eligible`` the points that may move
    (all, unless some are left out of a refit:
    :mod:`svmlab.solvers.entropy_refit`).
    """

    def __init__(
        self,
        K: Array | None,
        y: Array,
        C: float,
        delta: float,
        tol: float,
        pair: bool,
        a: Array,
        *,
        shrinking: bool = True,
        eligible: NDArray[np.bool_] | None = None,
        q: Array | None = None,
        la: Array | None = None,
        kernel: KernelRows | None = None,
    ) -> None:
        n = y.shape[0]
        self.K, self.y = K, np.ascontiguousarray(y, dtype=np.float64)
        self.rows, self.diag = steps.make_rows(K, kernel, n)
        self.newton_steps = 0
        self.use_newton = True
        self._work: tuple | None = None
        #: Coordinate steps between Newton phases (None: NEWTON_EVERY, at
        #: least n / NEWTON_EVERY_DIVISOR).
        self.newton_after: int | None = None
        self.C, self.delta, self.pair = float(C), float(delta), bool(pair)
        self.tol = float(tol)
        #: What the loop tests: tol, or a looser one in the floor phase.
        self.loop_tol = self.tol
        self.shrinking = bool(shrinking)
        self.a = np.array(a, dtype=np.float64)
        if la is None:
            with np.errstate(divide="ignore"):
                la = np.log(self.a / self.C)
            la[self.a >= self.C] = 0.0
        self.la = np.clip(la, LOG_FLOOR, 0.0)
        if q is not None:
            self.q = np.array(q, dtype=np.float64)
        elif self.a.any() and K is not None:
            self.q = self.y * (K @ (self.a * self.y))
        elif self.a.any():
            self.q = steps.margins_from_rows(self.y, self.a, self.rows)
        else:
            self.q = np.zeros(n)
        self.lo, self.hi = np.empty(n), np.empty(n)
        self._intervals(np.arange(n, dtype=np.int64))
        self.eligible = (
            np.ones(n, dtype=np.bool_) if eligible is None else eligible.copy()
        )
        self.act = np.flatnonzero(self.eligible).astype(np.int64)
        self.act = np.concatenate([self.act, np.zeros(n - self.act.size, np.int64)])
        self.ist = np.zeros(steps.N_STATE, dtype=np.int64)
        self.ist[steps.NACT] = int(self.eligible.sum())
        self.ist[steps.COUNTER] = min(n, steps.SHRINK_EVERY) + 1
        self.it = 0
        #: The step the floor phase began at (:meth:`_at_floor`) and its best
        #: iterate ``(residual, a, la, q, b)``; the b :meth:`intercept` gives
        #: after a run that went back to that iterate.
        self._floor_since: int | None = None
        self._best: tuple[float, Array, Array, Array, float] | None = None
        self.kept_intercept: float | None = None

    def _intervals(self, index: NDArray[np.int64]) -> None:
        steps.intervals_into(
            self.la, index, TOL_FRACTION * self.loop_tol, self.delta, self.lo, self.hi
        )

    def run(
        self, max_iter: int, budget: Budget, *, snapshot: Any = None
    ) -> tuple[int, bool, bool]:
        """Steps until the test holds, ``max_iter`` or the budget runs out:
        ``(steps so far, converged, out_of_time)``. Every :data:`NEWTON_EVERY`
        steps without convergence (``newton_after`` when set) a Newton phase
        (:meth:`newton`) takes over; one that does not cut the violation by a
        tenth doubles the wait before the next (a Newton phase costs a
        factorisation, worth it only where it converges)."""
        base = every = self.newton_after or max(
            NEWTON_EVERY, self.y.shape[0] // NEWTON_EVERY_DIVISOR
        )
        converged = out = False
        # The eligible points, once a run (each worst() built them again: 9
        # times a fit, 60 us each at n = 2000, with the scan).
        index = np.flatnonzero(self.eligible).astype(np.int64)
        self._floor_since, self._best, self.kept_intercept = None, None, None
        ladder = tol_ladder(self.tol)
        self._set_loop_tol(ladder[0])
        while self.it < max_iter:
            stop = min(int(max_iter), self.it + every)
            converged, out = self._steps(stop, budget, snapshot)
            # The steps stopped moving anything above rounding: the floor
            # phase (below) decides, with Newton phases still tried.
            tiny = self.stalled
            self.ist[steps.STALLS] = 0
            if converged and self.loop_tol > self.tol:
                # A stage of the ladder, or the floor phase's test, is met: a
                # candidate for the best iterate, and the next test.
                converged = False
                self._next_stage(index, ladder)
            if converged or out or self.it >= max_iter:
                break
            before = self.worst(index)
            if self._at_floor(before, index, ladder, tiny):
                break
            if self._floor_since is not None:
                # The floor phase samples its iterates at the first pace.
                every = base
            if not self.use_newton:
                continue
            if self.newton() and self.worst(index) <= 0.0:
                if self.loop_tol <= self.tol:
                    converged = True
                    break
                self._next_stage(index, ladder)
            if self._floor_since is None and not self.worst(index) < 0.9 * before:
                every *= 2
        if not converged and self._best is not None:
            self._keep_best(index)
        self._set_loop_tol(self.tol)
        return self.it, converged, out

    def _next_stage(self, index: NDArray[np.int64], ladder: list[float]) -> None:
        """The loop met its test at a tol above the run's: keep the iterate if
        it is the best so far and go on at the next rung of the ladder below
        (or, in the floor phase, just below the best residual)."""
        if self._floor_since is not None:
            self._sample(index, ladder)
            return
        self._keep_if_best(index)
        self._set_loop_tol(next(t for t in ladder if t < self.loop_tol))

    def _set_loop_tol(self, tol: float) -> None:
        """The tol the compiled loop and the Newton phases test (``tol``, or
        in the floor phase a looser one just below the best residual so far),
        with every point's interval for it."""
        if tol != self.loop_tol:
            self.loop_tol = tol
            self._intervals(np.arange(self.y.shape[0], dtype=np.int64))

    def margin_floor(self) -> float:
        """How exactly float64 margins ``q = H a`` are known (margin units):
        ``FLOOR_ULPS u max_k sqrt(K_kk) sum_j a_j sqrt(K_jj)``, the rounding
        of a sum of terms of that size (``|K_kj| <= sqrt(K_kk K_jj)``). The
        stationarity residual cannot be resolved below this times the tail's
        slope ``1 / delta`` (issue 44, item 1)."""
        root = np.sqrt(np.abs(self.diag))
        return float(
            FLOOR_ULPS * UNIT_ROUNDOFF * root.max(initial=0.0) * (self.a @ root)
        )

    def residual(self, index: NDArray[np.int64]) -> float:
        """The stationarity residual ``max_k |a_k / C - psi(m_k)|`` over
        ``index`` at the running margins (the measure the result is scored
        by: :func:`svmlab.solvers.base.kkt_violation`)."""
        m = self.q[index] + self.intercept() * self.y[index]
        exponent = np.minimum((1.0 - self.delta - m) / self.delta, 0.0)
        return float(np.abs(np.exp(self.la[index]) - np.exp(exponent)).max(initial=0.0))

    def _at_floor(
        self,
        worst: float,
        index: NDArray[np.int64],
        ladder: list[float],
        tiny: bool = False,
    ) -> bool:
        """Whether the loop should stop at the floating-point floor. Once the
        interval violation ``worst`` is within the margins' rounding
        (:meth:`margin_floor`), or the compiled steps stopped moving anything
        above rounding (``tiny``), the steps move the margins by rounding
        only: the loop goes on for :data:`FLOOR_ROUNDS` n steps (at least
        :data:`FLOOR_STEPS`), Newton phases included, keeping the iterate of
        the smallest residual, and then stops there (``stalled``), not
        wherever the rounding has last left it (issue 44, item 1: at tol
        1e-10 the residual wandered between 2e-9 and 5e-8 for 10^7 steps)."""
        if self._floor_since is None:
            if not tiny and worst > self.margin_floor():
                return False
            self._floor_since = self.it
        self._sample(index, ladder)
        grace = max(FLOOR_STEPS, FLOOR_ROUNDS * self.y.shape[0])
        if self.it - self._floor_since < grace:
            return False
        self.ist[steps.STALLS] += 1
        return True

    def _sample(self, index: NDArray[np.int64], ladder: list[float]) -> None:
        """Keep the iterate if its residual is the run's smallest, and set the
        loop's test to the ladder's first rung below that, so that the
        compiled loop itself stops at the first step that beats it (the
        residual wanders by rounding from step to step: a test checked only
        between chunks would miss the low points a looser tol stops at). A
        rung, not a fraction of the residual: a run at a looser tol of the
        ladder then tests the same tols in its floor phase, and a tighter run
        passes through its iterates there too."""
        self._keep_if_best(index)
        assert self._best is not None
        best = self._best[0]
        self._set_loop_tol(next((t for t in ladder if t < best), self.tol))

    def _keep_if_best(self, index: NDArray[np.int64]) -> None:
        """Keep the iterate if its residual is the smallest of the run so far."""
        residual = self.residual(index)
        if self._best is None or residual < self._best[0]:
            self._best = (
                residual,
                self.a.copy(),
                self.la.copy(),
                self.q.copy(),
                self.intercept(),
            )

    def _keep_best(self, index: NDArray[np.int64]) -> None:
        """Go back to the floor phase's best iterate if the last one is worse."""
        assert self._best is not None
        if self.residual(index) > self._best[0]:
            _, a, la, q, b = self._best
            self.a[:], self.la[:], self.q[:] = a, la, q
            self._intervals(np.arange(self.y.shape[0], dtype=np.int64))
            steps.all_active(self.eligible, self.act, self.ist)
        else:
            b = self.intercept()
        # The b its residual was measured with: the middle of the interval
        # at tol, which may be empty there, is another (it once gave 1.0).
        self.kept_intercept = b

    def worst(self, index: NDArray[np.int64] | None = None) -> float:
        """The largest interval violation over the eligible points (margin
        units; at most 0 when the loop's test holds); ``index``: those points,
        if the caller has them."""
        if index is None:
            index = np.flatnonzero(self.eligible).astype(np.int64)
        worst, _, _ = steps.violation(
            self.y, self.q, self.lo, self.hi, index, index.size, self.pair
        )
        return float(worst)

    def newton(self) -> bool:
        """Newton iterations on the free, non-stiff multipliers
        (:func:`svmlab.solvers.entropy_steps.newton`); whether one was taken.

        The coordinate steps converge linearly, slowly where many free
        multipliers share an ill-conditioned block of ``H`` (large C, smooth
        kernels, and the tight margins a small delta asks for); Newton's method
        converges quadratically there once the bound set is right.
        """
        if self._work is None:
            n = self.y.shape[0]
            # A phase factorises at most NEWTON_MAX_FREE free points: its
            # matrices are that small (n x n took 64 MB at n = 2000, their
            # rows a page apart).
            m = min(n, NEWTON_MAX_FREE)
            self._work = (
                np.empty((m, m)),
                np.empty((m, m)),
                np.empty(n),
                np.empty(n),
                np.empty(n, dtype=np.int64),
            )
        taken = entropy_newton.newton(
            *self._state(),
            self.C,
            self.delta,
            TOL_FRACTION * self.loop_tol,
            self.pair,
            STIFF,
            NEWTON_ROUNDS,
            NEWTON_MAX_FREE,
            *self._work,
        )
        self.newton_steps += int(taken)
        return bool(taken)

    def _state(self) -> tuple:
        """The rows and the arrays the compiled steps and Newton phases work on,
        in their argument order."""
        return (
            self.rows,
            self.diag,
            self.y,
            self.a,
            self.la,
            self.q,
            self.lo,
            self.hi,
            self.eligible,
        )

    def _steps(self, stop: int, budget: Budget, snapshot: Any) -> tuple[bool, bool]:
        args = (
            *self._state(),
            self.act,
            self.ist,
            self.C,
            self.delta,
            TOL_FRACTION * self.loop_tol,
            self.pair,
            self.shrinking,
        )
        self.it, converged, out = run_chunked(
            entropy_loop.chunk, args, self.it, stop, budget, snapshot=snapshot
        )
        return converged, out

    def intercept(self) -> float:
        """``b``: the middle of the interval every eligible point allows (0
        without a bias). Falls back to the finite end, or 0. After a run that
        went back to the floor phase's best iterate, that iterate's b."""
        if not self.pair:
            return 0.0
        if self.kept_intercept is not None:
            return self.kept_intercept
        index = np.flatnonzero(self.eligible).astype(np.int64)
        _, big_l, small_u = steps.violation(
            self.y, self.q, self.lo, self.hi, index, index.size, True
        )
        if math.isfinite(big_l) and math.isfinite(small_u):
            return 0.5 * (big_l + small_u)
        if math.isfinite(big_l):
            return float(big_l)
        if math.isfinite(small_u):
            return float(small_u)
        return 0.0

    @property
    def stalled(self) -> bool:
        return bool(self.ist[steps.STALLS])

    @property
    def stats(self) -> dict[str, int]:
        return {
            "steps": int(self.ist[steps.STEPS]),
            "shrink_rounds": int(self.ist[steps.SHRINKS]),
            "unshrinks": int(self.ist[steps.UNSHRINKS]),
            "active": int(self.ist[steps.NACT]),
            "newton_steps": self.newton_steps,
            # Kernel entries computed into the row cache (0 on a given K).
            "kernel_evaluations": int(self.rows[2][EVALS]),
        }


def tol_ladder(tol: float) -> list[float]:
    """The tols a run tests in turn: the powers of ten from
    :data:`LADDER_TOP` down that lie above ``tol``, then ``tol``.

    A run at a tight tol thus passes through exactly the iterates of a run
    at any looser tol of the ladder (the same steps: every choice the loop
    makes depends on its test's tol), keeps the best of the iterates where a
    rung was met, and ends no worse than there (issue 44, item 1: a fit at
    tol 1e-9 had left a residual of 1.0, objective 87,922, where tol 1e-8
    converged at 31,022)."""
    top = -round(math.log10(LADDER_TOP))
    rungs = [10.0**-e for e in range(top, 17) if 10.0**-e > tol * (1.0 + 1e-12)]
    return [*rungs, float(tol)]


def floor_note(state: EntropyState, residual: float) -> str:
    """The sentence of a run stopped at the floating-point floor: how exactly
    float64 holds the margins and the residual that allows (``residual``: the
    one kept, within ten times that, or the sentence says it is not)."""
    margin = state.margin_floor()
    allowed = margin / state.delta
    floor = (
        f"float64 holds its margins to about {margin:.1e}, which the tail's "
        f"slope 1/δ turns into a residual of about {allowed:.1e}"
    )
    if residual <= FLOOR_SLACK * allowed:
        return (
            "The entropy-dual solver stopped at the floating-point floor of this "
            f"problem ({floor}), keeping the iterate of the smallest residual "
            "it reached there"
        )
    return (
        "The entropy-dual solver stopped where its steps no longer move the "
        f"multipliers in float64, above the floating-point floor ({floor}), "
        "keeping the iterate of the smallest residual it reached"
    )


def check_problem(problem: Problem) -> float:
    """Refuse what the entropy dual does not model; returns delta."""
    loss = problem.loss
    if loss.name != "modified_hinge":
        raise IncompatibleLossError(
            "entropy_dual",
            f"the {loss.name} loss",
            valid_solvers_for(loss.name, fit_intercept=problem.fit_intercept),
        )
    if getattr(loss, "form", "c1") != "c1":
        raise ProblemError(
            "The entropy dual is the dual of the C¹ modified hinge; the printed "
            "form (a kink at 1 − δ) has another conjugate. Use the irwls solver "
            "for it."
        )
    if not math.isfinite(problem.C):
        raise ProblemError("The modified hinge needs a finite C.")
    return float(loss.delta)


@solve_function(max_iter=None)
def solve(
    problem: Problem,
    run: Run,
    *,
    shrinking: bool = True,
    **options: Any,
) -> DualSolution:
    """Solve the modified hinge's entropy dual (see the module docstring).

    Parameters
    ----------
    problem
        Modified hinge (C^1 form), finite C, any bias mode; ``K`` dense.
    tol
        The stationarity residual ``max_k |a_k / C + h'(m_k)|`` to reach.
    max_iter
        Most steps (pair steps with the bias, single ones without); None:
        ``max(10^7, 100 n)`` (LIBSVM's cap).
    init
        A previous ``alpha`` (warm start), repaired and seeded.
    record_history
        Record objective, KKT measure and ``a`` on a doubling schedule.
    max_seconds
        Time budget (None: unlimited), checked between compiled chunks.
    shrinking
        Shrink the working-set scans (default on).

    Returns
    -------
    DualSolution
        ``extras``: ``steps``, ``shrink_rounds``, ``unshrinks``,
        ``newton_steps``, ``dual_value`` (the entropy dual at ``alpha``),
        ``stalled``, ``log_alpha`` (``log(alpha / C)``, exact where
        ``alpha`` underflowed to 0).
    """
    if options:
        raise ParameterError(
            f"The entropy_dual solver has no option {sorted(options)[0]!r}; its "
            "only option is shrinking."
        )
    delta = check_problem(problem)
    C = float(problem.C)
    y = np.ascontiguousarray(problem.y, dtype=np.float64)
    # The Gram matrix when one is handed in; else kernel rows on demand, as
    # SMO works (issue 29: an easy fit never forms the n x n matrix).
    K = None if problem.K is None else np.ascontiguousarray(problem.K, np.float64)
    if K is None and problem.kernel is None:
        raise ValueError("a Problem needs K or kernel")
    n = problem.n
    max_iter = max_iterations(n) if run.max_iter is None else int(run.max_iter)
    state = EntropyState(
        K,
        y,
        C,
        delta,
        run.tol,
        problem.fit_intercept,
        _start(problem, run.init, C),
        shrinking=shrinking,
        kernel=problem.kernel if K is None else None,
    )

    def record(it: int) -> None:
        b = state.intercept()
        Kc = y * state.q
        a = state.a.copy()
        history.record(
            it,
            objective=0.5 * float(a @ state.q)
            + C * float(problem.loss.value(state.q + b * y).sum()),
            kkt_violation=kkt_violation(problem, a, b, Kc=Kc),
            time=time.perf_counter() - run.budget.start,
            alpha=a,
            intercept=b,
        )

    history = run.history
    snapshot = None
    if run.record_history:
        record(0)

        def next_stop(it: int) -> int:
            # Every step up to 25, then 25 records per doubling (as SMO).
            spacing = 1
            while 2 * spacing * 25 <= it:
                spacing *= 2
            spacing = max(spacing, history.stride)
            return (it // spacing + 1) * spacing

        snapshot = (next_stop, lambda it: record(it) if history.wants(it) else None)
    it, converged, out_of_time = state.run(max_iter, run.budget, snapshot=snapshot)
    if run.record_history and (not history.iteration or history.iteration[-1] != it):
        record(it)
    a = state.a.copy()
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(state.q))):
        raise ProblemError(
            "The entropy dual produced non-finite values; the kernel matrix may "
            "contain NaN or infinite entries."
        )
    b = state.intercept()
    Kc = y * state.q
    if converged:
        reason, rule = "converged", None
    elif state.stalled:
        reason = "rule"
        rule = floor_note(state, kkt_violation(problem, a, b, Kc=Kc))
    else:
        reason, rule = ("max_seconds" if out_of_time else "max_iter"), None
    extras = {
        **state.stats,
        "dual_value": entropy_dual_value(a, Kc, y, C, delta),
        "stalled": state.stalled,
        # log(a / C) as kept (exact where a underflowed): refits start here.
        "log_alpha": state.la.copy(),
    }
    return run.finish(
        problem, a, b, n_iter=it, stop_reason=reason, rule=rule, extras=extras, Kc=Kc
    )


SPEC = SolverSpec(
    name="entropy_dual",
    title="Entropy dual (modified hinge; exact coordinate / SMO steps)",
    solve=solve,
    losses=frozenset({"modified_hinge"}),
    source=(
        "docs/modified_hinge_dual.md (the conjugate of Lee's C¹ modified hinge); "
        "Fan, Chen, Lin (2005) working sets; Yu, Huang, Lin (2011) Newton steps"
    ),
)
