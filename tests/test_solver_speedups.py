"""The issue-16 speed-ups checked against independent references: the factor
reused across retargeted-LS steps against a fresh dense solve each step;
coordinate ascent with shrinking against SMO; CCCP with the SMO inner solver
against CCCP with the exact QP; alpha seeding and warm C paths against cold
fits at every step."""

from __future__ import annotations

import numpy as np
import pytest

from svmlab import datasets
from svmlab.kernels import gram
from svmlab.losses import Hinge, ModifiedHinge, Ramp, SquaredHinge, SquaredRamp
from svmlab.solvers import Problem, cccp, coordinate, retargeted_ls, smo, solve
from svmlab.solvers.seeding import seed_alpha
from tests.conftest import relative_difference as _rel


@pytest.fixture(scope="module")
def circles():
    X, y = datasets.make_two_circles(240, random_state=5)
    return gram(X, sigma=0.5), y


@pytest.mark.parametrize("fit_intercept", [True, False], ids=["bias", "no_bias"])
def test_one_factorisation_equals_a_fresh_solve_each_step(circles, fit_intercept):
    # _ridge_solver factors K + I/C once; each step's (theta, b) must equal the
    # bordered system solved from scratch for that step's targets.
    K, y = circles
    C, n = 10.0, y.shape[0]
    fit = retargeted_ls._ridge_solver(K, C, fit_intercept, "rkhs")
    rng = np.random.default_rng(0)
    for _ in range(5):  # targets as the iteration produces them: y * max(m, 1)
        r = y * np.maximum(rng.normal(1.0, 0.7, n), 1.0)
        theta, b = fit(r)
        if fit_intercept:
            M = np.zeros((n + 1, n + 1))
            M[:n, :n] = K + np.eye(n) / C
            M[:n, n] = 1.0
            M[n, :n] = 1.0
            fresh = np.linalg.solve(M, np.append(r, 0.0))
            expected_theta, expected_b = fresh[:n], fresh[n]
        else:
            expected_theta = np.linalg.solve(K + np.eye(n) / C, r)
            expected_b = 0.0
        np.testing.assert_allclose(theta, expected_theta, rtol=1e-8, atol=1e-9)
        assert b == pytest.approx(expected_b, abs=1e-9)


@pytest.mark.parametrize("loss", [SquaredHinge(), SquaredRamp()], ids=lambda v: v.name)
def test_retargeted_ls_with_newton_steps_reaches_the_plain_iterations_point(
    circles, loss
):
    # The Newton steps (polished points kept when they descend) must land where
    # the plain MM iteration goes; the squared hinge is convex, so also on the QP.
    K, y = circles
    problem = Problem(K, y, loss, 5.0, True)
    fast = retargeted_ls.solve(problem, tol=1e-8)
    plain = retargeted_ls.solve(problem, tol=1e-8, polish=False, max_iter=100_000)
    assert fast.converged and fast.n_iter < plain.n_iter
    f_fast = K @ (fast.alpha * y) + fast.b
    f_plain = K @ (plain.alpha * y) + plain.b
    assert _rel(f_fast, f_plain) < 1e-5
    assert fast.objective <= plain.objective * (1 + 1e-9)
    if loss.name == "squared_hinge":
        ref = solve(problem, method="qp")
        assert _rel(f_fast, K @ (ref.alpha * y) + ref.b) < 1e-6


@pytest.mark.parametrize("loss", [Hinge(), SquaredHinge()], ids=lambda v: v.name)
def test_coordinate_with_shrinking_equals_smo(circles, loss):
    K, y = circles
    problem = Problem(K + 1.0, y, loss, 20.0, False)  # the regularized bias
    ours = coordinate.solve(problem, tol=1e-9, max_iter=100_000)
    ref = smo.solve(problem, tol=1e-9, shrinking=False)
    assert ours.converged
    assert ours.extras["updates"] < ours.n_iter * y.shape[0]  # it did shrink
    assert _rel(ours.alpha, ref.alpha) < 1e-6


