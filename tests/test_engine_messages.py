"""Every error the engine raises on bad input is typed and one plain sentence
(issue 14, item 9): no NumPy reprs, no dumped arrays, no raw library text."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from svmlab import (
    SVC,
    DataError,
    ParameterError,
    ProblemError,
    SvmlabError,
    UnknownNameError,
)
from svmlab.errors import plain_value, short_reason
from svmlab.kernels import gram

X = np.random.default_rng(0).normal(size=(12, 2))
Y01 = np.array([0, 1] * 6)

#: What must never reach a student.
LEAKS = re.compile(r"np\.|array\(|\[\[|\n|dtype|Traceback|<class")


def _message(callable_, error_type=SvmlabError) -> str:
    with pytest.raises(error_type) as caught:
        callable_()
    text = str(caught.value)
    assert isinstance(caught.value, SvmlabError)
    assert not LEAKS.search(text), text
    assert len(text) < 400, text
    assert text.strip().endswith((".", ")")), text
    return text


# -- labels ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "labels",
    [
        np.ones(12, dtype=np.int64),
        np.full(12, np.int32(-1)),
        np.full(12, 1.0),
        np.array(["spam"] * 12),
    ],
)
def test_one_class_names_the_class_plainly(labels):
    text = _message(lambda: SVC().fit(X, labels), DataError)
    value = labels[0].item()
    assert f"({value})" in text or f"({value!s})" in text
    assert "one class" in text.lower()


def test_continuous_labels():
    y = np.linspace(0.0, 1.0, 12)
    text = _message(lambda: SVC().fit(X, y), DataError)
    assert "continuous" in text


def test_unknown_label_type():
    y = np.array([{"a": 1}] * 6 + [{"b": 2}] * 6, dtype=object)
    _message(lambda: SVC().fit(X, y), DataError)


def test_labels_mixing_text_and_numbers():
    y = np.array(["a", 1] * 6, dtype=object)
    _message(lambda: SVC().fit(X, y), DataError)


def test_three_classes_with_a_warm_start():
    # Three classes are one fit per pair: one alpha to start from has no meaning.
    y3 = np.arange(12) % 3
    text = _message(lambda: SVC().fit(X, y3, init=np.zeros(12)), ParameterError)
    assert "two classes" in text


# -- features -------------------------------------------------------------------


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_nan_or_inf_in_X(bad):
    Xb = X.copy()
    Xb[3, 1] = bad
    text = _message(lambda: SVC().fit(Xb, Y01), DataError)
    assert "NaN" in text or "inf" in text
    model = SVC().fit(X, Y01)
    _message(lambda: model.decision_function(Xb), DataError)
    _message(lambda: model.predict(Xb), DataError)


def test_nan_in_labels():
    y = Y01.astype(float)
    y[0] = math.nan
    _message(lambda: SVC().fit(X, y), DataError)


def test_text_in_X():
    Xs = X.astype(object)
    Xs[2, 0] = "abc"
    _message(lambda: SVC().fit(Xs, Y01), DataError)


def test_non_numbers_in_X_are_data_errors_and_type_errors():
    Xd = X.astype(object)
    Xd[0, 0] = {"foo": "bar"}
    with pytest.raises(TypeError):  # scikit-learn's contract for such input
        SVC().fit(Xd, Y01)
    _message(lambda: SVC().fit(Xd, Y01), DataError)


def test_complex_X():
    _message(lambda: SVC().fit(X + 1j, Y01), DataError)


def test_one_dimensional_X():
    text = _message(lambda: SVC().fit(X[:, 0], Y01), DataError)
    assert "Reshape your data" in text
    model = SVC().fit(X, Y01)
    _message(lambda: model.predict(X[0]), DataError)


def test_three_dimensional_X():
    _message(lambda: SVC().fit(X.reshape(12, 2, 1), Y01), DataError)


def test_rows_and_labels_disagree():
    text = _message(lambda: SVC().fit(X, Y01[:-1]), DataError)
    assert "12" in text and "11" in text


def test_wrong_number_of_features_at_predict():
    model = SVC().fit(X, Y01)
    _message(lambda: model.predict(np.zeros((3, 5))), DataError)


# -- the precomputed Gram matrix ------------------------------------------------


@pytest.mark.parametrize(
    "K",
    [
        np.ones((11, 12)),
        [[1.0, 2.0]] * 11 + [[1.0]],
        np.full((12, 12), "x"),
        np.where(np.eye(12) > 0, math.nan, 0.0),
        np.triu(np.ones((12, 12))),
    ],
    ids=["shape", "ragged", "text", "nan", "not-symmetric"],
)
def test_malformed_gram_matrix(K):
    _message(lambda: SVC(solver="qp").fit(X, Y01, K=K), DataError)


def test_malformed_warm_start():
    _message(lambda: SVC().fit(X, Y01, init=["a"] * 12), DataError)


# -- parameters -----------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {"C": np.float64(-1.0)},
        {"C": "big"},
        {"C": np.int64(0)},
        {"tol": np.float32(-1.0)},
        {"tol": "small"},
        {"max_iter": np.float64(2.5)},
        {"max_iter": "many"},
        {"max_iter": 0},
        {"sigma": np.float64(-2.0)},
        {"kernel": "polynomial", "degree": np.float64(2.5)},
        {"kernel": "polynomial", "coef0": np.float64(-1.0)},
        {"loss": "modified_hinge", "delta": np.float64(2.0)},
        {"solver": "smo", "solver_options": {"no_such_option": 1}},
    ],
)
def test_bad_parameters(params):
    _message(lambda: SVC(**params).fit(X, Y01), ParameterError)


@pytest.mark.parametrize(
    "params",
    [
        {"kernel": np.str_("rbff")},
        {"loss": np.str_("log")},
        {"solver": np.str_("newton")},
        {"bias": np.str_("free")},
    ],
)
def test_unknown_names(params):
    text = _message(lambda: SVC(**params).fit(X, Y01), UnknownNameError)
    assert f"'{next(iter(params.values()))}'" in text


# -- the QP back end ------------------------------------------------------------


def test_cvxopt_breakdown_is_a_plain_problem_error():
    # All points identical with an intercept and an absurd C: CVXOPT's
    # factorisation divides by zero. The student gets a sentence, not that.
    Xi = np.ones((6, 2))
    y = np.array([1, 1, 1, -1, -1, -1])
    text = _message(lambda: SVC(C=1e20, solver="qp").fit(Xi, y), ProblemError)
    assert text.startswith("The exact QP solver broke down")
    assert "C = 1e+20" in text and "smo" in text


def test_cvxopt_breakdown_at_tiny_C_or_degenerate_kernel_is_plain():
    Xi = np.ones((6, 2))
    y = np.array([1, 1, 1, -1, -1, -1])
    for C in (1e-300, 1e-12):
        for loss in ("hinge", "squared_hinge"):
            try:
                model = SVC(C=C, solver="qp", loss=loss).fit(Xi, y)
            except SvmlabError as error:
                assert not LEAKS.search(str(error)), str(error)
            else:
                assert np.all(np.isfinite(model.decision_function(Xi)))


# -- the helpers themselves -----------------------------------------------------


def test_plain_value():
    assert plain_value(np.int64(1)) == "1"
    assert plain_value(np.float64(0.5)) == "0.5"
    assert plain_value(1e-200) == "1e-200"
    assert plain_value(np.str_("rbf")) == "'rbf'"
    assert plain_value(np.zeros(3)) == "a ndarray"
    assert plain_value({"a": 1}) == "a dict"
    assert plain_value(None) == "None"


def test_short_reason_drops_arrays_and_lines():
    error = ValueError("Expected 2D array, got 1D array instead:\narray=[1. 2.].")
    assert short_reason(error) == "Expected 2D array, got 1D array instead"
    assert short_reason(ValueError("Complex data not supported\n[[1+1j]]")) == (
        "Complex data not supported"
    )
    assert len(short_reason(ValueError("x" * 500))) <= 80


def test_gram_inputs():
    _message(lambda: gram(np.zeros((3, 2)), np.zeros((3, 3))), DataError)
    _message(lambda: gram(np.zeros(3)), DataError)
    _message(lambda: gram([["a", "b"]]), DataError)
