"""Large C (1e6 ... 1e12): the model is the hard-margin one, never silently lost.

References that do not share the code under test: closed forms on two points,
scikit-learn's LIBSVM on a precomputed Gram matrix, and the hard margin (C = inf,
solved by Clarabel inside the qp solver, while finite C goes through CVXOPT).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC as LibSVC

from svmlab import SVC

LARGE_C = [1e6, 1e8, 1e10, 1e12]
#: (solver, bias) pairs that minimise the hinge.
HINGE_SOLVERS = [
    ("qp", "unregularized"),
    ("smo", "unregularized"),
    ("qp", "none"),
    ("smo", "none"),
    ("coordinate", "none"),
    ("qp", "regularized"),
    ("smo", "regularized"),
    ("coordinate", "regularized"),
]


def _gaussian(A: np.ndarray, B: np.ndarray, sigma: float) -> np.ndarray:
    """exp(-||a - b||^2 / (2 sigma^2)) written out, independent of svmlab.kernels."""
    d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=2)
    return np.exp(-d2 / (2.0 * sigma**2))


def _fit(C: float, solver: str, bias: str, X, y, **params) -> SVC:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return SVC(
            C=C, solver=solver, bias=bias, tol=1e-6, max_iter=200_000, **params
        ).fit(X, y)


def _grid() -> np.ndarray:
    g = np.linspace(-3.0, 3.0, 13)
    return np.array([(a, b) for a in g for b in g])


def _check_consistent(
    model: SVC, X: np.ndarray, y: np.ndarray, k_max: float = 1.0
) -> None:
    """The stored margins are the decision function's, no SV coefficient lost.

    Both sum terms alpha_j y_j k(x_j, x_i) (|k| <= k_max) in different orders, so
    they agree up to a few rounding units of sum_j alpha_j k_max.
    """
    f = model.decision_function(X)
    assert np.all(np.isfinite(f))
    rounding = 1e-14 * k_max * float(np.abs(model.alpha_).sum())
    scale = max(1.0, float(np.abs(model.margins_).max()))
    np.testing.assert_allclose(model.margins_, y * f, atol=1e-9 * scale + rounding)
    np.testing.assert_array_equal(np.sort(model.support_), np.flatnonzero(model.alpha_))
    np.testing.assert_array_equal(
        model.dual_coef_[0], (model.alpha_ * model.y_fit_)[model.support_]
    )


# -- closed forms on two points --------------------------------------------------


@pytest.mark.parametrize("C", LARGE_C)
@pytest.mark.parametrize(("solver", "bias"), HINGE_SOLVERS)
def test_two_points_linear_closed_form(C, solver, bias):
    # x1 = (-3, 0), x2 = (3, 0): the hard margin is w = (1/3, 0), b = 0, each
    # alpha = 1 / (2 * 3^2) = 1/18 (far below 1e-8 C for C >= 1e8). Without a
    # bias and with K + 1 the symmetric answer is the same f(x) = x_1 / 3.
    X = np.array([[-3.0, 0.0], [3.0, 0.0]])
    y = np.array([-1.0, 1.0])
    model = _fit(C, solver, bias, X, y, kernel="linear")
    G = _grid()
    np.testing.assert_allclose(model.decision_function(G), G[:, 0] / 3.0, atol=1e-6)
    assert model.alpha_.sum() == pytest.approx(1.0 / 9.0, rel=1e-6)
    assert model.score(X, y) == 1.0
    _check_consistent(model, X, y, k_max=9.0)
    # The page counts SVs from sv_state_: every point with alpha > 0 is a free
    # SV (without a bias, K is singular here and the split of alpha is not
    # unique: the coordinate solver may put it all on one point).
    np.testing.assert_array_equal(model.sv_state_, model.alpha_ > 0)
    assert model.sv_state_.sum() >= 1


@pytest.mark.parametrize("C", LARGE_C)
@pytest.mark.parametrize(("solver", "bias"), HINGE_SOLVERS)
def test_two_points_gaussian_closed_form(C, solver, bias):
    # Two points at distance d: k12 = exp(-d^2 / (2 sigma^2)); by symmetry
    # alpha_1 = alpha_2 = 1 / (1 - k12), b = 0 and
    # f(x) = (k(x2, x) - k(x1, x)) / (1 - k12), for all three bias models.
    sigma = 0.7
    X = np.array([[-1.0, 0.5], [1.0, 0.5]])
    y = np.array([-1.0, 1.0])
    k12 = math.exp(-4.0 / (2.0 * sigma**2))
    model = _fit(C, solver, bias, X, y, kernel="gaussian", sigma=sigma)
    G = _grid()
    Kg = _gaussian(G, X, sigma)
    expected = (Kg[:, 1] - Kg[:, 0]) / (1.0 - k12)
    np.testing.assert_allclose(model.decision_function(G), expected, atol=1e-6)
    np.testing.assert_allclose(model.alpha_, 1.0 / (1.0 - k12), rtol=1e-6)
    _check_consistent(model, X, y)
    np.testing.assert_array_equal(model.sv_state_, [1, 1])


# -- scikit-learn and the hard margin on random data -----------------------------


def _separable(seed: int = 0, n: int = 40):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2.0, 2.0, size=(n, 2))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1.0, -1.0)
    return X, y


def _with_flipped_pair(seed: int = 3, n: int = 24, sigma: float = 1.0):
    """Separable points plus one point given twice with opposite labels.

    The pair cannot both be right, so the data are not separable. If the hard
    margin f_S on the other points has |f_S(x0)| < 1, both copies sit at
    alpha = C (their terms cancel in f and in sum alpha_i y_i) and f_S is the
    solution for every C above the largest alpha of f_S: a closed-form check of
    a non-separable fit at any large C.
    """
    X, y = _separable(seed, n)
    rng = np.random.default_rng(seed + 100)
    candidates = rng.uniform(-2.0, 2.0, size=(400, 2))
    # The candidate nearest the true boundary x1 + 0.5 x2 = 0.
    x0 = candidates[np.argmin(np.abs(candidates @ [1.0, 0.5]))]
    return X, y, np.vstack([X, x0, x0]), np.r_[y, 1.0, -1.0]


@pytest.mark.parametrize("C", LARGE_C)
@pytest.mark.parametrize("solver", ["qp", "smo"])
def test_separable_gaussian_agrees_with_libsvm(C, solver):
    X, y = _separable()
    sigma = 1.0
    K = _gaussian(X, X, sigma)
    lib = LibSVC(kernel="precomputed", C=C, tol=1e-8).fit(K, y)
    model = _fit(C, solver, "unregularized", X, y, sigma=sigma)
    G = _grid()
    f_lib = lib.decision_function(_gaussian(G, X, sigma))
    np.testing.assert_allclose(model.decision_function(G), f_lib, atol=1e-4)
    assert model.score(X, y) == lib.score(K, y) == 1.0
    assert set(model.support_) == set(lib.support_)
    _check_consistent(model, X, y)
    assert not model.fit_notes_


@pytest.mark.parametrize("C", LARGE_C)
@pytest.mark.parametrize(("solver", "bias"), HINGE_SOLVERS)
def test_separable_gaussian_is_the_hard_margin(C, solver, bias):
    X, y = _separable()
    hard = SVC(C=math.inf, solver="qp", bias=bias, sigma=1.0).fit(X, y)
    assert hard.alpha_.max() < 1e3  # so any C >= 1e6 is in the hard-margin regime
    model = _fit(C, solver, bias, X, y, sigma=1.0)
    G = _grid()
    np.testing.assert_allclose(
        model.decision_function(G), hard.decision_function(G), atol=1e-4
    )
    assert model.score(X, y) == 1.0
    assert np.count_nonzero(model.sv_state_) == hard.support_.size
    _check_consistent(model, X, y)


@pytest.mark.parametrize("C", LARGE_C)
@pytest.mark.parametrize(("solver", "bias"), HINGE_SOLVERS)
def test_non_separable_gaussian_is_never_silently_wrong(C, solver, bias):
    X, y, Xf, yf = _with_flipped_pair()
    hard = SVC(C=math.inf, solver="qp", bias=bias, sigma=1.0).fit(X, y)
    x0 = Xf[-1:]
    assert abs(hard.decision_function(x0)[0]) < 0.5  # the closed form applies
    G = _grid()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        model = SVC(
            C=C, solver=solver, bias=bias, sigma=1.0, tol=1e-6, max_iter=20_000
        ).fit(Xf, yf)
    _check_consistent(model, Xf, yf)
    if model.converged_:
        # f is the hard margin of the other points; exactly one copy of x0 is
        # misclassified.
        atol = 1e-3 if C >= 1e12 else 1e-5  # f sums terms of size C
        np.testing.assert_allclose(
            model.decision_function(G), hard.decision_function(G), atol=atol
        )
        assert np.mean(model.predict(Xf) != yf) == pytest.approx(1.0 / len(yf))
        np.testing.assert_allclose(model.alpha_[-2:], C)
    else:
        # Single-coordinate solvers climb towards alpha = C by steps of O(1),
        # and at C = 1e12 rounding keeps SMO's recomputed KKT residual above
        # 1e-6: they may stop early, but they must say so. The exact QP may not.
        assert solver != "qp"
        assert any(issubclass(w.category, ConvergenceWarning) for w in caught)
        assert model.fit_notes_


@pytest.mark.parametrize("C", LARGE_C)
@pytest.mark.parametrize("solver", ["qp", "smo"])
def test_non_separable_gaussian_agrees_with_libsvm(C, solver):
    _, _, X, y = _with_flipped_pair()
    K = _gaussian(X, X, 1.0)
    lib = LibSVC(kernel="precomputed", C=C, tol=1e-8).fit(K, y)
    model = _fit(C, solver, "unregularized", X, y, sigma=1.0)
    G = _grid()
    f_lib = lib.decision_function(_gaussian(G, X, 1.0))
    atol = 1e-3 if C >= 1e12 else 1e-5
    np.testing.assert_allclose(model.decision_function(G), f_lib, atol=atol)
    assert model.score(X, y) == lib.score(K, y)
    assert model.converged_ or model.fit_notes_


# -- what the page is told --------------------------------------------------------


def test_no_notes_for_a_well_scaled_fit():
    X, y = _separable()
    for C in (1.0, 1e12):
        model = SVC(C=C, solver="qp").fit(X, y)
        assert model.fit_notes_ == ()


def test_rounding_at_huge_C_is_noted():
    # alpha = 1e15 on the flipped pair: f sums terms of 1e15, whose rounding
    # (about 1e15 * 2.2e-16 = 0.2) is no longer small against a margin of 1.
    _, _, X, y = _with_flipped_pair()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = SVC(C=1e15, solver="qp").fit(X, y)
    assert model.fit_notes_
    note = " ".join(model.fit_notes_)
    assert "1e+15" in note and "smaller C" in note
    for text in model.fit_notes_:
        assert isinstance(text, str) and "\n" not in text and "np." not in text


def test_failed_kkt_check_at_large_C_is_noted():
    # Overlapping classes with a linear kernel: alpha = C on many points, and at
    # C = 1e8 the interior point cannot reach its accuracy. The fit may be
    # imperfect, but it must say so and it must not collapse to 0 SVs.
    rng = np.random.default_rng(1)
    y = np.where(np.arange(30) % 2 == 0, 1.0, -1.0)
    X = rng.normal(size=(30, 2)) + 0.8 * y[:, None]
    for C in (1e8, 1e12):
        for solver, bias in HINGE_SOLVERS:
            model = _fit(C, solver, bias, X, y, kernel="linear")
            _check_consistent(model, X, y, k_max=float((X**2).sum(axis=1).max()))
            assert model.support_.size > 0
            if model.kkt_violation_ > 1e-6:
                assert model.fit_notes_, (solver, bias, C)
