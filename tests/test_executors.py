"""Sweeps on local processes and on a Dask cluster (issue 20): the same numbers as
the run in this process, bit for bit; a worker killed mid-sweep loses nothing; a
budget or a cancel leaves finished rows and reports the others, never zeros."""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest
from distributed import Client, LocalCluster

from svmlab import SVC, cancel_when, datasets
from svmlab.errors import FitCancelled, ParameterError
from svmlab.experiments import criterion_grid, executors
from svmlab.experiments.executors import run_tasks
from tests.conftest import TINY_LEE

pytestmark = pytest.mark.timeout(180)


def _square_after(x: float, pause: float = 0.0, *, offset: float = 0.0) -> float:
    time.sleep(pause)
    return x * x + offset


def _refuse(x: float, *, offset: float = 0.0) -> float:
    raise ParameterError(f"task {x} refused")


@pytest.fixture(scope="module")
def cluster():
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as local,
        Client(local, set_as_default=False) as client,
    ):
        yield local, client


@pytest.fixture(scope="module")
def sweep_data():
    X, y = datasets.make_two_circles(50, random_state=3)
    estimator = SVC(loss="modified_hinge", solver="irwls", bias="none", tol=1e-6)
    grid = {"Cs": np.logspace(-1, 2, 3), "sigmas": np.logspace(-0.5, 0.5, 4)}
    local = criterion_grid.grid_sweep(
        estimator, X, y, criteria=("plugin", "loo"), **grid
    )
    return X, y, estimator, grid, local


def _same_sweep(a, b) -> None:
    for c in a.criteria:
        for name in ("scores", "errors", "margins", "converged"):
            np.testing.assert_array_equal(
                getattr(a, name)[c], getattr(b, name)[c], err_msg=f"{name} {c}"
            )


@pytest.mark.parametrize("where", ["here", "joblib", "client", "address"])
def test_run_tasks_returns_every_result_in_task_order(cluster, where):
    local, client = cluster
    executor = {
        "here": None,
        "joblib": 2,
        "client": client,
        "address": local.scheduler_address,
    }[where]
    seen: list[int] = []
    out = run_tasks(
        _square_after,
        [(float(k), 0.01 * (5 - k)) for k in range(6)],  # later tasks finish first
        shared={"offset": 0.5},
        executor=executor,
        on_result=lambda i, r: seen.append(i),
    )
    assert out.results == [k * k + 0.5 for k in range(6)]
    assert sorted(seen) == list(range(6)) and out.complete
    if where == "here":
        assert out.where == "this process"
    else:
        assert ("Dask" in out.where) == (where != "joblib")


@pytest.mark.parametrize("where", ["joblib", "client"])
def test_sweep_elsewhere_equals_the_sweep_here(cluster, sweep_data, where):
    X, y, estimator, grid, local = sweep_data
    executor = 2 if where == "joblib" else cluster[1]
    fractions: list[float] = []
    remote = criterion_grid.grid_sweep(
        estimator,
        X,
        y,
        criteria=("plugin", "loo"),
        executor=executor,
        progress=lambda f, m: fractions.append(f),
        **grid,
    )
    _same_sweep(local, remote)
    assert remote.missing_rows == {}
    dask = remote.where.startswith("the Dask cluster")
    assert dask == (where == "client")
    assert fractions[-1] == pytest.approx(1.0)  # every row counted, any order
    assert fractions == sorted(fractions)


def test_a_worker_killed_mid_sweep_loses_nothing(sweep_data):
    X, y, estimator, grid, _ = sweep_data
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        pids = client.run(os.getpid)
        killed: list[int] = []

        def kill_a_busy_worker(fraction: float, message: str) -> None:
            if killed:
                return
            busy = [w for w, keys in client.processing().items() if keys]
            if busy:
                killed.append(pids[busy[0]])
                os.kill(pids[busy[0]], signal.SIGKILL)

        # Slow rows so that the other worker is still busy when one finishes.
        sigmas = np.logspace(-0.5, 0.5, 6)
        here = criterion_grid.grid_sweep(
            estimator, X, y, grid["Cs"], sigmas, criteria=("plugin", "loo")
        )
        remote = criterion_grid.grid_sweep(
            estimator,
            X,
            y,
            grid["Cs"],
            sigmas,
            criteria=("plugin", "loo"),
            executor=client,
            progress=kill_a_busy_worker,
        )
        assert killed, "no worker was busy when the first row finished"
        with pytest.raises(ProcessLookupError):
            os.kill(killed[0], 0)  # that worker process is really gone
    assert remote.missing_rows == {}
    _same_sweep(here, remote)


