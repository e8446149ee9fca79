"""Shared fixtures and problem factories (STYLE rule 13)."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

# One BLAS thread: the machine has two cores and pytest runs the browser too.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
# The app shows visitors a generic sentence for an uncaught exception
# (.streamlit/config.toml); a failing test must show the real one. (The
# environment variable reaches the browser tests' server; AppTest reads the
# option set here.)
os.environ.setdefault("STREAMLIT_CLIENT_SHOW_ERROR_DETAILS", "full")

import numpy as np
import pytest
from streamlit import config as _streamlit_config

_streamlit_config.set_option("client.showErrorDetails", "full")

ROOT = Path(__file__).resolve().parents[1]


def pytest_sessionstart(session: pytest.Session) -> None:
    """Compile svmlab's numba functions once, before the first test: the warm-up
    a server runs at its start (:mod:`svmlab.compiled.precompile`). On a fresh machine
    (an empty numba cache, or compiled sources just changed) the first page
    test otherwise compiled the solvers inside its script timeout and failed
    when the machine was busy (seen: Explore's AppTest after 30 s at load 8).
    With a filled cache this loads the functions, about 4 s."""
    from svmlab.compiled import precompile

    report = precompile.warm_up()
    assert not report.errors, report.errors


def python_output(
    code: str,
    *,
    env: dict[str, str] | None = None,
    cwd: Path = ROOT,
    timeout: float = 300,
) -> str:
    """What ``python -c code`` prints in a fresh process (``env``: its whole
    environment, this process's by default); a non-zero exit fails, showing
    the end of what it wrote to stderr."""
    return command_output(
        [sys.executable, "-c", code], env=env, cwd=cwd, timeout=timeout
    )


def command_output(
    args: Sequence[str | Path],
    *,
    env: dict[str, str] | None = None,
    cwd: Path = ROOT,
    timeout: float = 300,
) -> str:
    """What a command prints (``env``: its whole environment, this process's by
    default); a non-zero exit fails, showing the end of its stderr."""
    done = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


#: A Lee (2006) experiment small enough for a test: ``lee2006.run(seeds, **TINY_LEE)``.
TINY_LEE = {
    "Cs": (10.0, 500.0),
    "lee_sigma2s": (0.5, 0.7),
    "n_train": 30,
    "n_test": 20,
    "n_test_sets": 3,
}


def random_problem(
    seed: int, n: int = 60, *, outliers: int = 0, kind: str = "xor"
) -> tuple[np.ndarray, np.ndarray]:
    """A small random 2-D problem: XOR-like or two overlapping blobs, with optional
    outliers (points of class +1 far inside class -1's side)."""
    rng = np.random.default_rng(seed)
    if kind == "xor":
        X = rng.normal(size=(n, 2))
        y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    else:
        y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
        X = rng.normal(size=(n, 2)) + 1.2 * y[:, None]
    if outliers:
        X[:outliers] = rng.normal(size=(outliers, 2)) * 0.3 + np.array([-5.0, -5.0])
        y[:outliers] = 1.0
    return X, y


def libsvm_kernel(ours: dict) -> dict:
    """scikit-learn's (LIBSVM's) parameters for the kernel that svmlab's ``ours``
    names, from the two libraries' formulas: svmlab's Gaussian
    exp(-||x - z||^2 / (2 sigma^2)) is rbf with gamma = 1 / (2 sigma^2), its
    polynomial (x'z + coef0)^degree is poly with gamma 1, its sigmoid
    tanh(scale x'z + coef0) is sigmoid with gamma = scale."""
    kernel = ours["kernel"]
    if kernel == "gaussian":
        return {"kernel": "rbf", "gamma": 1.0 / (2.0 * ours["sigma"] ** 2)}
    if kernel == "polynomial":
        degree, coef0 = ours["degree"], ours["coef0"]
        return {"kernel": "poly", "degree": degree, "coef0": coef0, "gamma": 1.0}
    if kernel == "sigmoid":
        return {"kernel": "sigmoid", "gamma": ours["scale"], "coef0": ours["coef0"]}
    assert kernel == "linear", kernel
    return {"kernel": "linear"}


def relative_difference(a: np.ndarray, b: np.ndarray) -> float:
    """``max |a - b| / max(1, max |b|)``: how far a solver's numbers are from the
    reference's, relative to their size."""
    return float(np.max(np.abs(a - b)) / max(1.0, np.max(np.abs(b))))


def gaussian_by_pairs(A: np.ndarray, B: np.ndarray, s: float) -> np.ndarray:
    """Sugiyama's exp(-||x - z||^2 / (2 s^2)), one pair at a time in plain
    numpy: the reference the Gaussian kernel matrices are checked against."""
    K = np.empty((A.shape[0], B.shape[0]))
    for i, x in enumerate(A):
        for j, z in enumerate(B):
            K[i, j] = math.exp(-float(np.sum((x - z) ** 2)) / (2.0 * s * s))
    return K


def cold_margins(est, X: np.ndarray, y: np.ndarray, folds=None) -> np.ndarray:
    """Held-out margins of fits from scratch with ``est``'s settings: for each
    ``(train, test)`` pair of indices in ``folds`` (leave-one-out when None), a
    fit on ``train`` gives ``test`` its signed decision values."""
    from svmlab import SVC

    n = len(y)
    if folds is None:
        folds = ((np.arange(n) != i, np.array([i])) for i in range(n))
    margins = np.empty(n)
    for train, test in folds:
        model = SVC(**est.get_params()).fit(X[train], y[train])
        sign = np.where(y[test] == model.classes_[1], 1.0, -1.0)
        margins[test] = sign * model.decision_function(X[test])
    return margins


def warns_when_stopped_early(X: np.ndarray, y: np.ndarray, solver: str, **params):
    """``SVC`` with ``solver`` and a polynomial kernel at C = 10, stopped by the
    ``max_iter`` in ``params``: the fit warns (a ``ConvergenceWarning`` naming the
    solver) rather than raising."""
    from sklearn.exceptions import ConvergenceWarning

    from svmlab import SVC

    with pytest.warns(ConvergenceWarning, match=solver):
        SVC(C=10.0, kernel="polynomial", solver=solver, **params).fit(X, y)


# The checks scikit-learn 1.9 expects its own SVC, NuSVC, SVR, NuSVR and
# OneClassSVM to fail (sklearn/utils/_test_common/instance_generator.py,
# PER_ESTIMATOR_XFAIL_CHECKS): LIBSVM's C-scaled sample weights give the
# weighted and the repeated problem the same optimum, but two solves stopped at
# tol differ by more than the check's rtol 1e-7.
SAMPLE_WEIGHT_XFAIL = {
    "check_sample_weight_equivalence_on_dense_data": (
        "sample_weight is not equivalent to removing/repeating samples."
    ),
    "check_sample_weight_equivalence_on_sparse_data": (
        "sample_weight is not equivalent to removing/repeating samples."
    ),
}


def estimator_checks(estimator, expected_failed: dict | None = None) -> list[dict]:
    """scikit-learn's ``check_estimator`` on ``estimator``, asserted: no check
    fails but those of ``expected_failed`` (name: reason, as scikit-learn's
    ``expected_failed_checks``), and none is skipped but
    ``check_array_api_input`` (it needs an array-API namespace; svmlab computes
    in NumPy by design). The results."""
    from sklearn.utils.estimator_checks import check_estimator

    results = check_estimator(
        estimator, on_fail=None, expected_failed_checks=expected_failed
    )
    failed = [r["check_name"] for r in results if r["status"] == "failed"]
    skipped = {r["check_name"] for r in results if r["status"] == "skipped"}
    assert failed == []
    assert skipped <= {"check_array_api_input"}
    return results


@pytest.fixture(scope="module")
def grid() -> np.ndarray:
    """A 25 x 25 evaluation grid over [-3, 3]^2."""
    g = np.linspace(-3.0, 3.0, 25)
    xx, yy = np.meshgrid(g, g)
    return np.c_[xx.ravel(), yy.ravel()]


@pytest.fixture
def fresh_caches() -> Iterator[None]:
    """No cache hits from another test: Streamlit's data cache and the shared
    results emptied before the test and after it (page tests use it)."""
    from tests.pages import clear_caches

    clear_caches()
    yield
    clear_caches()


@pytest.fixture
def no_lee_files(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The Model selection page reads no real Lee (2006) results file: its
    path points at a missing file under ``tmp_path`` (a recompute writes none)."""
    from svmlab.ui.selection import requests

    monkeypatch.setattr(requests, "LEE_PATH", tmp_path / "missing_lee2006.json")
