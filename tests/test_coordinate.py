"""Coordinate ascent (Rifkin): agreement with the exact QP without an unregularized
bias, the regularized bias through SVC, refusal of the unregularized bias, warm
start, history, non-convergence."""

from __future__ import annotations

import math

import numpy as np
import pytest

from svmlab import SVC
from svmlab.errors import IncompatibleLossError, ParameterError, ProblemError
from svmlab.kernels import gram
from svmlab.losses import Hinge, Ramp, SquaredHinge
from svmlab.solvers import Problem, coordinate, qp
from svmlab.solvers.base import kkt_violation
from tests.conftest import random_problem, warns_when_stopped_early
from tests.conftest import relative_difference as _rel

KERNELS = {
    "gaussian": {"kernel": "gaussian", "sigma": 0.8},
    "polynomial": {"kernel": "polynomial", "degree": 3, "coef0": 1.0},
    "linear": {"kernel": "linear"},
}
LOSSES = {"hinge": Hinge(), "squared_hinge": SquaredHinge()}


def _problem(seed, kernel, loss, C, n=60):
    X, y = random_problem(
        seed, n=n, outliers=3 * (seed % 2), kind="xor" if seed % 2 else "blobs"
    )
    return Problem(gram(X, **KERNELS[kernel]), y, LOSSES[loss], C, False)


@pytest.mark.parametrize("order", ["cyclic", "greedy"])
@pytest.mark.parametrize("loss", list(LOSSES))
@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("seed", range(6))
def test_equals_qp_without_bias(seed, kernel, loss, order):
    C = [0.1, 1.0, 10.0][seed % 3]
    problem = _problem(seed, kernel, loss, C)
    ref = qp.solve(problem)
    tol = 1e-6
    sol = coordinate.solve(problem, tol=tol, max_iter=100_000, order=order)
    assert sol.converged
    assert sol.kkt_violation() <= tol
    assert sol.b == 0.0
    assert sol.objective == pytest.approx(ref.objective, rel=1e-4)
    K, y = problem.K, problem.y
    assert _rel(K @ (sol.alpha * y), K @ (ref.alpha * y)) < 1e-3
    # Dual feasible at every step: the box holds exactly.
    assert sol.alpha.min() >= 0.0
    if loss == "hinge":
        assert sol.alpha.max() <= C
    # Its own stopping measure is the shared KKT check (never looser).
    assert sol.kkt_violation() <= sol.extras["violation"] + 1e-12


@pytest.mark.parametrize("loss", list(LOSSES))
def test_default_tol_is_met_and_close(loss):
    problem = _problem(2, "gaussian", loss, 1.0, n=80)
    sol = coordinate.solve(problem)
    assert sol.converged
    assert sol.kkt_violation() <= 1e-3
    ref = qp.solve(problem)
    assert sol.objective == pytest.approx(ref.objective, rel=1e-3)


@pytest.mark.parametrize("C", [0.5, 2.0, 1e6])
def test_far_apart_points_have_closed_form(C):
    # K = I: the subproblems decouple; hinge a_i = min(1, C), squared hinge
    # a_i = 1 / (1 + 1/C) (the dual on K + I/C), each in one update.
    X = np.array([[0.0, 0.0], [100.0, 0.0], [0.0, 100.0]])
    y = np.array([1.0, -1.0, 1.0])
    K = gram(X, sigma=1.0)
    np.testing.assert_array_equal(K, np.eye(3))
    hinge = coordinate.solve(Problem(K, y, Hinge(), C, False), tol=1e-12)
    np.testing.assert_allclose(hinge.alpha, min(1.0, C), rtol=1e-15)
    assert hinge.n_iter == 1
    sq = coordinate.solve(Problem(K, y, SquaredHinge(), C, False), tol=1e-12)
    np.testing.assert_allclose(sq.alpha, C / (C + 1.0), rtol=1e-14)
    assert sq.n_iter == 1


@pytest.mark.parametrize("loss", list(LOSSES))
def test_regularized_bias_through_svc_equals_qp_on_k_plus_one(loss):
    X, y = random_problem(4, n=70)
    C = 3.0
    model = SVC(
        C=C, loss=loss, solver="coordinate", bias="regularized", tol=1e-7, sigma=0.9
    ).fit(X, y)
    assert model.solver_ == "coordinate"
    K1 = gram(X, sigma=0.9) + 1.0
    ref = qp.solve(Problem(K1, y, LOSSES[loss], C, False))
    assert model.objective_ == pytest.approx(ref.objective, rel=1e-6)
    f_ref = K1 @ (ref.alpha * y)
    assert _rel(model.decision_function(X), f_ref) < 1e-4
    assert model.intercept_[0] == pytest.approx(float(ref.alpha @ y), abs=1e-3)
    assert model.kkt_violation_ <= 1e-7


