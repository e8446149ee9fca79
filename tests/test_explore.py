"""The Explore page: settings and URL, the edits, and the page under AppTest.

The page is driven by widget key (STYLE rule 14). Every kernel x loss x
registered valid solver runs on the page once, the data sets taken in turn (each
data set meets several kernels, losses and solvers); one AppTest instance per
data set is reused (n = 40 points) to keep it fast. The page's code for a
combination does not depend on the data set (the engine's own tests fit every
data set), so the full product with the 8 data sets (408 cases, two reruns each,
about a third of the default run's time) repeated the same path 8 times.
"""

from __future__ import annotations

import html
import json
import math
import re
from dataclasses import replace

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from svmlab import SVC, datasets, kernels, losses, solvers
from svmlab.solvers.base import DualSolution, History, SolverSpec
from svmlab.ui.explore.cache import apply_edits, load_data, model_items
from svmlab.ui.explore.edit import inside_region
from svmlab.ui.explore.settings import ExploreSettings
from svmlab.ui.frame.chart import COMPONENT
from svmlab.ui.frame.link_values import C_GRID, SIGMA_GRID, nearest
from tests.pages import EXPLORE, numbers, open_page, problems, unescaped

SMALL_N = 40


def _app(query: dict[str, str] | None = None) -> AppTest:
    return open_page(EXPLORE, query, default_timeout=30)


def _charts(at: AppTest) -> list[dict]:
    """What the page's Plotly charts (svmlab.ui.frame.chart components) are
    sent, in order:
    ``{"data", "layout", "config", "select"}``."""
    return [
        json.loads(e.proto.bytes)
        for e in at.get("bidi_component")
        if e.proto.component_name == COMPONENT
    ]


def _main_chart(at: AppTest) -> dict:
    charts = _charts(at)
    assert charts, "no plotly chart on the page"
    return charts[0]


# -- settings and URL -----------------------------------------------------------------


SETTINGS = [
    ExploreSettings(),
    ExploreSettings(dataset="two_circles", C=500.0, sigma=0.5916, test_fraction=0.5),
    ExploreSettings(
        dataset="outlier_blobs",
        data_params=(("n_outliers", 7), ("outlier_distance", 9.5)),
        loss="ramp",
        kernel="linear",
        bias="none",
    ),
    ExploreSettings(dataset="linear", hard_margin=True, kernel="linear", seed=12),
    ExploreSettings(
        dataset="moons",
        n=1000,
        noise=0.25,
        kernel="polynomial",
        degree=5,
        coef0=0.5,
        loss="modified_hinge",
        delta=0.35,
        C=0.0123,
        tol=1e-6,
        max_iter=77,
        log_count=True,
        show_test=False,
        playback=True,
    ),
]


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: s.dataset)
def test_url_round_trip(settings: ExploreSettings) -> None:
    query = settings.to_query()
    assert all(isinstance(v, str) for v in query.values())
    assert ExploreSettings.from_query(query) == settings


def test_default_settings_have_an_empty_query() -> None:
    assert ExploreSettings().to_query() == {}
    assert ExploreSettings.from_query({}) == ExploreSettings()


#: A link's value -> what the settings take instead, and whether the page says so.
#: Malformed values and choices fall back to the default; numbers outside the
#: widget's range are clamped to its nearest end (issue 14, item 2).
LINK_CASES = [
    ({"data": "nope"}, {}, True),
    ({"C": "-1"}, {}, True),
    ({"C": "nan"}, {}, True),
    ({"C": "inf"}, {}, True),
    ({"C": "1e300"}, {"C": 1e10}, True),
    ({"C": "1e-300"}, {"C": 1e-6}, True),
    ({"sigma": "0"}, {}, True),
    ({"sigma": "1e-200"}, {"sigma": 1e-3}, True),
    ({"n": "3.5"}, {}, True),
    ({"n": "1e9"}, {"n": 2000}, True),
    ({"noise": "abc"}, {}, True),
    ({"kernel": "rbf"}, {}, True),
    ({"loss": "log"}, {}, True),
    ({"solver": "not-a-solver"}, {}, True),
    ({"bias": "maybe"}, {}, True),
    ({"test": "0.99"}, {"test_fraction": 0.8}, True),
    # The shared δ slider's rule (as on Losses): beyond its last stop, the last.
    ({"delta": "1"}, {"delta": 0.95}, True),
    ({"loss": "modified_hinge", "delta": "0.0001"}, {"delta": 1e-4}, False),
    ({"loss": "modified_hinge", "delta": "0.33"}, {"delta": 0.35}, True),
    ({"hard": "yes please"}, {}, True),
    ({"seed": "-4"}, {}, True),  # clamped to 0, the default
    ({"max_iter": "0"}, {"max_iter": 1}, True),
    ({"max_iter": "10000000"}, {"max_iter": 1_000_000}, True),
    ({"tol": "1e-300"}, {"tol": 1e-12}, True),
    # Not a parameter of the spiral: ignored, and said (issue 44, item 8).
    ({"r_inner": "2"}, {}, True),
    ({"data": "two_circles", "r_outer": "9"}, {"r_outer": 1.4}, True),
    ({"C": ["1", "2"]}, {"C": 2.0}, True),  # the last value wins, said (issue 27)
    ({"C": None}, {}, False),
]


