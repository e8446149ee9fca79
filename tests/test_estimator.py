"""The scikit-learn contract, label handling, errors, purity, and Sugiyama Fig 27.6."""

from __future__ import annotations

import math
import re
import subprocess
import sys

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from svmlab import (
    SVC,
    DataError,
    IncompatibleLossError,
    ParameterError,
    SvmlabError,
    UnknownNameError,
    datasets,
)
from tests.conftest import SAMPLE_WEIGHT_XFAIL, estimator_checks, random_problem


def test_scikit_learn_estimator_checks():
    """Every applicable check of ``check_estimator`` passes.

    The one check not run: ``check_array_api_input`` (it needs SCIPY_ARRAY_API
    and an array-API namespace; svmlab computes in NumPy by design).
    """
    assert len(estimator_checks(SVC(), SAMPLE_WEIGHT_XFAIL)) > 40


def test_any_two_labels_map_back():
    X, y = random_problem(0, n=40)
    labels = np.where(y > 0, "spam", "ham")
    model = SVC(solver="qp").fit(X, labels)
    assert list(model.classes_) == ["ham", "spam"]
    assert set(model.predict(X)) <= {"ham", "spam"}
    # The positive class is classes_[1], as in scikit-learn.
    f = model.decision_function(X)
    np.testing.assert_array_equal(model.predict(X) == "spam", f > 0)
    assert model.score(X, labels) > 0.8


def test_works_in_pipelines_and_cross_validation():
    X, y = random_problem(1, n=60, kind="blobs")
    pipe = make_pipeline(StandardScaler(), SVC(C=1.0, solver="qp"))
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.mean() > 0.7
    assert clone(SVC(C=3.0)).get_params()["C"] == 3.0


def test_fitted_attributes_are_consistent():
    X, y = random_problem(2, n=50)
    model = SVC(C=2.0, solver="qp").fit(X, y)
    assert model.alpha_.shape == (50,)
    assert model.dual_coef_.shape == (1, model.support_.size)
    np.testing.assert_array_equal(model.support_vectors_, X[model.support_])
    assert model.n_support_.sum() == model.support_.size
    np.testing.assert_allclose(
        model.margins_, y * model.decision_function(X), atol=1e-10
    )
    assert model.converged_ and model.n_iter_ > 0 and model.fit_time_ > 0
    assert model.solver_ == "qp"
    free = model.sv_state_ == 1
    bound = model.sv_state_ == 2
    np.testing.assert_allclose(model.alpha_[bound], 2.0)
    assert np.all((model.alpha_[free] > 0) & (model.alpha_[free] < 2.0))


def test_warm_start_is_accepted():
    X, y = random_problem(3, n=40)
    first = SVC(C=1.0, solver="qp").fit(X, y)
    again = SVC(C=2.0, solver="qp").fit(X, y, init=first.alpha_)
    cold = SVC(C=2.0, solver="qp").fit(X, y)
    np.testing.assert_allclose(again.decision_function(X), cold.decision_function(X))


