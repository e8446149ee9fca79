"""Nothing compiled on a visitor's time: every compiled function, ready ahead.

svmlab's solvers are compiled by numba the first time they are called with a
given kind of argument. On a fresh install that took a visitor's first Explore
fit 15 s (issue 28). :func:`warm_up` calls every compiled function the app uses,
through the same public entry points the pages call (``SVC.fit`` with each
solver, loss and bias, a cached read-only Gram matrix and rows on demand, warm
starts, histories; kernel rows; Crammer-Singer's blocks), on problems of a few
dozen points, most urgent first: the Explore page's default fit. It also
makes the first call to CVXOPT and to scikit-learn's ``SVC`` / ``LinearSVC``
(the Solvers page's references), so that no timed fit pays for an import.

:func:`start_in_background` runs it once per process in a daemon thread; the
server calls it at its start, before any visitor (app.py's start-up hook,
:mod:`svmlab.ui.frame.server_start`), and ``svmlab.ui`` calls it when first imported
in a running server (whichever way the server was started).
numba saves what it compiles to its disk cache
(:mod:`svmlab.compiled.cache`: a directory named by the compiled sources), so
the next server start only loads, in a fraction of a second.
``python -m svmlab.compiled.precompile`` fills the cache ahead (before a lecture, or at
install time) and prints what it did.

A fit that needs a function the warm-up is still compiling waits for it and
never compiles it a second time: numba compiles under one process-wide lock
and, holding it, first looks for the version it was asked for among those
already compiled (``Dispatcher.compile``); ``tests/test_precompile.py`` checks
this with two threads. A job that fails is recorded in the report and skipped:
the function is then compiled on first use, as before.

This module is pure engine (no streamlit); :func:`compiled_functions` lists
every compiled function of svmlab, which the tests use to check that the
warm-up leaves none behind.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from svmlab.compiled import cache as compiled_cache

__all__ = [
    "JOBS",
    "WarmUp",
    "compile_counts",
    "compiled_functions",
    "ready",
    "start_in_background",
    "warm_up",
]

LOG = logging.getLogger(__name__)


@dataclass
class WarmUp:
    """What :func:`warm_up` did: seconds per job (in order), how many compiled
    versions it compiled and how many it loaded from numba's disk cache, the
    jobs that failed (name -> message), and the thread that ran it."""

    seconds: float = 0.0
    jobs: dict[str, float] = field(default_factory=dict)
    compiled: int = 0
    loaded: int = 0
    errors: dict[str, str] = field(default_factory=dict)
    thread: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "seconds": self.seconds,
            "jobs": dict(self.jobs),
            "compiled": self.compiled,
            "loaded": self.loaded,
            "errors": dict(self.errors),
            "thread": self.thread,
            "cache_dir": str(compiled_cache.CACHE_DIR),
        }


# -- what is compiled --------------------------------------------------------------


def _module_name(path) -> str:
    relative = path.relative_to(compiled_cache.PACKAGE).with_suffix("")
    parts = [p for p in relative.parts if p != "__init__"]
    return ".".join(["svmlab", *parts])


def compiled_functions() -> dict[str, Any]:
    """Every numba-compiled function defined in svmlab, by dotted name
    (``svmlab.solvers.shrinking._chunk``): the dispatchers found in the modules
    that import numba (:func:`svmlab.compiled.cache.compiled_sources`)."""
    found: dict[str, Any] = {}
    modules = [
        importlib.import_module(_module_name(path))
        for path in compiled_cache.compiled_sources()
    ]
    # numba's class is looked up, not imported by name here: a module that
    # imports numba counts as compiled code (compiled_cache), and an edit to
    # this one must not empty the cache.
    Dispatcher = sys.modules["numba.core.dispatcher"].Dispatcher
    for module in modules:
        for name, value in vars(module).items():
            if isinstance(value, Dispatcher) and value.py_func.__module__ == (
                module.__name__
            ):
                found[f"{module.__name__}.{name}"] = value
    return dict(sorted(found.items()))


def compile_counts() -> tuple[int, int]:
    """``(compiled, loaded)``: versions of svmlab's compiled functions that this
    process has compiled, and loaded from numba's disk cache, so far."""
    compiled = loaded = 0
    for dispatcher in compiled_functions().values():
        stats = dispatcher.stats
        compiled += sum(stats.cache_misses.values())
        loaded += sum(stats.cache_hits.values())
    return compiled, loaded


# -- the jobs ----------------------------------------------------------------------


