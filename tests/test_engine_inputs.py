"""Engine inputs that used to escape untyped or be ignored (issue 27, item 13).

Each case raised a raw library error (TypeError, joblib's ValueError) or was
silently changed (a negative count taken as 0, a warm start dropped, a grid cell
left NaN with nothing saying why); each is now an svmlab error with one plain
sentence, the same one whichever entry point the input came in by.
"""

from __future__ import annotations

import math
import operator

import numpy as np
import pytest

from svmlab import SVC, DataError, ParameterError
from svmlab.experiments import executors, selection
from svmlab.experiments.criterion_grid import grid_sweep
from svmlab.experiments.robustness import FitSettings, Outliers, multistart

X = np.random.default_rng(0).normal(size=(12, 2))
Y01 = np.array([0, 1] * 6)
#: Labels that mix text and numbers (an object column of a table, say).
MIXED = np.array(["a", 1] * 6, dtype=object)


def _lee() -> SVC:
    return SVC(loss="modified_hinge", bias="none", solver="irwls")


def _sentence(error: BaseException) -> str:
    text = str(error)
    assert "\n" not in text and "array(" not in text and "np." not in text, text
    assert text.endswith("."), text
    return text


# -- labels that mix text and numbers ---------------------------------------------

ENTRY_POINTS = {
    **{
        f"evaluate-{name}": (
            lambda X, y, name=name: selection.evaluate(name, _lee(), X, y)
        )
        for name in selection.CRITERIA
    },
    "loo_cv_score": lambda X, y: selection.loo_cv_score(SVC(), X, y),
    "kfold_cv_score": lambda X, y: selection.kfold_cv_score(SVC(), X, y),
    "approximate_loo": lambda X, y: selection.approximate_loo(_lee(), X, y),
    "grid_sweep": lambda X, y: grid_sweep(_lee(), X, y, [1.0], [1.0]),
}


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_mixed_labels_are_the_estimators_data_error(entry):
    with pytest.raises(DataError) as by_fit:
        SVC().fit(X, MIXED)
    with pytest.raises(DataError) as caught:
        ENTRY_POINTS[entry](X, MIXED)
    assert str(caught.value) == str(by_fit.value)
    assert "mix text and numbers" in _sentence(caught.value)


@pytest.mark.parametrize("entry", ["evaluate-loo", "kfold_cv_score", "grid_sweep"])
def test_text_features_are_the_estimators_data_error(entry):
    X_text = np.array([["a", "b"]] * 12)
    with pytest.raises(DataError) as by_fit:
        SVC().fit(X_text, Y01)
    with pytest.raises(DataError) as caught:
        ENTRY_POINTS[entry](X_text, Y01)
    assert str(caught.value) == str(by_fit.value)


# -- executors ----------------------------------------------------------------------


@pytest.mark.parametrize("over", [10**9, 1])
def test_too_many_local_processes_is_a_parameter_error(over):
    cap = executors.max_processes()
    executor = over if over > cap else cap + over
    with pytest.raises(ParameterError) as caught:
        executors.run_tasks(operator.add, [(1, 2), (3, 4)], executor=executor)
    assert f"at most {cap}" in _sentence(caught.value)


def test_as_many_processes_as_allowed_is_accepted_by_the_check():
    executors.check_executor(executors.max_processes())
    executors.check_executor(-1)


# -- multistart ---------------------------------------------------------------------


@pytest.mark.parametrize("n_random", [2.5, -1, math.nan, "3", True, None])
def test_multistart_refuses_a_count_that_is_not_whole_and_non_negative(n_random):
    settings = FitSettings(kernel="linear", C=1.0)
    with pytest.raises(ParameterError) as caught:
        multistart(X, Y01, Outliers(2, 4.0), settings, X, Y01, n_random=n_random)
    assert "whole number of at least 0" in _sentence(caught.value)


