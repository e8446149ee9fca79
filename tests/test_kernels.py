from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel, sigmoid_kernel

from svmlab import ParameterError, UnknownNameError
from svmlab.kernels import (
    DIRECT_MAX_DIM,
    KERNELS,
    PSD_KERNELS,
    gamma_from_sigma,
    gaussian,
    gram,
    lee_sigma2_from_sigma,
    sigma_from_gamma,
    sigma_from_lee_sigma2,
)
from svmlab.kernels.psd import psd_note, smallest_eigenvalue
from tests.conftest import gaussian_by_pairs

X = np.random.default_rng(0).normal(size=(7, 2))
Z = np.random.default_rng(1).normal(size=(5, 2))


def test_gaussian_matches_sugiyama_formula():
    sigma = 0.7
    d2 = ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    expected = np.exp(-d2 / (2 * sigma**2))
    np.testing.assert_allclose(gram(X, Z, kernel="gaussian", sigma=sigma), expected)


def test_conversions_known_values():
    # docs/corrections.md table: Sugiyama's h = 1 is gamma = 0.5, which is Lee's
    # sigma^2 = 2.
    assert gamma_from_sigma(1.0) == 0.5
    assert lee_sigma2_from_sigma(1.0) == 2.0
    # Lee's (C, sigma^2) = (500, 0.7) is gamma = 1/0.7 = 1.4286.
    assert gamma_from_sigma(sigma_from_lee_sigma2(0.7)) == pytest.approx(1.428571, 1e-6)


@pytest.mark.parametrize("sigma", [0.01, 0.3, 1.0, 5.0, 100.0])
def test_conversions_round_trip_and_agree_with_kernels(sigma):
    assert sigma_from_gamma(gamma_from_sigma(sigma)) == pytest.approx(sigma, 1e-12)
    assert sigma_from_lee_sigma2(lee_sigma2_from_sigma(sigma)) == pytest.approx(sigma)
    K = gram(X, Z, sigma=sigma)
    np.testing.assert_allclose(K, rbf_kernel(X, Z, gamma=1.0 / (2.0 * sigma**2)))
    d2 = ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    lee = np.exp(-d2 / lee_sigma2_from_sigma(sigma))
    np.testing.assert_allclose(K, lee, rtol=1e-12)


def test_polynomial_and_linear():
    K = gram(X, Z, kernel="polynomial", degree=3, coef0=0.5)
    np.testing.assert_allclose(K, (X @ Z.T + 0.5) ** 3)
    np.testing.assert_allclose(gram(X, kernel="linear"), X @ X.T)
    assert set(KERNELS) == {"gaussian", "polynomial", "linear", "sigmoid"}
    assert set(PSD_KERNELS) == set(KERNELS) - {"sigmoid"}


@pytest.mark.parametrize(("a", "r"), [(0.5, -1.0), (1.0, 0.0), (2.0, 1.5), (1e-3, 0.2)])
def test_sigmoid_agrees_with_scikit_learn(a, r):
    # scikit-learn's sigmoid_kernel is tanh(gamma <x, z> + coef0): gamma = a.
    Xs = np.random.default_rng(3).normal(size=(40, 3))
    expected = sigmoid_kernel(Xs, gamma=a, coef0=r)
    K = gram(Xs, kernel="sigmoid", scale=a, coef0=r)
    np.testing.assert_allclose(K, expected, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(
        gram(X, Z, kernel="sigmoid", scale=a, coef0=r),
        sigmoid_kernel(X, Z, gamma=a, coef0=r),
        rtol=1e-14,
        atol=1e-15,
    )


def test_sigmoid_saturates_instead_of_overflowing():
    # x'x = 1e300 is a float; a x'x = 1e500 is not, and tanh of it is 1.
    big = np.array([[1e150, 0.0], [0.0, 1.0]])
    K = gram(big, kernel="sigmoid", scale=1e200, coef0=0.0)
    np.testing.assert_array_equal(K, [[1.0, 0.0], [0.0, 1.0]])


def test_smallest_eigenvalue_and_the_psd_sentence():
    Xs = np.random.default_rng(4).normal(size=(30, 2))
    K = gram(Xs, sigma=0.8)
    lam, note = psd_note(K)
    assert lam == pytest.approx(np.linalg.eigvalsh(K)[0], abs=1e-12)
    assert note is None
    # tanh(x'z + 1) on spread-out points is indefinite (Lin & Lin 2003).
    S = gram(3 * Xs, kernel="sigmoid", scale=1.0, coef0=1.0)
    lam, note = psd_note(S)
    assert lam == pytest.approx(np.linalg.eigvalsh(S)[0], rel=1e-10)
    assert lam < 0
    assert note is not None and "not positive semidefinite" in note
    assert f"{lam:.3g}" in note and note.count(".") == 1 + f"{lam:.3g}".count(".")
    assert smallest_eigenvalue(np.eye(3)) == pytest.approx(1.0)


def test_squared_losses_refuse_an_unbounded_dual_and_fit_a_bounded_one():
    """No box on α: the dual has a maximum exactly when K + I/C is PSD. Below
    the C the sentence names, it is, and the fit converges. (``scale`` names
    svmlab's sigmoid, tanh(x'z + 1); without it "sigmoid" is scikit-learn's.)"""
    from svmlab import SVC
    from svmlab.svm.regression import EpsilonSVR

    rng = np.random.default_rng(5)
    X = 2.0 * rng.normal(size=(40, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    lam = np.linalg.eigvalsh(gram(X, kernel="sigmoid", scale=1.0))[0]
    assert lam < 0
    with pytest.raises(ParameterError, match="no maximum") as refused:
        SVC(C=10.0, kernel="sigmoid", scale=1.0, loss="squared_hinge").fit(X, y)
    text = str(refused.value)
    assert f"{lam:.3g}" in text and f"{-1.0 / lam:.3g}" in text
    ok = SVC(C=0.5 * -1.0 / lam, kernel="sigmoid", scale=1.0, loss="squared_hinge").fit(
        X, y
    )
    assert ok.converged_ and np.all(np.isfinite(ok.alpha_))
    # The boxed losses are bounded whatever the kernel: no refusal.
    assert SVC(C=10.0, kernel="sigmoid", scale=1.0).fit(X, y).converged_
    t = np.sin(X[:, 0])
    with pytest.raises(ParameterError, match="ε-insensitive loss \\(its box"):
        EpsilonSVR(
            C=10.0, kernel="sigmoid", scale=1.0, loss="squared_epsilon_insensitive"
        ).fit(X, t)
    fit = EpsilonSVR(
        C=0.5 * -1.0 / lam,
        kernel="sigmoid",
        scale=1.0,
        loss="squared_epsilon_insensitive",
    ).fit(X, t)
    assert fit.converged_


def test_gram_is_symmetric_psd():
    K = gram(X, sigma=0.5)
    np.testing.assert_allclose(K, K.T)
    assert np.linalg.eigvalsh(K).min() > -1e-10
    np.testing.assert_allclose(np.diag(K), 1.0)


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"kernel": "rbf"}, UnknownNameError, "gaussian"),
        ({"sigma": 0.0}, ParameterError, "sigma must be a positive"),
        ({"sigma": -1.0}, ParameterError, "sigma must be a positive"),
        ({"sigma": math.nan}, ParameterError, "sigma must be a positive"),
        ({"kernel": "polynomial", "degree": 0}, ParameterError, "degree"),
        ({"kernel": "polynomial", "degree": 2.5}, ParameterError, "whole number"),
        ({"kernel": "polynomial", "coef0": -1.0}, ParameterError, "coef0"),
        ({"kernel": "sigmoid", "scale": 0.0}, ParameterError, "scale"),
        ({"kernel": "sigmoid", "scale": math.inf}, ParameterError, "scale"),
        ({"kernel": "sigmoid", "coef0": math.nan}, ParameterError, "the r in"),
    ],
)
def test_bad_kernel_parameters(kwargs, error, words):
    with pytest.raises(error, match=words):
        gram(X, **kwargs)


