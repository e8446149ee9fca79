"""Issue 44, item 6: a family fit whose gradient float64 cannot resolve to tol
stops within a few windows of iterations, with a ConvergenceWarning that says
why, instead of LIBSVM's 10^7 steps (25-32 s). The claim is checked against the
rounding bound summed in full over the Gram matrix (not the diagonal bound the
solver uses)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from svmlab import EpsilonSVR
from svmlab.kernels import gram
from svmlab.solvers.family import FLOOR_CHECK_EVERY


def test_a_fit_below_the_floating_point_floor_stops_and_says_why():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    t = np.sin(X[:, 0]) + 0.1 * rng.normal(size=400)
    model = EpsilonSVR(kernel="polynomial", degree=50, C=2e-5, epsilon=1e-9)
    with pytest.warns(ConvergenceWarning, match="rounding of the gradient"):
        model.fit(X, t)
    assert model.stop_reason_ == "rule" and not model.converged_
    assert model.n_iter_ <= 3 * FLOOR_CHECK_EVERY  # not 10^7
    # The rounding of G_t = sum_s Q_ts a_s is at least u max_t sum_s |Q_ts a_s|
    # (Higham 2002, 3.1): summed in full here, it is far above tol.
    K = gram(X, kernel="polynomial", degree=50, coef0=1.0)
    a = model.solution_.alpha
    size = np.abs(K) @ (np.abs(a[:400]) + np.abs(a[400:]))
    assert 2.0**-53 * size.max() > 1e3 * model.tol


def test_a_well_scaled_fit_converges_as_before():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    t = np.sin(X[:, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = EpsilonSVR(kernel="polynomial", degree=3, C=10.0, tol=1e-8).fit(X, t)
    assert model.converged_ and model.stop_reason_ == "converged"
