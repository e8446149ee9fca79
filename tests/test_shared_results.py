"""Results every visitor shares (issue 27, item 1): computed once, never replayed.

The second visitor to compute the regularisation path used to get a raw
``CacheReplayClosureError`` (a progress bar drawn inside ``st.cache_resource``
was replayed on the cache hit). Each long computation that reports progress is
run here in two sessions, one after the other, and the second must get the same
result with no error and no second computation.
"""

from __future__ import annotations

import threading
import time
from dataclasses import fields, replace
from typing import Any

import numpy as np
import pytest
import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from svmlab.errors import FitCancelled
from svmlab.experiments import criterion_grid, path, robustness
from svmlab.ui.explore import path_view
from svmlab.ui.frame import panels as losses_panels
from svmlab.ui.frame.shared_results import Progress, SharedResults
from svmlab.ui.losses import requests
from svmlab.ui.selection import requests as selection
from svmlab.ui.solvers import requests as solvers
from tests.pages import EXPLORE, PAGES, open_page, page_test, problems


@pytest.fixture(autouse=True)
def _fresh(fresh_caches, no_lee_files):
    st.cache_resource.clear()


def _counted(monkeypatch, module, name: str) -> list[int]:
    calls: list[int] = []
    real = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


# -- the table itself ---------------------------------------------------------------


def test_a_result_is_computed_once_and_handed_back() -> None:
    table: SharedResults[list[int]] = SharedResults(max_entries=2)
    runs: list[int] = []

    def compute() -> list[int]:
        runs.append(1)
        return [len(runs)]

    first = table.get_or_compute("a", compute)
    assert table.get_or_compute("a", compute) is first and len(runs) == 1
    table.get_or_compute("b", compute)
    table.get_or_compute("c", compute)  # "a" is the least recently used: gone
    assert table.get("a") is None and len(table) == 2


def test_a_refused_result_goes_to_its_caller_only() -> None:
    table: SharedResults[str] = SharedResults(max_entries=4)
    assert table.get_or_compute("k", lambda: "cut off", keep=lambda r: False) == (
        "cut off"
    )
    assert table.get("k") is None
    assert table.get_or_compute("k", lambda: "whole") == "whole"


def test_a_failed_computation_stores_nothing() -> None:
    table: SharedResults[str] = SharedResults(max_entries=4)

    def fail() -> str:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        table.get_or_compute("k", fail)
    assert table.get("k") is None
    assert table.get_or_compute("k", lambda: "ok") == "ok"


def test_two_visitors_at_once_compute_once_and_the_second_sees_the_partial() -> None:
    """The second visitor is shown the first's progress, its partial result
    included, while the table holds nothing for the key; then the whole one."""
    table: SharedResults[str] = SharedResults(max_entries=4)
    reported, release = threading.Event(), threading.Event()
    runs: list[int] = []
    seen: list[Progress | None] = []

    def slow() -> str:
        runs.append(1)
        table.report(1, Progress(0.5, "half way", partial="half"))
        reported.set()
        release.wait(5)
        return "whole"

    results: list[str] = []
    first = threading.Thread(
        target=lambda: results.append(table.get_or_compute(1, slow))
    )
    first.start()
    reported.wait(5)
    stored_meanwhile: list[object] = []

    def waiting(progress: Progress | None) -> None:
        seen.append(progress)
        stored_meanwhile.append(table.get(1))
        if len(seen) == 2:
            release.set()

    second = threading.Thread(
        target=lambda: results.append(table.get_or_compute(1, slow, on_wait=waiting))
    )
    second.start()
    first.join(5)
    second.join(5)
    assert results == ["whole", "whole"] and len(runs) == 1
    assert seen[0] == Progress(0.5, "half way", partial="half")
    assert stored_meanwhile[:2] == [None, None]
    assert table.get(1) == "whole" and table.progress_of(1) is None


def test_a_partial_is_never_the_answer_when_its_computation_stops() -> None:
    """The first visitor left (its fits raise FitCancelled) after a partial
    result: the waiting visitor computes the whole result for itself."""
    table: SharedResults[str] = SharedResults(max_entries=4)
    reported, release = threading.Event(), threading.Event()

    def left() -> str:
        table.report("k", Progress(0.2, "a fifth", partial="a fifth"))
        reported.set()
        release.wait(5)
        raise FitCancelled()

    errors: list[BaseException] = []

    def first_visitor() -> None:
        try:
            table.get_or_compute("k", left)
        except FitCancelled as error:
            errors.append(error)

    first = threading.Thread(target=first_visitor)
    first.start()
    reported.wait(5)
    seen: list[Progress | None] = []

    def waiting(progress: Progress | None) -> None:
        seen.append(progress)
        release.set()

    got = table.get_or_compute("k", lambda: "whole", on_wait=waiting)
    first.join(5)
    assert errors and got == "whole" and table.get("k") == "whole"
    assert seen[0] is not None and seen[0].partial == "a fifth"


