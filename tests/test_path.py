"""The regularisation path (svmlab/experiments/path.py) against scikit-learn and
cold fits."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.svm import SVC as SkSVC

from svmlab import datasets, kernels
from svmlab.errors import ParameterError
from svmlab.experiments.path import log_values, regularization_path

PARAMS = {"kernel": "gaussian", "sigma": 0.5, "loss": "hinge", "tol": 1e-6}


@pytest.fixture(scope="module")
def circles():
    X, y = datasets.make_two_circles(60, noise=0.1, random_state=3)
    Xt, yt = datasets.make_two_circles(200, noise=0.1, random_state=4)
    return X, y, Xt, yt


@pytest.fixture(scope="module")
def c_path(circles):
    X, y, Xt, yt = circles
    calls = []
    result = regularization_path(
        X,
        y,
        param="C",
        values=log_values(0.01, 100.0, 7),
        params=PARAMS,
        X_test=Xt,
        y_test=yt,
        progress=lambda done, total: calls.append((done, total)),
    )
    return result, calls


def test_c_path_matches_libsvm_at_every_value(circles, c_path) -> None:
    X, y, Xt, yt = circles
    result, calls = c_path
    assert result.complete and calls == [(i, 7) for i in range(1, 8)]
    K = kernels.gram(X, X, kernel="gaussian", sigma=0.5)
    gamma = kernels.gamma_from_sigma(0.5)
    for i, C in enumerate(result.values):
        sk = SkSVC(kernel="rbf", gamma=gamma, C=C, tol=1e-8).fit(X, y)
        coef = np.zeros(y.size)
        coef[sk.support_] = sk.dual_coef_[0]
        width = 2.0 / math.sqrt(coef @ K @ coef)
        assert result.margin_width[i] == pytest.approx(width, rel=1e-3)
        assert result.train_error[i] == np.mean(sk.predict(X) != y)
        assert result.test_error[i] == pytest.approx(np.mean(sk.predict(Xt) != yt))
        n_bound = np.sum(np.abs(sk.dual_coef_) >= C * (1 - 1e-6))
        assert abs(result.n_bound[i] - n_bound) <= 1
    # For the hinge, ‖w‖ never shrinks as C grows: the margin never widens.
    assert np.all(np.diff(result.margin_width) <= 1e-9)


def test_linear_margin_is_two_over_the_norm_of_w() -> None:
    X, y = datasets.make_linear(40, noise=0.0, random_state=1)
    result = regularization_path(
        X, y, param="C", values=[1e3, 1e4], params={"kernel": "linear", "tol": 1e-8}
    )
    w = SkSVC(kernel="linear", C=1e4, tol=1e-10).fit(X, y).coef_[0]
    assert result.margin_width[-1] == pytest.approx(2 / np.linalg.norm(w), rel=1e-4)


def test_warm_path_gives_the_cold_path_s_answers(circles, c_path) -> None:
    X, y, _, _ = circles
    warm, _ = c_path
    cold = regularization_path(
        X, y, param="C", values=warm.values, params=PARAMS, warm=False
    )
    assert not cold.warm
    np.testing.assert_allclose(cold.objective, warm.objective, rtol=1e-4)
    np.testing.assert_array_equal(cold.train_error, warm.train_error)
    assert np.all(np.isnan(cold.test_error))  # no test points given


def test_sigma_path_and_the_budget(circles) -> None:
    X, y, _, _ = circles
    result = regularization_path(
        X, y, param="sigma", values=[0.05, 0.5, 2.0], params={**PARAMS, "C": 10.0}
    )
    # Small σ: nearly every point its own bump; large σ: a smooth, sparser f.
    n_sv = result.n_free + result.n_bound
    assert n_sv[0] > 50 and n_sv[0] > n_sv[-1]
    assert result.train_error[0] < result.train_error[-1]
    assert result.nearest(0.45) == 1
    stopped = regularization_path(
        X, y, param="C", values=[1.0, 2.0], params=PARAMS, max_seconds=0.0
    )
    assert not stopped.complete and np.all(np.isnan(stopped.objective))
    with pytest.raises(ParameterError):
        regularization_path(
            X, y, param="sigma", values=[1.0, 2.0], params={"kernel": "linear"}
        )
