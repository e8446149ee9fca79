"""The regularisation path's curves against the swept C or σ, with a cursor.

Four panels sharing one log x axis: the margin width 2/‖w‖ in feature space,
the free and bound support vectors, the training and test errors, the objective.
A vertical line marks the value the main figure shows; a click on a point is
the page's to read (it moves the line). Every series has its own colour and
dash in the one legend. Builds from a
:class:`svmlab.experiments.path.PathResult`; never fits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go

from svmlab.figures.style import (
    FONT_SIZE,
    PALETTE,
    _axis,
    _base_layout,
    _figure,
    vertical_line,
)

if TYPE_CHECKING:
    from svmlab.experiments.path import PathResult

__all__ = ["path_figure"]

#: (panel title, [(field, legend name, colour, dash)]), top to bottom.
_PANELS = (
    # Sky blue and dash-dot: black is the free SVs' (one legend, four panels).
    ("margin", [("margin_width", "margin 2/‖w‖", PALETTE["sky"], "dashdot")]),
    (
        "SVs",
        [
            ("n_free", "free SVs", PALETTE["free"], "solid"),
            ("n_bound", "bound SVs", PALETTE["bound"], "solid"),
        ],
    ),
    (
        "error",
        [
            ("train_error", "training error", PALETTE["positive"], "solid"),
            ("test_error", "test error", PALETTE["negative"], "dash"),
        ],
    ),
    ("objective", [("objective", "objective", PALETTE["accent"], "solid")]),
)


def _values(result: PathResult, name: str) -> list[float | None]:
    v = np.asarray(getattr(result, name), dtype=np.float64)
    if name.endswith("error"):
        v = 100.0 * v
    return [None if not np.isfinite(x) else float(x) for x in v]


def path_figure(
    result: PathResult,
    *,
    cursor: float | None = None,
    height: int = 560,
    scale: float = 1.0,
) -> go.Figure:
    """The path's curves, one panel per quantity, and a cursor at ``cursor``.

    Parameters
    ----------
    result
        The path (:func:`svmlab.experiments.path.regularization_path`).
    cursor
        The swept value the main figure shows (a vertical line), or None.
    height
        Figure height in pixels.
    scale
        Lines, markers and text this many times their size (classroom mode).
    """
    x = [float(v) for v in result.values]
    symbol = "C" if result.param == "C" else "σ"
    rows = len(_PANELS)
    gap = 0.05
    span = (1.0 - gap * (rows - 1)) / rows
    traces: list[dict[str, Any]] = []
    layout: dict[str, Any] = {}
    for r, (title, series) in enumerate(_PANELS):
        top = 1.0 - r * (span + gap)
        axis = "y" if r == 0 else f"y{r + 1}"
        key = "yaxis" if r == 0 else f"yaxis{r + 1}"
        layout[key] = _axis(
            title + (" %" if title == "error" else ""),
            domain=[max(0.0, round(top - span, 6)), round(top, 6)],
            anchor="x",
            type="log" if title == "objective" else "linear",
            tickfont={"size": round((FONT_SIZE - 3) * scale)},
        )
        layout[key]["title"]["font"] = {"size": round((FONT_SIZE - 2) * scale)}
        layout[key]["title"]["standoff"] = 4
        layout[key]["nticks"] = 4
        for name, label, colour, dash in series:
            traces.append(
                dict(
                    type="scatter",
                    x=x,
                    y=_values(result, name),
                    yaxis=axis,
                    mode="lines+markers",
                    name=label,
                    line={"color": colour, "dash": dash, "width": 2 * scale},
                    marker={"size": 5 * scale, "color": colour},
                    # A click selects a point (the scrubber): dim nothing.
                    unselected={"marker": {"opacity": 1.0}},
                    hovertemplate=f"{symbol} = %{{x:.3g}}<br>{label} = %{{y:.4g}}"
                    "<extra></extra>",
                )
            )
    shapes = []
    if cursor is not None:
        shapes.append(
            vertical_line(cursor, {"color": PALETTE["orange"], "width": 3 * scale})
        )
    layout = _base_layout(
        height=int(height),
        margin={"l": round(96 * scale), "r": 16, "t": 16, "b": round(56 * scale)},
        showlegend=True,
        legend={
            "orientation": "h",
            "x": 0.0,
            "y": 1.0,
            "yanchor": "bottom",
            "font": {"size": round((FONT_SIZE - 2) * scale)},
        },
        font={"size": round(FONT_SIZE * scale)},
        xaxis=_axis(
            f"{symbol} (log scale)",
            type="log",
            anchor="y4",
            tickfont={"size": round((FONT_SIZE - 3) * scale)},
        ),
        shapes=shapes,
        **layout,
    )
    layout["margin"]["t"] = round(40 * scale)
    return _figure(traces, layout)