@pytest.mark.parametrize(("query", "changed", "noted"), LINK_CASES)
def test_link_values_are_accepted_clamped_or_refused_with_a_note(
    query: dict, changed: dict, noted: bool
) -> None:
    notes: list[str] = []
    settings = ExploreSettings.from_query(query, notes)
    base = ExploreSettings(dataset=settings.dataset)
    values = {f: getattr(settings, f) for f in vars(base) if f != "data_params"}
    values.update(dict(settings.data_params))
    defaults = {f: getattr(base, f) for f in vars(base) if f != "data_params"}
    defaults.update(dict(base.data_params))
    differ = {k: v for k, v in values.items() if v != defaults[k]}
    differ.pop("loss", None)
    assert differ == changed
    assert bool(notes) == noted, notes
    # Whatever came in, the widgets can show it: every number in its range.
    assert settings.clamped() == (settings, [])


def test_every_model_selection_choice_opens_in_explore_unchanged() -> None:
    """What the Model selection page hands Explore (its grids of C and sigma, Lee's
    deltas) is accepted as it is."""
    from svmlab.ui.selection import requests

    for C in requests.C_CHOICES:
        for sigma in requests.SIGMA_CHOICES:
            for delta in requests.DELTAS:
                s = ExploreSettings(
                    dataset="two_circles",
                    loss="modified_hinge",
                    C=C,
                    sigma=sigma,
                    delta=delta,
                )
                assert s.clamped() == (s, [])


def test_dataset_defaults_fill_in() -> None:
    s = ExploreSettings(dataset="outlier_blobs")
    assert s.n == 100 and s.noise == 0.5
    assert dict(s.data_params) == {"n_outliers": 3, "outlier_distance": 6.0}
    assert (s.kernel, s.C) == ("linear", 1.0)
    assert s.with_dataset("spiral") == ExploreSettings()
    assert ExploreSettings(C=5.0).with_dataset("moons").C == 10.0


def test_log_grids() -> None:
    assert C_GRID[0] == 0.001 and C_GRID[-1] == 1e5
    assert 10.0 in C_GRID and 1.0 in SIGMA_GRID and 3.3 in SIGMA_GRID
    ratios = np.diff(np.log10(C_GRID))
    assert ratios.min() > 0.05 and ratios.max() < 0.1
    assert nearest(C_GRID, 11.0) == 12.0 or nearest(C_GRID, 11.0) == 10.0
    assert nearest(C_GRID, 1e9) == 1e5 and nearest(C_GRID, -3.0) == 0.001


# -- edits ----------------------------------------------------------------------------


def test_box_and_lasso_regions() -> None:
    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [0.5, 1.5]])
    box = {"box": [{"x": [0.5, 1.5], "y": [1.5, 0.5]}], "lasso": []}
    assert inside_region(X, box).tolist() == [False, True, False, True]
    triangle = {"lasso": [{"x": [-1.0, 4.0, -1.0], "y": [-1.0, -1.0, 4.0]}]}
    assert inside_region(X, triangle).tolist() == [True, True, False, True]
    assert not inside_region(X, {}).any()
    assert not inside_region(X, None).any()


