"""The room's answers to a question, on the projector (issue 45): a bar per
choice, a histogram of numbers, or the clicks' density over the plane, with
the true value once revealed.

Plain dict specs, like :func:`~svmlab.figures.decision.decision_spec`; the
texts are the lecturer's (escaped for Plotly) and the values are the room's,
already checked (:mod:`svmlab.ui.hall.questions`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

from svmlab.figures.style import PALETTE, _axis, _base_layout, _short
from svmlab.user_text import for_plotly

__all__ = ["answers_spec"]

#: Bars of answers; the true one (or the line at the true value) in the accent.
_BAR = "#9AA0A6"


def _bars(
    kind: str, choices: Sequence[str], summary: dict[str, Any], truth: Any
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    counts = summary.get("counts") or []
    layout: dict[str, Any] = {}
    if kind == "choice":
        names = [for_plotly(c) for c in choices]
        colours = [PALETTE["accent"] if i == truth else _BAR for i in range(len(names))]
        # Across: a choice's words stay on one line in a narrow column.
        trace = {
            "type": "bar",
            "orientation": "h",
            "y": names,
            "x": counts,
            "marker": {"color": colours},
        }
        return [trace], layout
    edges = summary.get("edges") or []
    if not counts:
        return [], layout
    pairs = list(itertools.pairwise(edges))
    mids = [(a + b) / 2 for a, b in pairs]
    widths = [b - a for a, b in pairs]
    trace = {
        "type": "bar",
        "x": mids,
        "y": counts,
        "width": widths,
        "marker": {"color": _BAR, "line": {"color": "white", "width": 1}},
    }
    if isinstance(truth, int | float):
        layout["shapes"] = [
            {
                "type": "line",
                "x0": truth,
                "x1": truth,
                "y0": 0,
                "y1": 1,
                "yref": "paper",
                "line": {"color": PALETTE["accent"], "width": 4},
            }
        ]
    return [trace], layout


def _density(plane: dict[str, Any], points: Sequence[Sequence[float]]) -> list[dict]:
    """The plane's lines and the clicks: their density as contour lines and
    each click as a faint dot."""
    traces = [t for t in plane["data"] if t.get("mode") == "lines"]
    if not points:
        return traces
    x = _short([p[0] for p in points])
    y = _short([p[1] for p in points])
    return [
        *traces,
        {
            "type": "histogram2dcontour",
            "x": x,
            "y": y,
            "ncontours": 8,
            "contours": {"coloring": "lines"},
            "colorscale": [[0, "rgba(230,159,0,0.15)"], [1, PALETTE["orange"]]],
            "line": {"width": 2.5},
            "showscale": False,
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": x,
            "y": y,
            "marker": {"size": 7, "color": "rgba(230,159,0,0.6)"},
            "hoverinfo": "skip",
        },
    ]


def answers_spec(
    kind: str,
    summary: dict[str, Any],
    *,
    choices: Sequence[str] = (),
    unit: str = "",
    truth: Any = None,
    plane: dict[str, Any] | None = None,
    height: int = 300,
) -> dict[str, Any]:
    """The answers of a ``kind`` question (``summary`` as
    :func:`svmlab.ui.hall.questions.summary` makes it). ``truth``: the true
    choice's index or the true number, drawn once revealed; ``plane``: for a
    point question, the decision figure spec the clicks are drawn over."""
    if kind == "point" and plane is not None:
        layout = {
            k: v
            for k, v in plane["layout"].items()
            if k in ("font", "plot_bgcolor", "images", "xaxis", "yaxis")
        }
        layout = _base_layout(
            **layout,
            height=height,
            margin={"l": 48, "r": 8, "t": 8, "b": 40},
            showlegend=False,
            dragmode=False,
        )
        return {"data": _density(plane, summary.get("points") or []), "layout": layout}
    data, extra = _bars(kind, choices, summary, truth)
    most = max(summary.get("counts") or [0])
    # Whole answers: at most about five ticks, never 0.2 of an answer.
    count_axis = _axis("answers", rangemode="tozero", dtick=max(1, math.ceil(most / 5)))
    if kind == "choice":
        value_axis = _axis("", automargin=True, autorange="reversed", ticks="")
        axes = {"xaxis": count_axis, "yaxis": value_axis}
    else:
        axes = {"xaxis": _axis(for_plotly(unit)), "yaxis": count_axis}
    layout = _base_layout(
        height=height,
        margin={"l": 56, "r": 8, "t": 8, "b": 48},
        showlegend=False,
        dragmode=False,
        bargap=0.15,
        **axes,
        **extra,
    )
    return {"data": data, "layout": layout}
