"""Moving a point by dragging it on Explore's plane (issue 33): the drop the chart
sends (``{"index", "x", "y", "from"}``, held in the session as the page holds
it) moves the point in place; it keeps its index and the fit is a fit on the
moved data. Chromium drags a point for real in
tests/browser/test_lecturer_hands_browser.py."""

from __future__ import annotations

import json

import numpy as np

from svmlab import SVC
from svmlab.ui.explore import cache, edit
from svmlab.ui.frame.chart import COMPONENT
from tests.pages import EXPLORE, open_page, problems


def _shown(at):
    return at.session_state[cache.LAST_GOOD_KEY]


def _drop(at, index: int, to: tuple[float, float], start) -> None:
    at.session_state[edit.MOVE_KEY] = {
        "index": index,
        "x": to[0],
        "y": to[1],
        "from": [float(v) for v in start],
    }
    at.run()
    assert not problems(at)


def _reference(settings, X, y) -> SVC:
    params = dict(cache.model_items(settings))
    params.pop("max_seconds")
    return SVC(**params).fit(X, y)


def test_a_dropped_point_keeps_its_index_and_the_fit_is_on_the_moved_data() -> None:
    # A tight tol: the optimum's f is unique, so two fits agree to far below
    # what the move changes.
    at = open_page(EXPLORE, {"n": "40", "tol": "1e-9"})
    settings, _, data, _, before = _shown(at)
    i, to = 5, (before.X[5, 0] + 2.5, before.X[5, 1] - 1.5)
    _drop(at, i, to, before.X[i])
    _, _, _, edits, after = _shown(at)
    assert after.X.shape == before.X.shape
    np.testing.assert_array_equal(after.X[i], to)
    others = np.arange(len(before.y)) != i
    np.testing.assert_array_equal(after.X[others], before.X[others])
    np.testing.assert_array_equal(after.y, before.y)
    assert edits[2] == ((i, *to),)  # a generated point moved in place
    X = before.X.copy()
    X[i] = to
    reference = _reference(settings, X, before.y)
    grid = np.vstack([data.X_test, X])
    f = after.model.decision_function(grid)
    np.testing.assert_allclose(f, reference.decision_function(grid), atol=1e-5)
    unmoved = _reference(settings, before.X, before.y).decision_function(grid)
    assert np.abs(f - unmoved).max() > 1e-2  # the check can tell the two apart
    assert any(c.value.startswith("undo: point moved") for c in at.caption)
    # Undo puts it back.
    at.button(key="explore_undo").click().run()
    np.testing.assert_array_equal(_shown(at)[-1].X, before.X)


def test_a_stale_or_outside_drop_is_handled() -> None:
    at = open_page(EXPLORE, {"n": "40"})
    _, _, data, _, before = _shown(at)
    # The point is no longer where the chart showed it: nothing moves.
    _drop(at, 3, (0.0, 0.0), before.X[3] + 1.0)
    np.testing.assert_array_equal(_shown(at)[-1].X, before.X)
    # A drop beyond the plane stays on its edge.
    _, xmax, ymin, _ = data.bounds
    _drop(at, 3, (xmax + 50.0, ymin - 50.0), before.X[3])
    np.testing.assert_array_equal(_shown(at)[-1].X[3], (xmax, ymin))


def _main_chart(at) -> dict:
    return next(
        json.loads(e.proto.bytes)
        for e in at.get("bidi_component")
        if e.proto.component_name == COMPONENT
    )


def test_the_move_mode_sends_the_points_and_turns_plotly_drags_off() -> None:
    at = open_page(EXPLORE, {"n": "40"})
    at.radio(key="explore_drag").set_value("move").run()
    assert not problems(at)
    main = _main_chart(at)
    record = _shown(at)[-1]
    np.testing.assert_array_equal(np.asarray(main["move"]), record.X)
    assert main["layout"]["dragmode"] is False
    at.radio(key="explore_drag").set_value("select").run()
    main = _main_chart(at)
    assert main["move"] is None and main["layout"]["dragmode"] == "select"