def test_apply_edits_removes_then_appends() -> None:
    X = np.arange(10.0).reshape(5, 2)
    y = np.array([1.0, -1.0, 1.0, -1.0, 1.0])
    X2, y2 = apply_edits(X, y, (((9.0, 9.0, -1.0),), (0, 3)))
    assert X2.tolist() == [[2.0, 3.0], [4.0, 5.0], [8.0, 9.0], [9.0, 9.0]]
    assert y2.tolist() == [-1.0, 1.0, 1.0, -1.0]


# -- the page ------------------------------------------------------------------------


def _combos() -> list[tuple[str, str, str, str, str]]:
    """(data set, kernel, loss, solver, bias) for every kernel, loss and
    registered valid solver, the data sets in turn.

    A solver runs with an unregularized bias when it can, else with none.
    """
    model = []
    for kernel in kernels.PSD_KERNELS:  # the kernels Explore offers
        for loss in losses.LOSSES:
            model.append((kernel, loss, "auto", "unregularized"))
            for name, spec in solvers.SOLVERS.items():
                if loss in spec.losses:
                    bias = "unregularized" if spec.with_intercept else "none"
                    model.append((kernel, loss, name, bias))
    names = list(datasets.GENERATORS)
    return [(names[i % len(names)], *m) for i, m in enumerate(model)]


_APPS: dict[str, AppTest] = {}


def _app_for(dataset: str) -> AppTest:
    """One AppTest per data set, with n = 40 (the first run is the slow one)."""
    if dataset not in _APPS:
        at = _app({"data": dataset, "n": str(SMALL_N)})
        _APPS[dataset] = at
    return _APPS[dataset]


COMBOS = _combos()


@pytest.mark.parametrize(
    ("dataset", "kernel", "loss", "solver", "bias"),
    COMBOS,
    ids=["-".join(c) for c in COMBOS],
)
def test_every_combination_runs(dataset, kernel, loss, solver, bias) -> None:
    at = _app_for(dataset)
    at.selectbox(key="explore_kernel").set_value(kernel)
    at.selectbox(key="explore_loss").set_value(loss)
    at.selectbox(key="explore_bias").set_value(bias)
    at.run()
    at.selectbox(key="explore_solver").set_value(solver).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert at.selectbox(key="explore_solver").value == solver
    if solvers.valid_solvers(loss, fit_intercept=bias == "unregularized"):
        assert _charts(at), "no chart"
        assert numbers(at)["support vectors"].endswith(f"/ {len(_train(at))}")
    else:
        # No registered solver for this loss yet: a plain note, no crash.
        assert any("No solver" in i.value for i in at.info), [i.value for i in at.info]
    assert at.slider(key="explore_n").value == SMALL_N


def _train(at: AppTest) -> np.ndarray:
    s = at.session_state["explore_settings"]
    return load_data(
        (s.dataset, tuple(s.data_kwargs().items()), s.test_fraction)
    ).y_train


def test_numbers_panel_matches_the_engine() -> None:
    at = _app({"data": "two_circles", "C": "4.7", "sigma": "0.39", "test": "0.3"})
    assert not problems(at)
    s = at.session_state["explore_settings"]
    assert (s.dataset, s.C, s.sigma, s.test_fraction) == ("two_circles", 4.7, 0.39, 0.3)
    data = load_data((s.dataset, tuple(s.data_kwargs().items()), s.test_fraction))
    model = SVC(**dict(model_items(s))).fit(data.X_train, data.y_train)
    n_free = int(np.sum(model.sv_state_ == 1))
    n_bound = int(np.sum(model.sv_state_ == 2))
    train_error = np.mean(model.predict(data.X_train) != data.y_train)
    test_error = np.mean(model.predict(data.X_test) != data.y_test)
    shown = numbers(at)
    assert shown["support vectors"] == f"{n_free + n_bound} / {data.y_train.size}"
    assert shown["free SVs"] == str(n_free)
    assert shown["bound SVs"] == str(n_bound)
    assert shown["training error"] == f"{100 * train_error:.1f} %"
    assert shown["test error"] == f"{100 * test_error:.1f} %"
    assert float(shown["objective"]) == pytest.approx(model.objective_, rel=1e-3)
    # The figure shows the same support vectors.
    names = {t.get("name"): t for t in _main_chart(at)["data"]}
    assert len(names["bound SV (α = C)"]["x"]) == n_bound


