"""Crammer-Singer with the linear kernel on w (issue 48): LIBLINEAR's ``-s 4``
answer on real data, the kernel path's optimum, its own checks."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_digits, load_wine
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from svmlab.errors import ParameterError
from svmlab.kernels import gram
from svmlab.solvers import crammer_singer
from svmlab.solvers.crammer_singer import CSDual
from svmlab.solvers.crammer_singer_linear import solve_linear
from svmlab.svm.multiclass import CrammerSingerSVC


def _scaled(loader, n: int | None = None):
    X, y = loader(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    return (X, y) if n is None else (X[:n], y[:n])


@pytest.mark.parametrize("loader", [load_wine, load_digits])
def test_the_linear_path_gives_liblinears_decision_values(loader):
    X, y = _scaled(loader, 600)
    ours = CrammerSingerSVC(C=0.1, kernel="linear", bias="regularized", tol=1e-6)
    ours.fit(X, y)
    theirs = LinearSVC(
        C=0.1, multi_class="crammer_singer", tol=1e-8, max_iter=100_000, random_state=0
    ).fit(X, y)
    assert ours.solver_ == "linear" and ours.converged_
    f, f_lib = ours.decision_function(X), theirs.decision_function(X)
    assert np.abs(f - f_lib).max() <= 1e-5 * np.abs(f_lib).max()
    # The same class wherever LIBLINEAR's two best scores are not a near tie
    # (seen: wine's point 109, its two scores 1e-7 apart).
    top2 = np.sort(f_lib, axis=1)[:, -2:]
    clear = top2[:, 1] - top2[:, 0] > 1e-5 * np.abs(f_lib).max()
    assert clear.mean() > 0.95
    np.testing.assert_array_equal(ours.predict(X)[clear], theirs.predict(X)[clear])


@pytest.mark.parametrize("bias", ["none", "regularized"])
def test_the_linear_path_reaches_the_kernel_paths_optimum(bias):
    X, y = _scaled(load_wine)
    linear = CrammerSingerSVC(C=1.0, kernel="linear", bias=bias, tol=1e-8).fit(X, y)
    K = gram(X, kernel="linear") + (1.0 if bias == "regularized" else 0.0)
    exact = crammer_singer.solve_qp(CSDual(K, y, 3, 1.0), tol=1e-8)
    assert linear.objective_ == pytest.approx(exact.objective, rel=1e-8)
    np.testing.assert_allclose(K @ linear.alpha_, K @ exact.alpha, atol=1e-5)
    # The model's fitted numbers are the kernel path's: margins from K alpha.
    F = K @ linear.alpha_
    rows = np.arange(len(y))
    own = F[rows, y].copy()
    F[rows, y] = -np.inf
    np.testing.assert_allclose(linear.margins_, own - F.max(axis=1), atol=1e-10)


def test_the_dual_stays_feasible_and_the_kkt_check_is_afresh():
    X, y = _scaled(load_digits, 400)
    solution, W = solve_linear(X, y, 10, 0.5, tol=1e-4)
    a = solution.alpha
    np.testing.assert_allclose(a.sum(axis=1), 0.0, atol=1e-12)
    own = a[np.arange(len(y)), y]
    assert np.all(own <= 0.5) and np.all(own >= -1e-12)
    others = a.copy()
    others[np.arange(len(y)), y] = -np.inf
    assert np.all(others <= 0.0)
    np.testing.assert_allclose(W, X.T @ a, atol=1e-10)
    F = X @ (X.T @ a)
    assert crammer_singer.block_violations(F, a, y, 0.5).max() == pytest.approx(
        solution.kkt
    )
    assert solution.converged and solution.kkt <= 1e-4


def test_a_sweep_cap_is_reported_not_hidden():
    X, y = _scaled(load_digits, 400)
    with pytest.warns(Warning, match="stopped"):
        model = CrammerSingerSVC(C=10.0, kernel="linear", tol=1e-9, max_iter=2)
        model.fit(X, y)
    assert not model.converged_ and model.stop_reason_ == "max_iter"


def test_the_linear_solver_needs_the_linear_kernel():
    X, y = _scaled(load_wine)
    with pytest.raises(ParameterError, match="linear kernel"):
        CrammerSingerSVC(kernel="gaussian", solver="linear").fit(X, y)
    # Asked for explicitly, the kernel path still runs the linear kernel.
    model = CrammerSingerSVC(kernel="linear", solver="blocks", tol=1e-6).fit(X, y)
    assert model.solver_ == "blocks" and model.converged_


@pytest.mark.parametrize("k", [4, 10, 70])
@pytest.mark.parametrize("own_active", [True, False])
def test_a_blocks_sub_problem_matches_bisection_on_its_kkt_conditions(k, own_active):
    """One block's minimiser, ``min 1/2 A |a|^2 + B'a`` with the entries summing
    to 0 (to -C when the own entry sits at C outside the block), the own entry
    ``<= C`` and the others ``<= 0``. Its KKT conditions give
    ``a_m = min(u_m, (beta - B_m) / A)`` with ``sum a = total``, increasing in
    ``beta``: bisection on beta is the reference (no sorting), for the in-place
    sort (up to 64 entries) and numpy's (past 64) alike."""
    rng = np.random.default_rng(k)
    C = 1.5
    for _ in range(5):
        A = float(rng.uniform(0.5, 3.0))
        B = rng.normal(size=k) * 2.0
        own = int(rng.integers(k)) if own_active else -1
        out = np.empty(k)
        crammer_singer.block_sub_problem(A, B, own, C, k, out)
        upper = np.zeros(k)
        if own >= 0:
            upper[own] = C
        total = 0.0 if own >= 0 else -C
        low, high = -1e6, 1e6
        for _ in range(200):
            mid = 0.5 * (low + high)
            below = np.minimum(upper, (mid - B) / A).sum() < total
            low, high = (mid, high) if below else (low, mid)
        beta = 0.5 * (low + high)
        np.testing.assert_allclose(out, np.minimum(upper, (beta - B) / A), atol=1e-9)
        assert out.sum() == pytest.approx(total, abs=1e-9)
