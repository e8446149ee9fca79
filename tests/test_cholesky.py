"""The interpreter-lock-free Cholesky factor and solve (svmlab.solvers.cholesky)
against SciPy's LAPACK calls, and the refusals the solvers rely on."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

from svmlab.solvers import cholesky


@pytest.mark.parametrize("n", [1, 2, 7, 120])
def test_solve_equals_lapack(n):
    rng = np.random.default_rng(n)
    A = rng.normal(size=(n, n))
    M = A @ A.T + 0.1 * np.eye(n)
    b = rng.normal(size=n)
    B = rng.normal(size=(n, 3))
    b0, B0 = b.copy(), B.copy()
    L = cholesky.factor(M)
    np.testing.assert_allclose(L @ L.T, M, rtol=1e-12, atol=1e-12)
    reference = scipy.linalg.cho_factor(M, lower=True)
    np.testing.assert_allclose(
        cholesky.solve(L, b), scipy.linalg.cho_solve(reference, b), rtol=1e-9
    )
    np.testing.assert_allclose(
        cholesky.solve(L, B), scipy.linalg.cho_solve(reference, B), rtol=1e-9
    )
    assert np.array_equal(b, b0) and np.array_equal(B, B0)  # inputs untouched


@pytest.mark.parametrize(
    "M",
    [
        np.array([[1.0, 2.0], [2.0, 1.0]]),  # indefinite
        np.array([[1.0, np.nan], [np.nan, 1.0]]),
        np.array([[np.inf, 0.0], [0.0, 1.0]]),
    ],
)
def test_factor_refuses_what_is_not_positive_definite(M):
    with pytest.raises(np.linalg.LinAlgError):
        cholesky.factor(M)