def test_sliders_and_typed_values_stay_in_step() -> None:
    at = _app({"n": "60"})
    at.select_slider(key="explore_C_slider").set_value(100.0).run()
    assert at.number_input(key="explore_C").value == 100.0
    # A typed value off the grid becomes a stop of the slider: it shows 123.4,
    # not the nearest grid value (issue 14, item 11).
    at.number_input(key="explore_C").set_value(123.4).run()
    (slider,) = (s for s in at.select_slider if s.key.startswith("explore_C_slider"))
    assert slider.value == 123.4 and "123.4" in slider.options
    assert len(slider.options) == len(C_GRID) + 1
    assert at.session_state["explore_settings"].C == 123.4
    assert at.query_params["C"] == "123.4"
    slider.set_value(150.0).run()
    assert at.number_input(key="explore_C").value == 150.0
    assert at.select_slider(key="explore_C_slider").value == 150.0
    at.select_slider(key="explore_sigma_slider").set_value(1.5).run()
    assert at.number_input(key="explore_sigma").value == 1.5
    assert not problems(at)


def test_typed_values_outside_the_range_are_clamped_said_and_keep_settings() -> None:
    """Issue 27, item 5: a number typed outside its box's range used to stay in
    the box, outlined red, while the model kept the old value; now the box shows
    the value used and a sentence under it says what happened."""
    at = _app({"data": "moons", "n": "60", "sigma": "0.82"})
    at.select_slider(key="explore_C_slider").set_value(47.0).run()
    at.number_input(key="explore_C").set_value(1e12).run()
    assert not problems(at)
    assert at.number_input(key="explore_C").value == 1e10
    assert at.session_state["explore_settings"].C == 1e10
    (note,) = [w.value for w in at.warning if "outside the range" in w.value]
    assert "C = 1e+12" in note and "using 1e+10" in note
    assert at.selectbox(key="explore_dataset").value == "moons"
    assert at.slider(key="explore_n").value == 60
    assert at.number_input(key="explore_sigma").value == 0.82
    at.number_input(key="explore_C").set_value(0.0).run()
    assert at.number_input(key="explore_C").value == 1e-6
    at.number_input(key="explore_tol").set_value(0.0).run()
    assert at.number_input(key="explore_tol").value == 1e-12
    assert any("tol = 0 is outside" in w.value for w in at.warning)
    at.number_input(key="explore_max_iter").set_value(10**9).run()
    assert at.number_input(key="explore_max_iter").value == 1_000_000
    assert at.session_state["explore_settings"].max_iter == 1_000_000
    at.run()  # the sentences are said once
    assert not [w for w in at.warning if "outside the range" in w.value]
    assert not problems(at) and _charts(at)


def test_a_link_beyond_the_widgets_is_clamped_with_a_message() -> None:
    at = _app({"n": "60", "C": "1e300", "max_iter": "10000000", "tol": "1e-300"})
    assert not problems(at)
    (note,) = at.info
    for text in ("C = 1e+300", "max_iter = 10,000,000", "tol = 1e-300"):
        assert text in unescaped(note.value)
    s = at.session_state["explore_settings"]
    assert (s.C, s.max_iter, s.tol) == (1e10, 1_000_000, 1e-12)
    assert at.query_params["C"] == "1e+10"


def test_lee_delta_reaches_explore() -> None:
    """Model selection's default delta (Lee's 1e-4) opens in Explore as it is."""
    at = _app(
        {
            "data": "two_circles",
            "n": "60",
            "loss": "modified_hinge",
            "delta": "0.0001",
            "bias": "none",
        }
    )
    assert not problems(at)
    # No clamping note (the solver's own note on Lee's stop rule may show).
    assert not any("δ" in note.value for note in at.info)
    assert at.select_slider(key="explore_delta").value == 1e-4
    assert at.session_state["explore_settings"].delta == 1e-4
    assert _charts(at)


def test_data_parameters_that_cannot_go_together_are_fixed_and_said() -> None:
    # Issue 27, item 3: this link used to leave the chart for a raw sentence.
    at = _app({"data": "outlier_blobs", "n": "10", "n_outliers": "20"})
    assert not problems(at)
    assert any("Outliers lowered from 20 to 8" in i.value for i in at.info)
    assert at.slider(key="explore_dp_n_outliers").value == 8
    assert at.slider(key="explore_n").value == 10


