"""Both cores for large kernel rows (issue 48, item 3): the parallel path gives
the rows of the serial one to the bit, runs only above its threshold, and two
threads fitting large problems at once (a server's two sessions) neither crash
nor change each other's answer."""

from __future__ import annotations

import math
import os
import threading

import numpy as np
import pytest
from sklearn.svm import SVC as SklearnSVC

from svmlab import SVC
from svmlab.compiled import threads
from svmlab.kernels import KernelRows, gamma_from_sigma, gram
from svmlab.kernels import rows as rows_module
from svmlab.kernels.expansion import EXPANSION_PARALLEL_WORK
from svmlab.kernels.rows import ROW_EXP_WORK, ROW_PARALLEL, ROW_PARALLEL_WORK

#: Points of d = 10 dimensions: a row of n entries is ``n (10 + 4)`` work, so
#: n = 6,000 (84,000) is above the threshold and n = 2,000 (28,000) below it.
D = 10


def _points(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, D))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.normal(size=n) > 0.5, 1, -1)
    return X, y


@pytest.fixture(autouse=True)
def an_idle_core(monkeypatch: pytest.MonkeyPatch) -> None:
    """The parallel paths as on a quiet machine, whatever the load now (the
    gate on the load average has its own test)."""
    monkeypatch.setattr(threads, "idle_core", lambda: True)


def _serial(monkeypatch: pytest.MonkeyPatch) -> None:
    """Kernel rows built from here on never take the parallel path."""
    monkeypatch.setattr(rows_module, "parallel_threshold", lambda work: math.inf)


def test_a_thread_safe_layer_is_in_use_here():
    # This machine has GNU OpenMP: the parallel paths must be on, on a layer
    # that takes concurrent callers (never numba's workqueue).
    import numba

    assert threads.PARALLEL and threads.LAYER in ("tbb", "omp")
    X, _ = _points(100, 0)
    KernelRows(X).rows(np.arange(2))
    assert numba.threading_layer() == threads.LAYER


def test_the_threshold_is_the_rows_and_infinite_without_a_safe_layer(monkeypatch):
    X, _ = _points(50, 0)
    assert KernelRows(X).params[ROW_PARALLEL] == ROW_PARALLEL_WORK
    monkeypatch.setattr(threads, "PARALLEL", False)
    assert math.isinf(KernelRows(X).params[ROW_PARALLEL])
    assert threads.threads() == 1


def test_a_busy_machine_fits_on_one_core(monkeypatch):
    monkeypatch.setattr(threads, "idle_core", lambda: False)
    X, _ = _points(50, 0)
    assert math.isinf(KernelRows(X).params[ROW_PARALLEL])
    # The gate itself: the load average against the cores.
    monkeypatch.undo()
    cores = os.cpu_count() or 1
    monkeypatch.setattr(os, "getloadavg", lambda: (cores + 0.0, 0.0, 0.0))
    assert not threads.idle_core()
    monkeypatch.setattr(os, "getloadavg", lambda: (cores - 1.0, 0.0, 0.0))
    assert threads.idle_core()


@pytest.mark.parametrize("kernel", ["gaussian", "polynomial", "linear", "sigmoid"])
def test_parallel_rows_equal_serial_rows_to_the_bit(kernel, monkeypatch):
    n = 6000
    assert n * (D + ROW_EXP_WORK) >= ROW_PARALLEL_WORK
    X, _ = _points(n, 1)
    X /= math.sqrt(D)  # keeps the polynomial and the sigmoid in range
    index = np.array([0, 17, n - 1])
    parallel = KernelRows(X, kernel=kernel, sigma=0.8, degree=2, scale=0.5)
    got = parallel.rows(index)
    _serial(monkeypatch)
    serial = KernelRows(X, kernel=kernel, sigma=0.8, degree=2, scale=0.5)
    assert math.isinf(serial.params[ROW_PARALLEL])
    np.testing.assert_array_equal(got, serial.rows(index))
    # And both are the Gram matrix's rows (an independent formula).
    np.testing.assert_allclose(got, serial.full()[index], rtol=1e-12, atol=1e-14)


