"""Warm starts outside the feasible set: ``repair_init`` and every solver that takes
``init``.

What the clip to the box buys: a box-dual solver stops when the projected gradient
is small, and the projected gradient reads ``a_i > C`` with ``G_i < 0`` (or
``a_i < 0`` with ``G_i > 0``) as "at the bound, cannot move". A start outside the
box is then never repaired by SMO or by greedy coordinate ascent: they report
convergence at an infeasible point with the wrong objective. The expected values
below are written out by hand, not computed by svmlab.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from svmlab.kernels import gram
from svmlab.losses import Hinge, ModifiedHinge, Ramp, SquaredHinge, SquaredRamp
from svmlab.solvers import SOLVERS, Problem, solve
from svmlab.solvers.base import repair_init
from tests.conftest import random_problem

LOSSES = {
    "hinge": Hinge(),
    "squared_hinge": SquaredHinge(),
    "ramp": Ramp(),
    "squared_ramp": SquaredRamp(),
    "modified_hinge": ModifiedHinge(),
}
#: loss -> upper end of the box the warm start is clipped to, for C = 2 (the dual
#: box for the hinge and the ramp; no upper bound for the squared losses; the
#: modified hinge's coefficients are -C h'(m), in (0, C], and IRWLS passes C).
UPPER = {
    "hinge": 2.0,
    "squared_hinge": math.inf,
    "ramp": 2.0,
    "squared_ramp": math.inf,
    "modified_hinge": math.inf,
}

Y = np.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0])
BAD = np.array([-1.0, 0.5, 3.0, 5.0, -0.5, 1.0])  # below 0 and above C = 2


def _problem6(loss: str, fit_intercept: bool) -> Problem:
    return Problem(np.eye(6), Y, LOSSES[loss], 2.0, fit_intercept)


@pytest.mark.parametrize("loss", list(LOSSES))
def test_repair_init_clips_to_the_box_without_bias(loss):
    got = repair_init(BAD, _problem6(loss, False))
    if UPPER[loss] == 2.0:
        expected = [0.0, 0.5, 2.0, 2.0, 0.0, 1.0]
    else:
        expected = [0.0, 0.5, 3.0, 5.0, 0.0, 1.0]
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("loss", list(LOSSES))
def test_repair_init_clips_then_balances_with_a_bias(loss):
    got = repair_init(BAD, _problem6(loss, True))
    if UPPER[loss] == 2.0:
        # clipped: + side (0, 0.5, 2) sums to 2.5, - side (2, 0, 1) to 3:
        # the heavier - side is scaled by 2.5 / 3.
        expected = [0.0, 0.5, 2.0, 2.0 * 2.5 / 3.0, 0.0, 1.0 * 2.5 / 3.0]
    else:
        # clipped: + side (0, 0.5, 3) = 3.5, - side (5, 0, 1) = 6: scale by 3.5 / 6.
        expected = [0.0, 0.5, 3.0, 5.0 * 3.5 / 6.0, 0.0, 1.0 * 3.5 / 6.0]
    np.testing.assert_allclose(got, expected, rtol=1e-15)
    assert got @ Y == pytest.approx(0.0, abs=1e-14)


def test_repair_init_takes_an_explicit_upper_bound():
    # IRWLS passes upper = C for the modified hinge.
    got = repair_init(BAD, _problem6("modified_hinge", False), upper=2.0)
    np.testing.assert_array_equal(got, [0.0, 0.5, 2.0, 2.0, 0.0, 1.0])


def test_repair_init_refuses_unusable_starts():
    problem = _problem6("hinge", False)
    assert repair_init(None, problem) is None
    assert repair_init(BAD[:5], problem) is None
    assert repair_init(np.r_[BAD[:5], np.nan], problem) is None
    # The caller's array is not modified.
    bad = BAD.copy()
    repair_init(bad, problem)
    np.testing.assert_array_equal(bad, BAD)


#: (solver, loss, fit_intercept) for every solver that uses ``init`` (qp is an
#: interior-point method and ignores it) and every pair it supports.
CASES = [
    (name, loss, fit_intercept)
    for name, spec in SOLVERS.items()
    if name != "qp"
    for loss in sorted(spec.losses)
    for fit_intercept in (True, False)
    if (spec.with_intercept if fit_intercept else spec.without_intercept)
]
CONVEX = {"hinge", "squared_hinge", "modified_hinge"}


def _problem(loss: str, fit_intercept: bool) -> Problem:
    X, y = random_problem(0, n=60, kind="blobs")
    return Problem(gram(X, sigma=0.8), y, LOSSES[loss], 1.0, fit_intercept)


def _outside_start(n: int) -> np.ndarray:
    init = np.full(n, 5.0)  # above C = 1
    init[:2] = [-1.0, -2.0]  # below 0
    return init


def _box(loss: str) -> float:
    return 1.0 if loss in ("hinge", "ramp", "modified_hinge") else math.inf


@pytest.mark.parametrize(("solver", "loss", "fit_intercept"), CASES, ids=str)
def test_a_start_outside_the_box_is_made_feasible_before_the_first_step(
    solver, loss, fit_intercept
):
    problem = _problem(loss, fit_intercept)
    init = _outside_start(problem.n)
    sol = solve(problem, method=solver, init=init, max_iter=0)
    # No iteration: the returned point is the start as the solver sees it.
    assert sol.alpha.min() >= 0.0
    assert sol.alpha.max() <= _box(loss)
    if fit_intercept:
        assert abs(sol.alpha @ problem.y) <= 1e-12 * sol.alpha.sum()


@pytest.mark.parametrize(("solver", "loss", "fit_intercept"), CASES, ids=str)
def test_a_start_outside_the_box_converges_to_the_cold_answer(
    solver, loss, fit_intercept
):
    problem = _problem(loss, fit_intercept)
    tol = 1e-6
    cold = solve(problem, method=solver, tol=tol, max_iter=100_000)
    warm = solve(
        problem, method=solver, tol=tol, max_iter=100_000, init=_outside_start(60)
    )
    # The same verdict as from a cold start (IRWLS may stop on its own rule with
    # a KKT residual above tol, from either start).
    assert warm.converged == cold.converged
    if loss in CONVEX:
        # One minimum: the warm run must find it.
        assert warm.objective == pytest.approx(cold.objective, rel=1e-5)
    if loss in ("hinge", "squared_hinge"):
        # The box duals: "converged" is the shared KKT check, inside the box.
        # (IRWLS's alpha only approaches -C h'(m) <= C, within its tol.)
        assert warm.alpha.min() >= 0.0
        assert warm.alpha.max() <= _box(loss)
        assert warm.kkt_violation() <= tol