def _points(n: int = 24, classes: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """``n`` points in the plane, ``classes`` overlapping blobs (labels 0, 1, ...),
    the same every time."""
    rng = np.random.default_rng(0)
    labels = np.arange(n) % classes
    angle = 2 * np.pi * labels / classes
    X = rng.normal(size=(n, 2)) + 1.5 * np.c_[np.cos(angle), np.sin(angle)]
    return X, labels.astype(np.float64)


def _explore() -> None:
    """The Explore page's default: the Gaussian Gram matrix, cached read-only,
    SMO with the unregularized bias; a history (playback) and a warm start."""
    from svmlab.kernels import gram
    from svmlab.svm.classifier import SVC

    X, y = _points()
    K = gram(X, kernel="gaussian", sigma=1.0)
    K.setflags(write=False)  # as svmlab.ui.cache.gram_matrix shares it
    first = SVC(C=1.0, sigma=1.0).fit(X, y, K=K)
    SVC(C=2.0, sigma=1.0, record_history=True).fit(X, y, K=K, init=first.alpha_)
    first.decision_function(X)


def _every_solver() -> None:
    """Every registered solver with every loss and bias it accepts: with the
    Gram matrix handed in and with history, and without it (SMO: kernel rows
    on demand) from a warm start; the hard margin by the QP."""
    from svmlab import solvers
    from svmlab.kernels import gram
    from svmlab.svm.classifier import SVC

    X, y = _points()
    K = gram(X, kernel="gaussian", sigma=1.0)
    K.setflags(write=False)
    for name, spec in solvers.SOLVERS.items():
        for loss in sorted(spec.losses):
            for bias in ("unregularized", "regularized", "none"):
                if name not in solvers.valid_solvers(
                    loss, fit_intercept=bias == "unregularized"
                ):
                    continue
                options = {"loss": loss, "bias": bias, "solver": name, "sigma": 1.0}
                first = SVC(record_history=True, **options).fit(X, y, K=K)
                SVC(C=2.0, **options).fit(X, y, init=first.alpha_)
    SVC(C=np.inf, solver="qp").fit(X, y, K=K)


def _kernels() -> None:
    """Kernel rows on demand (the rows, the diagonal, products) for each kernel,
    and the Gram matrix of points that arrive read-only (a held upload)."""
    from svmlab.kernels import KernelRows, expansion, gram

    X, _ = _points()
    X.setflags(write=False)
    for kernel in ("gaussian", "polynomial", "linear"):
        rows = KernelRows(X, kernel=kernel, shift=1.0)
        rows.rows(np.arange(3))
        rows.matvec(np.ones(X.shape[0]))
        gram(X, X[:5], kernel=kernel)
    # Large predictions' parallel loop (the pages' stay below its threshold).
    out = np.empty(X.shape[0])
    params = KernelRows(X).params
    ZX = np.vstack([X[:5], X])
    expansion._expansion_into(ZX, 5, np.int64(1), params, np.ones(5), out)


def _multiclass() -> None:
    """The multiclass estimators, Crammer-Singer's QP (polished by blocks), its
    block sweeps alone (above ``QP_MAX_VARIABLES`` variables) and the linear
    kernel's sequential dual method."""
    from svmlab.kernels import gram
    from svmlab.solvers import crammer_singer
    from svmlab.svm.multiclass import CrammerSingerSVC, OneVsOneSVC, OneVsRestSVC

    X, y = _points(30, classes=3)
    for estimator in (CrammerSingerSVC, OneVsRestSVC, OneVsOneSVC):
        estimator(C=1.0, sigma=1.0).fit(X, y).predict(X)
    for bias in ("none", "regularized"):  # the linear kernel's own method
        CrammerSingerSVC(C=1.0, kernel="linear", bias=bias).fit(X, y).predict(X)
    K = gram(X, kernel="gaussian", sigma=1.0)
    dual = crammer_singer.CSDual(K, y.astype(np.int64), 3, 1.0)
    crammer_singer.solve_blocks(dual, max_iter=50)


def _family() -> None:
    """The rest of the family on the pages: ν-SVC and the one-class SVM, ε-SVR
    and ν-SVR (the Regression page's first fit), and exact leave-one-out and
    seeded k-fold of the modified hinge (the Model selection page's exact side:
    the entropy dual's warm refits)."""
    from svmlab.experiments import selection
    from svmlab.svm.classifier import SVC
    from svmlab.svm.nu_svm import NuSVC, OneClassSVM
    from svmlab.svm.regression import EpsilonSVR, NuSVR

    X, labels = _points()
    NuSVC(nu=0.3, sigma=1.0).fit(X, labels).decision_function(X)
    OneClassSVM(nu=0.2, sigma=1.0).fit(X).decision_function(X)
    t = np.sin(X[:, :1].ravel())
    for model in (EpsilonSVR(C=1.0, epsilon=0.1), NuSVR(C=1.0, nu=0.5)):
        model.fit(X[:, :1], t).predict(X[:, :1])
    EpsilonSVR(C=1.0, epsilon=0.1, loss="squared_epsilon_insensitive").fit(X, t)
    estimator = SVC(C=1.0, sigma=1.0, loss="modified_hinge")
    selection.loo_cv_score(estimator, X, labels)
    selection.kfold_cv_score(estimator, X, labels, n_splits=3, random_state=0)


def _libraries() -> None:
    """The first call to scikit-learn's SVC and LinearSVC (the Solvers page's
    library references): imports and first-call costs, not compiling."""
    from sklearn.svm import SVC as LibSVC
    from sklearn.svm import LinearSVC

    X, y = _points()
    LibSVC(kernel="rbf", gamma=0.5).fit(X, y)
    LinearSVC(dual=True).fit(X, y)


def _inlined() -> None:
    """The hot loops' helpers compiled with ``inline="always"`` (working-set
    rules, row cache, steps: numba copies them into each caller, so compiling
    the callers never compiles them on their own), called once directly, as a
    test or a reader calling one from Python would."""
    from svmlab.kernels import KernelRows, gram
    from svmlab.solvers import (
        entropy_loop,
        entropy_steps,
        row_cache,
        shrinking,
        working_set,
    )

    X, labels = _points(8)
    y = np.where(labels > 0, 1.0, -1.0)
    n = y.shape[0]
    K = gram(X)
    a, G, U, R, QD = np.zeros(n), -np.ones(n), np.ones(n), np.zeros(n), np.ones(n)
    i, gmax = working_set.max_violator(y, a, G, U, n)
    working_set.pair_partner(max(i, 0), gmax, K[0], y, a, G, QD, U, n, 1e-3)
    ip, gp, i_n, gn = working_set.nu_violators(y, a, G, U, n)
    working_set.nu_partner(ip, gp, i_n, gn, K[0], K[1], y, a, G, QD, U, n, 1e-3)
    working_set.select_single(a, G, U, n, 1e-3)
    shrinking._step_pair(0, 1, K[0], K[1], y, a.copy(), G.copy(), QD, U, R, n)
    shrinking._step_single(0, K[0], y, a.copy(), G.copy(), QD, U, R, n)
    shrinking._add_row(G.copy(), 1.0, y, K[0], n)
    rows, _ = entropy_steps.make_rows(None, KernelRows(X), n)
    BL, P, CV = -np.ones(n), np.ones(n), np.ones(n)
    entropy_loop._scan_values(1.0, 0.5, -0.7, 1.0, 2.0, 0.1, 1e-3, -13.8)
    entropy_loop._max_l(y, G, BL, np.arange(n), n, True)
    entropy_loop._partner(
        0, K[0], 1.0, y, G, QD, -BL, P, CV, R.astype(np.int64), n, True, 1.0
    )
    entropy_loop._smallest_u(y, G, -BL, R.astype(np.int64), n, True, 1.0)
    entropy_loop._first_max(P.copy(), n)
    entropy_loop._mask_inactive(BL.copy(), np.arange(n), n, np.zeros(n, np.bool_))
    # Inlined into the loop (inline="always"), so compiled here by a call of
    # their own: the warm-up leaves no compiled function of svmlab cold.
    eligible, ist = np.ones(n, np.bool_), np.zeros(entropy_steps.N_STATE, np.int64)
    entropy_loop._eligible_count(eligible)
    half = np.full(n, 0.5)
    entropy_loop._unshrink(
        y, half, np.log(half), -np.ones(n), np.ones(n), eligible,
        np.arange(n, dtype=np.int64), ist, BL.copy(), BL.copy(), P.copy(),
        CV.copy(), 1e-3, 1e-300, -690.0, np.zeros(n, np.bool_),
    )  # fmt: skip
    entropy_steps.kernel_row(0, rows)
    src, cache, ist = rows
    row_cache.cached_row(1, n, src, cache, ist)
    row_cache.row_slot(2, n, *src, *cache, ist)
    cdata, _slot_of, _owner, clen, _stamp, synced, log = cache
    row_cache._replay(0, cdata, clen, synced, log, synced[0])  # no swap to apply


def _references() -> None:
    """The unshrunk SMO loops kept as the tests' independent reference (the
    app does not call them): last, so they never delay anything a page needs."""
    from svmlab.kernels import gram
    from svmlab.solvers import smo

    X, labels = _points()
    y = np.where(labels > 0, 1.0, -1.0)
    K = gram(X)
    n = y.shape[0]
    for loop in (smo._pair_loop, smo._single_loop):
        QD, a, G = np.diagonal(K).copy(), np.zeros(n), -np.ones(n)
        loop(K, y, QD, a, G, 1.0, 0.0, 1e-3, 0, 5)


#: The jobs of :func:`warm_up`, most urgent first (the Explore page's default fit
#: is the first thing most visitors wait for).
JOBS: dict[str, Callable[[], None]] = {
    "explore": _explore,
    "every solver": _every_solver,
    "kernels": _kernels,
    "multiclass": _multiclass,
    "family": _family,
    "libraries": _libraries,
    "inlined helpers": _inlined,
    "test references": _references,
}


# -- running them ------------------------------------------------------------------

_lock = threading.Lock()
_report: WarmUp | None = None
_thread: threading.Thread | None = None
_thread_lock = threading.Lock()


#: Seconds the server's background warm-up waits after its first job (the
#: Explore page's default fit) before the rest, so the first page's own script and
#: the browser drawing it do not share the two cores with the rest's loading (a
#: fresh clone's first /Explore, 5 interleaved rounds, load 1.1-1.5: 4.12 ->
#: 3.89 s; benchmarks/lecture_flow.py --first-visit-only).
BACKGROUND_PAUSE_S = 2.0


def _run(pause_after_first: float = 0.0) -> WarmUp:
    report = WarmUp(thread=threading.current_thread().name)
    compiled0, loaded0 = compile_counts()
    start = time.perf_counter()
    for i, (name, job) in enumerate(JOBS.items()):
        if i == 1 and pause_after_first > 0:
            time.sleep(pause_after_first)
        began = time.perf_counter()
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                job()
        except Exception as error:
            report.errors[name] = f"{type(error).__name__}: {error}"
            LOG.warning("svmlab precompile: job %r failed: %s", name, error)
        report.jobs[name] = time.perf_counter() - began
    report.seconds = time.perf_counter() - start
    compiled1, loaded1 = compile_counts()
    report.compiled, report.loaded = compiled1 - compiled0, loaded1 - loaded0
    LOG.info(
        "svmlab precompile: ready in %.1f s (%d compiled, %d loaded from %s)",
        report.seconds,
        report.compiled,
        report.loaded,
        compiled_cache.CACHE_DIR,
    )
    return report


def warm_up(pause_after_first: float = 0.0) -> WarmUp:
    """Run every job of :data:`JOBS` once per process and return the report;
    ``pause_after_first`` seconds of sleep between the first job and the rest
    (the server's background warm-up: :data:`BACKGROUND_PAUSE_S`).

    Idempotent: a second call returns the first call's report at once; a call
    made while another thread is running the warm-up waits for it (and returns
    its report) instead of running it twice.
    """
    global _report
    with _lock:
        if _report is None:
            _report = _run(pause_after_first)
        return _report


def ready() -> bool:
    """Whether the warm-up has finished in this process."""
    return _report is not None


def start_in_background() -> threading.Thread | None:
    """Start :func:`warm_up` in a daemon thread, once per process (later calls
    return the same thread). Returns at once; None when ``SVMLAB_PRECOMPILE=0``
    (functions are then compiled on first use, as before)."""
    global _thread
    if os.environ.get("SVMLAB_PRECOMPILE", "1") == "0":
        return None
    with _thread_lock:
        if _thread is None:
            _thread = threading.Thread(
                target=warm_up,
                args=(BACKGROUND_PAUSE_S,),
                name="svmlab-precompile",
                daemon=True,
            )
            _thread.start()
        return _thread


def main() -> None:
    """``python -m svmlab.compiled.precompile``: warm up, print the report as JSON."""
    import json

    from svmlab.compiled import precompile  # the module's one copy, not ``__main__``'s

    print(json.dumps(precompile.warm_up().as_dict(), indent=2))


if __name__ == "__main__":
    main()