# -- every page's long computation, in two sessions ---------------------------------


def test_the_path_computed_in_two_sessions(monkeypatch) -> None:
    runs = _counted(monkeypatch, path_view, "regularization_path")
    results = []
    for _ in range(2):
        at = page_test(EXPLORE, default_timeout=120)
        at.query_params["data"] = "moons"
        at.query_params["seed"] = "11"
        at.run()
        at.radio(key="explore_tool").set_value("path").run()
        at.button(key="explore_path_run").click().run()
        assert not problems(at), problems(at)
        held = at.session_state[path_view.STATE_KEY][1]
        assert held.complete and held.values.size == path_view.N_VALUES
        assert [c for c in at.get("plotly_chart") if "path" in c.proto.id]
        results.append(held)
        # The tool switched off and on again keeps the path; a new click is a hit.
        at.radio(key="explore_tool").set_value("none").run()
        at.radio(key="explore_tool").set_value("path").run()
        at.button(key="explore_path_run").click().run()
        assert not problems(at), problems(at)
    assert len(runs) == 1
    assert results[0] is results[1]


def test_a_path_cut_off_by_its_budget_is_not_shared(monkeypatch) -> None:
    """A path the budget stopped after 3 of 30 values is its visitor's only."""
    real = path.regularization_path
    runs: list[int] = []

    def cut_off(*args, **kwargs):
        runs.append(1)
        values = np.asarray(kwargs["values"], dtype=float)
        part = real(*args, **{**kwargs, "values": values[:3]})
        pad = np.full(values.size - 3, np.nan)
        arrays = {
            f.name: np.concatenate([getattr(part, f.name), pad])
            for f in fields(part)
            if isinstance(getattr(part, f.name), np.ndarray) and f.name != "values"
        }
        return replace(part, values=values, **arrays)

    monkeypatch.setattr(path_view, "regularization_path", cut_off)
    for _ in range(2):
        at = page_test(EXPLORE, default_timeout=120)
        at.query_params["data"] = "moons"
        at.run()
        at.radio(key="explore_tool").set_value("path").run()
        at.button(key="explore_path_run").click().run()
        assert not problems(at), problems(at)
        assert not at.session_state[path_view.STATE_KEY][1].complete
        assert any("stopped after 3 of 30" in w.value for w in at.warning)
    assert len(runs) == 2


def test_the_losses_sweep_in_two_sessions(monkeypatch) -> None:
    runs = _counted(monkeypatch, robustness, "sweep_outliers")
    held = []
    for _ in range(2):
        at = page_test(str(PAGES / "4_Losses.py"), default_timeout=180).run()
        at.slider(key="losses_outlier_blobs_n_samples").set_value(40).run()
        at.button(key="losses_run_sweep").click().run()
        assert not problems(at), problems(at)
        held.append(at.session_state[requests.SWEEP_KEY][1])
    assert len(runs) == 1 and held[0] is held[1]


def test_the_model_selection_sweep_in_two_sessions(monkeypatch) -> None:
    runs = _counted(monkeypatch, criterion_grid, "grid_sweep")
    held = []
    for _ in range(2):
        at = page_test(str(PAGES / "2_Model_selection.py"), default_timeout=120).run()
        at.slider(key="selection_two_circles_n_samples").set_value(40)
        at.slider(key="selection_n_C").set_value(3)
        at.slider(key="selection_n_sigma").set_value(3)
        at.run()
        at.button(key="selection_run").click().run()
        assert not problems(at), problems(at)
        held.append(at.session_state[selection.STATE_KEY].result)
    assert len(runs) == 1 and held[0] is held[1]


def test_the_scaling_run_in_two_sessions(monkeypatch) -> None:
    monkeypatch.setattr(solvers, "SIZES", (40, 80))
    real = solvers.lee_table
    monkeypatch.setattr(solvers, "lee_table", lambda repeats: real((100,), repeats))
    runs = _counted(monkeypatch, solvers, "scaling")
    held = []
    for _ in range(2):
        at = page_test(str(PAGES / "5_Solvers.py"), default_timeout=180).run()
        at.button(key="solvers_run_scaling").click().run()
        assert not problems(at), problems(at)
        held.append(at.session_state[solvers.SCALING_KEY][1])
    assert len(runs) == 1 and held[0] is held[1]


# -- fits: a cut-off answer is never another visitor's (issue 27, item 14) ---------


