"""The lecturer's main view as followers receive it: a few named parts, each
JSON text, encoded once per change (issue 45, one broadcast).

:func:`view_parts` cuts Explore's decision figure spec
(:func:`svmlab.figures.decision_spec`) into parts that change at different
paces: the surface image and the lines move with C and σ, the points image
only with the data; the numbers, the preset's paragraph, the caption and the
settings' link beside them. A version of the view is sent as the parts that
changed since the one before (:func:`delta_json`: a move of C sends the surface,
the lines, the rings and the numbers, about 15 KB, never the points image
again), and a page that missed a version asks for all of them
(:func:`full_json`). What only the lecturer's browser uses is left out: the
hover traces with their per-point data, the legend's swatches, the template.

Coordinates travel as whole steps of :data:`STEPS`-ths of the plot's width
(a fifth of a pixel on a 760-pixel plot) from the axes' lower corner (the
``grid`` of the ``layout`` part): a line as its first point and then each
step from the point before (``[x0, y0, dx, dy, ...]``: two or three digits a
number instead of six), markers as their points; a gap in a line (NaN) is a
``null`` pair, after which the next point is whole again. The page adds them
up (``follower.js``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "STEPS",
    "delta_json",
    "full_json",
    "json_numbers",
    "packed",
    "plain_json",
    "view_parts",
]

#: Layout keys the follower's figure keeps (the page sets size and drag itself).
_LAYOUT_KEYS = ("font", "margin", "plot_bgcolor", "xaxis", "yaxis")
#: Trace keys the follower's figure keeps.
_TRACE_KEYS = ("type", "mode", "name", "line", "marker", "opacity")


def plain_json(value: Any) -> str:
    """Compact JSON (no spaces), NumPy values as lists and numbers."""
    return json.dumps(
        value, separators=(",", ":"), ensure_ascii=False, default=json_numbers
    )


def json_numbers(value: Any) -> Any:
    """``json.dumps``'s ``default``: NumPy arrays as lists, NumPy scalars as
    numbers (a figure's arrays, here and in the page's chart)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


#: Coordinate steps across the plot's wider axis.
STEPS = 4000


def _grid(layout: dict[str, Any]) -> dict[str, float]:
    """The origin (the axes' lower corner) and the step of the coordinates."""
    ranges = [layout.get(a, {}).get("range") for a in ("xaxis", "yaxis")]
    if any(r is None for r in ranges):
        return {"x0": 0.0, "y0": 0.0, "q": 1e-3}
    (xa, xb), (ya, yb) = ranges
    span = max(abs(float(xb) - float(xa)), abs(float(yb) - float(ya))) or 1.0
    return {"x0": min(xa, xb), "y0": min(ya, yb), "q": span / STEPS}


def packed(x: Any, y: Any, grid: dict[str, float], steps: bool) -> list[int | None]:
    """Points as whole steps of ``grid`` from its origin, flattened
    ``[x, y, x, y, ...]``; with ``steps`` each pair after the first (and after
    a gap, a ``None`` pair) is the step from the pair before."""
    qx = (np.asarray(x, dtype=np.float64) - grid["x0"]) / grid["q"]
    qy = (np.asarray(y, dtype=np.float64) - grid["y0"]) / grid["q"]
    out: list[int | None] = []
    last: tuple[int, int] | None = None
    for a, b in zip(qx.tolist(), qy.tolist(), strict=True):
        if not (math.isfinite(a) and math.isfinite(b)):
            out += [None, None]
            last = None
            continue
        point = (round(a), round(b))
        if steps and last is not None:
            out += [point[0] - last[0], point[1] - last[1]]
        else:
            out += list(point)
        last = point
    return out


def _trace(trace: dict[str, Any], grid: dict[str, float]) -> dict[str, Any]:
    out = {k: trace[k] for k in _TRACE_KEYS if k in trace}
    lines = trace.get("mode") == "lines"
    out["xy"] = packed(trace["x"], trace["y"], grid, steps=lines)
    return out


def _shown(trace: dict[str, Any]) -> bool:
    """A trace that draws something (not a hover target, not a legend swatch)."""
    if trace.get("mode") == "none" or "x" not in trace:
        return False
    x = np.asarray(trace["x"], dtype=np.float64)
    return bool(np.isfinite(x).any()) and not (
        x.size == 1 and trace.get("legendrank") is not None
    )


def view_parts(
    spec: dict[str, Any],
    cells: Sequence[tuple[str, str]],
    *,
    highlight: str | None = None,
    big: Iterable[str] = (),
    title: str = "",
    look: str = "",
    caption: str = "",
    link: str = "",
) -> dict[str, str]:
    """The parts of one view: ``spec`` a decision figure spec, ``cells`` the
    numbers panel's (label, value) pairs, ``highlight`` the preset's number,
    ``big`` the few numbers a phone shows first, ``title`` and ``look`` the
    preset's, ``caption`` one line of settings, ``link`` the settings' query
    (for "Try it yourself")."""
    layout = spec["layout"]
    grid = _grid(layout)
    parts: dict[str, Any] = {
        "layout": {k: layout[k] for k in _LAYOUT_KEYS if k in layout},
        "grid": grid,
    }
    for i, image in enumerate(layout.get("images", ())):
        parts[f"image{i}"] = image
    traces = [t for t in spec["data"] if _shown(t)]
    parts["lines"] = [_trace(t, grid) for t in traces if t["mode"] == "lines"]
    parts["marks"] = [_trace(t, grid) for t in traces if t["mode"] != "lines"]
    parts["numbers"] = {
        "cells": [list(c) for c in cells],
        "highlight": highlight,
        "big": list(big),
    }
    parts["text"] = {"title": title, "look": look, "caption": caption}
    parts["link"] = link
    return {name: plain_json(value) for name, value in parts.items()}


def _object(parts: dict[str, str]) -> str:
    return "{" + ",".join(f"{json.dumps(k)}:{v}" for k, v in parts.items()) + "}"


def delta_json(
    version: int, base: int, changed: dict[str, str], dropped: Sequence[str] = ()
) -> str:
    """Version ``version`` as the parts that changed since ``base`` (and the
    names of parts it no longer has)."""
    return (
        f'{{"v":{int(version)},"base":{int(base)},"parts":{_object(changed)},'
        f'"drop":{plain_json(list(dropped))}}}'
    )


def full_json(version: int, parts: dict[str, str]) -> str:
    """Version ``version`` whole (for a page that starts, or missed one)."""
    return f'{{"v":{int(version)},"parts":{_object(parts)}}}'
