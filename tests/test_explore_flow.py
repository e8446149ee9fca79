"""Explore keeps a lecture going (issue 27, items 3 and 4): sliders that depend
on each other keep each other valid, a data set switch keeps the lecturer's
model and says what came with the new data, and a value that cannot be fitted
leaves the last picture in place with every setting."""

from __future__ import annotations

import json

import numpy as np
from streamlit.testing.v1 import AppTest

from svmlab import datasets
from svmlab.ui.explore.settings import ExploreSettings
from svmlab.ui.frame.chart import COMPONENT
from tests.pages import EXPLORE, notes, open_page, problems


def _app(query: dict[str, str] | None = None) -> AppTest:
    return open_page(EXPLORE, query)


def _main_chart(at: AppTest) -> dict | None:
    for e in at.get("bidi_component"):
        if e.proto.component_name == COMPONENT and "explore_plane" in e.key:
            return json.loads(e.proto.bytes)
    charts = [
        json.loads(e.proto.bytes)
        for e in at.get("bidi_component")
        if e.proto.component_name == COMPONENT
    ]
    return charts[0] if charts else None


def _infos(at: AppTest) -> str:
    return "\n".join(notes(at))


# -- the engine's rule ---------------------------------------------------------------


def test_every_pair_of_slider_ends_can_be_made_after_the_rule() -> None:
    """Each generator, every corner of its sliders (lows and highs mixed): after
    consistent_params the generator makes the data, whichever slider moved."""
    for name, params in datasets.PARAMS.items():
        shape = [p for p in params if p.name != "noise"]
        for corner in range(2 ** len(shape)):
            values = {
                p.name: (p.high if corner >> i & 1 else p.low)
                for i, p in enumerate(shape)
            }
            for moved in (None, *values):
                fixed, notes = datasets.consistent_params(name, values, moved)
                if moved is not None:
                    assert fixed[moved] == values[moved]
                assert bool(notes) == (fixed != values)
                for p in shape:  # still on the slider
                    assert p.low <= fixed[p.name] <= p.high
                X, y = datasets.make(name, **fixed, random_state=0)
                assert np.isfinite(X).all() and set(np.unique(y)) == {-1.0, 1.0}


# -- dependent sliders on the page --------------------------------------------------


def test_outliers_then_fewer_points_keeps_the_data_valid() -> None:
    at = _app({"data": "outlier_blobs", "n": "60"})
    at.slider(key="explore_dp_n_outliers").set_value(20).run()
    at.slider(key="explore_n").set_value(10).run()
    assert not problems(at), problems(at)
    assert at.slider(key="explore_dp_n_outliers").value == 8
    assert "Outliers lowered from 20 to 8" in _infos(at)
    assert _main_chart(at) is not None
    # Moving the outliers up again raises the number of points instead.
    at.slider(key="explore_dp_n_outliers").set_value(20).run()
    assert not problems(at), problems(at)
    assert at.slider(key="explore_n").value == 30
    assert "Number of points raised from 10 to 30" in _infos(at)


def test_radii_keep_each_other_valid_by_slider_and_by_link() -> None:
    at = _app({"data": "two_circles"})
    at.slider(key="explore_dp_r_inner").set_value(1.3).run()
    assert not problems(at), problems(at)
    assert at.slider(key="explore_dp_r_outer").value == 1.35
    assert "Outer radius raised from 0.75 to 1.35" in _infos(at)
    at.slider(key="explore_dp_r_outer").set_value(0.5).run()
    assert not problems(at), problems(at)
    assert at.slider(key="explore_dp_r_inner").value == 0.45
    at = _app({"data": "two_circles", "r_inner": "1.3", "r_outer": "0.75"})
    assert not problems(at), problems(at)
    assert "Outer radius raised from 0.75 to 1.35" in _infos(at)
    assert at.query_params["r_outer"] == ["1.35"] or at.query_params["r_outer"] == (
        "1.35"
    )
    at = _app({"data": "outlier_blobs", "n": "10", "n_outliers": "20"})
    assert not problems(at), problems(at)
    assert at.slider(key="explore_dp_n_outliers").value == 8


# -- a data set switch -------------------------------------------------------------


def test_a_switch_keeps_the_lecturers_model_and_says_so() -> None:
    at = _app({"C": "100", "sigma": "2"})
    at.selectbox(key="explore_dataset").set_value("moons").run()
    assert not problems(at), problems(at)
    s = at.session_state["explore_settings"]
    assert (s.dataset, s.kernel, s.C, s.sigma) == ("moons", "gaussian", 100.0, 2.0)
    text = _infos(at)
    assert "Kept your C = 100, σ = 2" in text and "suggests: C = 10, σ = 0.39" in text
    at.button(key="explore_switch_suggested").click().run()
    s = at.session_state["explore_settings"]
    assert (s.dataset, s.C, s.sigma) == ("moons", 10.0, 0.39)
    assert at.number_input(key="explore_C").value == 10.0
    # The way back: to the spiral with the lecturer's model.
    at.selectbox(key="explore_dataset").set_value("blobs").run()
    at.button(key="explore_switch_back").click().run()
    s = at.session_state["explore_settings"]
    assert (s.dataset, s.C, s.sigma) == ("moons", 10.0, 0.39)


def test_untouched_defaults_follow_the_new_data_set() -> None:
    """Settings nobody moved are the old data set's suggestions: the new data
    set's suggestions replace them (the spiral's σ = 3.3 would blur the moons)."""
    at = _app()
    at.selectbox(key="explore_dataset").set_value("moons").run()
    s = at.session_state["explore_settings"]
    assert s == ExploreSettings(dataset="moons")
    assert "Kept your" not in _infos(at)
    at = _app({"kernel": "linear", "C": "3.3"})
    at.selectbox(key="explore_dataset").set_value("two_circles").run()
    s = at.session_state["explore_settings"]
    assert (s.kernel, s.C) == ("linear", 3.3)
    assert "Kept your linear kernel, C = 3.3" in _infos(at)
    assert "suggests: Gaussian kernel, C = 10" in _infos(at)


# -- the last good picture ---------------------------------------------------------


def test_a_model_that_cannot_be_fitted_leaves_the_last_picture() -> None:
    at = _app({"data": "moons", "n": "60", "kernel": "linear"})
    before = _main_chart(at)
    assert before is not None
    at.checkbox(key="explore_hard_margin").check().run()
    assert any("cannot be separated" in e.value for e in at.error), problems(at)
    assert not at.exception
    assert _main_chart(at) is not None
    assert any("last one that could be drawn" in c.value for c in at.caption)
    assert at.checkbox(key="explore_hard_margin").value
