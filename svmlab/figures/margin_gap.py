"""Where an approximation fails: the data coloured by |approximate - exact|
leave-one-out margin at one cell of the grid (Model selection page)."""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from svmlab.figures.selection_style import TITLE_LINE_HEIGHT, title_on_plot
from svmlab.figures.style import PALETTE, _axis, _short, chart

__all__ = ["margin_gap_figure"]


GAP_SCALE = "Cividis"


def margin_gap_figure(
    X: ArrayLike,
    y: ArrayLike,
    approximate: ArrayLike,
    exact: ArrayLike,
    *,
    bounds: tuple[float, float, float, float],
    title: str,
    height: int = 460,
    scale: float = 1.0,
) -> go.Figure:
    """The training points coloured by ``|approximate - exact|`` leave-one-out margin.

    Symbols give the class (circle +1, square -1, as on the Explore page); a thick
    black ring marks the points whose approximate leave-one-out margin has the other
    sign than the exact one (the approximation misjudges their held-out class).
    ``scale`` grows the text and the margins holding it (classroom mode, as the
    other charts: ``style.scaled_text``).

    Returns
    -------
    go.Figure
        Traces ``"class +1"``, ``"class −1"`` (sharing one Cividis colour bar) and
        ``"held-out sign differs"``.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    a = np.asarray(approximate, dtype=np.float64)
    e = np.asarray(exact, dtype=np.float64)
    gap = np.abs(a - e)
    finite = gap[np.isfinite(gap)]
    top = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
    data: list[dict[str, Any]] = []
    for label, symbol, text in (
        (1.0, "circle", "class +1"),
        (-1.0, "square", "class −1"),
    ):
        m = y == label
        data.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": text,
                "x": _short(X[m, 0]),
                "y": _short(X[m, 1]),
                "customdata": [
                    [ex, ap, g]
                    for ex, ap, g in zip(
                        _short(e[m]), _short(a[m]), _short(gap[m]), strict=True
                    )
                ],
                "hovertemplate": "exact LOO margin %{customdata[0]}<br>"
                "approximate %{customdata[1]}<br>|difference| %{customdata[2]}"
                "<extra>" + text + "</extra>",
                "marker": {
                    "symbol": symbol,
                    "size": 11,
                    "color": _short(gap[m]),
                    "cmin": 0.0,
                    "cmax": top,
                    "colorscale": GAP_SCALE,
                    "showscale": label == 1.0,
                    "colorbar": {
                        "title": {"text": "|approx − exact|", "side": "right"},
                        "thickness": 16,
                    },
                    "line": {"color": PALETTE["axis"], "width": 0.5},
                },
            }
        )
    flipped = np.sign(a) != np.sign(e)
    data.append(
        {
            "type": "scatter",
            "mode": "markers",
            "name": "held-out sign differs",
            "x": _short(X[flipped, 0]),
            "y": _short(X[flipped, 1]),
            "marker": {
                "symbol": "circle-open",
                "size": 20,
                "color": "black",
                "line": {"width": 2.5},
            },
            "hoverinfo": "skip",
        }
    )
    xmin, xmax, ymin, ymax = bounds
    return chart(
        data,
        height=height,
        # On two lines when long, standing on the plot area (the heatmaps'
        # title): as a layout title and its subtitle the lines stood 70 px
        # apart in classroom mode, the second on the plot's top edge.
        annotations=[title_on_plot(title)],
        margin={"t": 32 + 2 * TITLE_LINE_HEIGHT, "b": 140},
        # Equal aspect by narrowing the plot, not by widening x's range: a wide
        # column left empty bands of x beside the data (-1.9 .. 1.9 for data
        # in -1.1 .. 1.1 at 1280 px). The plot stands by its colour bar.
        xaxis=_axis(
            "x₁", range=[xmin, xmax], constrain="domain", constraintoward="right"
        ),
        yaxis=_axis(
            "x₂", range=[ymin, ymax], scaleanchor="x", scaleratio=1, constrain="domain"
        ),
        legend="below",
        scale=scale,
    )