def test_hard_margin_offers_only_solvers_that_take_it() -> None:
    at = _app({"n": "60", "solver": "smo"})
    assert at.selectbox(key="explore_solver").value == "smo"
    at.checkbox(key="explore_hard_margin").check().run()
    options = at.selectbox(key="explore_solver").options
    assert not any(o.startswith("smo") for o in options) and len(options) > 1
    assert at.selectbox(key="explore_solver").value == "auto"
    assert not problems(at)


def test_hard_margin_needs_separable_data() -> None:
    at = _app({"data": "linear", "n": "60", "kernel": "linear", "hard": "1"})
    assert not problems(at)
    assert numbers(at)["bound SVs"] == "0"
    assert at.number_input(key="explore_C").disabled
    at.slider(key="explore_noise").set_value(0.3).run()  # label flips
    assert not at.exception
    assert any("hard-margin" in e.value for e in at.error), [e.value for e in at.error]
    assert at.checkbox(key="explore_hard_margin").value
    assert at.selectbox(key="explore_kernel").value == "linear"


def test_dataset_switch_resets_its_shape_and_keeps_the_chosen_n() -> None:
    at = _app({"n": "300", "noise": "2"})
    at.selectbox(key="explore_dataset").set_value("two_circles").run()
    assert at.slider(key="explore_n").value == 300  # chosen, so kept (issue 27)
    assert at.slider(key="explore_noise").value == 0.0
    assert at.slider(key="explore_dp_r_inner").value == 0.5
    assert at.query_params["data"] == "two_circles"
    assert not problems(at)


def test_url_reproduces_the_settings() -> None:
    settings = ExploreSettings(
        dataset="blobs",
        n=80,
        data_params=(("separation", 2.0),),
        C=0.47,
        sigma=1.8,
        seed=3,
        log_count=True,
    )
    at = _app(settings.to_query())
    assert not problems(at)
    assert at.session_state["explore_settings"] == settings
    assert at.select_slider(key="explore_C_slider").value == 0.47
    assert at.slider(key="explore_dp_separation").value == 2.0
    assert at.toggle(key="explore_log_count").value


def _stopping_spec() -> SolverSpec:
    """A registered-at-test-time iterative solver that always stops early: the
    QP answer, a three-record history and ``converged=False``."""
    qp = solvers.SOLVERS["qp"]

    def solve(problem, *, tol, max_iter, init=None, record_history=False, **kw):
        exact = qp.solve(problem, tol=tol, max_iter=max_iter)
        history = History()
        for k, scale in enumerate((0.0, 0.5, 1.0)):
            history.record(
                k,
                objective=exact.objective,
                kkt_violation=1.0 - scale,
                time=0.001 * k,
                alpha=scale * exact.alpha,
                intercept=scale * exact.b,
            )
        return replace(
            DualSolution.finish(
                problem, exact.alpha, exact.b, n_iter=max_iter, converged=False
            ),
            history=history if record_history else History(),
        )

    return SolverSpec(
        name="stopper",
        title="Always stops early (test double)",
        solve=solve,
        losses=frozenset({"hinge"}),
        source="tests/test_explore.py",
    )


def test_new_solver_appears_warns_when_not_converged_and_replays(monkeypatch) -> None:
    monkeypatch.setitem(solvers.SOLVERS, "stopper", _stopping_spec())
    at = _app({"n": "60"})
    options = at.selectbox(key="explore_solver").options
    assert "stopper: Always stops early (test double)" in options
    at.selectbox(key="explore_solver").set_value("stopper").run()
    assert not problems(at)
    assert any("before meeting tol" in w.value for w in at.warning)
    at.toggle(key="explore_playback").set_value(True).run()
    assert not problems(at)
    assert at.slider(key="explore_step").value == 2
    at.slider(key="explore_step").set_value(0).run()
    assert not problems(at)
    assert len(_charts(at)) >= 5
    at.button(key="explore_step_next").click().run()
    assert at.slider(key="explore_step").value == 1


def test_no_solver_yet_is_a_note_not_a_crash(monkeypatch) -> None:
    monkeypatch.setattr(solvers, "SOLVERS", {"qp": solvers.SOLVERS["qp"]})
    at = _app({"n": "60", "loss": "ramp"})
    assert not problems(at)
    assert any("No solver for the ramp loss" in i.value for i in at.info)