@pytest.mark.parametrize("loss", [Ramp(), SquaredRamp()], ids=lambda v: v.name)
@pytest.mark.parametrize("fit_intercept", [True, False], ids=["bias", "no_bias"])
def test_cccp_smo_inner_reaches_the_qp_inner_fixed_point(circles, loss, fit_intercept):
    K, y = circles
    problem = Problem(K, y, loss, 10.0, fit_intercept)
    fast = cccp.solve(problem)  # inner="auto": smo at n = 240
    exact = cccp.solve(problem, inner="qp")
    assert fast.extras["inner"] == "smo" and fast.converged
    assert fast.objective == pytest.approx(exact.objective, rel=1e-7)
    f_fast = K @ (fast.alpha * y) + fast.b
    assert _rel(f_fast, K @ (exact.alpha * y) + exact.b) < 1e-6


def test_seed_alpha_scales_a_solution_from_another_c():
    a = np.array([0.0, 2.0, 2.0, 0.5, 1.0])
    np.testing.assert_array_equal(seed_alpha(a, 4.0), [0.0, 4.0, 4.0, 1.0, 2.0])
    np.testing.assert_array_equal(seed_alpha(a, 1.0), [0.0, 1.0, 1.0, 0.25, 0.5])
    single = np.array([0.0, 2.0, 0.5])  # one value at the top: not a bound
    assert seed_alpha(single, 4.0) is single
    assert seed_alpha(a, np.inf) is a  # squared hinge: no box to scale to


#: solver, loss, bias, C path (increasing) -- every iterative solver.
PATHS = [
    ("smo", Hinge(), True),
    ("smo", SquaredHinge(), False),
    ("coordinate", Hinge(), False),
    ("retargeted_ls", SquaredHinge(), True),
    ("irwls", ModifiedHinge(), True),
    ("cccp", Ramp(), True),
]


@pytest.mark.parametrize(
    "name, loss, fit_intercept", PATHS, ids=[f"{p[0]}-{p[1].name}" for p in PATHS]
)
def test_warm_c_path_equals_cold_fits(circles, name, loss, fit_intercept):
    K, y = circles
    alpha, warm_iters, cold_iters = None, 0, 0
    # IRWLS by its KKT rule; CCCP from the hinge start (warm-started inside), so
    # that warm and cold reach the same local minimum of the non-convex ramp.
    options = {"irwls": {"stop": "kkt"}, "cccp": {"start": "hinge"}}.get(name, {})
    # The path's steps are the page's (every other E12 value, about 1.5x): warm
    # starts are for neighbouring values. (At 3x steps SMO's warm and cold
    # counts are within rounding of each other: 1,449 against 1,468 once and
    # 1,507 after a change of summation order that leaves every fit the same.)
    for C in (1.0, 1.5, 2.2, 3.3, 4.7, 6.8, 10.0, 15.0, 22.0, 30.0):
        problem = Problem(K, y, loss, C, fit_intercept)
        cold = solve(problem, method=name, tol=1e-7, max_iter=100_000, **options)
        warm = solve(
            problem, method=name, tol=1e-7, max_iter=100_000, init=alpha, **options
        )
        assert warm.converged and cold.converged
        f_warm = K @ (warm.alpha * y) + warm.b
        f_cold = K @ (cold.alpha * y) + cold.b
        assert _rel(f_warm, f_cold) < 1e-4
        alpha = warm.alpha
        warm_iters += warm.n_iter
        cold_iters += cold.n_iter
    # CCCP counts outer steps (0-2 either way). Cyclic coordinate ascent's
    # epochs are set by its slow tail, not by the start: here 3,651 warm against
    # 3,520 cold at tol 1e-7 even with alpha seeding (issue 16 reports it).
    if name not in ("cccp", "coordinate"):
        assert warm_iters <= cold_iters
