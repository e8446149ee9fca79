"""Engine fuzzing (issue 6, item 2): whatever small data set and settings a student
picks, ``svmlab.SVC.fit`` either returns a model whose decision values are finite or
raises a typed :class:`svmlab.SvmlabError` with a plain message; never another
exception, never NaN.

The examples are derandomized so that CI is reproducible. Run with
``pytest tests/test_fuzz.py --hypothesis-show-statistics`` to see the counts.
"""

from __future__ import annotations

import math
import os
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

import svmlab
from svmlab.solvers import valid_solvers

LOSSES = ("hinge", "squared_hinge", "ramp", "squared_ramp", "modified_hinge")
BIAS_MODES = ("unregularized", "regularized", "none")
MAX_ITER = 2000

#: examples per (loss, bias, solver) case: 31 cases x 50 = 1,550 fitting examples.
#: ``SVMLAB_FUZZ_EXAMPLES=500`` runs a longer, randomised (not derandomized) search.
DEEP = os.environ.get("SVMLAB_FUZZ_EXAMPLES")


def fuzz_settings(examples: int) -> settings:
    """``examples`` derandomized examples a test (SVMLAB_FUZZ_EXAMPLES: random)."""
    return settings(
        max_examples=int(DEEP) if DEEP else examples,
        deadline=None,
        derandomize=not DEEP,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        print_blob=True,
    )


FUZZ = fuzz_settings(50)


# -- strategies -----------------------------------------------------------------------


def log_uniform(lo: float, hi: float) -> st.SearchStrategy[float]:
    """A float with log10 uniform on [log10 lo, log10 hi], endpoints included."""
    return st.one_of(
        st.sampled_from([lo, hi]),
        st.floats(math.log10(lo), math.log10(hi)).map(lambda e: 10.0**e),
    ).map(lambda v: min(max(v, lo), hi))


unit = st.floats(-10.0, 10.0, allow_nan=False, allow_infinity=False)


@st.composite
def datasets(draw) -> tuple[np.ndarray, np.ndarray, str]:
    """(X, y, shape): 2 <= n <= 30, two features, both classes present.

    ``shape`` is one of: random points, duplicated points, collinear points, exactly
    one point of a class, all points identical; each feature is then scaled by a
    factor in [1e-6, 1e6].
    """
    shape = draw(
        st.sampled_from(["random", "duplicates", "collinear", "one_of_a_class", "same"])
    )
    n = draw(st.integers(2, 30))
    if shape == "same":
        point = [draw(unit), draw(unit)]
        X = np.array([point] * n, dtype=float)
    elif shape == "collinear":
        a, b = draw(unit), draw(unit)
        dx, dy = draw(unit), draw(unit)
        ts = draw(st.lists(unit, min_size=n, max_size=n))
        X = np.array([[a + t * dx, b + t * dy] for t in ts], dtype=float)
    else:
        X = np.array(draw(st.lists(st.tuples(unit, unit), min_size=n, max_size=n)))
        X = X.reshape(n, 2).astype(float)
        if shape == "duplicates":
            k = draw(st.integers(1, n))
            source = draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k))
            X[:k] = X[source]
    if shape == "one_of_a_class":
        y = np.full(n, -1.0)
        y[draw(st.integers(0, n - 1))] = 1.0
        if draw(st.booleans()):
            y = -y
    else:
        y = np.array(
            draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n, max_size=n))
        )
        # both classes present
        i, j = draw(
            st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True)
        )
        y[i], y[j] = -1.0, 1.0
    scale = np.array([draw(log_uniform(1e-6, 1e6)), draw(log_uniform(1e-6, 1e6))])
    return X * scale, y, shape


@st.composite
def kernels(draw) -> dict:
    kernel = draw(st.sampled_from(["gaussian", "polynomial", "linear"]))
    params: dict = {"kernel": kernel}
    if kernel == "gaussian":
        params["sigma"] = draw(log_uniform(1e-4, 1e4))
    elif kernel == "polynomial":
        params["degree"] = draw(st.integers(1, 4))
    return params


# -- checks ---------------------------------------------------------------------------