def test_bias_none_through_svc():
    X, y = random_problem(1, n=50)
    model = SVC(C=2.0, solver="coordinate", bias="none", tol=1e-6).fit(X, y)
    ref = SVC(C=2.0, solver="qp", bias="none").fit(X, y)
    assert model.intercept_[0] == 0.0
    assert model.objective_ == pytest.approx(ref.objective_, rel=1e-4)
    assert _rel(model.decision_function(X), ref.decision_function(X)) < 1e-3


def test_unregularized_bias_is_refused_with_the_valid_solvers():
    X, y = random_problem(0, n=30)
    with pytest.raises(IncompatibleLossError, match="unregularized bias") as info:
        SVC(solver="coordinate", bias="unregularized").fit(X, y)
    assert "qp" in info.value.valid
    assert "coordinate" not in info.value.valid
    assert "qp" in str(info.value)
    # The module refuses it too when called directly.
    K = gram(X)
    with pytest.raises(IncompatibleLossError, match="unregularized bias"):
        coordinate.solve(Problem(K, y, Hinge(), 1.0, True))
    with pytest.raises(IncompatibleLossError, match="ramp"):
        coordinate.solve(Problem(K, y, Ramp(), 1.0, False))


def test_other_refusals():
    X, y = random_problem(0, n=20)
    problem = Problem(gram(X), y, Hinge(), 1.0, False)
    with pytest.raises(ParameterError, match="order"):
        coordinate.solve(problem, order="random")
    with pytest.raises(ParameterError, match="Unknown option"):
        coordinate.solve(problem, step=0.5)
    with pytest.raises(ProblemError, match="finite C"):
        coordinate.solve(Problem(gram(X), y, Hinge(), math.inf, False))
    bad = gram(X)
    bad[0, 1] = np.nan
    with pytest.raises(ProblemError, match="NaN"):
        coordinate.solve(Problem(bad, y, Hinge(), 1.0, False))


@pytest.mark.parametrize("order", ["cyclic", "greedy"])
@pytest.mark.parametrize("loss", list(LOSSES))
def test_warm_start_from_nearby_c(loss, order):
    base = _problem(3, "gaussian", loss, 10.0, n=80)
    near = Problem(base.K, base.y, base.loss, 12.0, False)
    first = coordinate.solve(base, tol=1e-6, max_iter=100_000, order=order)
    cold = coordinate.solve(near, tol=1e-6, max_iter=100_000, order=order)
    warm = coordinate.solve(
        near, tol=1e-6, max_iter=100_000, order=order, init=first.alpha
    )
    assert cold.converged and warm.converged
    assert warm.n_iter < cold.n_iter
    assert warm.objective == pytest.approx(cold.objective, rel=1e-5)
    K, y = near.K, near.y
    assert _rel(K @ (warm.alpha * y), K @ (cold.alpha * y)) < 1e-3


@pytest.mark.parametrize("order", ["cyclic", "greedy"])
def test_warm_start_is_clipped_to_the_box(order):
    # Why the clip matters: the projected gradient reads a_i > C with G_i < 0 as
    # "at the upper bound", so greedy order never visits such a coordinate and an
    # unclipped start "converges" outside the box with the wrong objective.
    problem = _problem(0, "gaussian", "hinge", 1.0)
    init = np.full(problem.n, 5.0)  # outside [0, C]
    init[0] = -1.0
    # With no epoch the returned point is the start as the solver sees it.
    start = coordinate.solve(problem, init=init, max_iter=0, order=order)
    np.testing.assert_array_equal(start.alpha, np.r_[0.0, np.ones(problem.n - 1)])
    sol = coordinate.solve(problem, tol=1e-6, max_iter=100_000, init=init, order=order)
    ref = qp.solve(problem)
    assert sol.converged
    assert sol.alpha.min() >= 0.0
    assert sol.alpha.max() <= 1.0
    assert sol.kkt_violation() <= 1e-6
    assert sol.objective == pytest.approx(ref.objective, rel=1e-4)


