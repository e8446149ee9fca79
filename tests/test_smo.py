"""SMO: agreement with the exact QP and LIBSVM, KKT, warm start, history, toys."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC as LibSVC

from svmlab import SVC, ParameterError, ProblemError
from svmlab.datasets import make_two_circles
from svmlab.kernels import gamma_from_sigma, gram
from svmlab.losses import Hinge, Ramp, SquaredHinge
from svmlab.solvers import Problem, qp, shrinking, smo
from svmlab.solvers.base import kkt_violation
from svmlab.solvers.shrinking import BoxSMO
from tests.conftest import random_problem
from tests.conftest import relative_difference as _rel

TOL = 1e-8
LOSSES = {"hinge": Hinge(), "squared_hinge": SquaredHinge()}


def _kernel(name: str, sigma: float = 1.0) -> tuple[dict, dict]:
    """svmlab's kernel parameters and scikit-learn's equivalent."""
    if name == "gaussian":
        return (
            {"kernel": "gaussian", "sigma": sigma},
            {"kernel": "rbf", "gamma": gamma_from_sigma(sigma)},
        )
    if name == "polynomial":
        return (
            {"kernel": "polynomial", "degree": 3, "coef0": 1.0},
            {"kernel": "poly", "degree": 3, "coef0": 1.0, "gamma": 1.0},
        )
    return {"kernel": "linear"}, {"kernel": "linear"}


# (seed, kernel, sigma, C, outliers): every kernel with every C, the Gaussian
# at every sigma twice (each time with other C's), with and without outliers.
_SETTINGS = [
    *(
        ("gaussian", sigma, C)
        for sigma, C in zip(
            (0.3, 1.0, 3.0) * 2, (0.01, 1.0, 100.0, 100.0, 0.01, 1.0), strict=True
        )
    ),
    *(
        (kernel, 1.0, C)
        for kernel in ("polynomial", "linear")
        for C in (0.01, 1.0, 100.0)
    ),
]
CASES = [
    (seed, *setting, outliers)
    for seed, (setting, outliers) in enumerate(
        zip(_SETTINGS, (0, 3, 0, 3, 3, 0, 0, 3, 0, 3, 0, 3), strict=True)
    )
]


def _problem(case, loss: str, fit_intercept: bool):
    seed, kernel, sigma, C, outliers = case
    X, y = random_problem(
        seed, n=60, outliers=outliers, kind="xor" if seed % 2 else "blobs"
    )
    params = _kernel(kernel, sigma)[0]
    K = gram(X, **params)
    return X, y, params, Problem(K, y, LOSSES[loss], C, fit_intercept)


@pytest.mark.parametrize("fit_intercept", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize("loss", list(LOSSES))
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[1]}-s{c[0]}-C{c[3]:g}")
def test_agrees_with_exact_qp(case, loss, fit_intercept, grid):
    X, y, params, problem = _problem(case, loss, fit_intercept)
    sol = smo.solve(problem, tol=TOL)
    ref = qp.solve(problem)
    assert sol.converged
    assert sol.kkt_violation() <= TOL
    assert sol.extras["final_gap"] <= TOL
    assert sol.objective == pytest.approx(ref.objective, rel=1e-4)
    # Weak duality closes: SMO's point is optimal, not merely stationary.
    assert sol.duality_gap() <= 1e-6 * max(1.0, abs(sol.objective))
    K_grid = gram(grid, X, **params)
    f_smo = K_grid @ (sol.alpha * y) + sol.b
    f_qp = K_grid @ (ref.alpha * y) + ref.b
    assert _rel(f_smo, f_qp) < 1e-3
    assert sol.alpha.min() >= 0.0
    if loss == "hinge":
        assert sol.alpha.max() <= problem.C
    if fit_intercept:
        assert abs(sol.alpha @ y) <= 1e-10 * max(1.0, sol.alpha.sum())
        assert sol.extras["working_pairs"] == sol.n_iter
    else:
        assert sol.b == 0.0
        assert sol.extras["coordinate_updates"] == sol.n_iter


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[1]}-s{c[0]}-C{c[3]:g}")
def test_hinge_agrees_with_libsvm(case, grid):
    X, y, params, problem = _problem(case, "hinge", True)
    sol = smo.solve(problem, tol=1e-6)
    lib = LibSVC(kernel="precomputed", C=problem.C, tol=1e-10).fit(problem.K, y)
    K_grid = gram(grid, X, **params)
    f_smo = K_grid @ (sol.alpha * y) + sol.b
    assert _rel(f_smo, lib.decision_function(K_grid)) < 1e-3
    assert sol.kkt_violation() <= 1e-6


@pytest.mark.parametrize("tol", [1e-1, 1e-2, 1e-3])
def test_tol_is_libsvm_eps(tol):
    """SMO's tol and LIBSVM's eps are one stopping rule, m(a) - M(a) <= tol: both
    stop with base.kkt_violation between tol / 10 and tol (LIBSVM's float32
    kernel cache may overshoot by a little)."""
    X, y = random_problem(2, n=200, kind="xor")
    K = gram(X, sigma=1.0)
    problem = Problem(K, y, Hinge(), 10.0, True)
    sol = smo.solve(problem, tol=tol)
    assert sol.converged
    assert tol / 10 < sol.kkt_violation() <= tol
    # The solver's own running measure is base's, up to round-off.
    assert sol.extras["final_gap"] == pytest.approx(sol.kkt_violation(), rel=1e-9)
    lib = LibSVC(kernel="precomputed", C=10.0, tol=tol).fit(K, y)
    alpha = np.zeros(y.size)
    alpha[lib.support_] = np.abs(lib.dual_coef_[0])
    lib_kkt = kkt_violation(problem, alpha, float(lib.intercept_[0]))
    assert tol / 10 < lib_kkt <= 1.05 * tol


def test_six_point_toy_is_solved_exactly():
    """scikit-learn's test_svm.py toy: alpha = 0.25 on points 1 and 3, b = 0."""
    X = np.array([[-2, -1], [-1, -1], [-1, -2], [1, 1], [1, 2], [2, 1]], float)
    y = np.array([1, 1, 1, 2, 2, 2])
    model = SVC(kernel="linear", C=1.0, solver="smo", tol=1e-12).fit(X, y)
    assert model.solver_ == "smo"
    np.testing.assert_allclose(model.alpha_, [0, 0.25, 0, 0.25, 0, 0], atol=1e-12)
    np.testing.assert_array_equal(model.support_, [1, 3])
    np.testing.assert_allclose(model.dual_coef_, [[-0.25, 0.25]], atol=1e-12)
    np.testing.assert_allclose(model.intercept_, [0.0], atol=1e-12)
    np.testing.assert_array_equal(model.predict([[-1, -1], [2, 2]]), [1, 2])


