"""The Model selection page with a Dask cluster configured (issue 20): it says
where the sweep runs, its numbers equal the sweep on this machine, and a
scheduler that does not answer gets a warning while the sweep runs here."""

from __future__ import annotations

import numpy as np
import pytest
from distributed import LocalCluster

from svmlab import datasets
from svmlab.experiments import criterion_grid, executors
from svmlab.ui.selection import requests as sp
from tests.pages import problems
from tests.test_selection_page import _app, _expected_request, _run

pytestmark = [
    pytest.mark.timeout(240),
    pytest.mark.usefixtures("fresh_caches", "no_lee_files"),
]


@pytest.fixture
def sweep_calls(monkeypatch) -> list[dict]:
    real = criterion_grid.grid_sweep
    log: list[dict] = []

    def counted(*args, **kwargs):
        result = real(*args, **kwargs)
        log.append({"executor": kwargs.get("executor"), "where": result.where})
        return result

    monkeypatch.setattr(criterion_grid, "grid_sweep", counted)
    return log


def _direct(at):
    request = _expected_request()
    X, y = datasets.make("two_circles", **dict(request.data_items))
    return at.session_state[sp.STATE_KEY], criterion_grid.grid_sweep(
        request.estimator(), X, y, request.Cs, request.sigmas, request.criteria
    )


@pytest.mark.slow  # starts a Dask cluster and sweeps on it: about 2 minutes
def test_page_sweeps_on_the_configured_cluster(monkeypatch, sweep_calls):
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        monkeypatch.setenv(executors.ENV_SCHEDULER, cluster.scheduler_address)
        at = _app()
        assert any(cluster.scheduler_address in c.value for c in at.caption)
        at = _run(at)
        assert not problems(at), problems(at)
    assert sweep_calls[-1]["executor"] == cluster.scheduler_address
    assert sweep_calls[-1]["where"].startswith("the Dask cluster")
    stored, direct = _direct(at)
    for name in direct.criteria:
        np.testing.assert_array_equal(stored.result.scores[name], direct.scores[name])


def test_unreachable_scheduler_warns_and_sweeps_here(monkeypatch, sweep_calls):
    monkeypatch.setattr(executors, "CONNECT_SECONDS", 0.5)
    monkeypatch.setenv(executors.ENV_SCHEDULER, "tcp://127.0.0.1:9")
    at = _run(_app())
    assert not problems(at), problems(at)
    warnings = [w.value for w in at.warning]
    assert any("Cannot reach a Dask scheduler" in w for w in warnings), warnings
    assert any("runs on this machine instead" in w for w in warnings)
    assert sweep_calls[-1]["where"] == "this process"
    stored, direct = _direct(at)
    for name in direct.criteria:
        np.testing.assert_array_equal(stored.result.scores[name], direct.scores[name])


def test_without_a_cluster_nothing_changes(monkeypatch, sweep_calls):
    monkeypatch.delenv(executors.ENV_SCHEDULER, raising=False)
    at = _app()
    assert any("runs on this machine." in c.value for c in at.caption)
    at = _run(at)
    assert not problems(at) and not at.warning
    assert sweep_calls[-1]["executor"] is None
    assert sweep_calls[-1]["where"] == "this process"
