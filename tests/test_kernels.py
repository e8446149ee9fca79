from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel

from svmlab import ParameterError, UnknownNameError
from svmlab.kernels import (
    KERNELS,
    gamma_from_sigma,
    gram,
    lee_sigma2_from_sigma,
    sigma_from_gamma,
    sigma_from_lee_sigma2,
)

X = np.random.default_rng(0).normal(size=(7, 2))
Z = np.random.default_rng(1).normal(size=(5, 2))


def test_gaussian_matches_sugiyama_formula():
    sigma = 0.7
    d2 = ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    expected = np.exp(-d2 / (2 * sigma**2))
    np.testing.assert_allclose(gram(X, Z, kernel="gaussian", sigma=sigma), expected)


def test_conversions_known_values():
    # MATH.md table: Sugiyama's h = 1 is gamma = 0.5, which is Lee's sigma^2 = 2.
    assert gamma_from_sigma(1.0) == 0.5
    assert lee_sigma2_from_sigma(1.0) == 2.0
    # Lee's (C, sigma^2) = (500, 0.7) is gamma = 1/0.7 = 1.4286.
    assert gamma_from_sigma(sigma_from_lee_sigma2(0.7)) == pytest.approx(1.428571, 1e-6)


@pytest.mark.parametrize("sigma", [0.01, 0.3, 1.0, 5.0, 100.0])
def test_conversions_round_trip_and_agree_with_kernels(sigma):
    assert sigma_from_gamma(gamma_from_sigma(sigma)) == pytest.approx(sigma, 1e-12)
    assert sigma_from_lee_sigma2(lee_sigma2_from_sigma(sigma)) == pytest.approx(sigma)
    K = gram(X, Z, sigma=sigma)
    np.testing.assert_allclose(K, rbf_kernel(X, Z, gamma=gamma_from_sigma(sigma)))
    d2 = ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    lee = np.exp(-d2 / lee_sigma2_from_sigma(sigma))
    np.testing.assert_allclose(K, lee, rtol=1e-12)


def test_polynomial_and_linear():
    K = gram(X, Z, kernel="polynomial", degree=3, coef0=0.5)
    np.testing.assert_allclose(K, (X @ Z.T + 0.5) ** 3)
    np.testing.assert_allclose(gram(X, kernel="linear"), X @ X.T)
    assert set(KERNELS) == {"gaussian", "polynomial", "linear"}


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
    ],
)
def test_bad_kernel_parameters(kwargs, error, words):
    with pytest.raises(error, match=words):
        gram(X, **kwargs)
