"""Undo and redo on the pages with a PageState (issue 33): sequences of changes on
Losses and Regression (settings, keys, a data set switch, points clicked in and
removed) undone and redone against the states they must restore, read back from
the widgets as drawn, the clicked points and the link."""

from __future__ import annotations

from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from svmlab.ui.frame.model_fields import PAGE_C_GRID
from svmlab.ui.frame.page_state import (
    FAMILY_STATE,
    LOSSES_STATE,
    MULTICLASS_STATE,
    REGRESSION_STATE,
    SELECTION_STATE,
    SOLVERS_STATE,
    PageState,
)
from svmlab.ui.frame.undo import LIMIT
from tests.pages import PAGES, ROOT, open_page, problems

_KINDS = (
    "select_slider",
    "selectbox",
    "radio",
    "number_input",
    "slider",
    "checkbox",
    "toggle",
    "multiselect",
)


def _widget(at: AppTest, key: str) -> Any:
    for kind in _KINDS:
        try:
            return getattr(at, kind)(key=key)
        except KeyError:
            continue
    return None


def _shown(at: AppTest, state: PageState) -> dict[str, Any]:
    """Every state widget the page draws now -> the value it shows (classroom
    mode left out), and the clicked points the page holds."""
    out: dict[str, Any] = {}
    dataset = at.session_state[state.dataset_key]
    for key in state.keys({state.dataset_key: dataset}):
        widget = _widget(at, key)
        if widget is not None and key != state.classroom_key:
            value = widget.value
            out[key] = tuple(value) if isinstance(value, list) else value
    if state.points:
        held = (
            at.session_state[state.points] if state.points in at.session_state else None
        )
        out["points"] = None if held is None else tuple(held[1])
    return out


def _link(at: AppTest) -> dict[str, str]:
    return {k: v[0] if isinstance(v, list) else v for k, v in at.query_params.items()}


def _expected_link(state: PageState, shown: dict[str, Any]) -> dict[str, str]:
    return state.query({k: v for k, v in shown.items() if k != "points"})


def _press(at: AppTest, key: str) -> AppTest:
    at.button(key=key).click().run()
    assert not problems(at)
    return at


def _said(at: AppTest) -> list[str]:
    return [c.value for c in at.sidebar.caption]


def _undo_all_and_redo_all(at: AppTest, state: PageState, states: list[dict]) -> None:
    prefix = state.prefix
    for expected in reversed(states[:-1]):
        _press(at, f"{prefix}_undo")
        assert _shown(at, state) == expected
        # The link carries the state shown, never the history.
        assert _link(at) == _expected_link(state, expected)
    assert at.button(key=f"{prefix}_undo").disabled
    for expected in states[1:]:
        _press(at, f"{prefix}_redo")
        assert _shown(at, state) == expected
        assert _link(at) == _expected_link(state, expected)
    assert at.button(key=f"{prefix}_redo").disabled


def test_losses_settings_keys_and_a_data_set_switch_undone_and_redone() -> None:
    at = open_page(PAGES / "4_Losses.py", {"n": "60"}, default_timeout=120)
    assert not problems(at) and at.button(key="losses_undo").disabled
    states = [_shown(at, LOSSES_STATE)]
    _widget(at, "losses_C").set_value(100.0).run()
    states.append(_shown(at, LOSSES_STATE))
    assert states[-1]["losses_C"] == 100.0
    assert "undo: C 1 → 100" in _said(at)
    _widget(at, "losses_kernel").set_value("gaussian").run()
    states.append(_shown(at, LOSSES_STATE))
    _press(at, "losses_key_sigma_down")  # A
    states.append(_shown(at, LOSSES_STATE))
    assert states[-1]["losses_sigma"] < states[-2]["losses_sigma"]
    assert any(s.startswith("undo: σ 1 → ") for s in _said(at))
    _widget(at, "losses_count").set_value(12).run()
    states.append(_shown(at, LOSSES_STATE))
    _widget(at, "losses_dataset").set_value("moons").run()
    states.append(_shown(at, LOSSES_STATE))
    assert "undo: data set outlier_blobs → moons" in _said(at)
    assert not problems(at)
    assert len({tuple(sorted(s.items())) for s in states}) == len(states)
    _undo_all_and_redo_all(at, LOSSES_STATE, states)
    # A new step after an undo drops what could have been redone.
    _press(at, "losses_undo")
    _widget(at, "losses_C").set_value(PAGE_C_GRID[0]).run()
    assert at.button(key="losses_redo").disabled
    _press(at, "losses_undo")
    assert _shown(at, LOSSES_STATE) == states[-2]