@pytest.mark.parametrize("order", ["cyclic", "greedy"])
def test_history_is_recorded_bounded_and_ends_at_the_answer(order):
    # Polynomial kernel, squared hinge, C = 10: thousands of epochs.
    problem = _problem(0, "polynomial", "squared_hinge", 10.0, n=80)
    sol = coordinate.solve(
        problem, tol=1e-6, max_iter=100_000, order=order, record_history=True
    )
    h = sol.history
    assert sol.converged
    assert 2 <= len(h) <= h.max_snapshots
    if order == "cyclic":
        assert sol.n_iter > h.max_snapshots and h.stride > 1
    assert h.iteration[0] == 0
    assert np.all(np.diff(h.iteration) > 0)
    assert h.iteration[-1] == sol.n_iter
    assert np.all(np.diff(h.time) >= 0)
    # The last record is the returned point, scored by the shared formulas.
    assert h.objective[-1] == pytest.approx(sol.objective, rel=1e-10)
    assert h.kkt_violation[-1] == pytest.approx(sol.extras["violation"], rel=1e-10)
    np.testing.assert_allclose(h.alpha[-1], sol.alpha, rtol=1e-6)
    # The O(n) records agree with the shared O(n^2) check at a middle snapshot.
    mid = len(h) // 2
    alpha = np.asarray(h.alpha[mid], dtype=np.float64)
    assert h.kkt_violation[mid] == pytest.approx(
        kkt_violation(problem, alpha, 0.0), rel=1e-3, abs=1e-5
    )
    # Coordinate ascent decreases the dual objective; the primal ends at its
    # minimum, below every recorded value (weak duality).
    assert min(h.objective) >= sol.objective - 1e-9 * abs(sol.objective)
    assert h.objective[0] > sol.objective


def test_no_history_unless_asked():
    sol = coordinate.solve(_problem(1, "gaussian", "hinge", 1.0))
    assert len(sol.history) == 0


def test_non_convergence_is_flagged_not_raised():
    problem = _problem(0, "polynomial", "hinge", 10.0)
    sol = coordinate.solve(problem, tol=1e-8, max_iter=3)
    assert not sol.converged
    assert sol.n_iter == 3
    assert sol.kkt_violation() > 1e-8
    X, y = random_problem(0, n=60, kind="blobs")
    warns_when_stopped_early(X, y, "coordinate", bias="none", tol=1e-8, max_iter=2)


def test_reproducible_and_global_rng_untouched():
    problem = _problem(5, "gaussian", "hinge", 10.0)
    state = np.random.get_state()[1].copy()  # noqa: NPY002 (the global state)
    a = coordinate.solve(problem, tol=1e-5, random_state=7)
    b = coordinate.solve(problem, tol=1e-5, random_state=7)
    np.testing.assert_array_equal(a.alpha, b.alpha)
    assert a.n_iter == b.n_iter
    np.testing.assert_array_equal(np.random.get_state()[1], state)  # noqa: NPY002
    c = coordinate.solve(problem, tol=1e-5, random_state=8)
    assert c.objective == pytest.approx(a.objective, rel=1e-4)


def test_greedy_counts_epochs_of_n_updates():
    problem = _problem(1, "gaussian", "hinge", 1.0)
    sol = coordinate.solve(problem, tol=1e-6, order="greedy", max_iter=100_000)
    n, updates = problem.n, sol.extras["updates"]
    assert updates > 0
    assert sol.n_iter == math.ceil(updates / n)
    cyc = coordinate.solve(problem, tol=1e-6, order="cyclic", max_iter=100_000)
    # Cyclic epochs visit the active coordinates only (shrinking, issue 16).
    assert 0 < cyc.extras["updates"] <= cyc.n_iter * n


def test_the_answer_does_not_depend_on_where_the_compiled_chunks_end():
    # The epochs run in chunks between budget checks and history records; epoch
    # e always uses the permutation seeded by (random_state, e), so a run that
    # returns to Python after every epoch (record_history) lands on the same
    # bits as one that does not.
    problem = _problem(3, "gaussian", "hinge", 10.0, n=80)
    kw = {"tol": 1e-6, "max_iter": 100_000, "random_state": 3}
    plain = coordinate.solve(problem, **kw)
    recorded = coordinate.solve(problem, record_history=True, **kw)
    budgeted = coordinate.solve(problem, max_seconds=60.0, **kw)
    assert plain.n_iter > 10 and plain.converged
    for other in (recorded, budgeted):
        np.testing.assert_array_equal(other.alpha, plain.alpha)
        assert other.n_iter == plain.n_iter
    assert plain.stop_reason == "converged"


def test_budget_returns_a_point_in_the_box():
    X, y = random_problem(0, n=1500, kind="xor")
    problem = Problem(gram(X, sigma=0.5), y, Hinge(), 1e5, False)
    sol = coordinate.solve(problem, tol=1e-300, max_iter=10**9, max_seconds=0.2)
    assert sol.stop_reason == "max_seconds" and not sol.converged
    assert sol.alpha.min() >= 0.0 and sol.alpha.max() <= 1e5
    assert sol.n_iter >= 1
