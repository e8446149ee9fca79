"""The Solvers page's race: one small panel per solver at one moment.

Each panel draws the data (pale, class shape and colour), the reference
boundary (grey, dotted), the solver's f = 0 (its colour, solid) and f = ±1 (its
colour, thin dashes) at the recorded iterate, and shades where the solver's
sign still disagrees with the reference. Same bounds and equal aspect in every
panel, so the panels compare at a glance; no legend (the page draws one key).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from svmlab.figures.plane import iso_line
from svmlab.figures.solver_style import solver_style
from svmlab.figures.style import PALETTE, _axis, _base_layout, _figure, _short, tint

__all__ = ["DISAGREE_COLOUR", "race_panel"]

#: The shade of the plane where the solver's sign differs from the reference.
DISAGREE_COLOUR = "#F0E442"  # Okabe-Ito yellow
REFERENCE_COLOUR = "#555555"


def _points(X: np.ndarray, y: np.ndarray) -> list[dict[str, Any]]:
    size = 8 if len(y) <= 250 else 6
    out = []
    for label, symbol, colour in (
        (1.0, "circle", PALETTE["positive"]),
        (-1.0, "square", PALETTE["negative"]),
    ):
        idx = y == label
        out.append(
            {
                "type": "scatter",
                "x": _short(X[idx, 0]),
                "y": _short(X[idx, 1]),
                "mode": "markers",
                "name": f"class {'+1' if label > 0 else '−1'}",
                "marker": {
                    "symbol": symbol,
                    "size": size,
                    "color": tint(colour, 0.45),
                    "line": {"width": 0.5, "color": tint(colour, 0.8)},
                },
                "hoverinfo": "skip",
            }
        )
    return out


def race_panel(
    frame: Any,
    X: ArrayLike,
    y: ArrayLike,
    *,
    bounds: tuple[float, float, float, float],
    f_reference: ArrayLike | None,
    height: int = 440,
) -> go.Figure:
    """One solver's panel at one moment.

    Parameters
    ----------
    frame
        A :class:`svmlab.experiments.solver_comparison.Frame` (``name``, ``f`` on the
        resolution x resolution grid over ``bounds``).
    X, y
        The training data, shapes (n, 2) and (n,).
    bounds
        ``(x0, x1, y0, y1)`` of the grid (equal spans: equal aspect).
    f_reference
        The reference's f on the same grid (flat or square), or None.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    f = np.asarray(frame.f, dtype=np.float64)
    res = f.shape[0]
    x0, x1, y0, y1 = bounds
    xs, ys = np.linspace(x0, x1, res), np.linspace(y0, y1, res)
    colour, _, _ = solver_style(frame.name)
    data: list[dict[str, Any]] = []
    if f_reference is not None:
        ref = np.asarray(f_reference, dtype=np.float64).reshape(res, res)
        wrong = (np.sign(f) != np.sign(ref)).astype(float)
        data.append(
            {
                "type": "heatmap",
                "x": _short(xs),
                "y": _short(ys),
                "z": wrong.tolist(),
                "zmin": 0,
                "zmax": 1,
                "colorscale": [[0, "rgba(255,255,255,0)"], [1, DISAGREE_COLOUR]],
                "showscale": False,
                "hoverinfo": "skip",
                "name": "disagrees with the reference",
            }
        )
    data += _points(X, y)
    if f_reference is not None:
        rx, ry = iso_line(xs, ys, ref, 0.0)
        data.append(
            {
                "type": "scatter",
                "x": rx,
                "y": ry,
                "mode": "lines",
                "name": "reference f = 0",
                "line": {"color": REFERENCE_COLOUR, "dash": "dot", "width": 2.5},
                "hoverinfo": "skip",
            }
        )
    if np.ptp(f) > 0:
        for level, width, dash in ((0.0, 3.5, "solid"), (1.0, 1.5, "dash"),
                                   (-1.0, 1.5, "dash")):  # fmt: skip
            lx, ly = iso_line(xs, ys, f, level)
            data.append(
                {
                    "type": "scatter",
                    "x": lx,
                    "y": ly,
                    "mode": "lines",
                    "name": f"f = {level:g}",
                    "line": {"color": colour, "dash": dash, "width": width},
                    "hoverinfo": "skip",
                }
            )
    layout = _base_layout(
        height=height,
        showlegend=False,
        margin={"l": 56, "r": 8, "t": 8, "b": 48},
        font={"size": 13},
        xaxis=_axis("x₁", range=[x0, x1], constrain="domain"),
        yaxis=_axis("x₂", range=[y0, y1], scaleanchor="x", scaleratio=1,
                    constrain="domain"),
    )  # fmt: skip
    return _figure(data, layout)