def test_regression_points_and_settings_undone_and_redone() -> None:
    pending = "regression_chart_pending_click"
    at = open_page(PAGES / "7_Regression.py", {"n": "60"}, default_timeout=120)
    states = [_shown(at, REGRESSION_STATE)]
    assert states[0]["points"] is None
    at.session_state[pending] = (0.5, 2.0)
    at.run()
    states.append(_shown(at, REGRESSION_STATE))
    assert states[-1]["points"] == ((0.5, 2.0),)
    assert "undo: point added" in _said(at)
    _press(at, "regression_key_C_up")  # W
    states.append(_shown(at, REGRESSION_STATE))
    assert states[-1]["regression_C"] == PAGE_C_GRID[PAGE_C_GRID.index(10.0) + 1]
    at.session_state[pending] = (-1.0, -1.5)
    at.run()
    states.append(_shown(at, REGRESSION_STATE))
    _widget(at, "regression_epsilon").set_value(0.47).run()
    assert "undo: ε 0.1 → 0.47" in _said(at)
    states.append(_shown(at, REGRESSION_STATE))
    next(b for b in at.button if b.label.startswith("Remove clicked")).click().run()
    states.append(_shown(at, REGRESSION_STATE))
    assert states[-1]["points"] is None
    assert "undo: 2 points removed" in _said(at)
    assert not problems(at)
    _undo_all_and_redo_all(at, REGRESSION_STATE, states)
    # The fit follows the restored points: 60 points and the two clicked in.
    _press(at, "regression_undo")
    text = next(m.value for m in at.markdown if "support vectors:" in m.value)
    assert "/ 62" in text


@pytest.mark.parametrize("n", [LIMIT + 5])
def test_a_page_history_keeps_at_most_the_limit(n: int) -> None:
    from svmlab.ui.frame.page_hands import PageSnapshot, describe
    from svmlab.ui.frame.undo import History

    h = History(lambda a, b: describe(LOSSES_STATE, a, b))
    for i in range(n):
        h.record(PageSnapshot((("losses_seed", i),)))
    assert len(h.entries) == LIMIT
    assert h.undo_name() == f"seed {n - 2} → {n - 1}"


@pytest.mark.parametrize(
    ("state", "key", "value"),
    [
        (SOLVERS_STATE, "solvers_tol", 1e-5),
        (SELECTION_STATE, "selection_n_C", 5),
        (MULTICLASS_STATE, "multiclass_loss", "squared_hinge"),
        (FAMILY_STATE, "family_threshold", 0.5),
    ],
    ids=lambda v: getattr(v, "prefix", None),
)
def test_every_page_undoes_and_redoes_a_setting(
    state: PageState, key: str, value: Any
) -> None:
    at = open_page(ROOT / state.page, {"n": "40"}, default_timeout=120)
    before = _shown(at, state)
    _widget(at, key).set_value(value).run()
    after = _shown(at, state)
    assert after[key] == value and after != before
    _press(at, f"{state.prefix}_undo")
    assert _shown(at, state) == before
    assert _link(at) == _expected_link(state, before)
    _press(at, f"{state.prefix}_redo")
    assert _shown(at, state) == after
    assert _link(at) == _expected_link(state, after)


def test_family_points_keep_their_class_through_undo() -> None:
    pending = "family_chart_pending_click"
    at = open_page(ROOT / FAMILY_STATE.page, {"n": "40"}, default_timeout=120)
    at.session_state[pending] = (1.0, 1.0)
    at.run()
    at.radio(key="family_click_label").set_value(-1.0).run()
    at.session_state[pending] = (-1.0, 0.5)
    at.run()
    both = _shown(at, FAMILY_STATE)["points"]
    assert both == ((1.0, 1.0, 1.0), (-1.0, 0.5, -1.0))
    assert "undo: point added" in _said(at)
    _press(at, "family_undo")
    assert _shown(at, FAMILY_STATE)["points"] == ((1.0, 1.0, 1.0),)
    _press(at, "family_redo")
    assert _shown(at, FAMILY_STATE)["points"] == both