@pytest.mark.parametrize("where", ["here", "client"])
def test_a_time_budget_keeps_finished_rows_and_reports_the_rest(cluster, where):
    executor = None if where == "here" else cluster[1]
    out = run_tasks(
        _square_after,
        [(1.0, 0.0), (2.0, 0.0), (3.0, 1.5), (4.0, 1.5), (5.0, 1.5), (6.0, 1.5)],
        executor=executor,
        max_seconds=0.6,
    )
    assert out.results[:2] == [1.0, 4.0]  # finished before the budget: kept
    assert set(out.missing) >= {3, 4, 5} and not out.complete
    assert all("time budget of 0.6 s" in why for why in out.missing.values())
    assert all(out.results[i] is None for i in out.missing)


def test_missing_sweep_rows_are_nan_never_zero(sweep_data):
    X, y, estimator, grid, _ = sweep_data
    partial = criterion_grid.grid_sweep(
        estimator,
        X,
        y,
        criteria=("plugin", "loo"),
        executor=1,
        max_seconds=1e-9,  # spent before the first row starts
        **grid,
    )
    assert set(partial.missing_rows) == set(range(grid["sigmas"].size))
    assert np.all(np.isnan(partial.scores["loo"]))


def test_cancel_stops_the_cluster_sweep(cluster):
    stop = {"now": False}

    def first_result(i, r):
        stop["now"] = True

    with pytest.raises(FitCancelled), cancel_when(lambda: stop["now"]):
        run_tasks(
            _square_after,
            [(float(k), 0.05 + 0.5 * (k > 0)) for k in range(8)],
            executor=cluster[1],
            on_result=first_result,
        )


def test_task_errors_from_svmlab_reach_the_caller(cluster):
    with pytest.raises(ParameterError, match=r"task 1\.0 refused"):
        run_tasks(_refuse, [(1.0,)], executor=cluster[1])


def test_bad_executors_get_a_sentence(monkeypatch):
    with pytest.raises(ParameterError, match="executor must be"):
        run_tasks(_square_after, [(1.0,)], executor=0)
    monkeypatch.setattr(executors, "CONNECT_SECONDS", 0.5)
    with pytest.raises(ParameterError, match="Cannot reach a Dask scheduler"):
        run_tasks(_square_after, [(1.0,)], executor="tcp://127.0.0.1:9")


def _without_times(value):
    """The experiment's record without wall-clock fields (they differ run to run)."""
    if isinstance(value, dict):
        return {
            k: _without_times(v)
            for k, v in value.items()
            if "second" not in k and "time" not in k
        }
    if isinstance(value, list):
        return [_without_times(v) for v in value]
    return value


def test_small_lee_experiment_on_the_cluster_equals_the_local_run(cluster):
    from svmlab.experiments import lee2006

    here = lee2006.run((0,), **TINY_LEE)
    remote = lee2006.run((0,), executor=cluster[1], **TINY_LEE)
    assert _without_times(here) == _without_times(remote)
    assert here["seeds"][0]["criterion_surfaces"]  # a real record was compared


def test_scheduler_argument_reads_the_environment_and_the_option_wins(
    monkeypatch,
) -> None:
    """``--scheduler`` of the command-line runs: the address in
    $SVMLAB_DASK_SCHEDULER unless one is given, none without either."""
    import argparse

    from svmlab.experiments.executors import add_scheduler_argument

    def parsed(*argv: str) -> str | None:
        parser = argparse.ArgumentParser()
        add_scheduler_argument(parser, "the rows run", "here")
        return parser.parse_args(list(argv)).scheduler

    monkeypatch.delenv("SVMLAB_DASK_SCHEDULER", raising=False)
    assert parsed() is None
    monkeypatch.setenv("SVMLAB_DASK_SCHEDULER", "  ")
    assert parsed() == "  "  # not empty: run_tasks says what is wrong with it
    monkeypatch.setenv("SVMLAB_DASK_SCHEDULER", "")
    assert parsed() is None
    monkeypatch.setenv("SVMLAB_DASK_SCHEDULER", "tcp://cluster:8786")
    assert parsed() == "tcp://cluster:8786"
    assert parsed("--scheduler", "tcp://other:1") == "tcp://other:1"
    parser = argparse.ArgumentParser()
    add_scheduler_argument(parser, "the rows run", "here")
    assert (
        parser.format_help().split("--scheduler SCHEDULER")[-1].split()
        == (
            "a Dask scheduler's address (tcp://HOST:8786): the rows run on its "
            "workers (default: $SVMLAB_DASK_SCHEDULER, else here)"
        ).split()
    )