def assert_plain_message(error: svmlab.SvmlabError) -> None:
    """A typed error must carry a non-empty sentence, not a bare repr or code."""
    message = str(error).strip()
    assert message, f"{type(error).__name__} with an empty message"
    assert " " in message, (
        f"{type(error).__name__} message is not a sentence: {message!r}"
    )
    # A sentence starts with a capital, or with the parameter it is about.
    first = message.split()[0]
    assert message[0].isupper() or first in svmlab.SVC().get_params(), (
        f"message should start a sentence: {message!r}"
    )
    assert message[-1] in ".!?)", f"message should end a sentence: {message!r}"


def fit_or_error(model: svmlab.SVC, X: np.ndarray, y: np.ndarray):
    """Fit ``model``, convergence warnings silenced: ``None``, or the typed
    error it raised (its message checked to be a plain sentence)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        try:
            model.fit(X, y)
        except svmlab.SvmlabError as error:
            assert_plain_message(error)
            event(f"outcome: {type(error).__name__}")
            return error
    return None


def fit_or_typed_error(params: dict, X: np.ndarray, y: np.ndarray, extra: np.ndarray):
    """Fit; on success check finiteness, on a typed error check its message."""
    model = svmlab.SVC(max_iter=MAX_ITER, **params)
    if fit_or_error(model, X, y) is not None:
        return None
    event("outcome: fitted" + ("" if model.converged_ else " (not converged)"))
    assert np.all(np.isfinite(model.alpha_)), f"alpha_ not finite: {model.alpha_}"
    assert np.all(np.isfinite(model.intercept_)), f"intercept_ {model.intercept_}"
    f_train = model.decision_function(X)
    assert f_train.shape == (X.shape[0],)
    assert np.all(np.isfinite(f_train)), f"decision_function(X) not finite: {f_train}"
    f_extra = model.decision_function(extra)
    assert np.all(np.isfinite(f_extra)), f"decision_function(new) not finite: {f_extra}"
    assert set(np.unique(model.predict(X))) <= set(model.classes_)
    return model


def extra_points(X: np.ndarray, offsets: list[tuple[float, float]]) -> np.ndarray:
    """A few new points around the data, on the data's own scale."""
    centre = X.mean(axis=0)
    spread = np.maximum(X.max(axis=0) - X.min(axis=0), np.abs(X).max(axis=0))
    spread = np.where(spread > 0, spread, 1.0)
    return centre + np.array(offsets, dtype=float) * spread


offsets = st.lists(
    st.tuples(st.floats(-3.0, 3.0), st.floats(-3.0, 3.0)), min_size=1, max_size=4
)


# -- the fitting fuzz ----------------------------------------------------------------


#: every (loss, bias, solver) the registry allows, e.g. ("hinge", "none", "coordinate").
CASES = [
    (loss, bias, solver)
    for loss in LOSSES
    for bias in BIAS_MODES
    for solver in valid_solvers(loss, fit_intercept=bias == "unregularized")
]


def fitting_fuzz(examples: settings, **strategies):
    """Decorate a fitting fuzz test: one test per (loss, bias, solver) of CASES,
    each given ``examples`` of a data set (``data``: X, y, shape), offsets of new
    points (``offs``) and the ``strategies`` (``kernel``, ``C``, ``delta``)."""

    def decorate(test):
        fuzzed = examples(given(data=datasets(), offs=offsets, **strategies)(test))
        return pytest.mark.parametrize(("loss", "bias", "solver"), CASES)(fuzzed)

    return decorate


def svc_params(loss, bias, solver, kernel: dict, C: float, delta: float) -> dict:
    """One example's SVC settings (``delta`` is the modified hinge's alone)."""
    params = {**kernel, "loss": loss, "bias": bias, "solver": solver, "C": C}
    if loss == "modified_hinge":
        params["delta"] = delta
    return params


@fitting_fuzz(
    FUZZ, kernel=kernels(), C=log_uniform(1e-6, 1e9), delta=log_uniform(1e-4, 0.9)
)
def test_fit_gives_finite_model_or_typed_error(
    loss, bias, solver, data, kernel, C, delta, offs
):
    X, y, shape = data
    params = svc_params(loss, bias, solver, kernel, C, delta)
    event(f"data: {shape}")
    event(f"kernel: {kernel['kernel']}")
    fit_or_typed_error(params, X, y, extra_points(X, offs))


def test_every_loss_has_a_solver_in_every_bias_mode():
    """The fuzz above samples from these lists; none may be empty."""
    for loss in LOSSES:
        for bias in BIAS_MODES:
            assert valid_solvers(loss, fit_intercept=bias == "unregularized"), (
                loss,
                bias,
            )


