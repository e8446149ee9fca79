"""The one-vs-one pair solves (svmlab.svm.machine_solve.solve_pairs) against
scikit-learn's LIBSVM on real data, and against binary fits of each pair's
points (a second path: one binary SVC per pair, fitted and validated on its own).
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
from sklearn.datasets import load_digits, load_iris, load_wine
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC as SklearnSVC

from svmlab import SVC, FitCancelled, OneVsOneSVC, cancel_when
from svmlab.kernels import gram, sigma_from_gamma
from svmlab.solvers import base as solvers_base
from svmlab.solvers.lane import FitLane, long_fits_through
from svmlab.svm import machine_solve
from svmlab.svm.libsvm_layout import assemble, class_pairs

LOADERS = {"iris": load_iris, "wine": load_wine, "digits": load_digits}


def _data(name: str) -> tuple[np.ndarray, np.ndarray, float]:
    X, y = LOADERS[name](return_X_y=True)
    X = StandardScaler().fit_transform(X)
    return X, y, 1.0 / (X.shape[1] * X.var())  # scikit-learn's gamma="scale"


@pytest.mark.parametrize("name", list(LOADERS))
def test_pairs_are_libsvms_on_iris_wine_and_digits(name):
    """Solved tightly (tol 1e-8), LIBSVM's support vectors, dual coefficients,
    intercepts and decision values, for SVC with k classes and for
    OneVsOneSVC (Gaussian, C = 1, scikit-learn's gamma="scale")."""
    X, y, gamma = _data(name)
    theirs = SklearnSVC(C=1.0, gamma=gamma, tol=1e-8, decision_function_shape="ovo")
    theirs.fit(X, y)
    ours = SVC(C=1.0, kernel="rbf", gamma=gamma, tol=1e-8)
    ours.set_params(decision_function_shape="ovo").fit(X, y)
    np.testing.assert_array_equal(ours.support_, theirs.support_)
    np.testing.assert_array_equal(ours.n_support_, theirs.n_support_)
    np.testing.assert_allclose(ours.dual_coef_, theirs.dual_coef_, atol=1e-3)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, atol=1e-3)
    expected = theirs.decision_function(X)
    np.testing.assert_allclose(ours.decision_function(X), expected, atol=1e-3)
    ovo = OneVsOneSVC(
        C=1.0, sigma=sigma_from_gamma(gamma), tol=1e-8, decision_function_shape="ovo"
    ).fit(X, y)
    np.testing.assert_allclose(ovo.decision_function(X), expected, atol=1e-3)
    np.testing.assert_array_equal(ovo.predict(X), theirs.predict(X))
    np.testing.assert_array_equal(ovo.support_, np.sort(theirs.support_))


@pytest.mark.parametrize("name", list(LOADERS))
def test_at_the_benchmarks_tol_each_pair_takes_libsvms_steps(name):
    """At tol 1e-3 (the benchmark's): every pair stops after LIBSVM's number
    of SMO steps (its working sets; one step apart where LIBSVM's float32
    kernel cache rounds a choice the other way: iris's third pair, 69 and 68),
    and the labels are LIBSVM's."""
    X, y, gamma = _data(name)
    theirs = SklearnSVC(C=1.0, gamma=gamma).fit(X, y)
    ours = SVC(C=1.0, kernel="rbf", gamma=gamma).fit(X, y)
    assert np.abs(ours.n_iter_ - theirs.n_iter_).max() <= 1
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    ovo = OneVsOneSVC(C=1.0, sigma=sigma_from_gamma(gamma)).fit(X, y)
    assert ovo.n_iter_ == int(np.sum(ours.n_iter_))


