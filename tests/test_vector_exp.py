"""svmlab.kernels.vector_exp.exp_into against NumPy's exp, and the Gaussian kernel rows
built on it against the Gram matrix."""

from __future__ import annotations

import numpy as np
import pytest

from svmlab import datasets
from svmlab.kernels import KernelRows, gram
from svmlab.kernels.vector_exp import EXP_FLOOR, SHORT, exp_into


def _ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    return np.abs(got - want) / np.spacing(want)


def test_exp_into_is_within_two_ulps_of_numpy_over_its_whole_range():
    rng = np.random.default_rng(0)
    x = np.concatenate(
        [
            -rng.random(200_000) * 708.0,
            -rng.random(20_000) * 1e-6,
            -np.arange(0, 709, dtype=np.float64),  # k ln 2 boundaries
            -np.log(2.0) * np.arange(0, 1021) - 0.5 * np.log(2.0),
            [0.0, -0.0, -1e-300, -5e-324],
        ]
    )
    got = x.copy()
    exp_into(got, 0, got.size)
    assert np.max(_ulps(got, np.exp(x))) <= 2.0


def test_exp_into_is_zero_below_the_floor_and_leaves_the_rest_of_the_row():
    v = np.array([7.0, -708.5, -1e4, -np.inf, 0.0] + [-1.0] * SHORT + [9.0])
    got = v.copy()
    exp_into(got, 1, v.size - 1)
    assert got[0] == 7.0 and got[-1] == 9.0  # outside [start, end): untouched
    assert np.all(got[1:4] == 0.0)
    assert got[4] == 1.0
    np.testing.assert_allclose(got[5:-1], np.exp(-1.0), rtol=4.5e-16)
    assert np.exp(EXP_FLOOR) < 3.4e-308


@pytest.mark.parametrize("start", [0, 3, 1990])
def test_short_and_offset_rows_match_numpy(start):
    x = -np.linspace(0.0, 40.0, 2000)
    got = x.copy()
    exp_into(got, start, 2000)
    assert np.max(_ulps(got[start:], np.exp(x[start:]))) <= 2.0
    np.testing.assert_array_equal(got[:start], x[:start])


@pytest.mark.parametrize("sigma", [0.05, 0.5, 3.0])
@pytest.mark.parametrize("shift", [0.0, 1.0])
def test_gaussian_rows_equal_the_gram_matrix(sigma, shift):
    X, _ = datasets.make_two_circles(300, random_state=3)
    K = gram(X, sigma=sigma) + shift
    rows = KernelRows(X, sigma=sigma, shift=shift).rows(np.arange(300))
    np.testing.assert_allclose(rows, K, rtol=1e-15, atol=1e-300)
