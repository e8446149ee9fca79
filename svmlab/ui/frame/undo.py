"""Undo and redo on every page: a bounded history of snapshots, and its buttons.

A page's snapshot is whatever says what it shows (Explore's settings and edited
points, :mod:`svmlab.ui.explore.undo`; a :class:`~svmlab.ui.frame.page_state.PageState`
page's declared fields and clicked points, :mod:`svmlab.ui.frame.page_hands`). This
module knows nothing of either: :class:`History` keeps up to :data:`LIMIT`
snapshots and a position in them, names each step with the page's own
``describe`` ("C 10 → 100"), and :func:`buttons` draws ↶ and ↷ (Ctrl+Z and
Ctrl+Shift+Z, ⌘ on a Mac) whose click restores a snapshot through the page's
``restore``. The history lives in the session state (:func:`history`); a link
carries only the state shown, never the history.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import streamlit as st

__all__ = ["LIMIT", "SHORTCUTS", "History", "buttons", "history", "kbd_hidden"]

#: Snapshots kept per page in a session (the oldest are dropped first).
LIMIT = 100

#: The buttons' keyboard shortcuts (Streamlit reads Ctrl as ⌘ on a Mac).
SHORTCUTS = {"undo": "Ctrl+Z", "redo": "Ctrl+Shift+Z"}

S = TypeVar("S")


@dataclass
class History(Generic[S]):
    """A bounded undo history: snapshots, the position of the one shown, and
    ``describe(before, after)``, which names a step in a few words."""

    describe: Callable[[Any, Any], str]
    limit: int = LIMIT
    entries: list[S] = field(default_factory=list)
    position: int = -1

    @property
    def current(self) -> S | None:
        return self.entries[self.position] if self.entries else None

    def record(self, snapshot: S) -> bool:
        """Record what the page shows now; True if it was a new step. A new
        step after an undo drops the steps that could have been redone."""
        if self.current == snapshot:
            return False
        del self.entries[self.position + 1 :]
        self.entries.append(snapshot)
        if len(self.entries) > self.limit:
            del self.entries[: len(self.entries) - self.limit]
        self.position = len(self.entries) - 1
        return True

    @property
    def can_undo(self) -> bool:
        return self.position > 0

    @property
    def can_redo(self) -> bool:
        return self.position < len(self.entries) - 1

    def undo_name(self) -> str | None:
        """The step an undo reverts, named; None when there is none."""
        if not self.can_undo:
            return None
        return self.describe(
            self.entries[self.position - 1], self.entries[self.position]
        )

    def redo_name(self) -> str | None:
        """The step a redo makes again, named; None when there is none."""
        if not self.can_redo:
            return None
        return self.describe(
            self.entries[self.position], self.entries[self.position + 1]
        )

    def undo(self) -> S | None:
        """Step back; the snapshot to restore (None: nothing to undo)."""
        if not self.can_undo:
            return None
        self.position -= 1
        return self.entries[self.position]

    def redo(self) -> S | None:
        """Step forward again; the snapshot to restore (None: nothing to redo)."""
        if not self.can_redo:
            return None
        self.position += 1
        return self.entries[self.position]


def history(key: str, describe: Callable[[Any, Any], str]) -> History:
    """This session's history under ``key`` (created empty)."""
    found = st.session_state.get(key)
    if not isinstance(found, History):
        found = History(describe)
        st.session_state[key] = found
    return found


def _step(h: History, direction: str, restore: Callable[[Any], None]) -> None:
    target = h.undo() if direction == "undo" else h.redo()
    if target is not None:
        restore(target)


def buttons(
    h: History,
    keys: dict[str, str],
    restore: Callable[[Any], None],
    slots: tuple[Any, Any],
) -> list[str]:
    """↶ and ↷ in ``slots`` (two containers), keyed ``keys["undo"]`` and
    ``keys["redo"]``, each with its shortcut and the step it takes in its
    tooltip; a click hands the snapshot to ``restore`` (a callback, before the
    rerun). Returns the steps as the page says them ("undo: C 10 → 100")."""
    names = {"undo": h.undo_name(), "redo": h.redo_name()}
    for where, direction, icon in zip(slots, ("undo", "redo"), ("↶", "↷"), strict=True):
        name = names[direction]
        where.button(
            icon,
            key=keys[direction],
            on_click=_step,
            args=(h, direction, restore),
            disabled=name is None,
            shortcut=SHORTCUTS[direction],
            help=(
                f"{direction.capitalize()} ({SHORTCUTS[direction]}): {name}"
                if name
                else f"Nothing to {direction} ({SHORTCUTS[direction]})."
            ),
            width="stretch",
        )
    return [f"{d}: {n}" for d, n in names.items() if n]


def kbd_hidden(*keys: str) -> str:
    """CSS hiding the shortcut badges Streamlit draws in the buttons keyed
    ``keys`` (the icon alone fits a narrow column; the "Keys" help lists them)."""
    return ",".join(f".st-key-{k} button kbd" for k in keys) + "{display:none}"
