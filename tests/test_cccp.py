"""CCCP for the ramp and squared ramp: monotone outer loop, fixed points, robustness."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from scipy.optimize import brentq

from svmlab import SVC, IncompatibleLossError, ParameterError, datasets, solvers
from svmlab.kernels import gram
from svmlab.losses import Hinge, Ramp, SquaredHinge, SquaredRamp
from svmlab.solvers import Problem, cccp, qp
from svmlab.solvers.base import kkt_violation, primal_objective
from tests.conftest import random_problem

LOSSES = {"ramp": Ramp(), "squared_ramp": SquaredRamp()}
CONVEX = {"ramp": Hinge(), "squared_ramp": SquaredHinge()}


def _problem(seed, loss="ramp", *, fit_intercept=True, n=60, outliers=None):
    X, y = random_problem(
        seed,
        n=n,
        outliers=seed % 7 + 1 if outliers is None else outliers,
        kind="blobs" if seed % 2 else "xor",
    )
    K = gram(X, sigma=[0.5, 1.0, 2.0][seed % 3])
    C = [0.1, 1.0, 10.0, 100.0][seed % 4]
    return Problem(K, y, LOSSES[loss], C, fit_intercept)


def _outlier_blobs(distance, k=6, seed=0):
    return datasets.make_outlier_blobs(
        100, noise=0.5, n_outliers=k, outlier_distance=distance, random_state=seed
    )


def _boundary(model) -> float:
    """The x1 where f(x1, 0) = 0 (the boundary's crossing of the class axis)."""

    def f(t):
        return model.decision_function(np.array([[t, 0.0]]))[0]

    return brentq(f, -20.0, 20.0, xtol=1e-12)


# -- (a) a toy problem solved by hand --------------------------------------------------


def test_toy_outlier_is_ignored_and_the_global_optimum_is_reached():
    # 1-D (second coordinate 0): -1 at -3, -2, -1; +1 at 1, 2, 3; outlier +1 at -5.
    # Ignoring the outlier, the hinge solution is w = 1, b = 0 with alpha = 1/2 on
    # x = -1 and x = 1 (w = 1/2 * 1 + 1/2 * 1, the equality balanced), so
    # J = 0.5 w^2 + C * ramp(-5) = 0.5 + C.
    x = np.array([-3, -2, -1, 1, 2, 3, -5], float)
    y = np.array([-1, -1, -1, 1, 1, 1, 1], float)
    X = np.c_[x, np.zeros_like(x)]
    C = 1.0
    model = SVC(kernel="linear", C=C, loss="ramp", solver="cccp").fit(X, y)
    np.testing.assert_allclose(model.alpha_, [0, 0, 0.5, 0.5, 0, 0, 0], atol=1e-12)
    assert model.intercept_[0] == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_array_equal(model.support_, [2, 3])
    assert model.objective_ == pytest.approx(0.5 + C, abs=1e-12)
    extras = model.solution_.extras
    assert extras["start"] == "hinge" and model.n_iter_ == 1
    assert extras["hinge_objective"] > 2.6  # the hinge tilts towards the outlier
    np.testing.assert_array_equal(extras["ignored"], [6])
    # It is the global minimum: brute force over (w, b) on a 0.01 grid.
    w = np.linspace(-3, 3, 601)[:, None, None]
    b = np.linspace(-3, 3, 601)[None, :, None]
    J = 0.5 * w[..., 0] ** 2 + C * Ramp().value(y * (w * x + b)).sum(-1)
    assert model.objective_ <= J.min() + 1e-12


def test_hinge_start_can_stay_in_a_local_optimum():
    # Two points per class: the hinge solution with the outlier is f = 1 (w = 0),
    # and that is already a CCCP fixed point (J = 2C); ignoring the outlier gives
    # w = 1, b = 0, J = 0.5 + C. docs/corrections.md: "it depends on the starting
    # point".
    x = np.array([-2, -1, 1, 2, -5], float)
    y = np.array([-1, -1, 1, 1, 1], float)
    X = np.c_[x, np.zeros_like(x)]
    stuck = SVC(kernel="linear", C=1.0, loss="ramp", solver="cccp").fit(X, y)
    extras = stuck.solution_.extras
    assert extras["hinge_objective"] == pytest.approx(2.0, abs=1e-9)
    # One step that does not lower J (a tie), then beta is unchanged.
    assert stuck.n_iter_ == 1 and extras["objectives"][1] == pytest.approx(2.0)
    assert stuck.converged_ and stuck.kkt_violation_ < 1e-9
    np.testing.assert_array_equal(extras["ignored"], [0, 1])
    good = SVC(kernel="linear", C=1.0, loss="ramp", solver="cccp").fit(
        X, y, init=[0, 0.5, 0.5, 0, 0]
    )
    assert good.solution_.extras["start"] == "init"
    assert good.objective_ == pytest.approx(1.5, abs=1e-12)
    assert good.kkt_violation_ < 1e-9


# -- (b) monotone outer loop, fixed points, KKT ---------------------------------------


@pytest.mark.parametrize("loss", list(LOSSES))
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("start", ["hinge", "zero"])
def test_objective_never_increases(loss, fit_intercept, start):
    steps = 0
    for seed in range(16):
        problem = _problem(seed, loss, fit_intercept=fit_intercept)
        sol = cccp.solve(problem, start=start, record_history=True)
        objectives = np.array(sol.extras["objectives"])
        assert np.all(np.diff(objectives) <= 1e-9 * np.abs(objectives[:-1]))
        # A rejected last step (a tie) never was a real increase either.
        stalled = sol.extras["stalled"]
        assert stalled is None or stalled <= 1e-9 * abs(sol.objective)
        np.testing.assert_allclose(sol.history.objective, objectives, rtol=1e-12)
        assert sol.history.iteration == list(range(sol.n_iter + 1))
        assert sol.objective == pytest.approx(objectives[-1], rel=1e-12)
        assert sol.converged and sol.extras["flipped"] == 0
        assert sol.kkt < 1e-8
        steps += sol.n_iter
    assert steps > 16  # the loop really ran (not just the start)


@pytest.mark.parametrize("loss", list(LOSSES))
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_final_objective_is_at_most_the_hinge_start(loss, fit_intercept):
    for seed in range(8):
        problem = _problem(seed, loss, fit_intercept=fit_intercept)
        sol = cccp.solve(problem)
        convex = Problem(problem.K, problem.y, CONVEX[loss], problem.C, fit_intercept)
        ref = qp.solve(convex)
        start = primal_objective(problem, ref.alpha, ref.b)
        assert sol.extras["start"] == "hinge"
        assert sol.extras["hinge_objective"] == pytest.approx(start, rel=1e-9)
        assert sol.objective <= start * (1 + 1e-12)
        if sol.n_iter:
            assert sol.objective < start


@pytest.mark.parametrize("loss", list(LOSSES))
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_fixed_point_conditions(loss, fit_intercept):
    """At a fixed point: alpha in [0, C]; alpha = 0 where m < 0 (ignored points);
    the hinge (squared-hinge) KKT conditions on the rest; sum alpha y = 0."""
    for seed in range(6):
        problem = _problem(seed + 3, loss, fit_intercept=fit_intercept)
        sol = cccp.solve(problem)
        a, y, C = sol.alpha, problem.y, problem.C
        m = y * (problem.K @ (a * y) + sol.b)
        assert sol.kkt < 1e-8
        assert kkt_violation(problem, a, sol.b) == sol.kkt
        assert a.min() >= 0.0 and a.max() <= C * (1 + 1e-12)
        np.testing.assert_array_equal(sol.extras["ignored"], np.flatnonzero(m < 0))
        assert np.all(a[m < 0] == 0.0)
        if fit_intercept:
            assert abs(a @ y) < 1e-9 * C * problem.n
        tol = 1e-7
        rest = m >= 0
        if loss == "ramp":
            assert np.all(m[rest & (a == 0)] >= 1 - tol)
            free = rest & (a > 0) & (a < C)
            np.testing.assert_allclose(m[free], 1.0, atol=tol)
            assert np.all(m[rest & (a == C)] <= 1 + tol)
        else:  # alpha_i = C (1 - m_i)_+ on m >= 0: the squared ramp's stationarity
            np.testing.assert_allclose(
                a[rest], C * np.maximum(0, 1 - m[rest]), atol=tol
            )


def test_without_outliers_in_the_way_cccp_is_the_hinge_solution():
    # Separable blobs: no margin below 0 at the hinge solution, so no step.
    X, y = datasets.make_blobs(80, noise=0.5, separation=4.0, random_state=1)
    ramp = SVC(kernel="linear", C=10.0, loss="ramp", solver="cccp").fit(X, y)
    hinge = SVC(kernel="linear", C=10.0, loss="hinge", solver="qp").fit(X, y)
    assert ramp.n_iter_ == 0 and ramp.converged_
    np.testing.assert_allclose(ramp.alpha_, hinge.alpha_, atol=1e-12)


def test_zero_start_reaches_the_hinge_start_one_step_later():
    for seed in range(6):
        problem = _problem(seed)
        hinge = cccp.solve(problem, start="hinge")
        zero = cccp.solve(problem, start="zero")
        assert zero.extras["objectives"][0] == pytest.approx(problem.C * problem.n)
        assert zero.n_iter == hinge.n_iter + 1
        assert zero.objective == pytest.approx(hinge.objective, rel=1e-10)
        np.testing.assert_allclose(
            problem.K @ (zero.alpha * problem.y) + zero.b,
            problem.K @ (hinge.alpha * problem.y) + hinge.b,
            atol=1e-7,
        )


# -- robustness: Sugiyama Fig. 27.17 ---------------------------------------------------


def test_outliers_move_the_hinge_boundary_but_not_the_ramp_boundary():
    """Six +1 outliers at (-d, 0) on the -1 side, linear kernel, C = 1, seed 0.

    Seen: the hinge boundary crosses the x1 axis at -0.086, -0.111, -0.225 for
    d = 4, 8, 16 (without the outliers: 0.081); the ramp boundary stays at 0.081:
    the outliers end with alpha = 0 and the solution is the hinge solution on the
    other 94 points.
    """
    k, hinge_at, ramp_at = 6, [], []
    for d in (4, 8, 16):
        X, y = _outlier_blobs(d, k)
        hinge = SVC(kernel="linear", C=1.0, loss="hinge", solver="qp").fit(X, y)
        ramp = SVC(kernel="linear", C=1.0, loss="ramp", solver="cccp").fit(X, y)
        clean = SVC(kernel="linear", C=1.0, solver="qp").fit(X[:-k], y[:-k])
        hinge_at.append(_boundary(hinge))
        ramp_at.append(_boundary(ramp))
        clean_at = _boundary(clean)
        assert np.all(ramp.alpha_[-k:] == 0.0)
        np.testing.assert_array_equal(
            ramp.solution_.extras["ignored"], np.arange(100 - k, 100)
        )
        assert ramp.kkt_violation_ < 1e-9
        grid = np.random.default_rng(d).uniform(-3, 3, size=(50, 2))
        np.testing.assert_allclose(
            ramp.decision_function(grid), clean.decision_function(grid), atol=1e-8
        )
        assert abs(hinge_at[-1] - clean_at) > 0.15  # seen 0.167, 0.192, 0.306
    assert np.ptp(ramp_at) < 1e-8
    assert np.ptp(hinge_at) > 0.1  # seen 0.139


def test_a_nearby_start_escapes_the_collapsed_hinge_optimum():
    """Eight outliers at d = 16 make the hinge solution collapse (w ~ 0: half the
    clean points wrong) and CCCP from it stays there; started from the ramp
    solution at d = 8 (a slider step away) it ignores the outliers again."""
    k = 8
    X8, y8 = _outlier_blobs(8, k)
    X16, y16 = _outlier_blobs(16, k)
    near = SVC(kernel="linear", C=1.0, loss="ramp", solver="cccp").fit(X8, y8)
    stuck = SVC(kernel="linear", C=1.0, loss="ramp", solver="cccp").fit(X16, y16)
    moved = SVC(kernel="linear", C=1.0, loss="ramp", solver="cccp").fit(
        X16, y16, init=near.alpha_
    )
    assert stuck.score(X16[:-k], y16[:-k]) < 0.6
    assert moved.score(X16[:-k], y16[:-k]) == 1.0
    assert moved.objective_ < 0.25 * stuck.objective_  # seen 9.6 vs 46.0
    assert np.all(moved.alpha_[-k:] == 0.0)
    assert moved.kkt_violation_ < 1e-9


# -- warm starts, history, inner solvers ---------------------------------------------


def test_warm_start_from_a_nearby_c_takes_fewer_outer_steps():
    problem = _problem(5, n=80, outliers=6)  # sigma 2, C = 1
    near = Problem(problem.K, problem.y, problem.loss, 1.2, True)
    first = cccp.solve(near)
    cold = cccp.solve(problem)
    warm = cccp.solve(problem, init=first.alpha)
    assert warm.extras["start"] == "init"
    assert cold.n_iter >= 2  # seen 2
    assert warm.n_iter < cold.n_iter  # seen 1
    assert warm.objective == pytest.approx(cold.objective, rel=1e-10)
    np.testing.assert_array_equal(warm.extras["ignored"], cold.extras["ignored"])
    # The warm step is solved by the active-set method alone (no interior point).
    assert [info["ip"] for info in warm.extras["inner_info"]] == [0]


def test_history_is_recorded_and_bounded():
    X, y = datasets.make_two_circles(150, random_state=0)
    model = SVC(C=10.0, loss="ramp", solver="cccp", sigma=0.5, record_history=True).fit(
        X, y
    )
    history = model.history_
    assert 2 <= len(history) == model.n_iter_ + 1 <= 200
    assert history.objective[0] == model.solution_.extras["hinge_objective"]
    assert history.objective[-1] == pytest.approx(model.objective_)
    assert history.kkt_violation[-1] < 1e-8 < history.kkt_violation[0]
    np.testing.assert_allclose(
        model.history_decision_function(X, len(history) - 1),
        model.decision_function(X),
        atol=1e-4,  # snapshots are float32
    )
    flips = model.solution_.extras["flips"]
    assert len(flips) == model.n_iter_ and flips[0] > 0


def test_max_iter_stops_without_convergence():
    problem = _problem(2, n=80, outliers=6)  # sigma 2, C = 10
    full = cccp.solve(problem)
    assert full.n_iter >= 3  # seen 4
    short = cccp.solve(problem, max_iter=1)
    assert short.n_iter == 1 and not short.converged
    assert short.extras["flipped"] > 0
    assert short.objective >= full.objective


@pytest.mark.parametrize("loss", list(LOSSES))
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_smo_inner_agrees_with_qp_inner(loss, fit_intercept):
    # No importorskip: smo is part of svmlab; if it cannot be imported, cccp falls
    # back to qp and this test must fail, not skip.
    for seed in range(4):
        problem = _problem(seed, loss, fit_intercept=fit_intercept)
        exact = cccp.solve(problem, inner="qp")
        fast = cccp.solve(problem, inner="smo", tol=1e-8)
        assert fast.extras["inner"] == "smo"
        assert "inner_fallback" not in fast.extras
        assert fast.kkt < 1e-7
        assert fast.objective == pytest.approx(exact.objective, rel=1e-6)
        np.testing.assert_array_equal(fast.extras["ignored"], exact.extras["ignored"])


def test_smo_missing_falls_back_to_qp(monkeypatch):
    monkeypatch.setitem(sys.modules, "svmlab.solvers.smo", None)  # import fails
    sol = cccp.solve(_problem(2), inner="smo")
    assert sol.extras["inner"] == "qp"
    assert "smo" in sol.extras["inner_fallback"]
    assert sol.kkt < 1e-8


def test_estimator_auto_picks_cccp_for_the_ramp():
    X, y = random_problem(0, n=50, outliers=3, kind="blobs")
    model = SVC(loss="ramp", C=5.0).fit(X, y)
    assert model.solver_ == "cccp"
    assert model.converged_ and model.kkt_violation_ < 1e-8
    assert set(solvers.valid_solvers("squared_ramp")) >= {"cccp"}
    assert "cccp" in solvers.valid_solvers("ramp", fit_intercept=False)


def test_bad_options_are_plain_errors():
    problem = _problem(0)
    with pytest.raises(ParameterError, match="start must be one of"):
        cccp.solve(problem, start="random")
    with pytest.raises(ParameterError, match="inner must be one of"):
        cccp.solve(problem, inner="newton")
    with pytest.raises(ParameterError, match="needs init"):
        cccp.solve(problem, start="init")
    with pytest.raises(ParameterError, match="no option 'shrinking'"):
        cccp.solve(problem, shrinking=True)
    hinge = Problem(problem.K, problem.y, Hinge(), 1.0, True)
    with pytest.raises(IncompatibleLossError, match="ramp"):
        cccp.solve(hinge)
    X, y = random_problem(0, n=30)
    with pytest.raises(IncompatibleLossError, match="cccp"):
        SVC(loss="hinge", solver="cccp").fit(X, y)
