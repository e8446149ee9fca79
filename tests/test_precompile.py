"""Nothing compiled on a visitor's time (issue 28, item 1): svmlab.compiled.precompile.

A warm-up in a process with an empty numba cache compiles every compiled function
of svmlab, once each, even while a visitor's fit asks for the same functions
from another thread; a fresh process with the same cache then fits, and runs
every page, without compiling anything (numba's per-function counters:
``dispatcher.stats.cache_misses`` count compilations, ``cache_hits`` loads from
the disk cache).
"""

from __future__ import annotations

import json
import os
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from tests.conftest import python_output

#: Listens to numba's compile events (one per compilation, none for a version
#: loaded from the disk cache) and prints, as JSON, what happened.
RECORDER = textwrap.dedent(
    """
    import json, threading, time
    import numba.core.event as event

    COMPILED = []

    class Recorder(event.Listener):
        def on_start(self, e):
            f = e.data["dispatcher"].py_func
            COMPILED.append([f"{f.__module__}.{f.__qualname__}",
                             str(e.data["args"]), threading.current_thread().name])

        def on_end(self, e):
            pass

    event.register("numba:compile", Recorder())

    def svmlab_counts():
        from svmlab.compiled import precompile
        out = {}
        for name, d in precompile.compiled_functions().items():
            out[name] = {
                "signatures": len(d.signatures),
                "compiled": sum(d.stats.cache_misses.values()),
                "loaded": sum(d.stats.cache_hits.values()),
            }
        return out
    """
)

#: Process 1, empty cache: the server's background warm-up and, at the same
#: moment, a visitor's Explore fit (read-only cached K, as the page's).
COLD = RECORDER + textwrap.dedent(
    """
    from svmlab import datasets
    from svmlab.compiled import precompile
    from svmlab.svm.classifier import SVC
    from svmlab.kernels import gram

    thread = precompile.start_in_background()
    same_thread = precompile.start_in_background() is thread
    X, y = datasets.make("spiral", n_samples=120, random_state=0)
    K = gram(X, sigma=1.0)
    K.setflags(write=False)
    began = time.perf_counter()
    model = SVC(C=10.0, sigma=1.0).fit(X, y, K=K)
    fit_seconds = time.perf_counter() - began
    thread.join()
    report = precompile.warm_up()
    print(json.dumps({
        "compiled": COMPILED,
        "counts": svmlab_counts(),
        "report": report.as_dict(),
        "same_thread": same_thread,
        "fit_seconds": fit_seconds,
        "fit_kkt": float(model.kkt_violation_),
        "fit_converged": model.stop_reason_ == "converged",
    }))
    """
)

#: Process 2, the same cache: the fits each page makes, through the public API.
FITS = RECORDER + textwrap.dedent(
    """
    from svmlab import datasets
    from svmlab.datasets import multiclass as multiclass_data
    from svmlab.svm.classifier import SVC
    from svmlab.kernels import gram
    from svmlab.svm.multiclass import CrammerSingerSVC, OneVsOneSVC

    X, y = datasets.make("moons", n_samples=150, random_state=1)
    K = gram(X, sigma=0.5)
    K.setflags(write=False)
    previous = SVC(C=3.0, sigma=0.5).fit(X, y, K=K)  # Explore, cached K
    SVC(C=4.0, sigma=0.5, record_history=True).fit(X, y, K=K, init=previous.alpha_)
    SVC(C=3.0, sigma=0.5, bias="regularized").fit(X, y, K=K)  # K + 1
    SVC(C=3.0, sigma=0.5).fit(X, y)  # rows on demand (Losses, Solvers)
    SVC(C=3.0, sigma=0.5, solver="coordinate", bias="none").fit(X, y, K=K)
    SVC(C=3.0, sigma=0.5, loss="modified_hinge").fit(X, y)  # IRWLS
    SVC(C=3.0, sigma=0.5, loss="squared_ramp").fit(X, y)  # retargeted LS
    SVC(C=3.0, sigma=0.5, loss="ramp").fit(X, y)  # CCCP
    Xm, ym = multiclass_data.make("blobs", n_samples=90, random_state=0)
    CrammerSingerSVC(C=1.0).fit(Xm, ym)
    OneVsOneSVC(C=1.0).fit(Xm, ym)
    print(json.dumps({"compiled": COMPILED, "counts": svmlab_counts()}))
    """
)

