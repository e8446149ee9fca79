"""Keyboard control of the lecture on Explore, and its "Keys" help.

Every key is a Streamlit button's ``shortcut`` (``st.button(shortcut=...)``,
no JavaScript of ours): undo and redo beside C and σ
(:mod:`svmlab.ui.explore.undo_bar`), step and play on the playback panel
(:func:`svmlab.ui.explore.panels.playback`), and here, in a row the page keeps out
of sight (:data:`STYLE`: Streamlit registers a button's shortcut whether or not
the button is shown), C and σ one stop along their slider grids, the previous
and next teaching preset (PageUp and PageDown: what a presentation clicker
sends) and classroom mode. The shortcut badges Streamlit draws in a button are
hidden too: the page lists every key once, in the "Keys" popover (:func:`help`).

Streamlit reserves C and R, and takes no punctuation keys; a shortcut does not
fire while the focus is in a text or number box.
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from svmlab.ui.explore import controls, fields
from svmlab.ui.frame import keys as shared
from svmlab.ui.frame.link_values import C_GRID, SIGMA_GRID
from svmlab.ui.frame.presets import EXPLORE, PRESETS, by_topic

__all__ = [
    "HIDDEN_KEY",
    "KEYMAP",
    "STYLE",
    "explore_presets",
    "help",
    "hidden_buttons",
    "step_grid",
]

#: What each key does, in the order the help lists them: (keys, action).
KEYMAP: tuple[tuple[str, str], ...] = (
    ("Ctrl+Z / Ctrl+Shift+Z", "undo / redo (⌘ on a Mac)"),
    ("Q / W", "C (or ν under ν-SVC) one stop down / up"),
    ("A / S", "σ one stop down / up (Gaussian kernel)"),
    ("PageUp / PageDown", "previous / next teaching preset (a clicker's keys)"),
    ("M", "classroom mode on / off"),
    ("K", "play / pause the iteration playback"),
    ("J / L", "playback one step back / forward"),
)

#: The container of the buttons that only carry a shortcut, and the playback
#: panel's play/pause key (:mod:`svmlab.ui.explore.panels`).
HIDDEN_KEY = "explore_keys"
PLAY_KEY = "explore_play_key"

#: Keeps the shortcut-only buttons out of sight and the shortcut badges out of
#: the visible buttons (the keys are listed in the help); and two spacings of
#: the rows above the chart, so that the chart keeps its height at 720 lines.
STYLE = (
    shared.style(HIDDEN_KEY, PLAY_KEY)
    + '[class*="st-key-explore_"] button kbd{display:none}'
    ".st-key-explore_undo_said{margin-top:-0.9rem}"
    # The chart's click listener draws nothing (its script listens on the
    # document): out of the flow, it adds no gap above the C and σ row.
    ".st-key-click_listener_explore_chart{display:none}"
    ".st-key-explore_undo_said p{line-height:1.25}"
)

#: Button key -> (label, shortcut) of the shortcut-only buttons.
_BUTTONS = {
    "explore_key_c_down": ("C down", "Q"),
    "explore_key_c_up": ("C up", "W"),
    "explore_key_sigma_down": ("σ down", "A"),
    "explore_key_sigma_up": ("σ up", "S"),
    "explore_key_preset_back": ("previous preset", "PageUp"),
    "explore_key_preset_next": ("next preset", "PageDown"),
    "explore_key_classroom": ("classroom mode", "M"),
}


step_grid = shared.step_grid


def explore_presets() -> list[str]:
    """Explore's teaching presets in the lecture hub's order."""
    return [p.name for ps in by_topic().values() for p in ps if p.page == EXPLORE]


def _step(field: str, direction: int) -> None:
    state = st.session_state
    key = controls.KEYS[field]
    if field == "sigma" and state.get(controls.KEYS["kernel"]) != "gaussian":
        return
    if field == "C" and state.get(controls.KEYS["machine"]) == "nu":
        # Under ν-SVC the keys move ν, by the slider's step of 0.01.
        nu = float(state[controls.KEYS["nu"]]) + 0.01 * direction
        # The field's own range and steps (a key's step is never said).
        state[controls.KEYS["nu"]] = fields.field("nu").clamp(nu, [])
        return
    if field == "C" and state.get(controls.KEYS["hard_margin"]):
        return
    grid = C_GRID if field == "C" else SIGMA_GRID
    state[key] = step_grid(grid, float(state[key]), direction)


def _preset(direction: int) -> None:
    state = st.session_state
    names = explore_presets()
    current = state[controls.SETTINGS_KEY].preset
    if current in names:
        name = names[(names.index(current) + direction) % len(names)]
    else:
        name = names[0] if direction > 0 else names[-1]
    classroom = bool(state.get(controls.KEYS["classroom"]))
    controls.apply_settings(replace(PRESETS[name].url_settings, classroom=classroom))


def _classroom() -> None:
    key = controls.KEYS["classroom"]
    st.session_state[key] = not st.session_state.get(key, False)


_ACTIONS = {
    "explore_key_c_down": (_step, ("C", -1)),
    "explore_key_c_up": (_step, ("C", 1)),
    "explore_key_sigma_down": (_step, ("sigma", -1)),
    "explore_key_sigma_up": (_step, ("sigma", 1)),
    "explore_key_preset_back": (_preset, (-1,)),
    "explore_key_preset_next": (_preset, (1,)),
    "explore_key_classroom": (_classroom, ()),
}


def hidden_buttons() -> None:
    """The shortcut-only buttons (outside the page's fragment: a key reruns the
    whole page, whose sidebar may change), and the page's key style."""
    table = [
        shared.Key(key, label, shortcut, *_ACTIONS[key])
        for key, (label, shortcut) in _BUTTONS.items()
    ]
    shared.hidden_buttons(HIDDEN_KEY, table, STYLE)


def help(where=st) -> None:
    """The "Keys" popover: every key of the page and what it does."""
    shared.help(
        KEYMAP,
        where,
        "Not while typing in a box. J, K and L work with "
        "'Record iterations (playback)' on.",
    )