def test_class_and_sample_weights_enter_each_pair_as_libsvms():
    """A C per class and per point, and points of weight 0 left out of their
    pairs: LIBSVM's pairs on wine."""
    X, y, gamma = _data("wine")
    w = np.random.default_rng(0).uniform(0.2, 3.0, size=y.shape[0])
    w[::7] = 0.0
    settings = {"C": 2.0, "gamma": gamma, "class_weight": "balanced", "tol": 1e-8}
    theirs = SklearnSVC(**settings, decision_function_shape="ovo")
    theirs.fit(X, y, sample_weight=w)
    ours = SVC(kernel="rbf", **settings, decision_function_shape="ovo")
    ours.fit(X, y, sample_weight=w)
    # scikit-learn numbers its support vectors among the points it kept.
    kept = np.flatnonzero(w > 0)
    np.testing.assert_array_equal(ours.support_, kept[theirs.support_])
    np.testing.assert_allclose(ours.dual_coef_, theirs.dual_coef_, atol=1e-5)
    np.testing.assert_allclose(
        ours.decision_function(X), theirs.decision_function(X), atol=1e-5
    )


def test_a_precomputed_gram_matrix_is_sliced_per_pair_as_libsvms():
    X, y, gamma = _data("iris")
    K = gram(X, sigma=sigma_from_gamma(gamma))
    settings = {"C": 3.0, "kernel": "precomputed", "tol": 1e-8}
    theirs = SklearnSVC(**settings, decision_function_shape="ovo").fit(K, y)
    ours = SVC(**settings, decision_function_shape="ovo").fit(K, y)
    np.testing.assert_array_equal(ours.support_, theirs.support_)
    np.testing.assert_allclose(ours.dual_coef_, theirs.dual_coef_, atol=1e-5)
    np.testing.assert_allclose(
        ours.decision_function(K), theirs.decision_function(K), atol=1e-5
    )


@pytest.mark.parametrize(
    "params",
    [
        {"loss": "squared_hinge", "bias": "regularized", "C": 5.0},
        {"loss": "ramp", "bias": "unregularized", "C": 2.0},
        {"loss": "hinge", "bias": "none", "solver": "qp", "C": 0.5},
    ],
)
def test_each_pair_is_the_binary_machine_of_its_two_classes(params):
    """Settings LIBSVM does not have: every pair's decision value is that of a
    binary SVC fitted on the two classes' points alone, positive for the first."""
    X, y, _ = _data("wine")
    X_test = X[::3] + 0.1
    settings = {"sigma": 2.0, "tol": 1e-6, **params}
    ours = OneVsOneSVC(**settings, decision_function_shape="ovo").fit(X, y)
    svc = SVC(**settings, decision_function_shape="ovo").fit(X, y)
    for p, (i, j) in enumerate([(0, 1), (0, 2), (1, 2)]):
        rows = (y == i) | (y == j)
        binary = SVC(**settings).fit(X[rows], y[rows])
        expected = -binary.decision_function(X_test)  # positive for class i
        np.testing.assert_allclose(
            ours.decision_function(X_test)[:, p], expected, atol=1e-5
        )
        np.testing.assert_allclose(
            svc.decision_function(X_test)[:, p], expected, atol=1e-5
        )
    assert ours.n_iter_ == int(np.sum(svc.n_iter_))


def _in_two_threads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Pairs solved in two threads whatever the size and the machine's load;
    the returned list collects how many threads each solve_pairs used."""
    used: list[int] = []
    real = machine_solve.pair_threads

    def counted(n: int, n_pairs: int) -> int:
        used.append(real(n, n_pairs))
        return used[-1]

    monkeypatch.setattr(machine_solve, "PAIR_THREADS_FROM", 0)
    monkeypatch.setattr(machine_solve, "idle_core", lambda: True)
    monkeypatch.setattr(machine_solve, "pair_threads", counted)
    return used


@pytest.mark.parametrize("name", ["wine", "digits"])
def test_pairs_in_two_threads_are_the_pairs_solved_one_after_another(name, monkeypatch):
    """Issue 48: pairs solved on two threads give every pair's answer to the
    bit (coefficients, intercept, steps, KKT value), in the pairs' order."""
    X, y, gamma = _data(name)
    serial = SVC(C=1.0, kernel="rbf", gamma=gamma).fit(X, y)
    used = _in_two_threads(monkeypatch)
    threaded = SVC(C=1.0, kernel="rbf", gamma=gamma).fit(X, y)
    assert used == [2]
    assert len(threaded.pair_fits_) == len(serial.pair_fits_)
    for ours, theirs in zip(threaded.pair_fits_, serial.pair_fits_, strict=True):
        np.testing.assert_array_equal(ours.rows, theirs.rows)
        np.testing.assert_array_equal(ours.coef, theirs.coef)
        assert ours.intercept == theirs.intercept
        assert ours.n_iter_ == theirs.n_iter_
        assert ours.kkt_violation_ == theirs.kkt_violation_
    np.testing.assert_array_equal(threaded.dual_coef_, serial.dual_coef_)
    np.testing.assert_array_equal(threaded.intercept_, serial.intercept_)