#: Process 3, the same cache: every page under AppTest after the warm-up (which
#: the server starts in the background; AppTest has no server, so here it is
#: called); nothing may compile or even load afterwards.
PAGES = RECORDER + textwrap.dedent(
    """
    import os
    os.environ["STREAMLIT_CLIENT_SHOW_ERROR_DETAILS"] = "full"
    from svmlab.compiled import precompile
    from tests.pages import page_test

    precompile.warm_up()
    before = svmlab_counts()
    runs = [
        ("pages/1_Explore.py", {}),
        ("pages/1_Explore.py", {"bias": "regularized"}),
        ("pages/1_Explore.py", {"solver": "coordinate", "bias": "none"}),
        ("pages/1_Explore.py", {"loss": "modified_hinge", "data": "moons"}),
        ("pages/1_Explore.py", {"loss": "squared_ramp", "data": "moons"}),
        ("pages/4_Losses.py", {}),
        ("pages/5_Solvers.py", {}),
        ("pages/6_Multiclass.py", {}),
        ("pages/2_Model_selection.py", {}),
        ("pages/7_Regression.py", {}),
        ("pages/7_Regression.py", {"machine": "nu"}),
        ("pages/8_Family.py", {}),
        ("pages/8_Family.py", {"machine": "nu", "kernel": "gaussian"}),
        ("pages/8_Family.py", {"machine": "one_class", "kernel": "sigmoid"}),
    ]
    errors = []
    for page, query in runs:
        at = page_test(page, default_timeout=120)
        for key, value in query.items():
            at.query_params[key] = value
        at.run()
        errors += [f"{page} {query}: {e.value}" for e in [*at.exception, *at.error]]
    print(json.dumps({
        "compiled": COMPILED, "before": before, "after": svmlab_counts(),
        "errors": errors,
    }))
    """
)


def _run(script: str, cache_base: Path) -> dict:
    env = {**os.environ, "SVMLAB_CACHE_DIR": str(cache_base)}
    env.pop("NUMBA_CACHE_DIR", None)
    return json.loads(
        python_output(script, env=env, timeout=580).strip().splitlines()[-1]
    )


#: The tests on an empty cache run in the slow suite (the README's test command
#: runs it after the default one): their warm-up compiles every function from
#: nothing, about 50 s of the default run's ten minutes on two cores.
COLD_SUITE = pytest.mark.slow