# -- label and data fuzz -------------------------------------------------------------

LABEL_EXAMPLES = 40
LABELS = settings(FUZZ, max_examples=LABEL_EXAMPLES)

label_values = st.one_of(
    st.integers(-5, 5),
    st.sampled_from(["a", "b", "spam"]),
    st.sampled_from([-1.0, 0.0, 1.0, 2.0]),
)


@LABELS
@given(
    n=st.integers(1, 30),
    label=label_values,
    loss=st.sampled_from(LOSSES),
    bias=st.sampled_from(BIAS_MODES),
    scale=log_uniform(1e-6, 1e6),
    seed=st.integers(0, 2**16),
)
def test_one_class_only_is_a_data_error(n, label, loss, bias, scale, seed):
    X = np.random.default_rng(seed).normal(size=(n, 2)) * scale
    y = np.array([label] * n, dtype=object if isinstance(label, str) else None)
    with pytest.raises(svmlab.DataError) as caught:
        svmlab.SVC(loss=loss, bias=bias, max_iter=MAX_ITER).fit(X, y)
    assert_plain_message(caught.value)


@LABELS
@given(
    data=datasets(),
    bad=st.sampled_from([math.nan, math.inf, -math.inf]),
    where=st.data(),
    loss=st.sampled_from(LOSSES),
    bias=st.sampled_from(BIAS_MODES),
)
def test_nan_or_inf_in_X_is_a_data_error(data, bad, where, loss, bias):
    X, y, _shape = data
    X = X.copy()
    i = where.draw(st.integers(0, X.shape[0] - 1), label="row")
    j = where.draw(st.integers(0, 1), label="column")
    X[i, j] = bad
    with pytest.raises(svmlab.DataError) as caught:
        svmlab.SVC(loss=loss, bias=bias, max_iter=MAX_ITER).fit(X, y)
    assert_plain_message(caught.value)


@LABELS
@given(data=datasets(), kernel=kernels(), bad=st.sampled_from([math.nan, math.inf]))
def test_nan_in_decision_function_input_is_a_data_error(data, kernel, bad):
    X, y, _shape = data
    model = svmlab.SVC(max_iter=MAX_ITER, **kernel)
    if fit_or_error(model, X, y) is not None:
        return
    Z = X[:1].copy()
    Z[0, 0] = bad
    with pytest.raises(svmlab.DataError) as caught:
        model.decision_function(Z)
    assert_plain_message(caught.value)


@LABELS
@given(
    n=st.integers(3, 30),
    k=st.integers(3, 5),
    seed=st.integers(0, 2**16),
)
def test_more_than_two_classes_is_one_vs_one_or_a_data_error(n, k, seed):
    # SVC fits one machine per pair of classes since issue 48 (as LIBSVM);
    # Platt's binary probabilities still refuse more than two classes.
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.arange(n) % k
    present = np.unique(y).size  # k, or n when n < k
    model = svmlab.SVC(max_iter=MAX_ITER).fit(X, y)
    assert model.n_support_.shape == (present,)
    assert model.decision_function(X).shape == (n, present)
    assert set(model.predict(X)) <= set(y)
    with pytest.raises(svmlab.DataError) as caught:
        svmlab.PlattSVC(folds=2).fit(X, y)
    assert_plain_message(caught.value)


@pytest.mark.parametrize("y", [[0.5, 1.5], [2.5, 2.5], [-0.1, 0.1, 0.1]])
def test_non_integer_float_labels_are_a_data_error(y):
    X = np.arange(2 * len(y), dtype=float).reshape(len(y), 2)
    with pytest.raises(svmlab.DataError) as caught:
        svmlab.SVC(max_iter=MAX_ITER).fit(X, y)
    assert_plain_message(caught.value)


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_nan_in_history_decision_function_input_is_a_data_error(bad):
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = svmlab.SVC(record_history=True, max_iter=MAX_ITER).fit(X, [0, 1, 1])
    with pytest.raises(svmlab.DataError) as caught:
        model.history_decision_function([[bad, 0.0]], 0)
    assert_plain_message(caught.value)


def test_text_in_X_is_a_data_error_with_a_sentence():
    with pytest.raises(svmlab.DataError) as caught:
        svmlab.SVC(max_iter=MAX_ITER).fit([["a", "b"], ["c", "d"]], [0, 1])
    assert_plain_message(caught.value)
