"""The Losses page's pictures: one decision panel per loss with the outliers and
the clean-data boundary, the sweep's lines with a band over the seeds, the losses
and their influence, and the objectives reached from several starts.

Every builder takes what :mod:`svmlab.experiments.robustness` computed; none fits.
Each loss keeps one colour and one dash in every figure (:data:`LOSS_STYLE`):
solid for the unbounded losses, dashed for the bounded ones.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from svmlab.array_types import Bounds
from svmlab.figures.decision import decision_spec
from svmlab.figures.plane import grid_points, iso_line
from svmlab.figures.points import _marker_size
from svmlab.figures.style import (
    PALETTE,
    _axis,
    _figure,
    _short,
    chart,
    marker_trace,
    tint,
)
from svmlab.losses import Loss

__all__ = [
    "LOSS_STYLE",
    "MEASURES",
    "influence_figure",
    "loss_panel_figure",
    "losses_figure",
    "starts_figure",
    "sweep_figure",
]

#: loss -> (colour, dash): Okabe-Ito colours, none of them a class colour.
LOSS_STYLE: dict[str, tuple[str, str]] = {
    "hinge": (PALETTE["free"], "solid"),
    "squared_hinge": (PALETTE["orange"], "solid"),
    "ramp": (PALETTE["accent"], "dash"),
    "squared_ramp": (PALETTE["sky"], "dash"),
    "modified_hinge": (PALETTE["bound"], "dot"),
}

#: Colour of the outliers' rings and rug ticks.
OUTLIER_COLOUR = PALETTE["orange"]
#: The clean-data boundary, drawn faintly in every panel.
CLEAN_COLOUR = "#7A7A7A"

#: Sweep measures: attribute of SweepResult -> (axis title, as a percentage).
MEASURES: dict[str, tuple[str, bool]] = {
    "test_error": ("clean test error (%)", True),
    "shift_data": ("labels changed where the data are (%)", True),
    "shift_plane": ("labels changed over the plane (%)", True),
    "angle": ("angle of w moved (degrees)", False),
}


def _style(loss: str) -> tuple[str, str]:
    return LOSS_STYLE.get(loss, (PALETTE["text"], "solid"))


def loss_panel_figure(
    model: Any,
    clean_model: Any,
    X: ArrayLike,
    y: ArrayLike,
    is_outlier: ArrayLike,
    *,
    bounds: Bounds,
    height: int = 380,
    resolution: int = 100,
) -> go.Figure:
    """One small multiple: :func:`~svmlab.figures.decision.decision_spec` of
    ``model`` (regions, f = 0 and +-1, points, SV rings), plus the clean-data
    fit's boundary (grey, dotted: "clean-data boundary") and an orange ring
    around each outlier ("outliers"). Same ``bounds`` in every panel, no legend
    (the page draws one key for all)."""
    X = np.asarray(X, dtype=np.float64)
    outlier = np.asarray(is_outlier, dtype=bool)
    spec = decision_spec(
        model,
        X,
        y,
        bounds=bounds,
        resolution=resolution,
        height=height,
        legend="none",
    )
    xs, ys, XY = grid_points(bounds, resolution)
    Z = clean_model.decision_function(XY).reshape(len(ys), len(xs))
    cx, cy = iso_line(xs, ys, Z, 0.0)
    spec["data"].append(
        dict(
            type="scatter",
            x=cx,
            y=cy,
            mode="lines",
            name="clean-data boundary",
            line={"color": CLEAN_COLOUR, "dash": "dot", "width": 2.5},
            hoverinfo="skip",
            legendrank=30,
        )
    )
    idx = np.flatnonzero(outlier)
    size = _marker_size(X.shape[0])
    spec["data"].append(
        marker_trace(
            X,
            idx,
            "outliers",
            symbol="diamond-open",
            size=size + 12,
            colour=OUTLIER_COLOUR,
            width=2.5,
            hovertemplate="outlier %{customdata}<extra></extra>",
            customdata=idx.tolist(),
            legendrank=31,
        )
    )
    layout = spec["layout"]
    layout["margin"] = {"l": 56, "r": 8, "t": 8, "b": 48}
    return _figure(spec["data"], layout)


def _band(x: list, low: np.ndarray, high: np.ndarray, colour: str, name: str) -> dict:
    """A closed band from ``low`` to ``high`` (NaN gaps dropped)."""
    keep = np.isfinite(low) & np.isfinite(high)
    xs = [v for v, k in zip(x, keep, strict=True) if k]
    return dict(
        type="scatter",
        x=xs + xs[::-1],
        y=_short(high[keep]) + _short(low[keep][::-1]),
        fill="toself",
        fillcolor=tint(colour, 0.12),
        opacity=0.6,
        line={"width": 0},
        mode="lines",
        hoverinfo="skip",
        showlegend=False,
        legendgroup=name,
    )


def sweep_figure(
    sweep: Any, measure: str, titles: dict[str, str], height: int = 480
) -> go.Figure:
    """One measure of a :class:`~svmlab.experiments.robustness.SweepResult` against the
    swept value: per loss the median over the seeds (line) and the band from the
    smallest to the largest seed. ``titles``: loss -> legend name."""
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {sorted(MEASURES)}; got {measure!r}.")
    title, percent = MEASURES[measure]
    median, low, high = sweep.band(measure)
    scale = 100.0 if percent else 1.0
    x = [float(v) for v in sweep.values]
    # Every band first, then every line: a band filled later would cover the
    # lines drawn before it.
    bands: list[dict[str, Any]] = []
    traces: list[dict[str, Any]] = []
    for k, loss in enumerate(sweep.losses):
        colour, dash = _style(loss)
        name = titles.get(loss, loss)
        if len(sweep.seeds) > 1:
            bands.append(_band(x, scale * low[:, k], scale * high[:, k], colour, name))
        traces.append(
            dict(
                type="scatter",
                x=x,
                y=_short(scale * median[:, k]),
                mode="lines+markers",
                name=name,
                legendgroup=name,
                line={"color": colour, "dash": dash, "width": 3},
                marker={"color": colour, "size": 7},
                hovertemplate=f"{name}<br>%{{x:g}}: %{{y:.3g}}<extra></extra>",
            )
        )
    axis_name = {"distance": "outlier distance", "count": "number of outliers"}
    return chart(
        bands + traces,
        height=int(height),
        # Three legend rows in a half-width column at 1280 px.
        margin={"l": 72, "r": 16, "t": 16, "b": 170},
        legend="below",
        xaxis=_axis(axis_name.get(sweep.axis, sweep.axis)),
        yaxis=_axis(title, rangemode="tozero"),
    )


def losses_figure(losses: Sequence[Loss], height: int = 400) -> go.Figure:
    """Every loss against the margin m = y f(x) on one plot (Sugiyama Figs. 27.12
    and 27.18), with the 0/1 loss in grey for reference."""
    m = np.linspace(-3.0, 3.0, 601)
    traces: list[dict[str, Any]] = [
        dict(
            type="scatter",
            x=[-3.0, 0.0, 0.0, 3.0],
            y=[1.0, 1.0, 0.0, 0.0],
            mode="lines",
            name="0/1 loss",
            line={"color": PALETTE["non_sv"], "width": 2},
            hoverinfo="skip",
        )
    ]
    for loss in losses:
        colour, dash = _style(loss.name)
        traces.append(
            dict(
                type="scatter",
                x=_short(m),
                y=_short(loss.value(m)),
                mode="lines",
                name=loss.title,
                line={"color": colour, "dash": dash, "width": 3},
                hoverinfo="skip",
            )
        )
    return chart(
        traces,
        height=int(height),
        title="the losses ℓ(m)",
        margin={"l": 64, "r": 16, "t": 40, "b": 56},
        legend={"x": 0.99, "xanchor": "right", "y": 0.99, "yanchor": "top"},
        xaxis=_axis("margin m = y f(x)", range=[-3.0, 3.0]),
        yaxis=_axis("ℓ(m)", range=[-0.1, 4.0]),
    )


def influence_figure(
    losses: Sequence[Loss],
    margins: ArrayLike,
    is_outlier: ArrayLike,
    rug_name: str,
    height: int = 400,
) -> go.Figure:
    """Each loss's influence −ℓ'(m), the weight a point at margin m gets in the
    fit, with ``margins`` (one loss's training margins, named ``rug_name``) as a
    rug below the axis; the outliers' ticks are orange and taller. The x range
    widens to show every margin (at most [-12, 4])."""
    margins = np.asarray(margins, dtype=np.float64)
    outlier = np.asarray(is_outlier, dtype=bool)
    finite = margins[np.isfinite(margins)]
    low = max(-12.0, min(-3.0, math.floor(finite.min()) if finite.size else -3.0))
    m = np.linspace(low, 3.0, 801)
    traces: list[dict[str, Any]] = []
    top = 1.0
    for loss in losses:
        colour, dash = _style(loss.name)
        weight = -np.asarray(loss.derivative(m), dtype=np.float64)
        top = max(top, float(np.nanmax(weight[m >= -3.0])))
        traces.append(
            dict(
                type="scatter",
                x=_short(m),
                y=_short(weight),
                mode="lines",
                name=loss.title,
                line={"color": colour, "dash": dash, "width": 3},
                hovertemplate=f"{loss.title}<br>m = %{{x:.2f}}: −ℓ′ = %{{y:.3g}}"
                "<extra></extra>",
            )
        )
    top = min(top, 5.0)
    rug_y = -0.12 * top
    for mask, colour, size, name in (
        (~outlier, PALETTE["axis"], 14, f"training margins ({rug_name})"),
        (outlier, OUTLIER_COLOUR, 24, "outliers' margins"),
    ):
        traces.append(
            dict(
                type="scatter",
                x=_short(margins[mask]),
                y=[rug_y] * int(mask.sum()),
                mode="markers",
                name=name,
                marker={
                    "symbol": "line-ns-open",
                    "size": size,
                    "color": colour,
                    "line": {"width": 2, "color": colour},
                },
                hovertemplate="m = %{x:.3g}<extra>" + name + "</extra>",
            )
        )
    return chart(
        traces,
        height=int(height),
        # Two lines: on one, the title ran past a phone's 358 px chart (issue 46).
        title="influence −ℓ′(m):<br>a point's weight in the fit",
        margin={"l": 64, "r": 16, "t": 64, "b": 56},
        showlegend=False,
        xaxis=_axis("margin m = y f(x)", range=[low, 3.0]),
        yaxis=_axis("−ℓ′(m)", range=[2.2 * rug_y, 1.1 * top]),
    )


def starts_figure(results: Sequence[Any], height: int = 320) -> go.Figure:
    """The objective each start reached, as horizontal bars (the lowest green,
    ties within 1e-6 included; the solver's default start outlined in black);
    the bar's text is the clean test error."""
    names = [r.start for r in results]
    objectives = np.array([r.objective for r in results], dtype=np.float64)
    finite = objectives[np.isfinite(objectives)]
    lowest = float(finite.min()) if finite.size else math.nan
    # Within 1e-6 of the lowest is the same minimum to the solvers' accuracy.
    best = objectives <= lowest + 1e-6 * max(abs(lowest), 1.0)
    colours = [PALETTE["accent"] if b else PALETTE["non_sv"] for b in best]
    lines = [PALETTE["free"] if r.default else "rgba(0,0,0,0)" for r in results]
    trace = dict(
        type="bar",
        orientation="h",
        y=names,
        x=_short(objectives),
        marker={"color": colours, "line": {"color": lines, "width": 3}},
        text=[f"test error {100 * r.test_error:.1f} %" for r in results],
        textposition="auto",
        hovertemplate="%{y}: objective %{x:.4g}<extra></extra>",
    )
    return chart(
        [trace],
        height=int(height),
        margin={"l": 200, "r": 16, "t": 16, "b": 76},
        showlegend=False,
        # Two lines: centred on a phone's narrow plot, one ran past the chart.
        xaxis=_axis("objective<br>½‖f‖² + C Σ ℓ(mᵢ)", rangemode="tozero"),
        yaxis=_axis("", autorange="reversed", ticks=""),
    )
