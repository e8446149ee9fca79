"""A lecturer's hands on the pages with a
:class:`~svmlab.ui.frame.page_state.PageState`: undo, redo and keys (Losses, Solvers,
Model selection, Multiclass, Regression, SVM family).

:func:`top_with_code` is the top of such a page: the title row (the title, ↶ ↷ and the
"Keys" help), the sidebar's settings (:func:`svmlab.ui.frame.page_url.sidebar_request`),
the point a click on the page's chart adds, and then this run's snapshot
recorded in the page's history (:mod:`svmlab.ui.frame.undo`, the mechanism Explore
uses too). A :class:`PageSnapshot` is the page's declared fields (classroom mode
left out: how the room sees the page is not a step of the lecture), its preset
and its clicked points (``PageState.points``); a restore puts every widget back,
the next run writes the link (``page_url.publish``: the link carries the state
shown, never the history).

The keys (:mod:`svmlab.ui.frame.keys`): Q/W C one stop along its slider's grid (ν where
the machine takes ν instead), A/S σ (Gaussian kernel), PageUp/PageDown the
page's previous/next teaching preset, M classroom mode, J/L the Solvers race one
step; each only where the page has it, and the "Keys" help lists exactly those.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from types import ModuleType
from typing import Any

import streamlit as st

from svmlab.ui.frame import chart_click, keys, page_url, router, undo
from svmlab.ui.frame.model_fields import NU_GRID
from svmlab.ui.frame.page_fields import Flag, Grid, Multi, Number
from svmlab.ui.frame.page_state import GENERATOR, PageState
from svmlab.ui.frame.presets import by_topic

__all__ = [
    "PageSnapshot",
    "describe",
    "history",
    "key_rows",
    "snapshot",
    "top_taking_points",
    "top_with_code",
]


@dataclass(frozen=True)
class PageSnapshot:
    """One state of a page: widget key -> value (lists frozen to tuples), the
    preset its settings came from ("" for none) and its clicked points as the
    page holds them (None: none)."""

    values: tuple[tuple[str, Any], ...]
    preset: str = ""
    points: Any = None


def _fields(state: PageState) -> dict[str, Any]:
    """Widget key -> field, for every widget the page's link can describe."""
    out: dict[str, Any] = {f.key: f for f in state.fields}
    if state.catalogue is not None:
        for name in state.catalogue.GENERATORS:
            out.update({f.key: f for f in state.data_fields(name)})
        out[state.seed_key] = Number("seed", state.seed_key, 0, 0, 2**31 - 1, "Seed")
    return out


def _default(state: PageState, key: str) -> Any:
    if key == state.source_key:
        return GENERATOR
    if key == state.dataset_key:
        return state.dataset
    found = _fields(state).get(key)
    return None if found is None else found.default


