"""Lee (2006), Figure 2: the test errors of each selector over every seed and test
set, with the paper's means and the Bayes error (Model selection page)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from svmlab.figures.style import PALETTE, _axis, _short, chart

__all__ = ["lee_boxplot"]


def lee_boxplot(
    errors: Mapping[str, Sequence[float]],
    *,
    titles: Mapping[str, str] | None = None,
    paper: Mapping[str, float] | None = None,
    bayes_error: float | None = None,
    height: int = 480,
    scale: float = 1.0,
) -> go.Figure:
    """Boxplots of test misclassification, one box per selector (Lee 2006, Fig. 2).

    ``errors`` maps a selector to its test-set errors (every seed's test sets
    pooled); ``paper`` maps a selector to the paper's mean (drawn as a diamond);
    ``bayes_error`` is a dashed horizontal line. ``scale`` grows the text and
    margins (classroom mode: 1.25).

    Returns
    -------
    go.Figure
        One ``box`` trace per selector, then ``"paper's mean"`` and, with
        ``bayes_error``, a ``"Bayes error"`` line trace.
    """
    titles = dict(titles or {})

    def label(name: str) -> str:
        # "IRWLS, Lee's ACV" on two lines: six boxes fit a projector's width.
        return titles.get(name, name).replace(", ", ",<br>")

    colours = [
        PALETTE["negative"],
        PALETTE["positive"],
        PALETTE["accent"],
        PALETTE["free"],
        PALETTE["bound"],
        PALETTE["orange"],
        PALETTE["sky"],
    ]
    data: list[dict[str, Any]] = []
    names = list(errors)
    for k, name in enumerate(names):
        colour = colours[k % len(colours)]
        data.append(
            {
                "type": "box",
                "name": label(name),
                "y": _short(errors[name]),
                "marker": {"color": colour},
                "line": {"color": colour},
                "boxmean": True,
                "showlegend": False,
            }
        )
    if paper:
        shown = [n for n in names if n in paper]
        data.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": "paper's mean",
                "x": [label(n) for n in shown],
                "y": [float(paper[n]) for n in shown],
                "marker": {
                    "symbol": "diamond",
                    "size": 16,
                    "color": PALETTE["yellow"],
                    "line": {"color": "black", "width": 2},
                },
            }
        )
    if bayes_error is not None:
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": f"Bayes error {bayes_error:.4f}",
                "x": [label(names[0]), label(names[-1])] if names else [],
                "y": [bayes_error, bayes_error],
                "line": {"color": PALETTE["reference"], "dash": "dash", "width": 2},
            }
        )
    return chart(
        data,
        scale=scale,
        height=height,
        margin={"t": 64, "b": 120},
        # The title under the tick labels and the last label inside the
        # figure when they turn (a phone, a column beside the Run button).
        xaxis=_axis("selector (model and criterion)", automargin=True),
        yaxis=_axis("test misclassification"),
        legend={
            "orientation": "h",
            "x": 1.0,
            "y": 1.02,
            "xanchor": "right",
            "yanchor": "bottom",
        },
    )
