"""The exact QP solver: agreement with LIBSVM, KKT conditions, toy problems."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.svm import SVC as LibSVC

from svmlab import SVC, ProblemError
from svmlab.kernels import gamma_from_sigma, gram
from svmlab.losses import Hinge, SquaredHinge
from svmlab.solvers import Problem, solve
from tests.conftest import random_problem
from tests.conftest import relative_difference as _rel

KERNELS = {
    "gaussian": (
        {"kernel": "gaussian", "sigma": 0.8},
        {"kernel": "rbf", "gamma": gamma_from_sigma(0.8)},
    ),
    "polynomial": (
        {"kernel": "polynomial", "degree": 3, "coef0": 1.0},
        {"kernel": "poly", "degree": 3, "coef0": 1.0, "gamma": 1.0},
    ),
    "linear": ({"kernel": "linear"}, {"kernel": "linear"}),
}


@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("outliers", [0, 3])
@pytest.mark.parametrize("seed", range(6))
def test_hinge_qp_agrees_with_libsvm(kernel, outliers, seed, grid):
    X, y = random_problem(
        seed, n=60, outliers=outliers, kind="xor" if seed % 2 else "blobs"
    )
    C = [0.1, 1.0, 10.0][seed % 3]
    ours_params, lib_params = KERNELS[kernel]
    ours = SVC(C=C, loss="hinge", solver="qp", **ours_params).fit(X, y)
    lib = LibSVC(C=C, tol=1e-10, **lib_params).fit(X, y)
    assert _rel(ours.decision_function(grid), lib.decision_function(grid)) < 1e-3
    # Same support set away from ties: points whose margin is clearly not 1.
    clear = np.abs(ours.margins_ - 1.0) > 1e-4
    ours_sv = set(np.flatnonzero(clear & (ours.sv_state_ > 0)))
    lib_sv = set(lib.support_) & set(np.flatnonzero(clear))
    assert ours_sv == lib_sv
    assert ours.kkt_violation_ < 1e-6
    assert ours.duality_gap_ == pytest.approx(0.0, abs=1e-6 * max(1.0, ours.objective_))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize(
    "loss", [Hinge(), SquaredHinge()], ids=["hinge", "squared_hinge"]
)
@pytest.mark.parametrize("C", [0.01, 1.0, 1e3])
def test_kkt_conditions_hold(seed, fit_intercept, loss, C):
    X, y = random_problem(seed, n=80)
    K = gram(X, sigma=[0.3, 1.0, 3.0, 1.0][seed])
    sol = solve(Problem(K, y, loss, C, fit_intercept), method="qp")
    assert sol.converged
    assert sol.kkt_violation() < 1e-6
    a = sol.alpha
    assert a.min() >= 0.0
    if loss.name == "hinge":
        assert a.max() <= C
    if fit_intercept:
        assert abs(a @ y) < 1e-8 * max(1.0, a.sum())
    # Complementary slackness, checked directly on the margins (Sugiyama 27.3).
    m = y * (K @ (a * y) + sol.b)
    tol = 1e-6
    if loss.name == "hinge":
        assert np.all(m[a <= 1e-12] >= 1 - tol)
        free = (a > 1e-12) & (a < C - 1e-12)
        np.testing.assert_allclose(m[free], 1.0, atol=tol)
        assert np.all(m[a >= C - 1e-12] <= 1 + tol)
    else:  # squared hinge: xi_i = alpha_i / C at the optimum (MATH.md)
        np.testing.assert_allclose(np.maximum(0, 1 - m), a / C, atol=tol)


def test_squared_hinge_primal_equals_dual():
    X, y = random_problem(3, n=70)
    model = SVC(C=5.0, loss="squared_hinge", solver="qp", sigma=0.7).fit(X, y)
    assert model.objective_ == pytest.approx(model.dual_objective_, rel=1e-8)


def test_six_point_toy_problem():
    # scikit-learn's test_svm.py toy: exact solution alpha = 1/4 on two points.
    X = np.array([[-2, -1], [-1, -1], [-1, -2], [1, 1], [1, 2], [2, 1]], float)
    y = np.array([1, 1, 1, 2, 2, 2])
    model = SVC(kernel="linear", C=1.0, solver="qp").fit(X, y)
    np.testing.assert_array_equal(model.support_, [1, 3])
    np.testing.assert_allclose(model.dual_coef_, [[-0.25, 0.25]], atol=1e-12)
    np.testing.assert_allclose(model.intercept_, [0.0], atol=1e-12)
    np.testing.assert_array_equal(model.predict([[-1, -1], [2, 2]]), [1, 2])
    # Both SVs are free: exactly on the margin.
    np.testing.assert_allclose(model.margins_[[1, 3]], 1.0, atol=1e-12)
    np.testing.assert_array_equal(model.sv_state_, [0, 1, 0, 1, 0, 0])


def test_hard_margin_equals_large_c_and_fails_when_not_separable():
    X = np.array([[-2, -1], [-1, -1], [-1, -2], [1, 1], [1, 2], [2, 1]], float)
    y = np.array([-1, -1, -1, 1, 1, 1])
    hard = SVC(kernel="linear", C=math.inf, solver="qp").fit(X, y)
    np.testing.assert_allclose(hard.alpha_, [0, 0.25, 0, 0.25, 0, 0], atol=1e-10)
    assert hard.objective_ == pytest.approx(0.25)  # 0.5 ||w||^2, w = (1/2, 1/2)
    X_xor = np.array([[1, 1], [-1, -1], [1, -1], [-1, 1]], float)
    y_xor = np.array([1, 1, -1, -1])
    with pytest.raises(ProblemError, match="cannot be separated"):
        SVC(kernel="linear", C=math.inf).fit(X_xor, y_xor)


def test_no_bias_and_regularized_bias_models():
    X, y = random_problem(5, n=60)
    none = SVC(C=2.0, bias="none", solver="qp").fit(X, y)
    assert none.intercept_[0] == 0.0
    assert none.kkt_violation_ < 1e-8
    reg = SVC(C=2.0, bias="regularized", solver="qp").fit(X, y)
    # The regularized bias is the hinge problem on k + 1 with no equality.
    K1 = gram(X, sigma=1.0) + 1.0
    sol = solve(Problem(K1, y, Hinge(), 2.0, False), method="qp")
    np.testing.assert_allclose(reg.alpha_, sol.alpha, atol=1e-8)
    f = K1 @ (sol.alpha * y)
    np.testing.assert_allclose(reg.decision_function(X), f, atol=1e-8)
    assert reg.intercept_[0] == pytest.approx(sol.alpha @ y)