@pytest.mark.parametrize("d", [1, 2, 5, 20])
@pytest.mark.parametrize("s", [0.3, 1.0, 4.0])
def test_gaussian_agrees_with_rbf_kernel(d, s):
    # Both references take sigma the way the sources write it, not through
    # svmlab's conversion: gamma = 1 / (2 s^2) is written out here, and the
    # double loop is the formula itself. A convention slip made consistently in
    # gram and gamma_from_sigma (e.g. exp(-d^2 / s^2) and gamma = 1 / s^2) would
    # pass a comparison that converts sigma with gamma_from_sigma on both sides.
    rng = np.random.default_rng(d)
    A, B = rng.normal(size=(40, d)), rng.normal(size=(30, d))
    gamma = 1.0 / (2.0 * s**2)
    loop_AB, loop_AA = gaussian_by_pairs(A, B, s), gaussian_by_pairs(A, A, s)
    for ours_AB, ours_AA in (
        (gram(A, B, kernel="gaussian", sigma=s), gram(A, kernel="gaussian", sigma=s)),
        (gaussian(A, B, sigma=s), gaussian(A, A, sigma=s)),
    ):
        np.testing.assert_allclose(
            ours_AB, rbf_kernel(A, B, gamma=gamma), rtol=0, atol=1e-12
        )
        np.testing.assert_allclose(
            ours_AA, rbf_kernel(A, gamma=gamma), rtol=0, atol=1e-12
        )
        np.testing.assert_allclose(ours_AB, loop_AB, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(ours_AA, loop_AA, rtol=1e-12, atol=1e-15)
    # The public conversion is the same written-out formula.
    assert gamma_from_sigma(s) == pytest.approx(gamma, rel=1e-15)


def test_gaussian_of_one_pair_by_hand():
    # ||x - z||^2 = 3^2 + 4^2 = 25, sigma = 5: exp(-25 / 50) = exp(-1/2).
    K = gram(np.array([[0.0, 0.0]]), np.array([[3.0, 4.0]]), sigma=5.0)
    assert K[0, 0] == pytest.approx(math.exp(-0.5), rel=1e-15)


@pytest.mark.parametrize("d", [1, 2, 5, 20])
def test_gaussian_gram_is_exactly_symmetric_with_unit_diagonal(d):
    A = np.random.default_rng(10 + d).normal(scale=3.0, size=(50, d))
    K = gram(A, sigma=0.8)
    assert np.all(np.diag(K) == 1.0)
    K2 = gram(A, A.copy(), sigma=0.8)  # Z equal to but not the same object as X
    np.testing.assert_allclose(K2, K, rtol=0, atol=1e-12)
    if d <= DIRECT_MAX_DIM:  # the direct loop: exact; rbf_kernel: to rounding
        assert np.array_equal(K, K.T)
        assert np.all(np.diag(K2) == 1.0)
    else:
        np.testing.assert_allclose(K, K.T, rtol=0, atol=1e-15)


def test_gaussian_accepts_non_contiguous_and_integer_input():
    A = np.arange(24).reshape(6, 4)
    np.testing.assert_allclose(
        gram(A[:, ::2], sigma=2.0),
        rbf_kernel(A[:, ::2].astype(float), gamma=1.0 / (2.0 * 2.0**2)),
        rtol=0,
        atol=1e-12,
    )


def test_gaussian_dimension_mismatch_raises():
    with pytest.raises(ValueError):
        gram(np.zeros((3, 2)), np.zeros((3, 3)))
