"""Keyboard control of the lecture on Explore (issue 33): each key's button under
AppTest (a shortcut is a button's; Chromium presses the keys in
tests/browser/test_lecturer_hands_browser.py), and the "Keys" help against the
shortcuts the page registers."""

from __future__ import annotations

from svmlab.ui.explore import keys, undo_bar
from svmlab.ui.frame.link_values import C_GRID, SIGMA_GRID
from tests.pages import EXPLORE, open_page, problems


def test_a_grid_step_goes_to_the_next_stop_either_way() -> None:
    i = C_GRID.index(10.0)
    assert keys.step_grid(C_GRID, 10.0, 1) == C_GRID[i + 1]
    assert keys.step_grid(C_GRID, 10.0, -1) == C_GRID[i - 1]
    # A typed value off the grid goes to its neighbours on the grid.
    assert keys.step_grid(C_GRID, 11.0, -1) == 10.0
    assert keys.step_grid(C_GRID, 11.0, 1) == C_GRID[i + 1]
    # The ends stay.
    assert keys.step_grid(SIGMA_GRID, SIGMA_GRID[-1], 1) == SIGMA_GRID[-1]
    assert keys.step_grid(SIGMA_GRID, SIGMA_GRID[0], -1) == SIGMA_GRID[0]


def test_the_help_lists_every_shortcut_the_page_registers() -> None:
    listed = " / ".join(k for k, _ in keys.KEYMAP).replace(" / ", " ").split()
    registered = [s for _, s in keys._BUTTONS.values()]
    registered += [*undo_bar.SHORTCUTS.values(), "J", "K", "L"]
    assert sorted(set(registered)) == sorted(set(listed))


def _press(at, key: str):
    at.button(key=key).click().run()
    assert not problems(at)
    return at.session_state["explore_settings"]


def test_keys_step_c_and_sigma_presets_and_classroom() -> None:
    at = open_page(EXPLORE, {"n": "40"})
    s = at.session_state["explore_settings"]
    c, sigma = s.C, s.sigma
    # The expected stops are read off the grids by index (issue 44, item 12:
    # they were step_grid's own answers): the defaults are stops of the grids.
    i, j = C_GRID.index(c), SIGMA_GRID.index(sigma)
    assert sorted(C_GRID) == list(C_GRID) and sorted(SIGMA_GRID) == list(SIGMA_GRID)
    s = _press(at, "explore_key_c_up")
    assert s.C == C_GRID[i + 1] > c
    assert at.select_slider(key="explore_C_slider").value == s.C
    s = _press(at, "explore_key_c_down")
    s = _press(at, "explore_key_c_down")
    assert s.C == C_GRID[i - 1] < c
    s = _press(at, "explore_key_sigma_down")
    assert s.sigma == SIGMA_GRID[j - 1] < sigma
    s = _press(at, "explore_key_sigma_up")
    assert s.sigma == sigma
    # Each key press is one undo step, named.
    assert any(c.value.startswith("undo: σ") for c in at.caption)

    names = keys.explore_presets()
    s = _press(at, "explore_key_preset_next")
    assert s.preset == names[0]
    s = _press(at, "explore_key_preset_next")
    assert s.preset == names[1]
    assert s.dataset == keys.PRESETS[names[1]].settings.dataset
    s = _press(at, "explore_key_preset_back")
    s = _press(at, "explore_key_preset_back")
    assert s.preset == names[-1]  # wraps round

    s = _press(at, "explore_key_classroom")
    assert s.classroom and at.toggle(key="explore_classroom").value
    s = _press(at, "explore_key_classroom")
    assert not s.classroom


def test_keys_step_and_play_the_playback() -> None:
    at = open_page(EXPLORE, {"n": "40", "loss": "squared_hinge", "playback": "1"})
    assert not problems(at)
    last = at.slider(key="explore_step").value
    assert last >= 2
    at.button(key="explore_step_back").click().run()  # J
    assert at.slider(key="explore_step").value == last - 1
    at.button(key="explore_step_next").click().run()  # L
    assert at.slider(key="explore_step").value == last
    at.button(key="explore_play_key").click().run()  # K
    assert at.session_state["explore_playing"] is True
    at.button(key="explore_play_key").click().run()
    assert at.session_state["explore_playing"] is False
    assert not problems(at)
