"""The Model selection page under AppTest: a small sweep (3 x 3 grid, n = 40)
whose table must equal the engine's own sweep, bad input, display controls that
never recompute, the Explore link, the non-convergence warning and the Lee
(2006) section (cached file present, missing, and recomputed).

The page is driven by widget key (STYLE rule 14).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import threading
from urllib.parse import parse_qsl

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from svmlab import datasets
from svmlab.errors import SvmlabError
from svmlab.experiments import criterion_grid, lee2006, selection
from svmlab.ui.explore.settings import ExploreSettings
from svmlab.ui.frame import data_source
from svmlab.ui.selection import requests as sp
from tests.conftest import TINY_LEE
from tests.pages import PAGES, charts, open_page, page_test, problems

PAGE = str(PAGES / "2_Model_selection.py")
# No cache hits from another test; no test reads or writes the real Lee results file.
pytestmark = pytest.mark.usefixtures("fresh_caches", "no_lee_files")
N = 40


@pytest.fixture
def calls(monkeypatch) -> list[tuple]:
    """Every call of the engine's grid_sweep, recorded."""
    real = criterion_grid.grid_sweep
    log: list[tuple] = []

    def counted(*args, **kwargs):
        log.append((args, kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(criterion_grid, "grid_sweep", counted)
    return log


def _small(at: AppTest) -> AppTest:
    at.slider(key="selection_two_circles_n_samples").set_value(N)
    at.slider(key="selection_n_C").set_value(3)
    at.slider(key="selection_n_sigma").set_value(3)
    return at.run()


def _app() -> AppTest:
    at = page_test(PAGE, default_timeout=120)
    at.run()
    assert not problems(at), problems(at)
    return _small(at)


def _run(at: AppTest) -> AppTest:
    return at.button(key="selection_run").click().run()


def _expected_request() -> sp.SweepRequest:
    """The page's default request at the small settings, built independently."""
    data = (
        *(
            (p.name, N if p.name == "n_samples" else p.default)
            for p in datasets.PARAMS["two_circles"]
        ),
        ("random_state", 0),
    )
    return sp.SweepRequest(
        source="two_circles",
        data_items=data,
        Cs=sp.grid(0.1, 1000.0, 3),
        sigmas=sp.grid(0.1, 1.78, 3),
        criteria=sp.DEFAULT_CRITERIA,
        delta=1e-4,  # Lee's setting, the page's default
        bias="none",
    )


def _table(at: AppTest, key: str):
    frames = [d for d in at.dataframe if d.proto.id and key in d.proto.id]
    assert frames, f"no dataframe {key!r}"
    return frames[0].value


def _summary(at: AppTest):
    return at.dataframe[0].value


def test_small_sweep_table_equals_the_engine(calls) -> None:
    at = _run(_app())
    assert not problems(at), problems(at)
    assert len(calls) == 1
    stored = at.session_state[sp.STATE_KEY]
    request = _expected_request()
    assert stored.request == request
    # The same sweep computed directly: the scores are deterministic.
    X, y = datasets.make("two_circles", **dict(request.data_items))
    assert np.array_equal(stored.X, X) and np.array_equal(stored.y, y)
    direct = criterion_grid.grid_sweep(
        request.estimator(), X, y, request.Cs, request.sigmas, request.criteria
    )
    frame = _summary(at)
    # The short titles (the table's every column in 1280 px): the words
    # before the parenthesis, each criterion's own.
    assert list(frame["criterion"]) == [
        selection.CRITERIA[c].title.split(" (")[0] for c in request.criteria
    ]
    assert list(frame["criterion"])[:2] == ["Lee's ACV", "Plug-in ACV"]
    for row, name in zip(frame.to_dict("records"), request.criteria, strict=True):
        assert np.allclose(stored.result.scores[name], direct.scores[name])
        C, sigma = direct.best(name)
        assert row["C"] == pytest.approx(C)
        assert row["σ"] == pytest.approx(sigma)
        assert row["Lee σ²"] == pytest.approx(2 * sigma**2)
        assert row["ρ"] == pytest.approx(
            direct.spearman(name) if name != "loo" else 1.0
        )
        assert row["steps"] == direct.argmin_distance(name)
        assert row["unconverged"] == int(np.sum(~direct.converged[name]))
        # Times are the stored sweep's own (a rerun would time differently).
        assert row["time (s)"] == pytest.approx(stored.result.total_seconds(name))
        assert row["speed-up"] == pytest.approx(stored.result.speedup(name))
        assert 0.0 <= row["test error"] <= 1.0
    # One heatmap per criterion, each with its argmin star.
    figures = charts(at)
    heatmaps = [c for c in figures if c["data"][0].get("type") == "heatmap"]
    assert len(heatmaps) == len(request.criteria)
    # Columns lay the heatmaps out column by column: find each by its star.
    by_star = {fig["data"][2]["name"]: fig for fig in heatmaps}
    assert set(by_star) == {f"argmin: {name}" for name in request.criteria}
    for name in request.criteria:
        (star,) = [
            t
            for t in by_star[f"argmin: {name}"]["data"]
            if t.get("name") == f"argmin: {name}"
        ]
        i, j = direct.argmin(name)
        assert star["x"][0] == pytest.approx(np.log10(request.Cs[j]))
        assert star["y"][0] == pytest.approx(np.log10(request.sigmas[i]))


def test_display_controls_never_rerun_the_sweep(calls) -> None:
    at = _run(_app())
    assert len(calls) == 1
    stored = at.session_state[sp.STATE_KEY]
    at.radio(key="selection_value").set_value("errors").run()
    at.select_slider(key="selection_cell_C").set_value(2).run()
    at.select_slider(key="selection_cell_sigma").set_value(0).run()
    at.toggle(key="selection_log_y").set_value(True).run()
    at.radio(key="selection_gap_criterion").set_value("alo").run()
    assert not problems(at), problems(at)
    assert len(calls) == 1
    assert at.session_state[sp.STATE_KEY] is stored
    # The controls did change the display: the slices now show errors at the
    # chosen (sigma, C) = (0, 2).
    figures = charts(at)
    slices = figures[0]
    (left,) = [
        t for t in slices["data"] if t.get("name") == selection.CRITERIA["loo"].title
    ]
    assert np.allclose(left["y"], stored.result.errors["loo"][0], rtol=1e-3)
    assert slices["layout"]["yaxis"]["type"] == "log"
    # Pressing Run again with the same settings is a cache hit, not a sweep.
    at = _run(at)
    assert len(calls) == 1
    assert not problems(at), problems(at)


def test_explore_link_opens_the_chosen_cell() -> None:
    at = _run(_app())
    at.select_slider(key="selection_cell_C").set_value(2).run()
    at.select_slider(key="selection_cell_sigma").set_value(1).run()
    stored = at.session_state[sp.STATE_KEY]
    C, sigma = stored.request.Cs[2], stored.request.sigmas[1]
    (link,) = at.get("link_button")
    assert link.proto.url.startswith("Explore?")
    query = dict(parse_qsl(link.proto.url.split("?", 1)[1]))
    settings = ExploreSettings.from_query(query)
    assert settings.C == pytest.approx(C) and settings.sigma == pytest.approx(sigma)
    assert settings.dataset == "two_circles" and settings.n == N
    assert settings.loss == "modified_hinge" and settings.bias == "none"
    assert settings.test_fraction == 0.0
    assert f"C = {C:.4g}" in link.proto.label


def test_bad_input_shows_the_error_and_keeps_the_rest() -> None:
    at = _run(_app())
    frame = _summary(at)
    # Moved on its slider, the inner radius takes the outer one along (the
    # shared rule, svmlab.ui.frame.data_source.params_moved): no error.
    at.slider(key="selection_two_circles_r_inner").set_value(0.9).run()
    assert at.slider(key="selection_two_circles_r_outer").value == 0.95
    assert not at.error, [e.value for e in at.error]
    # Set past the rule (as the session state can be), the inner radius above
    # the outer one reaches the generator, which refuses it.
    at.session_state["selection_two_circles_r_outer"] = 0.75
    at.run()
    at = _run(at)
    with pytest.raises(SvmlabError) as expected:
        datasets.make("two_circles", n_samples=N, r_inner=0.9, r_outer=0.75)
    assert [e.value for e in at.error] == [sp.plain(str(expected.value))]
    assert not at.exception
    # The other settings and the last sweep are kept.
    assert at.slider(key="selection_two_circles_n_samples").value == N
    assert at.slider(key="selection_n_C").value == 3
    assert _summary(at).equals(frame)
    assert any("settings in the sidebar changed" in i.value for i in at.info)


def test_non_converged_cells_are_counted_in_a_warning(monkeypatch) -> None:
    real = criterion_grid.grid_sweep

    def one_cell_failed(*args, **kwargs):
        result = real(*args, **kwargs)
        converged = {c: v.copy() for c, v in result.converged.items()}
        converged["loo"][1, 2] = False
        return dataclasses.replace(result, converged=converged)

    monkeypatch.setattr(criterion_grid, "grid_sweep", one_cell_failed)
    at = _run(_app())
    assert not problems(at), problems(at)
    (warning,) = at.warning
    assert f"{selection.CRITERIA['loo'].title}: 1 of 9" in warning.value
    row = _summary(at).set_index("criterion").loc["Exact leave-one-out"]
    assert row["unconverged"] == 1


# -- uploads ---------------------------------------------------------------------------

LARGEST = b"x1,x2,l\n1.7e308,1.7e308,a\n-1.7e308,-1.7e308,b\n1e308,0,a\n0,1,b\n"


def _upload(at: AppTest, name: str, data: bytes) -> AppTest:
    if at.radio(key="selection_source").value != "Upload CSV":
        at.radio(key="selection_source").set_value("Upload CSV").run()
    at.file_uploader(key="selection_file").set_value((name, data, "text/csv"))
    return at.run()


def test_undrawable_upload_is_refused_and_a_generator_works_after() -> None:
    """Values near 1e308 passed the reader (they are finite), swept, and then
    raised an OverflowError in data_bounds on every rerun. The upload's
    drawable check (the Explore page's) refuses them before a sweep."""
    from svmlab.datasets.csv_data import check_drawable

    at = _app()
    at = _upload(at, "largest.csv", LARGEST)
    X = np.array([[1.7e308, 1.7e308], [-1.7e308, -1.7e308], [1e308, 0.0], [0.0, 1.0]])
    with pytest.raises(SvmlabError) as expected:
        check_drawable(X, advice=sp.DRAWABLE_ADVICE)
    assert not at.exception, [e.value for e in at.exception]
    assert [e.value for e in at.sidebar.error] == [sp.plain(str(expected.value))]
    (main,) = [e.value for e in at.main.error]  # said in the main pane too
    assert main.endswith(sp.plain(str(expected.value)))
    assert at.button(key="selection_run").disabled
    assert sp.STATE_KEY not in at.session_state
    at.radio(key="selection_source").set_value("Generator").run()
    at = _run(at)
    assert not problems(at), problems(at)
    assert at.session_state[sp.STATE_KEY].request.source == "two_circles"


def test_a_stored_sweep_that_fails_to_draw_is_dropped_not_replayed() -> None:
    """Whatever goes wrong drawing a stored sweep is said once, and the sweep is
    dropped: the next rerun (here: back to a generator) is a working page."""
    at = _run(_app())
    good = at.session_state[sp.STATE_KEY]
    n = good.X.shape[0]
    huge = np.where(np.arange(n)[:, None] % 2 == 0, 1.7e308, -1.7e308) * np.ones(2)
    at.session_state[sp.STATE_KEY] = dataclasses.replace(good, X=huge)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.error) == 1 and "cannot be drawn" in at.error[0].value
    assert sp.STATE_KEY not in at.session_state
    at.run()
    assert not problems(at), problems(at)
    at = _run(at)
    assert not problems(at), problems(at)
    assert sp.STATE_KEY in at.session_state


def _circles_csv(labels: tuple[str, str], seed: int = 7, n: int = 12) -> bytes:
    X, y = datasets.make("two_circles", n_samples=n, random_state=seed)
    rows = "".join(
        f"{float(a)!r},{float(b)!r},{labels[int(c > 0)]}\n"
        for (a, b), c in zip(X, y, strict=True)
    )
    return ("a,b,label\n" + rows).encode()


UNESCAPED_LINK = re.compile(r"(?<!\\)\]\(")  # "](" not preceded by a backslash


def test_uploaded_labels_are_shown_as_text_not_markdown() -> None:
    """A label that is a markdown link and one that is an image (which the
    browser would fetch) appear literally in the caption."""
    image, link = "![i](http://example.invalid/i.png)", "[x](http://example.invalid)"
    at = _upload(_app(), "md.csv", _circles_csv((f'"{image}"', f'"{link}"')))
    assert not problems(at), problems(at)
    (caption,) = [c.value for c in at.caption if "points; +1 is" in c.value]
    assert not UNESCAPED_LINK.search(caption), caption
    assert "$" not in caption.replace("\\$", "")
    shown = re.sub(r"\\(.)", r"\1", caption)  # what the browser shows
    assert f"+1 is {link!r}, −1 is {image!r}." in shown


def test_a_cell_quoted_in_an_error_is_shown_as_text() -> None:
    text = b"a,b,label\n1,2,x\n[y](http://example.invalid),3,z\n4,5,x\n6,7,z\n"
    at = _upload(_app(), "bad.csv", text)
    errors = [e.value for e in at.error]  # the sidebar's and the main pane's
    assert len(errors) == 2
    for error in errors:
        assert "example" in error and not UNESCAPED_LINK.search(error), error


def test_the_session_holds_a_few_uploads_not_all() -> None:
    at = _app()
    keys = []
    for seed in range(7):
        at = _upload(at, f"f{seed}.csv", _circles_csv(("a", "b"), seed=seed))
        assert not problems(at), problems(at)
        keys.append(at.session_state["selection_uploads"].copy())
    held = at.session_state["selection_uploads"]
    assert len(held) == data_source.MAX_SESSION_UPLOADS < 7
    # The newest are kept, the current one among them, in upload order.
    assert list(held) == [list(k)[-1] for k in keys][-data_source.MAX_SESSION_UPLOADS :]
    at = _run(at)
    assert not problems(at), problems(at)
    assert at.session_state[sp.STATE_KEY].request.data_items[0][1] == list(held)[-1]


# -- Lee (2006) ----------------------------------------------------------------------


def test_lee_section_without_results_says_so(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(sp, "SOLVERS_JSON", tmp_path / "no_solvers.json")
    at = page_test(PAGE, default_timeout=120).run()
    assert not problems(at), problems(at)
    assert any("No cached results yet" in i.value for i in at.info)
    table1 = at.dataframe[-1].value
    assert list(table1["n"]) == list(sp.PAPER_TABLE1)
    assert list(table1["paper IRWLS (s)"]) == [v[0] for v in sp.PAPER_TABLE1.values()]
    assert table1["ours IRWLS (s)"].isna().all()


def test_lee_section_shows_the_cached_result(monkeypatch, tmp_path) -> None:
    result = lee2006.run((0, 1), **TINY_LEE)
    path = lee2006.save(result, tmp_path / "lee.json")
    monkeypatch.setattr(sp, "LEE_PATH", path)
    at = page_test(PAGE, default_timeout=120).run()
    assert not problems(at), problems(at)
    table = at.dataframe[0].value.set_index("selector")
    for name, title in sp.LEE_TITLES.items():
        s = result["summary"][name]
        assert table.loc[title, "ours: mean test error"] == pytest.approx(
            s["mean_test_error"], abs=1e-6
        )
        assert table.loc[title, "sd over seeds"] == pytest.approx(
            s["sd_test_error"], abs=1e-6
        )
    assert table.loc[sp.LEE_TITLES["irwls_lee"], "paper"] == "0.1252"
    assert table.loc[sp.LEE_TITLES["qp_loo"], "paper"] == "0.1315"
    assert table.loc[sp.LEE_TITLES["irwls_plugin"], "paper"] == ""
    reference = at.dataframe[1].value.set_index("reference")
    assert reference.loc["IRWLS at the paper's (500, 0.7)", "mean test error"] == (
        pytest.approx(result["summary"]["irwls_paper_cell"]["mean_test_error"])
    )
    assert reference.loc["hinge QP, best cell on the test sets", "sd over seeds"] == (
        pytest.approx(result["summary"]["qp_best_on_test"]["sd_test_error"])
    )
    choices = at.dataframe[2].value
    assert list(choices["seed"]) == [0, 1]
    cell = result["seeds"][1]["selectors"]["qp_loo"]
    assert choices.loc[1, sp.LEE_TITLES["qp_loo"]] == (
        f"({cell['C']:g}, {cell['lee_sigma2']:g})"
    )
    figures = charts(at)
    boxes = [t for c in figures for t in c["data"] if t.get("type") == "box"]
    assert len(boxes) == len(sp.LEE_TITLES)
    pooled = sum(
        len(r["selectors"]["irwls_lee"]["test_errors"]) for r in result["seeds"]
    )
    assert len(boxes[0]["y"]) == pooled == 2 * TINY_LEE["n_test_sets"]


def test_a_recompute_is_shown_to_its_visitor_and_writes_no_file(
    monkeypatch, tmp_path
) -> None:
    # Every file the page could read or write lives under tmp_path.
    monkeypatch.setattr(sp, "LEE_PATH", tmp_path / "lee2006.json")
    monkeypatch.setattr(lee2006, "run", functools.partial(lee2006.run, **TINY_LEE))
    at = page_test(PAGE, default_timeout=180).run()
    assert any("No cached results yet" in i.value for i in at.info)
    at.slider(key="selection_lee_seeds").set_value(1).run()
    at.button(key="selection_lee_run").click().run()
    assert not problems(at), problems(at)
    assert list(tmp_path.iterdir()) == []
    own = at.session_state[sp.LEE_SESSION_KEY]
    assert own["settings"]["seeds"] == [0]
    assert not any("No cached results yet" in i.value for i in at.info)
    table = at.dataframe[0].value.set_index("selector")
    assert table.loc[sp.LEE_TITLES["irwls_lee"], "ours: mean test error"] == (
        pytest.approx(own["summary"]["irwls_lee"]["mean_test_error"], abs=1e-6)
    )


def test_recompute_leaves_the_shipped_results_and_a_switch_shows_either(
    monkeypatch, tmp_path
) -> None:
    shipped = lee2006.save(lee2006.run((0, 1), **TINY_LEE), tmp_path / "shipped.json")
    before = shipped.read_text()
    monkeypatch.setattr(sp, "LEE_PATH", shipped)
    monkeypatch.setattr(lee2006, "run", functools.partial(lee2006.run, **TINY_LEE))
    at = page_test(PAGE, default_timeout=180).run()
    assert "selection_lee_source" not in [r.key for r in at.radio]
    at.slider(key="selection_lee_seeds").set_value(1).run()
    at.button(key="selection_lee_run").click().run()
    assert not problems(at), problems(at)
    assert shipped.read_text() == before
    radio = at.radio(key="selection_lee_source")
    assert radio.value == "recomputed"
    assert list(at.dataframe[2].value["seed"]) == [0]
    radio.set_value("shipped").run()
    assert list(at.dataframe[2].value["seed"]) == [0, 1]


def _slow_run(started: threading.Event, release: threading.Event):
    """lee2006.run at the TINY_LEE settings, held until ``release`` is set."""
    real = lee2006.run

    def run(seeds, progress=None, **kwargs):
        started.set()
        assert release.wait(60)
        return real(seeds, progress=progress, **TINY_LEE)

    return run


def test_a_second_recompute_while_one_runs_says_so_and_starts_nothing(
    monkeypatch,
) -> None:
    """One process-wide recompute at a time: a second click (another visitor)
    is told when the running one started instead of starting another."""
    started, release = threading.Event(), threading.Event()
    monkeypatch.setattr(lee2006, "run", _slow_run(started, release))
    done: list[dict] = []
    first = threading.Thread(
        target=lambda: done.append(sp.recompute_lee(1, lambda f, m: None))
    )
    first.start()
    try:
        assert started.wait(60)
        started.clear()
        with pytest.raises(SvmlabError) as caught:
            sp.recompute_lee(2, lambda f, m: None)
        message = str(caught.value)
        assert re.search(r"already running, started at \d\d:\d\d:\d\d", message)
        assert not started.is_set()  # the second call never started a run
    finally:
        release.set()
        first.join(120)
    assert len(done) == 1 and done[0]["settings"]["seeds"] == [0]
    # Once it is done, the next recompute runs.
    again = sp.recompute_lee(2, lambda f, m: None)
    assert again["settings"]["seeds"] == [0, 1]


def test_a_recompute_takes_turns_in_the_fit_lane_and_stops_when_left(
    monkeypatch,
) -> None:
    """The recompute holds the server's fit lane (one core), and at each step
    of its progress lets a long fit of another visitor that waits for the lane
    go first; it stops at its next fit once its visitor is gone."""
    from svmlab import SVC
    from svmlab.errors import FitCancelled
    from svmlab.solvers.lane import FitLane, long_fits_through
    from svmlab.ui.frame import room

    lane = FitLane(slots=1, after_seconds=0.0)
    monkeypatch.setattr(room, "LANE", lane)
    events: list[str] = []
    other_waiting, other_done = threading.Event(), threading.Event()
    X, y = datasets.make("two_circles", n_samples=60, random_state=0)

    def other_visitor() -> None:
        with long_fits_through(lane):
            SVC(C=10.0, sigma=0.5).fit(X, y)  # past 0 s: it needs the lane
        events.append("other fit")
        other_done.set()

    def progress(fraction: float, message: str) -> None:
        events.append("step")
        if len(events) == 1:  # the recompute holds the lane: start the other
            assert lane.running == 1
            threading.Thread(target=other_visitor).start()
            # Wait until it waits for the lane (its wait is what is tested).
            while lane.waiting == 0 and not other_done.is_set():
                other_waiting.wait(0.01)
            assert not other_done.is_set()  # it waits for the recompute

    monkeypatch.setattr(lee2006, "run", functools.partial(lee2006.run, **TINY_LEE))
    sp.recompute_lee(1, progress)
    assert other_done.wait(60)
    # The other visitor's fit ran at the recompute's next step, not after it.
    assert events.index("other fit") < len(events) - 1, events
    assert lane.running == 0 and lane.waiting == 0
    # Its visitor gone (the predicate true): it stops at its next fit.
    with pytest.raises(FitCancelled):
        sp.recompute_lee(1, lambda f, m: None, lambda: True)
    assert sp._RECOMPUTE_LOCK.acquire(blocking=False)  # released after a stop
    sp._RECOMPUTE_LOCK.release()


def test_each_session_keeps_its_own_recompute_and_no_other_visitor_sees_it(
    monkeypatch, tmp_path
) -> None:
    """Two visitors recompute in turn: each sees the results it computed (one
    seed, two seeds), and a third, who recomputed nothing, sees neither."""
    monkeypatch.setattr(sp, "LEE_PATH", tmp_path / "lee2006.json")
    monkeypatch.setattr(lee2006, "run", functools.partial(lee2006.run, **TINY_LEE))

    def recompute(seeds: int) -> AppTest:
        at = page_test(PAGE, default_timeout=180).run()
        at.slider(key="selection_lee_seeds").set_value(seeds).run()
        at.button(key="selection_lee_run").click().run()
        assert not problems(at), problems(at)
        return at

    def seeds_shown(at: AppTest) -> list[int]:
        return list(at.dataframe[2].value["seed"])  # summary, reference, choices

    a = recompute(1)
    b = recompute(2)
    assert seeds_shown(b) == [0, 1]
    a.run()
    assert seeds_shown(a) == [0]
    c = page_test(PAGE, default_timeout=180).run()
    assert any("No cached results yet" in i.value for i in c.info)
    assert "selection_lee_source" not in [r.key for r in c.radio]


def test_recompute_is_off_in_room_mode_and_capped_otherwise(monkeypatch):
    """Any visitor may press Recompute: room mode turns it off (minutes of CPU
    the room's fits need) and elsewhere it runs at most a few seeds."""
    runs: list[tuple] = []
    monkeypatch.setattr(lee2006, "run", lambda seeds, **kw: runs.append(seeds))
    with pytest.raises(SvmlabError, match="between 1 and"):
        sp.recompute_lee(sp.MAX_RECOMPUTE_SEEDS + 1, lambda f, m: None)
    at = page_test(PAGE, default_timeout=180).run()
    assert at.slider(key="selection_lee_seeds").max == sp.MAX_RECOMPUTE_SEEDS <= 5
    monkeypatch.setenv("SVMLAB_ROOM", "1")
    at = page_test(PAGE, default_timeout=180).run()
    assert at.button(key="selection_lee_run").disabled
    assert any("off in room mode" in c.value for c in at.caption)
    with pytest.raises(SvmlabError, match="room mode"):
        sp.recompute_lee(1, lambda f, m: None)
    assert runs == []


def test_the_page_keeps_its_settings_in_the_url_and_says_what_it_could_not_use():
    """Issue 30: Model selection has URL state like every page (one schema,
    svmlab.ui.frame.page_state.SELECTION_STATE): a link sets the widgets, a malformed
    value is said and keeps its default, and a change goes back to the URL."""
    link = {
        "C": "0.1:100",
        "nC": "9",
        "criteria": "lee,nonsense",
        "delta": "0.01",
        "bias": "sideways",
        "classroom": "1",
    }
    at = open_page(PAGE, link, default_timeout=120)
    assert not at.exception
    assert at.select_slider(key="selection_C_range").value == (0.1, 100.0)
    assert at.slider(key="selection_n_C").value == 9
    assert at.multiselect(key="selection_criteria").value == ["lee"]
    assert at.select_slider(key="selection_delta").value == 0.01
    assert at.radio(key="selection_bias").value == "none"
    said = " ".join(problems(at))
    assert "'nonsense'" in said and "'sideways'" in said
    assert at.toggle(key="selection_classroom").value
    at.slider(key="selection_n_sigma").set_value(4).run()
    assert at.query_params["nsigma"] in ("4", ["4"])
    assert at.query_params["C"] in ("0.1:100", ["0.1:100"])


# -- issue 29: converged fits by default, Lee's rule as an option ----------------------


def test_lees_rule_is_an_option_compared_with_converged_fits(calls) -> None:
    at = _app()
    assert at.radio(key="selection_stop").value == "kkt"
    at.radio(key="selection_stop").set_value("lee").run()
    at = _run(at)
    assert not problems(at), problems(at)
    stored = at.session_state[sp.STATE_KEY]
    assert stored.request.stop == "lee" and stored.request.solver == "irwls"
    # The Lee sweep and its converged twin: two engine calls.
    assert len(calls) == 2
    assert stored.converged is not None
    (table,) = [d.value for d in at.dataframe if "largest change" in d.value.columns]
    assert len(table) == len(stored.request.criteria)
    rows = table.to_dict("records")
    for row, name in zip(rows, stored.request.criteria, strict=True):
        diff = np.abs(stored.result.scores[name] - stored.converged.scores[name])
        assert row["largest change"] == pytest.approx(float(np.nanmax(diff)))
    # With converged fits (the default) there is no such table.
    at.radio(key="selection_stop").set_value("kkt").run()
    at = _run(at)
    assert at.session_state[sp.STATE_KEY].converged is None
    assert not [d for d in at.dataframe if "largest change" in d.value.columns]


def test_the_default_fits_are_converged_by_the_entropy_dual() -> None:
    request = _expected_request()
    model = request.estimator()
    assert model.solver == "entropy_dual" and model.tol == sp.KKT_TOL
    lee = dataclasses.replace(request, stop="lee").estimator()
    assert lee.solver == "irwls" and lee.tol == sp.LEE_TOL


def test_the_speed_sentence_states_the_measured_numbers(tmp_path) -> None:
    path = tmp_path / "speed.json"
    after = {
        "setting": "page default, n=100, 7x7",
        "sweep_wall_s_median": 0.61,
        "loo_warm_s": 0.31,
        "cold_over_warm": 3.0,
        "warm_equals_cold_cells": "49/49",
        "load_start": [1.5, 1.0, 1.0],
        **{f"{c}_s": 0.08 for c in ("lee", "plugin", "alo", "span")},
        **{
            f"{c}_speedup_over_warm_loo": v
            for c, v in zip(("lee", "plugin", "alo", "span"), (3, 4, 5, 6), strict=True)
        },
    }
    before = {"setting": "page default, n=100, 7x7", "sweep_wall_s": 8.3}
    run = {"after": [after], "before": [before]}
    path.write_text(
        json.dumps({"benchmark": "model_selection", "runs": {"default": run}})
    )
    text = sp.speed_sentence(path)
    for piece in ("load 1.5", "0.61 s", "8 s", "0.31 s", "3× less", "49/49", "3–6×"):
        assert piece in text, (piece, text)
    assert "warm-started" in sp.speed_sentence(tmp_path / "missing.json")


def test_the_page_reads_the_benchmarks_current_results() -> None:
    """The speed sentence and Lee's Table 1 column come from the benchmark suite's
    one results file each (benchmarks/results/model_selection.json, solvers.json),
    not from a copy: with the shipped files both say numbers."""
    assert sp.speed_sentence().startswith("Measured on our 2-core machine")
    rows = sp.read_table1()
    assert rows and all("n" in row for row in rows)