def test_multistart_takes_a_whole_float_and_zero():
    settings = FitSettings(kernel="linear", C=1.0)
    none = multistart(X, Y01, Outliers(2, 4.0), settings, X, Y01, n_random=0)
    two = multistart(X, Y01, Outliers(2, 4.0), settings, X, Y01, n_random=2.0)
    assert len(two) == len(none) + 2


# -- the grid's axes ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("Cs", "sigmas", "name"),
    [
        ([1.0, math.inf], [1.0], "C"),
        ([1.0, math.nan], [1.0], "C"),
        ([0.0, 1.0], [1.0], "C"),
        ([1.0], [math.inf], "sigma"),
        ([1.0], [-1.0], "sigma"),
        (["x"], [1.0], "C"),
    ],
)
def test_grid_sweep_refuses_a_non_finite_or_non_positive_axis(Cs, sigmas, name):
    with pytest.raises(ParameterError) as caught:
        grid_sweep(_lee(), X, Y01, Cs, sigmas, criteria=("lee",))
    assert f"{name} " in _sentence(caught.value)


def test_grid_sweep_hard_margin_hinge_is_refused_not_a_silent_nan():
    # The hinge takes C = inf in SVC (the hard margin), but a grid of criteria
    # over C needs finite values: before, the cell came back NaN with
    # missing_rows empty.
    with pytest.raises(ParameterError):
        grid_sweep(SVC(), X, Y01, [1.0, math.inf], [1.0], criteria=("kfold",))


def test_grid_sweep_refuses_a_bad_estimator_up_front():
    with pytest.raises(ParameterError, match="tol"):
        grid_sweep(SVC(tol=-1.0), X, Y01, [1.0], [1.0], criteria=("kfold",))


# -- warm starts --------------------------------------------------------------------


@pytest.mark.parametrize(
    "init",
    [np.zeros(11), np.zeros(13), np.zeros((12, 1)), np.r_[np.zeros(11), np.nan]],
    ids=["short", "long", "column", "nan"],
)
@pytest.mark.parametrize("solver", ["smo", "qp", "coordinate"])
def test_fit_refuses_an_unusable_warm_start(init, solver):
    bias = "none" if solver == "coordinate" else "unregularized"
    with pytest.raises(ParameterError) as caught:
        SVC(solver=solver, bias=bias).fit(X, Y01, init=init)
    assert "init" in _sentence(caught.value)


def test_fit_takes_a_warm_start_of_the_right_length_outside_the_box():
    cold = SVC(solver="smo").fit(X, Y01)
    warm = SVC(solver="smo").fit(X, Y01, init=np.full(12, 5.0))  # above C = 1
    assert warm.objective_ == pytest.approx(cold.objective_, rel=1e-4)


@pytest.mark.parametrize(
    "y",
    [
        np.array([1.0, -1.0, 1.0, -1.0]),
        np.array([0, 1, 1, 0], dtype=np.int32),
        np.array([3, 1, 2, 2, 1], dtype=np.uint8),
        np.array([True, False, True]),
        np.array([2.0, 2.0, 2.0]),
        np.array([-0.0, 0.0, 5.0, 1e15]),
        np.array([0.5, 1.0, 0.5]),  # continuous: refused
        np.array([1.0, np.nan, 1.0]),
        np.array([1.0, np.inf, -1.0]),
        np.array(["a", "b", "a"]),
        np.array([[1.0, -1.0], [1.0, 1.0]]),
    ],
)
def test_labels_are_scikit_learns_whatever_the_path(y):
    # check_labels finds whole numbers' labels itself (a fast path); the
    # answer and the refusals are scikit-learn's rule's, value and dtype.
    from sklearn.utils.multiclass import check_classification_targets, unique_labels

    from svmlab.svm.validation import check_labels

    try:
        check_classification_targets(y)
        expected = unique_labels(y)
    except (TypeError, ValueError):
        with pytest.raises(DataError):
            check_labels(y)
        return
    got = check_labels(y)
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == expected.dtype
