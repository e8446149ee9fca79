"""The multipliers: the distribution of the alpha_i, stacked by KKT state."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

from svmlab.figures.model_state import _has_box, _loss_name, _snapshot_index
from svmlab.figures.style import FONT_SIZE, PALETTE, _axis, _short, chart, vertical_line
from svmlab.solvers.base import sv_states

if TYPE_CHECKING:
    from svmlab.svm.classifier import SVC

__all__ = ["alpha_histogram"]


def alpha_histogram(
    model: SVC, *, log_count: bool = False, snapshot: int | None = None, bins: int = 30
) -> go.Figure:
    """The distribution of alpha_i, bars stacked by KKT state.

    Parameters
    ----------
    model
        A fitted :class:`svmlab.SVC`.
    log_count
        Logarithmic count axis (the non-SV bar at 0 often dwarfs the rest).
    snapshot
        Use ``model.history_`` record ``snapshot`` instead of the final alpha.
    bins
        Number of equal bins over ``[0, C]`` (over ``[0, max alpha]`` when alpha
        has no upper bound: squared hinge, C = inf).

    Returns
    -------
    go.Figure
        Three bar traces "non-SV: k", "free SV: k", "bound SV: k" (their counts sum
        to n) and, when alpha is bounded, a vertical line shape named "C".
    """
    if snapshot is None:
        alpha = np.asarray(model.alpha_, dtype=np.float64)
        state = np.asarray(model.sv_state_)
    else:
        k = _snapshot_index(model, snapshot)
        alpha = np.asarray(model.history_.alpha[k], dtype=np.float64)
        state = sv_states(alpha, float(model.C), _loss_name(model), rel=1e-6)
    signed = bool((alpha < 0).any())
    a = np.abs(alpha)
    boxed = _has_box(model)
    C = float(model.C)
    top = C if boxed else max(float(a.max(initial=0.0)), 1e-12)
    edges = np.linspace(0.0, top, int(bins) + 1)
    width = edges[1] - edges[0]
    centres = (edges[:-1] + edges[1:]) / 2.0
    names = ("non-SV", "free SV" if boxed else "SV", "bound SV")
    colours = (PALETTE["non_sv"], PALETTE["free"], PALETTE["bound"])
    counts = [int((state == code).sum()) for code in (0, 1, 2)]
    traces = []
    for code, (name, colour) in enumerate(zip(names, colours, strict=True)):
        if code == 2 and not boxed:
            continue
        hist, _ = np.histogram(np.clip(a[state == code], 0.0, top), bins=edges)
        # Empty bins left out: Plotly draws a node for every bar, even of height 0.
        full = hist > 0
        traces.append(
            dict(
                type="bar",
                x=_short(centres[full]),
                y=hist[full].tolist(),
                width=width,
                name=f"{name}: {counts[code]}",
                marker={"color": colour, "line": {"width": 0}},
                opacity=0.85 if code == 1 else 1.0,
                customdata=list(
                    zip(
                        _short(edges[:-1][full], 3),
                        _short(edges[1:][full], 3),
                        strict=True,
                    )
                ),
                hovertemplate=(
                    "αᵢ in [%{customdata[0]}, %{customdata[1]}]: %{y}"
                    "<extra>%{fullData.name}</extra>"
                ),
            )
        )
    shapes, annotations = [], []
    if boxed:
        shapes.append(
            vertical_line(
                C, {"color": PALETTE["text"], "dash": "dash", "width": 2}, name="C"
            )
        )
        annotations.append(
            {
                "text": "C",
                "xref": "x",
                "yref": "paper",
                "x": C,
                "y": 1.0,
                "xanchor": "right",
                "yanchor": "top",
                "xshift": -4,
                "showarrow": False,
                "font": {"size": FONT_SIZE + 2},
            }
        )
    # The counts are in the legend; a short title fits a narrow column.
    title = "multipliers αᵢ"
    margin_top = 84
    if snapshot is not None:
        k = _snapshot_index(model, snapshot)
        title = f"αᵢ at iteration {model.history_.iteration[k]}"
        # Drawn in a narrow column, where the legend wraps to three rows.
        margin_top = 124
    totals = np.histogram(np.clip(a, 0.0, top), bins=edges)[0]
    ymax = max(1, int(totals.max(initial=1)))
    yaxis = _axis("count", rangemode="tozero")
    if log_count:
        yaxis = _axis(
            "count",
            type="log",
            range=[math.log10(0.7), math.log10(ymax * 1.6)],
            dtick=1,
        )
    return chart(
        traces,
        title=title,
        barmode="stack",
        bargap=0.0,
        height=380 + margin_top - 84,
        margin={"t": margin_top},
        legend={
            "orientation": "h",
            "traceorder": "normal",
            "x": 0.0,
            "xanchor": "left",
            "y": 1.02,
            "yanchor": "bottom",
        },
        shapes=shapes,
        annotations=annotations,
        xaxis=_axis(
            "|αᵢ|" if signed else "αᵢ",
            range=[-0.02 * top, top * 1.04],
            autorange=False,
        ),
        yaxis=yaxis,
    )