@pytest.mark.parametrize(
    "params",
    [
        {"solver": "qp"},
        {"solver": "qp", "bias": "regularized"},
        {"kernel": "polynomial", "degree": 2, "solver": "qp", "loss": "squared_hinge"},
        {"kernel": "linear", "bias": "none"},
    ],
)
def test_precomputed_gram_gives_the_same_fit(params):
    from svmlab.kernels import gram

    X, y = random_problem(5, n=50)
    model = SVC(C=2.0, sigma=0.8, **params)
    plain = clone(model).fit(X, y)
    K = gram(
        X,
        kernel=model.kernel,
        sigma=model.sigma,
        degree=model.degree,
        coef0=1.0,  # svmlab's spelling: (x'z + 1)^p
    )
    given = clone(model).fit(X, y, K=K)
    np.testing.assert_allclose(given.alpha_, plain.alpha_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(given.intercept_, plain.intercept_, atol=1e-12)
    np.testing.assert_allclose(
        given.decision_function(X), plain.decision_function(X), atol=1e-10
    )
    assert np.array_equal(
        K,
        gram(
            X,
            kernel=model.kernel,
            sigma=model.sigma,
            degree=model.degree,
            coef0=1.0,
        ),
    )


@pytest.mark.parametrize(
    "K, words",
    [
        (np.eye(49), "(50, 50)"),
        (np.eye(50)[:, :10], "(50, 50)"),
        (np.ones(50), "(50, 50)"),
        (np.where(np.eye(50) > 0, np.nan, 0.0), "NaN"),
        (np.where(np.eye(50) > 0, np.inf, 0.0), "infinite"),
        ([["a"] * 50] * 50, "numeric"),
    ],
)
def test_precomputed_gram_is_validated(K, words):
    X, y = random_problem(5, n=50)
    with pytest.raises(DataError, match=re.escape(words)):
        SVC().fit(X, y, K=K)


def test_sugiyama_fig_27_6_few_support_vectors():
    # Sugiyama Fig 27.6: 200 separable samples, 197 alphas zero, 3 nonzero.
    for seed in range(3):
        X, y = datasets.make_linear(200, random_state=seed)
        hard = SVC(kernel="linear", C=math.inf, solver="qp").fit(X, y)
        assert hard.support_.size == 3
        assert np.count_nonzero(hard.alpha_) == 3
        assert np.all(hard.margins_ >= 1 - 1e-8)
        assert hard.score(X, y) == 1.0


X_OK, Y_OK = random_problem(4, n=20)


@pytest.mark.parametrize(
    ("params", "X", "y", "error", "words"),
    [
        ({}, X_OK, np.ones(20), DataError, "Only one class"),
        ({}, X_OK[:1], Y_OK[:1], DataError, "class"),
        (
            {},
            np.where(np.arange(40).reshape(20, 2) == 3, np.nan, X_OK),
            Y_OK,
            DataError,
            "NaN",
        ),
        (
            {},
            np.where(np.arange(40).reshape(20, 2) == 3, np.inf, X_OK),
            Y_OK,
            DataError,
            "infinite",
        ),
        (
            {"sigma": 1.0, "gamma": 0.5},
            X_OK,
            Y_OK,
            ParameterError,
            "gamma and sigma are both given",
        ),
        ({"gamma": "wide"}, X_OK, Y_OK, ParameterError, "gamma must be a positive"),
        ({"C": 0.0}, X_OK, Y_OK, ParameterError, "C must be a positive"),
        ({"C": -1.0}, X_OK, Y_OK, ParameterError, "C must be a positive"),
        ({"C": math.nan}, X_OK, Y_OK, ParameterError, "C must be a positive"),
        ({"C": "big"}, X_OK, Y_OK, ParameterError, "C must be a positive"),
        (
            {"C": math.inf, "loss": "squared_hinge"},
            X_OK,
            Y_OK,
            ParameterError,
            "hard margin",
        ),
        ({"sigma": 0.0}, X_OK, Y_OK, ParameterError, "sigma must be a positive"),
        ({"sigma": -2.0}, X_OK, Y_OK, ParameterError, "sigma must be a positive"),
        ({"kernel": "rbff"}, X_OK, Y_OK, UnknownNameError, "Unknown kernel 'rbff'"),
        ({"loss": "logistic"}, X_OK, Y_OK, UnknownNameError, "Unknown loss 'logistic'"),
        ({"solver": "newton"}, X_OK, Y_OK, UnknownNameError, "Unknown solver 'newton'"),
        ({"bias": "maybe"}, X_OK, Y_OK, UnknownNameError, "Unknown bias mode"),
        ({"delta": 0.0, "loss": "modified_hinge"}, X_OK, Y_OK, ParameterError, "delta"),
        ({"tol": 0.0}, X_OK, Y_OK, ParameterError, "tol"),
        ({"max_iter": 0}, X_OK, Y_OK, ParameterError, "max_iter"),
    ],
)
def test_bad_input_raises_a_typed_error_with_a_sentence(params, X, y, error, words):
    with pytest.raises(error, match=words) as info:
        SVC(
            solver="qp" if "solver" not in params else params["solver"],
            **{k: v for k, v in params.items() if k != "solver"},
        ).fit(X, y)
    assert isinstance(info.value, SvmlabError)
    assert str(info.value).endswith((".", ")"))


def test_incompatible_pair_lists_valid_solvers():
    with pytest.raises(IncompatibleLossError) as info:
        SVC(loss="modified_hinge", solver="qp").fit(X_OK, Y_OK)
    message = str(info.value)
    assert "'qp' cannot handle the modified_hinge loss" in message
    assert "Solvers that can:" in message


def test_engine_is_pure():
    """Importing the engine pulls in neither streamlit nor plotly (STYLE rule 1)."""
    code = (
        "import sys, svmlab, svmlab.solvers, svmlab.losses, svmlab.kernels, "
        "svmlab.datasets\n"
        "bad = [m for m in ('streamlit', 'plotly') if m in sys.modules]\n"
        "print(','.join(bad))\n"
        "sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
