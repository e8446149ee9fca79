"""Undo and redo on the Explore page: a bounded history of what the page shows.

A :class:`Snapshot` is the page's whole state as the lecturer made it: the
settings (every widget, :class:`ExploreSettings`) and the edits of the training
points (``(added, removed, moved)``, :mod:`svmlab.ui.explore.edit`). Classroom
mode is not part of it: it is how the room sees the page, not a step of the
lecture (an undo never switches the projector layout).

:class:`svmlab.ui.frame.undo.History`, the history every page shares, keeps them;
each step is named by what changed (:func:`describe`: "C 10 → 100", "data set
spiral → moons", "point added"), so the buttons say what they will undo.

The history lives in the session state (:mod:`svmlab.ui.explore.undo_bar`);
a link carries only the current settings (``ExploreSettings.to_query``).

This module draws nothing and reads no session state: it is plain data, tested
on its own (``tests/test_undo.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace

from svmlab.ui.explore.settings import ExploreSettings

__all__ = ["Snapshot", "describe"]

#: ``(added, removed, moved)`` as :mod:`svmlab.ui.explore.cache` keeps them.
Edits = tuple[tuple, tuple, tuple]
NO_EDITS: Edits = ((), (), ())

#: Field names as the page says them.
_NAMES = {
    "dataset": "data set",
    "sigma": "σ",
    "delta": "δ",
    "test_fraction": "test fraction",
    "hard_margin": "hard margin",
    "max_iter": "max_iter",
    "log_count": "log count",
    "show_test": "test points",
    "playback": "playback",
    "compare": "compare",
    "machine": "machine",
    "nu": "ν",
    "sig_a": "sigmoid a",
    "sig_r": "sigmoid r",
}


@dataclass(frozen=True)
class Snapshot:
    """One state of the page: settings (classroom mode left out) and edits."""

    settings: ExploreSettings
    edits: Edits = NO_EDITS

    @classmethod
    def of(cls, settings: ExploreSettings, edits: Edits = NO_EDITS) -> Snapshot:
        """The snapshot of what the page shows (classroom mode dropped)."""
        added, removed, moved = edits
        return cls(
            replace(settings, classroom=False),
            (tuple(added), tuple(removed), tuple(moved)),
        )


def _show(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return f"{value:g}"
    if value == "":
        return "none"
    return str(value)


def _count(n: int, what: str) -> str:
    return f"{n} {what}" if n != 1 else what.replace("points", "point")


def _data_name(s: ExploreSettings, file_name: Callable[[str], str | None]) -> str:
    """The data a snapshot shows, as a visitor knows them: an upload by its
    file's name (its key is a hash of the values), else the data set's name."""
    if not s.upload:
        return s.dataset
    name = file_name(s.upload)
    return f"'{name}'" if name else "an uploaded file"


def describe(
    before: Snapshot,
    after: Snapshot,
    file_name: Callable[[str], str | None] = lambda key: None,
) -> str:
    """What changed from ``before`` to ``after``, in a few words ("C 10 → 100";
    several changes joined by "; ", at most two then "…"; a data set switch, a
    switch of upload or a preset by that alone). ``file_name(key)``: the name
    of the uploaded file held under ``key`` (None: not known here)."""
    out: list[str] = []
    a, b = before.settings, after.settings
    if a.upload != b.upload and not (b.preset and b.preset != a.preset):
        # The rest came with the data; a hash names nothing a visitor saw.
        return f"data {_data_name(a, file_name)} → {_data_name(b, file_name)}"
    for f in fields(ExploreSettings):
        if f.name in ("classroom", "data_params", "upload"):
            continue
        old, new = getattr(a, f.name), getattr(b, f.name)
        if old == new:
            continue
        if f.name == "preset" and new:
            return f"preset {new}"  # a preset sets everything: its name says it
        if f.name == "preset":
            out.append("preset left")
            continue
        out.append(f"{_NAMES.get(f.name, f.name)} {_show(old)} → {_show(new)}")
    if a.dataset != b.dataset:  # the rest came with the data set
        return out[0]
    if a.dataset == b.dataset:
        for (name, old), (_, new) in zip(a.data_params, b.data_params, strict=False):
            if old != new:
                out.append(f"{name.replace('_', ' ')} {_show(old)} → {_show(new)}")
    if a.source == b.source and a.data_kwargs() == b.data_kwargs():
        out.extend(_edit_changes(before.edits, after.edits))
    if not out:
        return "no change"
    return "; ".join(out[:2]) + ("; …" if len(out) > 2 else "")


def _edit_changes(before: Edits, after: Edits) -> list[str]:
    (a_add, a_rm, a_mv), (b_add, b_rm, b_mv) = before, after
    out = []
    if len(b_add) > len(a_add) and b_add[: len(a_add)] == a_add:
        out.append(_count(len(b_add) - len(a_add), "points added"))
    elif len(b_add) == len(a_add) and b_add != a_add:
        moved = sum(p != q for p, q in zip(a_add, b_add, strict=True))
        out.append(_count(moved, "points moved"))
    elif len(b_add) < len(a_add):
        out.append(_count(len(a_add) - len(b_add), "points removed"))
    elif b_add != a_add:
        out.append("points changed")
    gone = len(set(b_rm) - set(a_rm))
    back = len(set(a_rm) - set(b_rm))
    if gone:
        out.append(_count(gone, "points removed"))
    if back:
        out.append(_count(back, "points restored"))
    if b_mv != a_mv:
        changed = set(b_mv) - set(a_mv)
        out.append(_count(max(len(changed), 1), "points moved"))
    return out
