"""Room mode (issue 21): a lecturer serving a room caps the number of points, the
iterations and the time of one fit, whatever a link, a preset or a widget asks;
without it the page offers its full range."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from svmlab.ui.explore.cache import model_items
from svmlab.ui.explore.settings import ExploreSettings
from svmlab.ui.frame import room
from tests.conftest import python_output
from tests.pages import EXPLORE, open_page

SLOW_LINK = {"data": "two_circles", "n": "2000", "max_iter": "1000000"}


def _open(query: dict[str, str]) -> AppTest:
    return open_page(EXPLORE, query)


def _slider(at: AppTest, label: str):
    return next(s for s in at.slider if s.label == label)


def _n_train(at: AppTest) -> int:
    body = "".join(h.proto.body for h in at.get("html"))
    found = re.search(r'data-svmlab-number="support vectors"[^>]*>\d+ / (\d+)<', body)
    assert found, "no support-vector count on the page"
    return int(found.group(1))


def test_room_mode_caps_a_link_that_asks_for_the_slowest_settings(monkeypatch):
    monkeypatch.setenv(room.ENV_ROOM, "1")
    at = _open(SLOW_LINK)
    assert not at.exception
    assert not [e.value for e in at.error]
    n = _slider(at, "Number of points")
    assert n.value == room.ROOM.n_max and n.max == room.ROOM.n_max
    settings = at.session_state["explore_settings"]
    assert settings.max_iter == room.ROOM.max_iter
    # The fit saw the capped data: 80 % of n for training.
    assert _n_train(at) == round(0.8 * room.ROOM.n_max)
    items = dict(model_items(settings))
    assert items["max_seconds"] == room.ROOM.fit_seconds
    assert items["max_iter"] == room.ROOM.max_iter
    # The page says why it shows less than the link asked for.
    said = " ".join(str(m.value) for m in [*at.info, *at.warning, *at.caption])
    assert "room mode" in said


def test_without_room_mode_the_link_gets_what_it_asks(monkeypatch):
    monkeypatch.setenv(room.ENV_ROOM, "0")
    settings = ExploreSettings.from_query(SLOW_LINK)
    assert settings.n == 2000 and settings.max_iter == 1_000_000
    assert dict(model_items(settings))["max_seconds"] == room.FIT_SECONDS


@pytest.mark.parametrize(
    ("value", "on"),
    [("1", True), ("true", True), ("On", True), ("0", False), ("no", False)],
)
def test_the_switch(monkeypatch, value, on):
    monkeypatch.setenv(room.ENV_ROOM, value)
    assert (room.limits() is not None) is on


def test_settings_presets_and_room_caps_import_without_streamlit():
    """The settings, the page states and the preset table are plain data (a
    notebook or a benchmark reads them); reading room mode's caps must not pull
    Streamlit in."""
    code = (
        "import sys; import svmlab.ui.explore.settings, svmlab.ui.frame.page_state, "
        "svmlab.ui.frame.presets, svmlab.ui.frame.room; "
        "print('streamlit' in sys.modules)"
    )
    assert python_output(code).strip() == "False"


def test_the_default_iteration_cap_is_lowered_without_a_word(monkeypatch):
    """Room mode lowers max_iter's default quietly (nobody asked for 100,000);
    a link that asks for more than the cap is told."""
    monkeypatch.setenv(room.ENV_ROOM, "1")
    notes: list[str] = []
    settings = ExploreSettings.from_query({"data": "two_circles"}, notes)
    assert settings.max_iter == room.ROOM.max_iter and notes == []
    ExploreSettings.from_query({"data": "two_circles", "max_iter": "50000"}, notes)
    assert len(notes) == 1 and "max_iter" in notes[0]