def test_theory_and_downloads() -> None:
    at = _app({"n": "60"})
    at.toggle(key="explore_theory").set_value(True).run()
    latex = [x.value for x in at.get("latex")]
    assert any(r"\max(0,\ 1 - m)" in x for x in latex)
    assert any(r"\sum_i \alpha_i y_i = 0" in x for x in latex)
    from svmlab.ui.explore.panels import model_json

    record_model = at.session_state["explore_settings"]
    assert record_model.loss == "hinge"
    assert any(b.label.startswith("Download") for b in at.get("download_button"))
    assert math.isfinite(float(numbers(at)["objective"]))
    assert model_json  # exercised in test_model_json below


def test_model_json() -> None:
    from svmlab.ui.explore.cache import fit
    from svmlab.ui.explore.panels import data_csv, model_json

    s = ExploreSettings(n=60)
    items = tuple(s.data_kwargs().items())
    record = fit((s.dataset, items, s.test_fraction), ((), ()), model_items(s))
    payload = json.loads(model_json(record, s))
    assert len(payload["alpha"]) == len(record.y)
    assert payload["support"] == record.model.support_.tolist()
    assert payload["intercept"] == pytest.approx(record.model.intercept_[0])
    assert payload["parameters"]["C"] == s.C
    data = load_data((s.dataset, items, s.test_fraction))
    lines = data_csv(data, record, 0).splitlines()
    assert lines[0] == "x1,x2,y,split" and len(lines) == 61


def test_chart_payload_is_plain_json() -> None:
    """svmlab.ui.frame.chart sends a figure (go.Figure or spec dicts) as JSON the
    browser can parse: numpy values as numbers, NaN as null, no fixed width."""
    import plotly.graph_objects as go

    from svmlab.ui.frame.chart import figure_payload

    config = {"displaylogo": False}
    spec = {
        "data": [{"type": "scatter", "x": np.array([1.0, 2.0]), "y": [np.float64(3)]}],
        "layout": {"width": 500, "height": 300},
    }
    sent = json.loads(figure_payload(spec, config, select=True, revision="r1"))
    assert sent["data"][0]["x"] == [1.0, 2.0] and sent["data"][0]["y"] == [3.0]
    assert sent["layout"]["datarevision"] == "r1" and sent["layout"]["autosize"]
    # The browser sizes the chart's div; Plotly fills it (no fixed width/height).
    assert "width" not in sent["layout"] and "height" not in sent["layout"]
    assert sent["height"] == 300 and sent["fit"] is None
    assert sent["config"] == config and sent["select"] and not sent["defer"]
    fitted = json.loads(figure_payload(spec, config, fit=(400, 300)))
    assert fitted["fit"] == [400, 300] and fitted["height"] == 300
    assert "width" in spec["layout"]  # the caller's dicts are left alone
    nan = {"data": [{"type": "scatter", "x": [float("nan"), 1.0]}], "layout": {}}
    assert json.loads(figure_payload(nan, config))["data"][0]["x"] == [None, 1.0]
    fig = go.Figure(go.Scatter(x=[1, 2], y=[3, 4]), layout={"height": 200})
    sent = json.loads(figure_payload(fig, config, defer=True))
    assert sent["data"][0]["y"] == [3, 4] and sent["defer"] and sent["narrow"] is None
    # A narrow layout (a phone's): its layout sized by the browser, its height
    # apart, recoloured by the theme as the figure is.
    from svmlab.figures.theme import DARK

    narrow = {"data": [], "layout": {"height": 700, "width": 9, "font": {"size": 16}}}
    sent = json.loads(
        figure_payload(spec, config, revision="r2", narrow=(560, narrow), theme=DARK)
    )
    assert sent["narrow"]["below"] == 560 and sent["narrow"]["height"] == 700
    assert sent["narrow"]["layout"]["datarevision"] == "r2"
    assert "width" not in sent["narrow"]["layout"]
    assert "height" not in sent["narrow"]["layout"]
    assert sent["narrow"]["layout"]["paper_bgcolor"] == sent["layout"]["paper_bgcolor"]
    assert sent["layout"]["paper_bgcolor"] not in (None, "white", "#FFFFFF")