def test_pairs_in_threads_stop_when_the_fit_is_cancelled(monkeypatch):
    """The cancel predicate of the caller's thread reaches the pairs solved
    in the worker threads (each runs in a copy of the caller's context): a
    predicate that says "stop" in any thread but the caller's stops the fit."""
    X, y, gamma = _data("wine")
    used = _in_two_threads(monkeypatch)
    # Every poll asks the predicate (the fit is shorter than POLL_SECONDS).
    monkeypatch.setattr(solvers_base, "POLL_SECONDS", 0.0)
    caller = threading.current_thread()
    asked_by: set[str] = set()

    def superseded() -> bool:
        asked_by.add(threading.current_thread().name)
        return threading.current_thread() is not caller

    with cancel_when(superseded), pytest.raises(FitCancelled):
        SVC(C=1.0, kernel="rbf", gamma=gamma).fit(X, y)
    assert used == [2]
    assert asked_by - {caller.name}


def test_a_fit_lane_keeps_the_pairs_on_one_thread(monkeypatch):
    """Inside a fit lane (a server's long fits take turns on one core) the
    pairs are solved one after another, whatever the size."""
    X, y, gamma = _data("wine")
    used = _in_two_threads(monkeypatch)
    with long_fits_through(FitLane(slots=1)):
        inside = SVC(C=1.0, kernel="rbf", gamma=gamma).fit(X, y)
    outside = SVC(C=1.0, kernel="rbf", gamma=gamma).fit(X, y)
    assert used == [1, 2]
    np.testing.assert_array_equal(inside.dual_coef_, outside.dual_coef_)


def _assemble_pair_by_pair(codes, k, pairs):
    """LIBSVM's "build output" written pair by pair (the loop assemble had
    before issue 48): the reference for the vectorised layout."""
    nonzero = np.zeros(codes.shape[0], dtype=bool)
    for rows, coef, _ in pairs:
        nonzero[rows[coef != 0.0]] = True
    per_class = [np.flatnonzero(nonzero & (codes == c)) for c in range(k)]
    support = np.concatenate(per_class)
    position = np.full(codes.shape[0], -1)
    position[support] = np.arange(support.size)
    dual = np.zeros((k - 1, support.size))
    for (i, j), (rows, coef, _) in zip(class_pairs(k), pairs, strict=True):
        kept = coef != 0.0
        rows, coef = rows[kept], coef[kept]
        own = codes[rows] == i
        dual[j - 1, position[rows[own]]] = coef[own]
        dual[i, position[rows[~own]]] = coef[~own]
    return support, [s.size for s in per_class], dual


@pytest.mark.parametrize("k", [3, 4, 7])
def test_the_layout_is_libsvms_built_pair_by_pair(k):
    rng = np.random.default_rng(k)
    for _ in range(20):
        codes = rng.integers(0, k, size=60)
        pairs = []
        for i, j in class_pairs(k):
            rows = np.flatnonzero((codes == i) | (codes == j))
            coef = rng.normal(size=rows.size) * (rng.random(rows.size) < 0.4)
            pairs.append((rows, coef, float(rng.normal())))
        support, n_support, dual, intercept = assemble(codes, k, pairs)
        want_support, want_counts, want_dual = _assemble_pair_by_pair(codes, k, pairs)
        np.testing.assert_array_equal(support, want_support)
        np.testing.assert_array_equal(n_support, want_counts)
        np.testing.assert_array_equal(dual, want_dual)
        np.testing.assert_array_equal(intercept, [b for _, _, b in pairs])
        # scikit-learn's types: LIBSVM's int32 counts, index-sized support.
        assert support.dtype == np.intp and n_support.dtype == np.int32
        assert dual.dtype == intercept.dtype == np.float64