@pytest.fixture(scope="module")
def cold(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """An empty cache directory filled by a warm-up raced by a fit, and what
    that process saw."""
    base = tmp_path_factory.mktemp("numba_cache")
    return base, _run(COLD, base)


@COLD_SUITE
def test_a_warm_up_compiles_every_compiled_function_of_svmlab(cold) -> None:
    _, seen = cold
    report = seen["report"]
    assert report["errors"] == {}
    assert report["thread"] == "svmlab-precompile"
    assert seen["same_thread"]
    counts = seen["counts"]
    # The modules were scanned, not listed: a new compiled function is found.
    assert {
        "svmlab.solvers.shrinking._chunk",
        "svmlab.solvers.crammer_singer._sweep",
    } <= set(counts)
    assert len(counts) >= 25
    missing = [name for name, c in counts.items() if c["signatures"] == 0]
    assert missing == [], f"not compiled by the warm-up: {missing}"
    assert report["compiled"] > 0 and report["loaded"] == 0


@COLD_SUITE
def test_a_fit_racing_the_warm_up_compiles_nothing_twice(cold) -> None:
    _, seen = cold
    # svmlab's own functions (numba's internal overloads are a new function
    # object per use, so their names repeat by design).
    compiled = [
        (name, args) for name, args, _ in seen["compiled"] if name.startswith("svmlab.")
    ]
    assert compiled
    twice = sorted({c for c in compiled if compiled.count(c) > 1})
    assert twice == [], f"compiled more than once: {twice}"
    # Each version was compiled by one thread: the warm-up's or the fit's.
    assert all(c["compiled"] <= c["signatures"] for c in seen["counts"].values())
    assert seen["fit_converged"] and seen["fit_kkt"] <= 1e-3


@COLD_SUITE
def test_a_fresh_process_fits_everything_without_compiling(cold) -> None:
    base, _ = cold
    seen = _run(FITS, base)
    assert seen["compiled"] == []
    counts = seen["counts"]
    assert sum(c["compiled"] for c in counts.values()) == 0
    assert sum(c["loaded"] for c in counts.values()) > 0


@COLD_SUITE
def test_every_page_after_the_warm_up_compiles_and_loads_nothing(cold) -> None:
    base, _ = cold
    seen = _run(PAGES, base)
    assert seen["errors"] == []
    assert seen["compiled"] == []
    before, after = seen["before"], seen["after"]
    assert sum(c["loaded"] for c in before.values()) > 0
    new = {
        name: after[name]["signatures"] - before[name]["signatures"]
        for name in after
        if after[name] != before[name]
    }
    assert new == {}, f"specialisations the warm-up left to a page: {new}"


def test_two_threads_needing_one_uncompiled_function_compile_it_once() -> None:
    """numba's guarantee the warm-up relies on: a thread that needs a version
    another thread is compiling waits for it rather than compiling it again."""
    import numba.core.event as event

    @njit(cache=False)
    def work(x):  # pragma: no cover - compiled
        total = 0.0
        for i in range(x.shape[0]):
            total += np.sin(x[i]) * np.cos(x[i]) + np.sqrt(abs(x[i]))
        return total

    compiles: list[tuple[str, float]] = []
    ended: list[float] = []

    class Count(event.Listener):
        def on_start(self, e):
            if e.data["dispatcher"] is work:
                compiles.append((threading.current_thread().name, time.perf_counter()))

        def on_end(self, e):
            if e.data["dispatcher"] is work:
                ended.append(time.perf_counter())

    listener = Count()
    event.register("numba:compile", listener)
    barrier = threading.Barrier(2)
    released: dict[str, float] = {}
    results: dict[str, float] = {}

    def call(name: str) -> None:
        barrier.wait()
        released[name] = time.perf_counter()
        results[name] = work(np.arange(10.0))

    try:
        threads = [threading.Thread(target=call, args=(f"t{i}",)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        event.unregister("numba:compile", listener)
    assert len(compiles) == 1 and len(ended) == 1
    assert len(work.signatures) == 1
    # Both threads asked before the one compilation ended: one of them waited.
    assert max(released.values()) < ended[0]
    assert results["t0"] == results["t1"]


@pytest.mark.parametrize("serving", [True, False])
def test_importing_the_ui_starts_the_warm_up_in_a_running_server_only(
    serving: bool,
) -> None:
    """``svmlab.ui`` starts the warm-up when a Streamlit server runs (its runtime
    exists), and neither imports streamlit nor starts anything otherwise."""
    script = textwrap.dedent(
        f"""
        import sys, types
        if {serving}:
            runtime = types.ModuleType("streamlit.runtime")
            runtime.exists = lambda: True
            sys.modules["streamlit.runtime"] = runtime
        import svmlab.ui
        from svmlab.compiled import precompile
        print(precompile._thread is not None, "streamlit" in sys.modules)
        """
    )
    out = python_output(
        script, env={**os.environ, "SVMLAB_PRECOMPILE": "1"}, timeout=120
    )
    assert out.split() == [str(serving), "False"]


def test_the_servers_warm_up_pauses_after_its_first_job_only() -> None:
    """In a server the background warm-up runs the Explore job, then sleeps
    :data:`BACKGROUND_PAUSE_S` before the rest (the first page's script runs
    meanwhile); ``python -m svmlab.compiled.precompile`` and the tests' direct warm-up
    do
    not pause. In a fresh process: the module's report is once per process."""
    script = textwrap.dedent(
        """
        import time
        from svmlab.compiled import precompile
        stamps = []
        precompile.JOBS = {
            name: (lambda name=name: stamps.append((name, time.perf_counter())))
            for name in ("first", "second", "third")
        }
        precompile.BACKGROUND_PAUSE_S = 1.5
        if BACKGROUND:
            precompile.start_in_background().join()
        else:
            precompile.warm_up()
        (n1, t1), (n2, t2), (n3, t3) = stamps
        print(n1, n2, n3, t2 - t1, t3 - t2)
        """
    )
    gaps = {}
    for background in (True, False):
        out = python_output(
            f"BACKGROUND = {background}\n" + script,
            env={**os.environ, "SVMLAB_PRECOMPILE": "1"},
            timeout=120,
        ).split()
        assert out[:3] == ["first", "second", "third"]
        gaps[background] = (float(out[3]), float(out[4]))
    assert gaps[True][0] >= 1.5  # the pause, after the first job
    assert gaps[True][1] < 1.0  # and only there
    assert gaps[False][0] < 1.0  # no pause outside a server