def _frozen(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def snapshot(state: PageState) -> PageSnapshot:
    """What the page shows in this run (after its widgets are drawn)."""
    ss = st.session_state
    keys_now = [k for k in state.keys(ss) if k != state.classroom_key]
    values = tuple(
        (k, _frozen(ss[k] if k in ss else _default(state, k))) for k in keys_now
    )
    points = ss.get(state.points) if state.points else None
    return PageSnapshot(values, str(ss.get(page_url.preset_key(state), "")), points)


def _name(state: PageState, key: str) -> str:
    if key == state.source_key:
        return "data source"
    if key == state.dataset_key:
        return "data set"
    label = getattr(_fields(state).get(key), "label", key)
    label = label.removeprefix("The ")
    return (
        label
        if len(label) == 1 or label[1:2].isupper()
        else label[0].lower() + label[1:]
    )


def _show(state: PageState, key: str, value: Any) -> str:
    found = _fields(state).get(key)
    if isinstance(found, Flag):
        return "on" if value else "off"
    if found is None or value is None:
        return str(value)
    return found.encode(value) or "none"


def _clicked(points: Any) -> tuple[Any, tuple]:
    """``(data identity, points)`` of a page's held clicked points."""
    if not points:
        return None, ()
    identity, added = points
    return identity, tuple(added)


def describe(state: PageState, before: PageSnapshot, after: PageSnapshot) -> str:
    """What changed from ``before`` to ``after``, in a few words ("C 10 → 100";
    several joined by "; ", at most two then "…"; a preset, a data source or a
    data set switch by that alone: the rest came with it)."""
    a, b = dict(before.values), dict(after.values)
    if after.preset and after.preset != before.preset:
        return f"preset {after.preset}"
    for key in (state.source_key, state.dataset_key):
        if state.catalogue is not None and a.get(key) != b.get(key):
            return f"{_name(state, key)} {a.get(key)} → {b.get(key)}"
    out = [
        f"{_name(state, k)} {_show(state, k, a.get(k))} → {_show(state, k, v)}"
        for k, v in after.values
        if a.get(k) != v
    ]
    (was, old), (now, new) = _clicked(before.points), _clicked(after.points)
    if len(new) > len(old):
        n = len(new) - len(old)
        out.append("point added" if n == 1 else f"{n} points added")
    elif len(new) < len(old) and (was == now or not new):
        n = len(old) - len(new)
        out.append("point removed" if n == 1 else f"{n} points removed")
    if before.preset and not after.preset:
        out.append("preset left")
    if not out:
        return "no change"
    return "; ".join(out[:2]) + ("; …" if len(out) > 2 else "")


def _history_key(state: PageState) -> str:
    return f"{state.prefix}_history"


def history(state: PageState) -> undo.History:
    """This session's history of the page (created empty)."""
    return undo.history(_history_key(state), partial(describe, state))


def restore(state: PageState, snap: PageSnapshot) -> None:
    """Make the page show ``snap`` on the next run (a callback): every widget,
    the preset and the clicked points (classroom mode stays as it is)."""
    ss = st.session_state
    fields = _fields(state)
    for key, value in snap.values:
        ss[key] = list(value) if isinstance(fields.get(key), Multi) else value
    ss[page_url.preset_key(state)] = snap.preset
    if state.points:
        if snap.points is None:
            ss.pop(state.points, None)
        else:
            ss[state.points] = snap.points


# -- keys -------------------------------------------------------------------------

#: Pages whose machine takes ν instead of C (there Q/W move ν, as on Explore).
_NU_FOR_C = {"family": ("nu", "one_class"), "multiclass": ("nu",)}
#: A page's playback: (slider key, low, high, step, what it is).
_SCRUBS = {"solvers": ("solvers_race", 0, 100, 2, "the race")}


def _grid(state: PageState, query: str) -> Grid | None:
    return next(
        (f for f in state.fields if f.query == query and isinstance(f, Grid)), None
    )


def _value(state: PageState, query: str) -> Any:
    found = next((f for f in state.fields if f.query == query), None)
    return None if found is None else st.session_state.get(found.key, found.default)


def _step(state: PageState, query: str, direction: int) -> None:
    if query == "sigma" and _value(state, "kernel") not in (None, "gaussian"):
        return  # σ is the Gaussian kernel's
    if query == "C" and _value(state, "machine") in _NU_FOR_C.get(state.prefix, ()):
        query = "nu"
    grid = _grid(state, query)
    if grid is not None:
        now = float(st.session_state.get(grid.key, grid.default))
        # ν's fine slider (steps of 0.01) moves by the usual ν stops.
        stops = NU_GRID if query == "nu" else grid.grid
        st.session_state[grid.key] = keys.step_grid(stops, now, direction)


def page_presets(state: PageState) -> list[str]:
    """The page's teaching presets in the lecture hub's order."""
    return [p.name for ps in by_topic().values() for p in ps if p.page == state.page]


def _preset(state: PageState, direction: int) -> None:
    names = page_presets(state)
    current = st.session_state.get(page_url.preset_key(state), "")
    if current in names:
        name = names[(names.index(current) + direction) % len(names)]
    else:
        name = names[0] if direction > 0 else names[-1]
    page_url.go_to_preset(state, name)


def _classroom(state: PageState) -> None:
    key = state.classroom_key
    st.session_state[key] = not st.session_state.get(key, False)


def _scrub(key: str, low: int, high: int, step: int, direction: int) -> None:
    now = int(st.session_state.get(key, low))
    st.session_state[key] = min(max(now + step * direction, low), high)


Row = tuple[str, str, tuple[keys.Key, ...]]


def _pair(
    p: str, name: str, shortcuts: str, does: str, action: Callable, args: tuple
) -> Row:
    """A help row of two keys (``shortcuts``, e.g. "QW") moving one thing
    back and on: buttons ``<p>_key_<name>_down`` and ``..._up``."""
    down, up = shortcuts
    return (
        f"{down} / {up}",
        does,
        tuple(
            keys.Key(f"{p}_key_{name}_{d}", f"{name} {d}", k, action, (*args, sign))
            for k, d, sign in ((down, "down", -1), (up, "up", 1))
        ),
    )


def key_rows(state: PageState) -> list[Row]:
    """The page's keys as the help lists them: ``(keys, what they do, the
    shortcut-only buttons)``; undo and redo are the visible ↶ ↷."""
    p = state.prefix
    shortcuts = f"{undo.SHORTCUTS['undo']} / {undo.SHORTCUTS['redo']}"
    rows: list[Row] = [(shortcuts, "undo / redo (⌘ on a Mac)", ())]
    if _grid(state, "C") is not None:
        what = "C (ν when the machine takes ν)" if p in _NU_FOR_C else "C"
        does = f"{what} one stop down / up"
        rows.append(_pair(p, "C", "QW", does, _step, (state, "C")))
    if _grid(state, "sigma") is not None:
        does = "σ (Gaussian kernel) one stop down / up"
        rows.append(_pair(p, "sigma", "AS", does, _step, (state, "sigma")))
    if page_presets(state):
        does = "previous / next teaching preset of this page (a clicker's keys)"
        row = _pair(p, "preset", ("PageUp", "PageDown"), does, _preset, (state,))
        rows.append(row)
    classroom = keys.Key(
        f"{p}_key_classroom", "classroom mode", "M", _classroom, (state,)
    )
    rows.append(("M", "classroom mode on / off", (classroom,)))
    if p in _SCRUBS:
        key, low, high, step, what = _SCRUBS[p]
        does = f"{what} one step back / forward"
        rows.append(_pair(p, "scrub", "JL", does, _scrub, (key, low, high, step)))
    return rows


def top_with_code(
    state: PageState,
    controls: Callable[[], Any],
    *,
    title: str,
    help: str | None = None,
    still: str = "",
    clicks: tuple[str, Callable[[Any, tuple[float, float]], None]] | None = None,
    require: bool = True,
    code: bool = True,
) -> tuple[Any, Any]:
    """The top of a page, its first call: the frame (``frame.guard``), the
    title, ↶ ↷ and "Keys", the sidebar's settings and the link
    (``page_url.sidebar_request``, ``still`` as there), a click on the chart
    keyed ``clicks[0]`` handed to ``clicks[1](request, point)``, this run's undo
    step; returns the request the controls made. With ``require`` a page with
    no data to show (an upload not chosen yet) says so and stops
    (``page_url.require``); without it the request may be None.

    ↶ ↷ and "Keys" sit at the top of the sidebar, above the settings they
    undo, with the steps named under them; in classroom mode (the sidebar
    collapsed, the title smaller) in the title row. In the title row at
    1280 x 720 with the sidebar open they wrapped a long title (Solvers'), so
    pushing the page down a line.

    With ``code`` the title row also holds an empty slot, at its right, for
    "Code for this view" (:mod:`svmlab.ui.frame.view_code`), returned beside
    the request (None without ``code``): a row of its own pushed Family's plane
    and Solvers' traces off a 720-line projector and a 1080-line screen."""
    router.guard()
    p = state.prefix
    buttons = {"undo": f"{p}_undo", "redo": f"{p}_redo"}
    css = undo.kbd_hidden(*buttons.values())
    slot = None
    if page_url.classroom(state):
        widths = [8, 2.6, 0.6, 0.6, 1.1] if code else [8, 0.6, 0.6, 1.1]
        row = st.columns(widths, vertical_alignment="center")
        row[0].title(title, help=help)
        if code:
            slot = row[1].container(key=f"{p}_code_slot")
            slots = row[2:]
        else:
            slots = row[1:]
        # No taller than the title (1.7rem there): a taller row pushed Solvers'
        # traces 12 px below a 720-line screen; the code popover's button too
        # (at its own height the traces ended at 723 px).
        css += (
            ",".join(
                f".st-key-{k} button"
                for k in (*buttons.values(), f"{p}_keys_help", f"{p}_code_slot")
            )
            + "{min-height:0;height:1.8rem;padding:0 0.6rem;line-height:1}"
        )
    else:
        if code:
            head, slot = st.columns([5, 1.6], vertical_alignment="center")
            head.title(title, help=help)
        else:
            st.title(title, help=help)
        slots = st.sidebar.columns([1, 1, 1.7], vertical_alignment="center")
    with st.sidebar:
        said = st.empty()  # the steps, at the top of the sidebar
    request = page_url.sidebar_request(state, controls, still)
    if clicks is not None and request is not None:
        chart, add = clicks
        chart_click.add_clicked(chart, lambda point: add(request, point))
    h = history(state)
    h.record(snapshot(state))
    steps = undo.buttons(h, buttons, partial(restore, state), (slots[0], slots[1]))
    said.caption(" · ".join(steps) if steps else "Nothing to undo yet.")
    rows = key_rows(state)
    keys.help([(k, does) for k, does, _ in rows], slots[2], key=f"{p}_keys_help")
    keys.hidden_buttons(f"{p}_keys", [k for *_, ks in rows for k in ks], css)
    return (page_url.require(request) if require else request), slot


def top_taking_points(
    state: PageState, hands: ModuleType, *, code: bool = False
) -> tuple[Any, Any, Any]:
    """:func:`top_with_code` for a page whose chart adds a point where it is
    clicked (Regression, Family), from its requests module ``hands``
    (``controls``, ``TITLE``, ``HELP``, ``CHART_KEY``, ``add_point``,
    ``added_points``): the request, the points clicked in so far and the slot
    for the page's code (None without ``code``)."""
    request, slot = top_with_code(
        state,
        hands.controls,
        title=hands.TITLE,
        help=hands.HELP,
        clicks=(hands.CHART_KEY, hands.add_point),
        code=code,
    )
    return request, hands.added_points(request), slot
