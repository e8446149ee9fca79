"""svmlab.solvers.family on problems solved by hand, Solver_NU against an
independent QP, the time budget and cancellation, and the unshrunk loop."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from svmlab import (
    EpsilonSVR,
    FitCancelled,
    NuSVC,
    OneClassSVM,
    ProblemError,
    cancel_when,
    datasets,
)
from svmlab.kernels import KernelRows, gram
from svmlab.solvers import family


@pytest.mark.parametrize("nu", [0.2, 0.5, 1.0])
def test_nu_svc_two_points_by_hand(nu):
    # x = +1 (y = +1) and x = -1 (y = -1), linear kernel: y'a = 0 and
    # 1'a = 2 nu force a = (nu, nu); G = Qa = (2 nu, 2 nu), both free, so
    # r = 2 nu, rho = 0 and coef = a y / r = (1/2, -1/2): f(x) = x.
    X = np.array([[1.0], [-1.0]])
    y = np.array([1.0, -1.0])
    sol = family.solve_nu_svc(y, nu, gram(X, kernel="linear"), tol=1e-12)
    np.testing.assert_allclose(sol.alpha, [nu, nu])
    np.testing.assert_allclose(sol.coef, [0.5, -0.5])
    assert sol.r == pytest.approx(2 * nu)
    assert sol.rho == pytest.approx(0.0, abs=1e-15)


def test_epsilon_svr_two_points_by_hand():
    # (0, 0) and (1, 1), linear kernel, eps = 0.1, C large: the flattest line
    # inside both tubes is f = 0.8 x + 0.1, so coef = (-0.8, 0.8), rho = -0.1.
    X = np.array([[0.0], [1.0]])
    t = np.array([0.0, 1.0])
    sol = family.solve_epsilon_svr(t, 10.0, 0.1, gram(X, kernel="linear"), tol=1e-12)
    np.testing.assert_allclose(sol.coef, [-0.8, 0.8], atol=1e-12)
    assert sol.rho == pytest.approx(-0.1)


def test_one_class_start_and_sum_are_libsvm_s():
    X, _ = datasets.make_blobs(50, random_state=0)
    sol = family.solve_one_class(0.33, 50, gram(X), tol=1e-9)
    assert sol.alpha.sum() == pytest.approx(0.33 * 50)
    assert np.all((sol.alpha >= 0) & (sol.alpha <= 1))


@pytest.mark.parametrize("nu", [0.05, 0.33, 0.5, 0.999, 1.0])
@pytest.mark.parametrize("n", [1, 7, 50, 333])
def test_filled_in_order_is_libsvm_s_one_class_start_to_the_bit(nu, n):
    # svm.cpp solve_one_class: the first floor(nu l) at 1, the next at
    # nu l - floor(nu l), the rest at 0.
    ref = np.zeros(n)
    full = int(nu * n)
    ref[:full] = 1.0
    if full < n:
        ref[full] = nu * n - full
    got = family.filled_in_order(np.ones(n), nu * n)
    np.testing.assert_array_equal(got, ref)


def test_filled_in_order_with_bounds_matches_the_cumulative_sum():
    # Every variable before the one that spills is at its bound, so
    # a_i = clip(total - sum_{j<i} U_j, 0, U_i): a closed form without the loop.
    rng = np.random.default_rng(3)
    bounds = rng.uniform(0.1, 2.0, 40)
    for total in (0.0, 0.05, 7.3, float(bounds.sum()) / 2.0, float(bounds.sum())):
        before = np.cumsum(bounds) - bounds
        ref = np.clip(total - before, 0.0, bounds)
        got = family.filled_in_order(bounds, total)
        np.testing.assert_allclose(got, ref, atol=1e-12)
        assert got.sum() == pytest.approx(total)


@pytest.mark.parametrize("shrinking", [True, False])
@pytest.mark.parametrize("precomputed", [True, False])
def test_nu_solver_with_and_without_shrinking_and_rows(shrinking, precomputed):
    # Shrinking and kernel rows on demand are speed-ups only: the same optimum.
    X, y = datasets.make_moons(200, noise=0.25, random_state=1)
    K = gram(X, sigma=0.5)
    source = K if precomputed else KernelRows(X, sigma=0.5)
    ref = family.solve_nu_svc(y, 0.37, K, shrinking=False, tol=1e-11)
    sol = family.solve_nu_svc(y, 0.37, source, shrinking=shrinking, tol=1e-11)
    np.testing.assert_allclose(sol.coef, ref.coef, atol=1e-7)
    assert sol.rho == pytest.approx(ref.rho, abs=1e-8)
    if shrinking:
        assert sol.extras["shrink_rounds"] > 0


@pytest.mark.parametrize(
    "settings",
    [
        {"kernel": "gaussian", "sigma": 0.7},
        {"kernel": "polynomial", "degree": 2, "coef0": 0.5, "scale": 0.3},
        {"kernel": "sigmoid", "scale": 0.2, "coef0": -0.1},
    ],
    ids=["gaussian", "polynomial", "sigmoid"],
)
@pytest.mark.parametrize("machine", ["epsilon", "nu"])
def test_svr_rows_on_demand_keep_every_kernel_setting(settings, machine):
    # The 2n SVR variables read the points twice from rows on demand; the
    # answer must be the one from the dense Gram matrix of the same kernel. (A
    # shift of K would not show: sum coef = 0 cancels it.)
    rng = np.random.default_rng(4)
    X = rng.uniform(-1.0, 1.0, (60, 2))
    t = np.sin(2.0 * X[:, 0]) + 0.1 * rng.standard_normal(60)
    K = gram(X, **settings)
    fit = (
        (lambda kernel: family.solve_epsilon_svr(t, 2.0, 0.1, kernel, tol=1e-10))
        if machine == "epsilon"
        else (lambda kernel: family.solve_nu_svr(t, 2.0, 0.4, kernel, tol=1e-10))
    )
    ref = fit(K)
    sol = fit(KernelRows(X, **settings))
    np.testing.assert_allclose(sol.coef, ref.coef, atol=1e-7)
    assert sol.rho == pytest.approx(ref.rho, abs=1e-7)


def test_nu_below_the_least_margin_errors_is_one_sentence():
    # Chang & Lin (2001): below nu_min (the least fraction of margin errors a
    # linear boundary leaves on heavily overlapping blobs) the optimum is w = 0
    # and r = 0.
    X, y = datasets.make_blobs(100, noise=3.0, separation=0.5, random_state=0)
    with pytest.raises(ProblemError, match="larger nu"):
        NuSVC(nu=0.02, kernel="linear", tol=1e-10).fit(X, y)
    assert NuSVC(nu=0.95, kernel="linear", tol=1e-10).fit(X, y).C_ > 0


def test_budget_and_cancel():
    X, y = datasets.make_two_circles(2000, noise=0.1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        # Cut off early, r may not be positive yet: then no model, one sentence.
        with pytest.raises((ConvergenceWarning, ProblemError), match="time budget"):
            NuSVC(nu=0.3, sigma=0.3, tol=1e-9, max_seconds=0.01).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = OneClassSVM(nu=0.2, tol=1e-12, max_iter=5).fit(X)
    assert model.stop_reason_ == "max_iter" and not model.converged_
    with pytest.raises(FitCancelled), cancel_when(lambda: True):
        EpsilonSVR().fit(X, y)
