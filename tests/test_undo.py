"""Undo and redo on Explore (issue 33): the history on its own, then sequences of
changes under AppTest (settings, points deleted and moved, a data set switch)
undone and redone against the states they must restore."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from streamlit.testing.v1 import AppTest

from svmlab.ui.explore.settings import ExploreSettings
from svmlab.ui.explore.undo import Snapshot, describe
from svmlab.ui.frame.undo import LIMIT, History
from tests.pages import EXPLORE, open_page, problems

# -- the history on its own ---------------------------------------------------------


def _snap(**changes) -> Snapshot:
    return Snapshot.of(replace(ExploreSettings(n=40), **changes))


def test_steps_are_named_by_what_changed() -> None:
    a = _snap()
    assert describe(a, _snap(C=100.0)) == "C 10 → 100"
    assert describe(a, _snap(sigma=0.5)) == "σ 3.3 → 0.5"
    assert describe(a, _snap(hard_margin=True)) == "hard margin off → on"
    moons = Snapshot.of(ExploreSettings(n=40).with_dataset("moons", keep=True))
    assert describe(a, moons) == "data set spiral → moons"
    assert describe(a, _snap(C=1.0, sigma=1.0, seed=3)) == "seed 0 → 3; σ 3.3 → 1; …"
    added = Snapshot(a.settings, (((0.1, 0.2, 1.0),), (), ()))
    assert describe(a, added) == "point added"
    removed = Snapshot(a.settings, ((), (3, 5), ()))
    assert describe(a, removed) == "2 points removed"
    moved = Snapshot(a.settings, ((), (), ((4, 0.0, 0.0),)))
    assert describe(a, moved) == "point moved"
    # An upload by its file's name, never by its key (a hash of the values).
    up = _snap(upload="3fa2b1c9d0e1", C=3.0)
    names = {"3fa2b1c9d0e1": "marks.csv"}.get
    assert describe(a, up, file_name=names) == "data spiral → 'marks.csv'"
    assert describe(up, a) == "data an uploaded file → spiral"
    # Classroom mode is not a step.
    assert Snapshot.of(replace(a.settings, classroom=True)) == a


def test_undo_redo_and_a_new_step_after_an_undo() -> None:
    h = History(describe)
    states = [_snap(C=c) for c in (1.0, 10.0, 100.0)]
    for s in states:
        assert h.record(s)
    assert not h.record(states[-1])  # nothing changed: no step
    assert h.undo_name() == "C 10 → 100" and h.redo_name() is None
    assert h.undo() == states[1] and h.undo() == states[0]
    assert h.undo() is None and h.current == states[0]
    assert h.redo() == states[1] and h.redo_name() == "C 10 → 100"
    # A new change after an undo drops what could have been redone.
    h.record(_snap(C=5.0))
    assert not h.can_redo and h.undo() == states[1]


def test_the_history_is_bounded() -> None:
    h = History(describe)
    for i in range(LIMIT + 30):
        h.record(_snap(seed=i))
    assert len(h.entries) == LIMIT
    while h.undo() is not None:
        pass
    assert h.current == _snap(seed=30)  # the oldest kept


# -- the page -------------------------------------------------------------------------


def _state(at: AppTest) -> tuple[ExploreSettings, tuple]:
    s = at.session_state["explore_settings"]
    e = at.session_state["explore_edits"]
    return replace(s, classroom=False), (e["added"], e["removed"], e["moved"])


def _press(at: AppTest, which: str) -> AppTest:
    at.button(key=f"explore_{which}").click().run()
    assert not problems(at)
    return at


def _training(at: AppTest) -> np.ndarray:
    """The training points the page fitted (the last good fit)."""
    from svmlab.ui.explore import cache

    return at.session_state[cache.LAST_GOOD_KEY][-1].X


def test_undo_and_redo_restore_settings_points_and_the_data_set() -> None:
    at = open_page(EXPLORE, {"n": "40"}, default_timeout=60)
    assert at.button(key="explore_undo").disabled  # nothing yet
    states = [_state(at)]
    at.select_slider(key="explore_C_slider").set_value(100.0).run()
    states.append(_state(at))
    # Delete point 3 and move point 5 with the inspector.
    at.radio(key="explore_tool").set_value("inspect").run()
    at.number_input(key="explore_inspect_point").set_value(3).run()
    at.button(key="explore_inspect_delete").click().run()
    states.append(_state(at))
    assert states[-1][1][1] == (3,)
    at.number_input(key="explore_inspect_point").set_value(5).run()
    at.slider(key="explore_inspect_x1").set_value(0.5).run()
    states.append(_state(at))
    moved_X = _training(at).copy()
    at.select_slider(key="explore_sigma_slider").set_value(1.5).run()
    states.append(_state(at))
    at.selectbox(key="explore_dataset").set_value("moons").run()
    states.append(_state(at))
    assert states[-1][0].dataset == "moons" and states[-1][1] == ((), (), ())
    assert len(set(states)) == 6 and len({s for s, _ in states}) == 4
    assert not problems(at)
    assert any(c.value.startswith("undo: data set spiral → moons") for c in at.caption)

    # Undo every step: each restores the state before it, points included.
    for expected in reversed(states[:-1]):
        _press(at, "undo")
        assert _state(at) == expected
        assert at.session_state["explore_C"] == expected[0].C
        assert at.selectbox(key="explore_dataset").value == expected[0].dataset
        # The link carries the state shown, not the history.
        link = {
            k: v[0] if isinstance(v, list) else v for k, v in at.query_params.items()
        }
        assert link == expected[0].to_query()
    assert at.button(key="explore_undo").disabled
    assert at.session_state["explore_C"] == 10.0
    # Redo them all, back to moons; the moved point is where it was moved to.
    for i, expected in enumerate(states[1:], start=1):
        _press(at, "redo")
        assert _state(at) == expected
        if i == 3:
            np.testing.assert_array_equal(_training(at), moved_X)
    assert at.button(key="explore_redo").disabled
    assert at.selectbox(key="explore_dataset").value == "moons"
