"""Editing the training points on the chart: click to add, box or lasso to remove.

A click on the chart's empty plot area adds a point there
(:mod:`svmlab.ui.frame.chart_click`, the listener every page with clickable charts
shares). Removing points uses Plotly's box and lasso selection, which
the chart component (:mod:`svmlab.ui.frame.chart`, ``select=True``) sends back in the
shape of ``st.plotly_chart``'s ``event.selection``; the removed region is read
from the selection's geometry, so it does not depend on the figure's trace order.

Edits live in ``st.session_state["explore_edits"]`` as plain tuples, and are
dropped when the generated data change (another data set, n, noise, seed...).
The cached fit takes them as an argument (STYLE rule 12).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import streamlit as st
from numpy.typing import NDArray

from svmlab.ui.explore.cache import NO_EDITS, Edits
from svmlab.ui.frame import chart_click

__all__ = [
    "CHART_KEY",
    "added_mask",
    "apply_chart_event",
    "apply_click",
    "apply_pending_click",
    "apply_pending_move",
    "apply_selection",
    "chart_key",
    "click_listener",
    "current_edits",
    "delete_point",
    "hold_move",
    "identity_of",
    "inside_region",
    "move_point",
    "pending_click",
    "rerun",
    "reset_edits",
    "restore_edits",
]

CHART_KEY = "explore_chart"
EDITS_KEY = "explore_edits"


def click_listener() -> tuple[float, float] | None:
    """Mount the (invisible) click listener of Explore's chart; the clicked
    point of this rerun, if any (kept until taken: :func:`pending_click`)."""
    return chart_click.click_listener(CHART_KEY)


def apply_pending_click(identity: Any, label: float) -> bool:
    """Add the point of a click not yet applied, if any; True if one was added."""
    point = chart_click.take_click(CHART_KEY)
    if point is None:
        return False
    apply_click(identity, point, label)
    return True


# -- the edits ----------------------------------------------------------------------


def _state(identity: Any) -> dict[str, Any]:
    edits = st.session_state.get(EDITS_KEY)
    if edits is None or edits["data"] != identity:
        version = 0 if edits is None else edits["version"] + 1
        edits = {
            "data": identity,
            "added": (),
            "removed": (),
            "moved": (),
            "version": version,
        }
        st.session_state[EDITS_KEY] = edits
    return edits


def identity_of(settings: Any) -> tuple:
    """The data identity of ``settings`` (an ``ExploreSettings``): what the
    edits belong to (the source, the generator's arguments, the test fraction)."""
    return settings.data_identity


def restore_edits(identity: Any, edits: Edits) -> None:
    """Make ``edits`` the edits of the data ``identity`` (undo and redo); the
    chart gets a new key (a selection on it is cleared)."""
    old = st.session_state.get(EDITS_KEY)
    added, removed, moved = edits
    st.session_state[EDITS_KEY] = {
        "data": identity,
        "added": tuple(added),
        "removed": tuple(removed),
        "moved": tuple(moved),
        "version": 0 if old is None else old["version"] + 1,
    }


def current_edits(identity: Any) -> Edits:
    """The edits of the data set ``identity`` (any hashable): ``(added, removed,
    moved)``."""
    edits = _state(identity)
    return edits["added"], edits["removed"], edits.get("moved", ())


def chart_key(identity: Any) -> str:
    """The chart's widget key; it changes after each removal to clear the selection."""
    return f"{CHART_KEY}_{_state(identity)['version']}"


def reset_edits() -> None:
    """Back to the generated data (button callback)."""
    edits = st.session_state.get(EDITS_KEY)
    if edits is not None:
        edits.update(added=(), removed=(), moved=(), version=edits["version"] + 1)


def apply_click(identity: Any, point: tuple[float, float], label: float) -> None:
    """Add a training point of class ``label`` (+1 or -1) at ``point``."""
    edits = _state(identity)
    edits["added"] = (*edits["added"], (float(point[0]), float(point[1]), float(label)))


def inside_region(X: NDArray[np.float64], selection: Any) -> NDArray[np.bool_]:
    """Which rows of X lie in the selection's boxes or lasso polygons."""
    inside = np.zeros(X.shape[0], dtype=bool)
    for box in _get(selection, "box"):
        (x0, x1), (y0, y1) = sorted(box["x"][:2]), sorted(box["y"][:2])
        inside |= (X[:, 0] >= x0) & (X[:, 0] <= x1) & (X[:, 1] >= y0) & (X[:, 1] <= y1)
    for lasso in _get(selection, "lasso"):
        inside |= _in_polygon(X, np.asarray(lasso["x"]), np.asarray(lasso["y"]))
    return inside


def _get(selection: Any, name: str) -> list[dict[str, Any]]:
    try:
        value = selection[name]
    except (KeyError, TypeError, AttributeError):
        value = getattr(selection, name, None)
    return [v for v in (value or []) if isinstance(v, dict) and "x" in v and "y" in v]


def _in_polygon(
    X: NDArray[np.float64], px: NDArray[np.float64], py: NDArray[np.float64]
) -> NDArray[np.bool_]:
    """Even-odd rule (ray casting), vectorised over the points."""
    if px.size < 3:
        return np.zeros(X.shape[0], dtype=bool)
    x, y = X[:, :1], X[:, 1:]
    x1, y1 = px[None, :], py[None, :]
    x2, y2 = np.roll(px, -1)[None, :], np.roll(py, -1)[None, :]
    crosses = (y1 > y) != (y2 > y)
    with np.errstate(divide="ignore", invalid="ignore"):
        at = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
    return np.count_nonzero(crosses & (x < at), axis=1) % 2 == 1


def apply_selection(identity: Any, n_generated: int, X: NDArray, selection) -> int:
    """Remove the training points inside a box or lasso selection.

    ``X`` are the current (edited) training points: the kept generated points in
    order, then the added ones. Returns how many points were removed.
    """
    hit = inside_region(X, selection)
    if not hit.any():
        return 0
    edits = _state(identity)
    removed = set(edits["removed"])
    kept = [i for i in range(n_generated) if i not in removed]
    removed.update(i for i, h in zip(kept, hit[: len(kept)], strict=True) if h)
    added = [p for p, h in zip(edits["added"], hit[len(kept) :], strict=True) if not h]
    edits.update(
        removed=tuple(sorted(removed)), added=tuple(added), version=edits["version"] + 1
    )
    return int(hit.sum())


def added_mask(n_points: int, edits: Edits = NO_EDITS) -> NDArray[np.bool_]:
    """Mask of the user-added points among ``n_points`` edited training points."""
    mask = np.zeros(n_points, dtype=bool)
    if edits[0]:
        mask[n_points - len(edits[0]) :] = True
    return mask


def pending_click() -> tuple[float, float] | None:
    """Take the click not yet applied (the inspector uses it to pick a point)."""
    return chart_click.take_click(CHART_KEY)


def _locate(edits: dict[str, Any], n_generated: int, index: int) -> tuple[str, int]:
    """Where point ``index`` of the edited training set comes from: ``("generated",
    i)`` or ``("added", j)``."""
    removed = set(edits["removed"])
    kept = [i for i in range(n_generated) if i not in removed]
    if index < len(kept):
        return "generated", kept[index]
    return "added", index - len(kept)


def move_point(
    identity: Any,
    n_generated: int,
    index: int,
    point: tuple[float, float],
    label: float,
) -> int:
    """Move training point ``index`` (of class ``label``) to ``point``; returns its
    index, which does not change: a generated point is moved in place (an entry
    of the edits' ``moved``), an added point too. The chart keeps its key (no
    selection to clear).
    """
    edits = _state(identity)
    kind, j = _locate(edits, n_generated, index)
    x1, x2 = float(point[0]), float(point[1])
    if kind == "added":
        added = list(edits["added"])
        added[j] = (x1, x2, added[j][2])
        edits.update(added=tuple(added))
        return index
    moved = {i: (a, b) for i, a, b in edits.get("moved", ())}
    moved[j] = (x1, x2)
    edits.update(moved=tuple((i, a, b) for i, (a, b) in sorted(moved.items())))
    return index


def rerun() -> None:
    """Draw again after an edit: the fragment only in a fragment run (the
    chart's events), else the whole page (``st.rerun(scope="fragment")`` is
    refused outside a fragment run)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    fragment = ctx is not None and bool(ctx.fragment_ids_this_run)
    st.rerun(scope="fragment" if fragment else "app")


#: The drop of a dragged point not yet applied (the chart's ``move`` event).
MOVE_KEY = "explore_pending_move"


def hold_move(event: Any) -> None:
    """Keep a drop from the chart (``{"index", "x", "y", "from"}``) until
    :func:`apply_pending_move` applies it."""
    st.session_state[MOVE_KEY] = event


def apply_pending_move(
    identity: Any,
    n_generated: int,
    X: NDArray[np.float64],
    y: NDArray[np.float64],
    bounds: tuple[float, float, float, float],
) -> int | None:
    """Move the dragged point to where it was dropped; its index (which does
    not change), or None when there was no drop or it no longer fits the
    points shown (a stale event: the point it names is not at ``from``).

    ``X`` and ``y`` are the edited training points the chart showed; the drop
    is kept inside the plane's ``bounds``.
    """
    event = st.session_state.pop(MOVE_KEY, None)
    if not isinstance(event, dict):
        return None
    try:
        index = int(event["index"])
        x, z = float(event["x"]), float(event["y"])
        start = np.asarray(event["from"], dtype=float)
    except (KeyError, TypeError, ValueError):
        return None
    if not 0 <= index < len(y) or not np.allclose(X[index], start, rtol=0, atol=1e-9):
        return None
    if not (np.isfinite(x) and np.isfinite(z)):
        return None
    xmin, xmax, ymin, ymax = bounds
    point = (min(max(x, xmin), xmax), min(max(z, ymin), ymax))
    return move_point(identity, n_generated, index, point, float(y[index]))


def apply_chart_event(
    identity: Any, n_generated: int, record: Any, data: Any, event: Any
) -> bool:
    """Apply what the main chart sent in this run (``event``: a box or lasso
    selection, or a dragged point's drop; a drop held from an earlier run too)
    to the edits of ``record``'s points (``data.bounds`` keep a drop on the
    plane); True if the points changed (the page draws again)."""
    if event and "move" in event:
        hold_move(event["move"])
    X, y = record.X, record.y
    if apply_pending_move(identity, n_generated, X, y, data.bounds) is not None:
        return True
    if event and "move" not in event:
        return apply_selection(identity, n_generated, X, event) > 0
    return False


def delete_point(identity: Any, n_generated: int, index: int) -> None:
    """Remove training point ``index`` (generated or added)."""
    edits = _state(identity)
    kind, j = _locate(edits, n_generated, index)
    if kind == "added":
        added = list(edits["added"])
        del added[j]
        edits.update(added=tuple(added))
    else:
        edits.update(removed=tuple(sorted({*edits["removed"], j})))
