"""Undo and redo on the Explore page: the history in the session, the buttons.

Every run of the page's fragment records what the page shows
(:func:`record`, after the settings and the edits are known); the undo and
redo buttons (keys Ctrl+Z and Ctrl+Shift+Z, ⌘ on a Mac) restore a snapshot
of :class:`svmlab.ui.frame.undo.History`: every widget
(``controls.apply_settings``, which also writes the link) and the edited
points (``edit.restore_edits``), across a data set switch too. The buttons sit
in the fragment, beside C and σ, so that their step names follow a slider
move; a restore reruns the whole page once (the sidebar's widgets change).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any

import streamlit as st

from svmlab.ui.explore import controls, edit, upload
from svmlab.ui.explore.settings import ExploreSettings
from svmlab.ui.explore.undo import Edits, Snapshot, describe
from svmlab.ui.frame import undo
from svmlab.user_text import for_markdown

__all__ = ["HISTORY_KEY", "KEYS", "buttons", "history", "record", "rerun_if_restored"]

HISTORY_KEY = "explore_history"
#: Set by a restore made in a fragment run: the whole page must follow.
_FULL_KEY = "explore_undo_full"
#: The buttons' widget keys and keyboard shortcuts.
KEYS = {"undo": "explore_undo", "redo": "explore_redo"}
SHORTCUTS = undo.SHORTCUTS


def history() -> undo.History:
    """This session's history (created empty)."""
    return undo.history(HISTORY_KEY, partial(describe, file_name=_file_name))


def _file_name(key: str) -> str | None:
    """The held upload's file name, escaped: visitor text in a step's name,
    which the buttons' tooltip and the caption show as markdown."""
    held = upload.held(key)
    return None if held is None else for_markdown(held.name)


def record(settings: ExploreSettings, edits: Edits) -> bool:
    """Record what the page shows in this run; True if it is a new step."""
    return history().record(Snapshot.of(settings, edits))


def restore(snapshot: Snapshot) -> None:
    """Make the page show ``snapshot`` on the next run (from a callback): its
    settings in every widget and the link (classroom mode stays as it is), its
    edited points."""
    state = st.session_state
    classroom = bool(state.get(controls.KEYS["classroom"]))
    settings = replace(snapshot.settings, classroom=classroom)
    controls.apply_settings(settings)
    if not settings.compare and state.get(controls.TOOL_KEY) == "compare":
        state[controls.TOOL_KEY] = "none"  # else the open tool would set a B
    edit.restore_edits(edit.identity_of(settings), snapshot.edits)
    state[_FULL_KEY] = True


def rerun_if_restored() -> None:
    """First line of the page's fragment: after a restore made in a fragment
    run, rerun the whole page (the sidebar shows the restored settings)."""
    if not st.session_state.pop(_FULL_KEY, False):
        return
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is not None and ctx.fragment_ids_this_run:
        st.rerun(scope="app")


def buttons() -> Any:
    """The undo and redo buttons, side by side, and the step each would take;
    returns the row's last slot (the page puts its "Slides" popover there once
    the figure is drawn)."""
    left, right, slot = st.columns([1, 1, 1.9], gap="small")
    said = undo.buttons(history(), KEYS, restore, (left, right))
    # Pulled up to the buttons (keys.STYLE): the row is then no taller than the
    # C and σ sliders beside it, and the chart keeps its height at 720 lines.
    with st.container(key="explore_undo_said"):
        st.caption(" · ".join(said) if said else "Nothing to undo yet.")
    return slot