def test_a_fit_cut_off_by_the_budget_is_not_served_to_another_session(
    monkeypatch,
) -> None:
    from svmlab.svm.classifier import SVC
    from svmlab.ui.explore import cache
    from svmlab.ui.frame import room

    monkeypatch.setattr(room, "FIT_SECONDS", 1e-4)
    fits = _counted(monkeypatch, SVC, "fit")
    for _ in range(2):
        link = {"data": "spiral", "n_samples": "1000", "C": "1000000", "tol": "1e-08"}
        at = open_page(EXPLORE, link, default_timeout=120)
        assert not at.exception
        warnings = [w.value for w in at.warning]
        assert any("time budget" in w for w in warnings), warnings
        # The sentence names what the visitor can do on this page.
        assert not any("max_seconds" in w for w in warnings), warnings
        record = at.session_state[cache.UNSHARED_KEY][1]
        assert record.model.stop_reason_ == "max_seconds"
    assert len(fits) == 2  # the second session fitted for itself


def test_only_answers_that_meet_tol_or_came_cold_are_shared() -> None:
    from svmlab.ui.explore.cache import shareable

    assert shareable("converged", warm=True)
    assert shareable("max_iter", warm=False) and shareable("rule", warm=False)
    assert not shareable("max_iter", warm=True) and not shareable("rule", warm=True)
    assert not shareable("max_seconds", warm=False)


# -- partial results on a page, two sessions at once (issue 28, item 4) -------------


def _share_the_mock_runtime(monkeypatch) -> None:
    """Two AppTests running at once in one process: each run sets Streamlit's
    ``Runtime._instance`` to its mock and back to None when it ends, so the
    session still running lost its runtime when the other ended, and its charts
    (svmlab's kept-alive chart is a component, registered with the runtime)
    raised "Runtime hasn't been created!". On a server there is one runtime for
    every session: here the last mock stands for it."""
    last: list[Any] = []

    def instance(cls: type[Runtime]) -> Runtime:
        if Runtime._instance is not None:
            last[:] = [Runtime._instance]
        if not last:
            raise RuntimeError("Runtime hasn't been created!")
        return last[0]

    monkeypatch.setattr(Runtime, "instance", classmethod(instance))


def test_a_second_session_mid_sweep_sees_the_partial_then_the_whole(
    monkeypatch,
) -> None:
    """Two sessions press the Losses page's Run sweep at once. The first
    computes; its sweep stops after one seed until released. Both sessions draw
    the one-seed partial ("so far"), nothing is stored meanwhile, and both end
    with the whole five-seed sweep, computed once."""
    real = robustness.sweep_outliers
    partial_out, release = threading.Event(), threading.Event()
    runs: list[int] = []

    def held(*args, **kwargs):
        runs.append(1)
        own = kwargs["on_partial"]

        def on_partial(sweep):
            own(sweep)
            if np.isfinite(sweep.test_error).any(axis=2).sum() == 3:
                partial_out.set()  # three data sets of the first seed fitted
                release.wait(60)

        return real(*args, **{**kwargs, "on_partial": on_partial})

    monkeypatch.setattr(robustness, "sweep_outliers", held)
    drawn: dict[str, list[str]] = {}
    real_chart = losses_panels.partial_chart

    def recorded(fig, note):
        session_id = id(get_script_run_ctx().session_state)  # one per AppTest
        drawn.setdefault(session_id, []).append(note)
        real_chart(fig, note)

    monkeypatch.setattr(losses_panels, "partial_chart", recorded)
    _share_the_mock_runtime(monkeypatch)

    def session() -> Any:
        at = page_test(str(PAGES / "4_Losses.py"), default_timeout=180).run()
        at.slider(key="losses_outlier_blobs_n_samples").set_value(40).run()
        return at

    first_at, second_at = session(), session()
    done: dict[str, Any] = {}

    def press(name: str, at: Any) -> None:
        at.button(key="losses_run_sweep").click().run()
        done[name] = at

    first = threading.Thread(target=press, args=("first", first_at), name="first")
    first.start()
    assert partial_out.wait(120)
    assert len(requests.SWEEPS) == 0  # the partial is not stored
    second = threading.Thread(target=press, args=("second", second_at), name="second")
    second.start()
    # The second session waits, drawing the first's partial; then release it.
    deadline = time.monotonic() + 60
    while len(drawn) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    before_release = {k: list(v) for k, v in drawn.items()}
    release.set()
    first.join(180)
    second.join(180)
    # Both sessions drew a partial of the first seed before the release (the
    # first its own at once, throttled after; the second the one held).
    assert len(before_release) == 2, before_release
    notes = [n for drawn_notes in before_release.values() for n in drawn_notes]
    assert all(n.endswith("(1 of 5 seeds)") for n in notes), notes
    assert any(n == "3 of 45 data sets (1 of 5 seeds)" for n in notes), notes
    whole = [done[k].session_state[requests.SWEEP_KEY][1] for k in done]
    assert len(runs) == 1 and whole[0] is whole[1]
    assert len(whole[0].seeds) == requests.N_SEEDS
    for at in done.values():
        assert not problems(at), problems(at)
        assert not at.get("progress")  # the bar is gone with the partial charts
