"""The browser soak's plan and error judge, without a browser (issue 14 items 1, 12).

The plan must be a pure function of the seed, so that a failing soak replays;
the judge must accept an error box only after a move that can provoke it.
"""

from __future__ import annotations

import json

import pytest

from tests.browser.soak_plan import (
    MOVE_KINDS,
    SEED,
    WEIGHTS,
    ErrorJudge,
    allowed_messages,
    csv_phrases,
    pick,
    plan_as_json,
    plan_move,
    plan_moves,
)

ERR = "stAlertContentError (st.error):\n"


def test_two_plannings_are_equal():
    first = plan_as_json(plan_moves(SEED, 300))
    second = plan_as_json(plan_moves(SEED, 300))
    assert first == second
    # The record survives JSON (the artifact) unchanged.
    assert json.loads(json.dumps(first)) == first


def test_move_i_does_not_depend_on_the_run_length_or_earlier_moves():
    full = plan_moves(SEED, 300)
    assert plan_moves(SEED, 20) == full[:20]
    # Planned alone, out of order: the same move (no shared draw counter).
    for i in (299, 137, 0, 42):
        assert plan_move(SEED, i) == full[i]
    assert [m.index for m in full] == list(range(300))


def test_another_seed_gives_another_plan():
    assert plan_moves(SEED, 50) != plan_moves(SEED + 1, 50)


def test_the_plan_uses_every_kind_and_switches_page_now_and_then():
    plan = plan_moves(SEED, 300)
    kinds = {m.kind for m in plan}
    assert kinds == set(WEIGHTS)
    switches = sum(m.navigate is not None for m in plan)
    assert 2 <= switches <= 40  # 5 % of 300 is 15
    for m in plan:
        for fraction in (m.widget, m.option) + ((m.navigate,) if m.navigate else ()):
            assert 0.0 <= fraction < 1.0


def test_pick_covers_the_list_and_handles_empty():
    items = ["a", "b", "c"]
    assert [pick(f, items) for f in (0.0, 0.34, 0.67, 0.9999)] == ["a", "b", "c", "c"]
    assert pick(0.5, []) is None


# --- The judge ---------------------------------------------------------------------


def _judge() -> ErrorJudge:
    judge = ErrorJudge(allowed_messages())
    judge.judge("open", [])
    return judge


def test_every_allowed_message_names_real_move_kinds():
    allowed = allowed_messages()
    for phrase in csv_phrases():
        assert phrase in allowed
    for phrase, kinds in allowed.items():
        assert kinds, phrase
        assert kinds <= MOVE_KINDS, phrase


def test_a_typed_zero_may_show_its_message():
    judge = _judge()
    [record] = judge.judge("number", [ERR + "C must be a positive number; got 0."])
    assert record["expected"]


def test_an_error_after_an_unrelated_move_is_unexpected():
    # The known bug: clicking "Upload CSV" mounted the tol widget at its built-in
    # default and showed a tol error. A radio move cannot provoke that message.
    judge = _judge()
    text = ERR + "tol must be a positive number; got 0."
    [record] = judge.judge("radio", [text])
    assert not record["expected"]
    # Nor can a slider, a checkbox or a page switch.
    for action in ("slider", "checkbox", "navigate", "button"):
        [record] = _judge().judge(action, [text])
        assert not record["expected"], action


def test_a_box_may_stay_after_later_moves_but_not_appear_after_them():
    judge = _judge()
    text = ERR + "C must be a positive number; got 0."
    assert judge.judge("number", [text])[0]["expected"]
    assert judge.judge("slider", [text])[0]["expected"]  # still there
    assert judge.judge("slider", []) == []  # cleared
    # Back again after a slider move: not provoked by it.
    assert not judge.judge("slider", [text])[0]["expected"]


def test_a_malformed_upload_shows_its_message_and_a_slider_does_not():
    phrase = csv_phrases()[0]
    judge = _judge()
    assert judge.judge("upload", [ERR + phrase])[0]["expected"]
    assert not _judge().judge("slider", [ERR + phrase])[0]["expected"]


def test_a_revisited_page_may_show_again_what_was_accepted_in_the_session():
    judge = _judge()
    text = ERR + "The hard-margin SVM has no solution: the two classes overlap."
    assert judge.judge("checkbox", [text])[0]["expected"]
    judge.judge("navigate", [])  # another page
    assert judge.judge("navigate", [text])[0]["expected"]  # back
    other = ERR + "sigma must be a positive number; got 0."
    assert not judge.judge("navigate", [other])[0]["expected"]


def test_a_fresh_session_starts_with_nothing_accepted():
    judge = _judge()
    text = ERR + "C must be a positive number; got 0."
    assert judge.judge("number", [text])[0]["expected"]
    assert not judge.judge("open", [text])[0]["expected"]


@pytest.mark.parametrize("action", [*sorted(MOVE_KINDS), "navigate", "open"])
def test_an_exception_box_is_never_expected(action):
    judge = _judge()
    text = "stException:\nValueError: C must be a positive number"
    assert not judge.judge(action, [text])[0]["expected"]