def test_charts_are_plotly_components_kept_across_reruns() -> None:
    """The main chart, the alpha histogram and the loss panel go to the browser as
    svmlab.ui.frame.chart components: the whole figure with the modebar config, only
    the main chart reports box/lasso selections, and the element ids do not
    change when C moves (the browser keeps each Plotly div and reacts in place)."""
    at = _app({"n": "60"})
    assert not problems(at)

    def ids() -> list[str]:
        return [
            e.proto.id
            for e in at.get("bidi_component")
            if e.proto.component_name == COMPONENT
        ]

    main, alpha, loss = _charts(at)
    assert [main["select"], alpha["select"], loss["select"]] == [True, False, False]
    for chart in (main, alpha, loss):
        assert chart["config"]["modeBarButtons"] == [["toImage"]]
        assert chart["config"]["toImageButtonOptions"]["format"] == "png"
        assert chart["layout"]["datarevision"] and chart["data"]
    x_axis, y_axis = main["layout"]["xaxis"], main["layout"]["yaxis"]
    assert x_axis["autorange"] is False and y_axis["autorange"] is False
    assert main["layout"]["dragmode"] == "select"
    names = {t.get("name") for t in main["data"]}
    assert {"f = 0 (boundary)", "f = +1 margin", "bound SV (α = C)"} <= names
    before, revision = ids(), main["layout"]["datarevision"]
    assert before[0].endswith("explore_chart_0")

    at.select_slider(key="explore_C_slider").set_value(100.0).run()
    assert not problems(at)
    assert ids() == before
    assert _main_chart(at)["layout"]["datarevision"] != revision
    assert _main_chart(at)["layout"]["xaxis"]["range"] == x_axis["range"]


def test_a_pending_click_adds_a_point_and_reset_removes_it() -> None:
    at = _app({"n": "60"})
    n0 = len(_train(at))
    at.session_state["explore_chart_pending_click"] = (0.0, 0.0)
    at.radio(key="explore_add_class").set_value(-1.0).run()
    assert not problems(at)
    assert numbers(at)["support vectors"].endswith(f"/ {n0 + 1}")
    assert at.session_state["explore_edits"]["added"] == ((0.0, 0.0, -1.0),)
    at.button(key="explore_reset").click().run()
    assert numbers(at)["support vectors"].endswith(f"/ {n0}")


def test_an_engine_bug_is_a_message_not_a_traceback(monkeypatch) -> None:
    def broken(problem, **kwargs):
        raise RuntimeError("boom")

    spec = replace(_stopping_spec(), name="broken", solve=broken)
    monkeypatch.setitem(solvers.SOLVERS, "broken", spec)
    at = _app({"n": "60", "solver": "broken"})
    assert not at.exception
    assert any("This is a bug" in e.value and "boom" in e.value for e in at.error)
    assert at.selectbox(key="explore_solver").value == "broken"


def test_main_chart_fits_a_projector_screen_and_its_key_sits_beside_it() -> None:
    """Issue 14, item 11: at 1280 x 720 the chart and its sliders fit one screen
    (the chart is sized in the browser: at most 760 px, the window's height less
    the 300 px above it, at least 400 px), and its legend is a key beside the chart
    (a wrapped Plotly legend covered the plot), listing every entry."""
    at = _app({"n": "60"})
    main = _main_chart(at)
    assert main["fit"] == [400, 300] and main["height"] == 760
    assert main["layout"]["showlegend"] is False
    body = "".join(h.proto.body for h in at.get("html"))
    text = html.unescape(re.sub(r"<[^>]+>", "", body))
    for name in ("class +1", "class −1", "free SV (0 < α < C)", "f = 0 (boundary)"):
        assert name in text, name
    # 760 px is too tall for a 720-line projector once the sliders are above it.
    assert 720 - main["fit"][1] < main["height"]


def test_a_width_too_small_to_draw_is_said_in_words() -> None:
    at = _app({"n": "60", "sigma": "0.01"})
    notes = [i.value for i in at.info if "too small to draw" in i.value]
    assert len(notes) == 1 and "σ = 0.01" in notes[0]
    at = _app({"n": "60", "sigma": "3.3"})
    assert not [i.value for i in at.info if "too small to draw" in i.value]