def _at_once(task) -> list:
    """``task(0)`` and ``task(1)`` in two threads started together (a server's
    two sessions); their results, or the exception each raised. Fails if one
    is still running after 5 minutes (a deadlock)."""
    results: list = [None, None]
    start = threading.Barrier(2)

    def work(i: int) -> None:
        try:
            start.wait(timeout=60)
            results[i] = task(i)
        except BaseException as error:  # reported by the caller, not lost
            results[i] = error

    workers = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=300)
    assert not any(w.is_alive() for w in workers), "a thread is stuck"
    return results


def _fit(X, y, C=1.0, sigma=2.0):
    return SVC(C=C, sigma=sigma).fit(X, y)


def test_a_large_fit_is_the_serial_fit_and_scikit_learns(monkeypatch):
    X, y = _points(6000, 2)
    parallel = _fit(X, y)
    _serial(monkeypatch)
    serial = _fit(X, y)
    np.testing.assert_array_equal(parallel.alpha_, serial.alpha_)
    assert parallel.n_iter_ == serial.n_iter_
    lib = SklearnSVC(C=1.0, gamma=gamma_from_sigma(2.0), tol=1e-3).fit(X, y)
    Z, _ = _points(500, 3)
    np.testing.assert_array_equal(parallel.predict(Z), lib.predict(Z))
    f, f_lib = parallel.decision_function(Z), lib.decision_function(Z)
    assert np.abs(f - f_lib).max() <= 5e-3 * np.abs(f_lib).max()


def test_two_threads_fitting_large_problems_at_once_get_their_own_answers():
    """Two sessions of one server fit at the same moment: both finish (no
    abort, no deadlock: a layer without concurrent callers would abort the
    process here) with the answers each gets alone."""
    problems = [_points(6000, 10 + i) for i in range(2)]
    alone = [_fit(X, y) for X, y in problems]
    together = _at_once(lambda i: _fit(*problems[i]))
    for model, reference in zip(together, alone, strict=True):
        assert isinstance(model, SVC), model
        np.testing.assert_array_equal(model.alpha_, reference.alpha_)


def test_only_rows_above_the_threshold_run_in_parallel():
    """The pages' sizes (n <= 5,000 points in the plane) stay on one core; a
    large problem's rows are computed in parallel (the solver counts them)."""
    assert 5000 * (2 + ROW_EXP_WORK) < ROW_PARALLEL_WORK
    rng = np.random.default_rng(5)
    X = rng.normal(size=(5000, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
    small = _fit(X, y, sigma=0.5)
    assert small.solution_.extras["parallel_rows"] == 0
    assert small.solution_.extras["kernel_evaluations"] > 0
    X, y = _points(6000, 4)
    large = _fit(X, y)
    assert large.solution_.extras["parallel_rows"] > 0


def test_large_predictions_equal_the_gram_product():
    X, y = _points(3000, 6)
    model = _fit(X, y)
    Z, _ = _points(20_000, 7)
    work = Z.shape[0] * model.support_.size * (D + ROW_EXP_WORK)
    assert work >= EXPANSION_PARALLEL_WORK
    f = model.decision_function(Z)
    K = gram(Z, model.support_vectors_, sigma=2.0)
    f_gram = K @ model.dual_coef_[0] + model.intercept_[0]
    np.testing.assert_allclose(f, f_gram, rtol=1e-12, atol=1e-12)
    # Below the threshold the product itself, to the bit (the pages' grids).
    small = Z[:50]
    np.testing.assert_array_equal(
        model.decision_function(small),
        K[:50] @ model.dual_coef_[0] + model.intercept_[0],
    )
    # The regressors' and the one-class SVM's share it.
    lib = SklearnSVC(C=1.0, gamma=gamma_from_sigma(2.0)).fit(X, y)
    np.testing.assert_array_equal(model.predict(Z), lib.predict(Z))


def test_parallel_predictions_in_two_threads_at_once():
    X, y = _points(3000, 8)
    model = _fit(X, y)
    Z, _ = _points(20_000, 9)
    alone = model.decision_function(Z)
    results = _at_once(lambda i: model.decision_function(Z))
    for f in results:
        assert isinstance(f, np.ndarray), f
        np.testing.assert_array_equal(f, alone)