def test_max_iter_gives_unconverged_solution_and_warning():
    X, y = random_problem(3, n=60)
    problem = Problem(gram(X, sigma=1.0), y, Hinge(), 1.0, True)
    sol = smo.solve(problem, tol=1e-6, max_iter=3)
    assert not sol.converged
    assert sol.n_iter == 3 == sol.extras["working_pairs"]
    assert sol.extras["final_gap"] > 1e-6
    with pytest.warns(ConvergenceWarning, match="smo solver stopped after 3"):
        SVC(solver="smo", max_iter=3, tol=1e-6).fit(X, y)


@pytest.mark.parametrize("fit_intercept", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize("loss", list(LOSSES))
def test_warm_start_from_nearby_c_takes_fewer_iterations(loss, fit_intercept):
    X, y = random_problem(1, n=200, kind="blobs")
    K = gram(X, sigma=1.0)
    first = smo.solve(Problem(K, y, LOSSES[loss], 1.0, fit_intercept), tol=1e-6)
    problem = Problem(K, y, LOSSES[loss], 1.5, fit_intercept)
    cold = smo.solve(problem, tol=1e-6)
    warm = smo.solve(problem, tol=1e-6, init=first.alpha)
    assert cold.converged and warm.converged
    assert warm.n_iter < cold.n_iter
    assert warm.objective == pytest.approx(cold.objective, rel=1e-5)
    assert warm.kkt_violation() <= 1e-6


def test_infeasible_warm_start_is_repaired():
    X, y = random_problem(4, n=60)
    problem = Problem(gram(X, sigma=1.0), y, Hinge(), 1.0, True)
    init = np.linspace(-1.0, 3.0, 60)  # outside the box, sum a y != 0
    sol = smo.solve(problem, tol=1e-8, init=init)
    ref = qp.solve(problem)
    assert sol.converged and sol.kkt_violation() <= 1e-8
    assert sol.objective == pytest.approx(ref.objective, rel=1e-6)


@pytest.mark.parametrize(
    ("fit_intercept", "sigma"), [(True, 0.3), (False, 0.1)], ids=["bias", "no_bias"]
)
@pytest.mark.parametrize("loss", list(LOSSES))
def test_history_is_bounded_and_dual_rises(loss, fit_intercept, sigma):
    X, y = make_two_circles(300, random_state=0)
    problem = Problem(gram(X, sigma=sigma), y, LOSSES[loss], 1000.0, fit_intercept)
    sol = smo.solve(problem, tol=1e-8, record_history=True)
    h = sol.history
    assert sol.converged
    assert sol.n_iter > 3000  # long enough that the history had to thin itself
    assert 50 <= len(h) <= 200
    assert h.iteration[0] == 0 and np.all(np.diff(h.iteration) > 0)
    assert len(h.alpha) == len(h.objective) == len(h.kkt_violation) == len(h)
    dual = np.array(sol.extras["dual_history"])
    primal = np.array(h.objective)
    assert dual.shape == primal.shape
    # Every SMO step lowers 0.5 a'Qa - 1'a, i.e. raises the dual value.
    assert np.all(np.diff(dual) >= -1e-12 * np.abs(dual).max())
    assert dual[-1] <= sol.dual_objective + 1e-9 * abs(sol.dual_objective)
    # Weak duality at every snapshot; the gap closes on the last ones.
    assert np.all(primal >= dual - 1e-9 * np.abs(primal))
    assert primal[0] > sol.objective > dual[0]
    assert h.kkt_violation[0] > 1e-8 and min(h.kkt_violation) < 1e-3


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("loss", list(LOSSES))
def test_history_objectives_from_gradient_match_direct_evaluation(loss, fit_intercept):
    """The O(n) primal and dual used for the history equal base's O(n^2) ones."""
    X, y = random_problem(6, n=80, outliers=3)
    problem = Problem(gram(X, sigma=0.7), y, LOSSES[loss], 3.0, fit_intercept)
    sol = smo.solve(problem, tol=1e-3)  # not optimal: the identity must still hold
    a = sol.alpha
    ridge = 1.0 / problem.C if loss == "squared_hinge" else 0.0
    G = y * (problem.K @ (a * y)) + ridge * a - 1.0
    n = problem.n
    primal, dual = smo._objectives(
        y, a, G, np.full(n, ridge), sol.b, np.full(n, 3.0), loss == "squared_hinge"
    )
    assert primal == pytest.approx(sol.objective, rel=1e-12)
    assert dual == pytest.approx(sol.dual_objective, rel=1e-12)


@pytest.mark.parametrize("bias", ["none", "regularized"])
def test_estimator_bias_modes_match_qp(bias, grid):
    X, y = random_problem(8, n=80, outliers=3, kind="xor")
    ours = SVC(C=5.0, bias=bias, solver="smo", tol=1e-8).fit(X, y)
    ref = SVC(C=5.0, bias=bias, solver="qp").fit(X, y)
    assert ours.converged_ and ours.kkt_violation_ <= 1e-8
    assert ours.objective_ == pytest.approx(ref.objective_, rel=1e-6)
    assert _rel(ours.decision_function(grid), ref.decision_function(grid)) < 1e-4
    assert ours.solution_.extras["working_pairs"] == 0
    assert ours.solution_.extras["shrinking"] is True


def test_auto_picks_smo_and_refusals_are_plain():
    X, y = random_problem(9, n=40)
    assert SVC().fit(X, y).solver_ == "smo"
    problem = Problem(gram(X), y, Hinge(), 1.0, True)
    with pytest.raises(ParameterError, match="no option 'shrink'"):
        smo.solve(problem, shrink=True)
    with pytest.raises(ParameterError, match="cache_precision"):
        smo.solve(problem, cache_precision="float16")
    with pytest.raises(ProblemError, match="not the ramp loss"):
        smo.solve(Problem(gram(X), y, Ramp(), 1.0, True))
    with pytest.raises(ProblemError, match="finite C"):
        smo.solve(Problem(gram(X), y, Hinge(), math.inf, True))


@pytest.mark.parametrize("fit_intercept", [True, False], ids=["bias", "no_bias"])
def test_chunked_run_equals_one_compiled_call(fit_intercept):
    # solve() returns to Python every ~20 ms (budget and cancel checks); the
    # compiled loop resumes exactly (shrinking state included), so the answer is
    # that of one long call.
    X, y = random_problem(2, n=400, kind="xor")
    problem = Problem(gram(X, sigma=0.3), y, Hinge(), 100.0, fit_intercept)
    sol = smo.solve(problem, tol=1e-6, max_seconds=60.0)
    assert sol.n_iter > smo.FIRST_CHUNK  # more than one chunk
    state = BoxSMO(y, -np.ones(problem.n), 100.0, 0.0, fit_intercept, K=problem.K)
    args = (state.vec, state.src, state.cache, state.ist, 1e-6, True, state.mode)
    it, done = shrinking._chunk(*args, 0, 10**7)
    assert done and it == sol.n_iter
    np.testing.assert_array_equal(sol.alpha, state.alpha())
    assert sol.converged and sol.stop_reason == "converged"
