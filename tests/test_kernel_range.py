"""Kernel parameters at the edges of floating point: finite and right, or a
ParameterError that says which value and what works (issue 14, item 5).

References do not use svmlab's conversions: gamma is written out as
``0.5 / s**2``, the Gaussian kernel is also a plain loop, and the limits are closed
forms (K = I for tiny sigma and distinct points, K = 1 for huge sigma).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC as LibSVC

from svmlab import SVC, DataError, ParameterError, SvmlabError
from svmlab.kernels import gamma_from_sigma, gram, sigma_from_gamma
from tests.conftest import gaussian_by_pairs

EXTREME_SIGMAS = [1e-300, 1e-200, 1e-160, 1e-20, 1e20, 1e160, 1e300]
TINY = [s for s in EXTREME_SIGMAS if s < 1]
HUGE = [s for s in EXTREME_SIGMAS if s > 1]
BAD_TYPES = (ZeroDivisionError, OverflowError, FloatingPointError)


def _points(n: int, d: int, seed: int = 0) -> np.ndarray:
    """Distinct points (pairwise distances of order 1)."""
    return np.random.default_rng(seed).normal(size=(n, d))


@pytest.mark.parametrize("s", EXTREME_SIGMAS)
def test_gamma_from_sigma_is_finite_or_a_parameter_error(s):
    # 0.5 / s / s never divides by zero (s * s may underflow to 0).
    expected = 0.5 / s / s
    if math.isfinite(expected):
        assert gamma_from_sigma(s) == pytest.approx(expected, rel=1e-12, abs=1e-300)
    else:
        with pytest.raises(ParameterError, match=r"sigma = 1e-\d+ .*at least"):
            gamma_from_sigma(s)


def test_sigma_from_gamma_rejects_gamma_zero_and_round_trips():
    with pytest.raises(ParameterError, match="gamma"):
        sigma_from_gamma(0.0)
    for s in (1e-20, 1e-3, 1.0, 1e3, 1e20):
        assert sigma_from_gamma(0.5 / s**2) == pytest.approx(s, rel=1e-12)


@pytest.mark.parametrize("d", [2, 20])  # the compiled loop and the BLAS path
@pytest.mark.parametrize("s", TINY)
def test_tiny_sigma_gives_the_identity(s, d):
    X = _points(12, d)
    K = gram(X, sigma=s)
    np.testing.assert_array_equal(K, np.eye(12))
    np.testing.assert_array_equal(gram(X, X.copy(), sigma=s), np.eye(12))
    np.testing.assert_array_equal(gram(X, _points(5, d, seed=1), sigma=s), 0.0)


@pytest.mark.parametrize("d", [2, 20])
@pytest.mark.parametrize("s", HUGE)
def test_huge_sigma_gives_all_ones(s, d):
    X = _points(12, d)
    np.testing.assert_allclose(gram(X, sigma=s), 1.0, rtol=0, atol=1e-15)
    np.testing.assert_allclose(
        gram(X, _points(5, d, seed=1), sigma=s), 1.0, rtol=0, atol=1e-15
    )


@pytest.mark.parametrize("d", [1, 3, 20])
@pytest.mark.parametrize("s", [1e-3, 0.1, 1.0, 10.0, 1e3])
def test_gaussian_agrees_with_independent_references(s, d):
    A, B = _points(15, d), _points(9, d, seed=2)
    gamma = 0.5 / s**2  # written out: svmlab's conversion is not used here
    np.testing.assert_allclose(
        gram(A, B, sigma=s), rbf_kernel(A, B, gamma=gamma), rtol=1e-12, atol=1e-14
    )
    np.testing.assert_allclose(
        gram(A, B, sigma=s), gaussian_by_pairs(A, B, s), rtol=1e-12, atol=1e-300
    )


def test_gaussian_with_huge_coordinates_is_finite():
    # Differences of 1e308-sized coordinates overflow to inf: the points are
    # infinitely far apart (k = 0), never NaN.
    X = np.array([[1e308, 0.0], [-1e308, 0.0], [0.0, 1.0]])
    for d_extra in (0, 19):
        A = np.c_[X, np.zeros((3, d_extra))]
        K = gram(A, sigma=1.0)
        assert np.all(np.isfinite(K))
        np.testing.assert_array_equal(np.diag(K), 1.0)
        assert K[0, 1] == 0.0


def _fit_quiet(**params) -> SVC:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return SVC(**params)


@pytest.mark.parametrize("solver", ["qp", "smo"])
@pytest.mark.parametrize("s", EXTREME_SIGMAS)
def test_svc_with_extreme_sigma_matches_the_closed_form_kernel(s, solver):
    X = _points(16, 2)
    y = np.where(np.arange(16) % 3 == 0, 1.0, -1.0)
    T = _points(7, 2, seed=5)
    # The limit kernels, computed without svmlab.
    K_train = np.eye(16) if s < 1 else np.ones((16, 16))
    K_test = np.zeros((7, 16)) if s < 1 else np.ones((7, 16))
    lib = LibSVC(kernel="precomputed", C=1.0, tol=1e-10).fit(K_train, y)
    try:
        model = _fit_quiet(C=1.0, sigma=s, solver=solver, tol=1e-8).fit(X, y)
    except BAD_TYPES as error:  # pragma: no cover - the bug this test is for
        pytest.fail(f"{type(error).__name__}: {error}")
    except ParameterError:
        return  # allowed: a plain refusal
    for points, K in ((X, K_train), (T, K_test)):
        f = model.decision_function(points)
        assert np.all(np.isfinite(f))
        np.testing.assert_allclose(f, lib.decision_function(K), atol=1e-6)
    assert model.score(X, y) == lib.score(K_train, y)


def test_tiny_sigma_fits_every_point_exactly():
    # K = I: every point is a support vector and f(x_i) = y_i alpha_i + b.
    X = _points(10, 2)
    y = np.where(np.arange(10) % 2 == 0, 1.0, -1.0)
    model = SVC(C=10.0, sigma=1e-200, solver="qp").fit(X, y)
    assert model.score(X, y) == 1.0
    np.testing.assert_allclose(model.margins_, 1.0, atol=1e-9)
    np.testing.assert_allclose(model.alpha_, 1.0, atol=1e-9)


# -- polynomial and linear ----------------------------------------------------------


def test_polynomial_overflow_names_the_degree_and_a_working_range():
    X = np.array([[3.0, 1.0], [-2.0, 4.0], [1.0, 1.0]])
    # max |x'z + 1| = 21 (x = (-2, 4) with itself): 21^p < 1.8e308 up to p = 233.
    assert 21.0**233 < np.finfo(float).max and 21.0 * 21.0**233 == math.inf
    K = gram(X, kernel="polynomial", degree=233, coef0=1.0)
    assert np.all(np.isfinite(K))
    with pytest.raises(ParameterError) as caught:
        gram(X, kernel="polynomial", degree=234, coef0=1.0)
    text = str(caught.value)
    assert "degree" in text and "234" in text and "233" in text


def test_polynomial_huge_coef0_is_a_parameter_error():
    X = _points(5, 2)
    with pytest.raises(ParameterError, match="coef0"):
        gram(X, kernel="polynomial", degree=3, coef0=1e200)
    with pytest.raises(ParameterError, match="coef0"):
        SVC(kernel="polynomial", coef0=1e200).fit(X, [0, 1, 0, 1, 1])


@pytest.mark.parametrize("kernel", ["linear", "polynomial"])
def test_huge_data_overflow_is_a_data_error(kernel):
    X = np.array([[1e200, 1.0], [-1e200, 2.0], [1.0, 1e200], [3.0, 4.0]])
    with pytest.raises(DataError, match=r"(?i)scale the data"):
        SVC(kernel=kernel).fit(X, [0, 1, 0, 1])


@pytest.mark.parametrize(
    ("params", "word"),
    [
        ({"kernel": "polynomial", "degree": math.inf}, "degree"),
        ({"kernel": "polynomial", "degree": math.nan}, "degree"),
        ({"kernel": "polynomial", "degree": "3"}, "degree"),
        ({"kernel": "polynomial", "degree": 1e300}, "degree"),
        ({"kernel": "polynomial", "coef0": math.inf}, "coef0"),
        ({"kernel": "polynomial", "coef0": "one"}, "coef0"),
        ({"kernel": "gaussian", "sigma": "wide"}, "sigma"),
        ({"kernel": "gaussian", "sigma": math.inf}, "sigma"),
        # (sigma=None is the default since issue 48: "not given", so the
        # kernel is named in svmlab's spelling with sigma 1.)
        ({"kernel": "gaussian", "sigma": 0.0}, "sigma"),
    ],
)
def test_bad_kernel_parameters_are_parameter_errors(params, word):
    X = _points(6, 2)
    with pytest.raises(ParameterError, match=word):
        SVC(**params).fit(X, [0, 1] * 3)


def test_decision_function_never_returns_nan_or_inf():
    # Fitted on small points, asked about points so far out that the
    # polynomial kernel overflows there.
    X = _points(8, 2)
    y = [0, 1] * 4
    model = SVC(kernel="polynomial", degree=30, coef0=1.0, solver="qp").fit(X, y)
    assert np.all(np.isfinite(model.decision_function(X)))
    with pytest.raises(SvmlabError):
        model.decision_function(np.array([[1e12, 1e12]]))
    f = model.decision_function(np.array([[2.0, -1.0]]))
    assert np.all(np.isfinite(f))
