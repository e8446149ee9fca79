"""The Regression page's pictures: the ε-tube, the multipliers as stems, the
ε-insensitive loss with the residuals, and SVR's ε path.

Points are coloured by their state in the tube (inside: α = α* = 0, grey; on its
edge: 0 < |α − α*| < C, black rings; outside: |α − α*| = C, reddish purple), the
same three colours as the support vectors of the classification pages. Every
builder returns a plain :class:`plotly.graph_objects.Figure`; none fits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from svmlab.figures.style import (
    PALETTE,
    _axis,
    _short,
    _title,
    chart,
    tint,
    vertical_line,
)

__all__ = [
    "SQUARED_STATE_NAMES",
    "STATE_NAMES",
    "epsilon_path_figure",
    "residual_loss_figure",
    "state_names",
    "stem_figure",
    "tube_figure",
]

#: ``sv_state_`` -> (legend name, colour).
STATE_NAMES = {
    0: ("inside (α = α* = 0)", PALETTE["non_sv"]),
    1: ("on the edge (0 < |α − α*| < C)", PALETTE["free"]),
    2: ("outside (|α − α*| = C)", PALETTE["bound"]),
}
#: The same under the squared ε-insensitive loss: no box, so a point outside the
#: tube has |α − α*| = C (|r| − ε), and one on the edge has α = α* = 0.
SQUARED_STATE_NAMES = {
    0: STATE_NAMES[0],
    1: ("on the edge (|r| = ε)", PALETTE["free"]),
    2: ("outside (|α − α*| = C (|r| − ε))", PALETTE["bound"]),
}


def _squared(model: Any) -> bool:
    return getattr(model, "loss", "") == "squared_epsilon_insensitive"


def state_names(model: Any) -> dict[int, tuple[str, str]]:
    """The legend's names of the points' states for this model's loss."""
    return SQUARED_STATE_NAMES if _squared(model) else STATE_NAMES


#: A legend row's height at the base font (16 px text, Plotly's spacing).
_LEGEND_ROW = 34


def _grid(X: np.ndarray, extra: float = 0.15, n: int = 300) -> np.ndarray:
    low, high = float(X.min()), float(X.max())
    pad = extra * max(high - low, 1e-9)
    return np.linspace(low - pad, high + pad, n)


def tube_figure(
    model: Any,
    X: ArrayLike,
    t: ArrayLike,
    *,
    epsilon: float,
    test: tuple[ArrayLike, ArrayLike] | None = None,
    added: ArrayLike | None = None,
    scale: float = 1.0,
    height: int = 460,
    narrow: bool = False,
) -> Any:
    """The fitted f, the tube f ± ε (shaded), and the training points by their
    state; test points hollow (hidden until their legend entry is clicked);
    ``added`` marks the points clicked in. ``narrow``: a phone's column, where
    the key's entries take a row each: the margin under the plot holds them
    all (its 150 px held two rows, and the key covered the x-axis ticks)."""
    X = np.asarray(X, dtype=float).reshape(-1, 1)
    t = np.asarray(t, dtype=float)
    xs = _grid(X)
    f = np.asarray(model.predict(xs.reshape(-1, 1)), dtype=float)
    line = 3.0 * scale
    edge = {"color": PALETTE["positive"], "width": 1.2 * scale, "dash": "dash"}
    traces: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "x": _short(xs),
            "y": _short(f + epsilon),
            "mode": "lines",
            "line": edge,
            "name": f"f ± ε (ε = {epsilon:.3g})",
            "hoverinfo": "skip",
            "legendgroup": "tube",
        },
        {
            "type": "scatter",
            "x": _short(xs),
            "y": _short(f - epsilon),
            "mode": "lines",
            "fill": "tonexty",
            "fillcolor": tint(PALETTE["sky"], 0.25),
            "line": edge,
            "name": "the tube",
            "showlegend": False,
            "hoverinfo": "skip",
            "legendgroup": "tube",
        },
        {
            "type": "scatter",
            "x": _short(xs),
            "y": _short(f),
            "mode": "lines",
            "line": {"color": PALETTE["boundary"], "width": line},
            "name": "f(x)",
            "hovertemplate": "x = %{x:.3g}<br>f = %{y:.3g}<extra></extra>",
        },
    ]
    states = np.asarray(model.sv_state_)
    for state, (name, colour) in state_names(model).items():
        idx = np.flatnonzero(states == state)
        size = 8 * scale if state == 0 else 10 * scale
        marker: dict[str, Any] = {"color": colour, "size": size}
        if state == 1:
            marker = {
                "color": "rgba(0,0,0,0)",
                "size": size + 3,
                "line": {"color": colour, "width": 2.2 * scale},
            }
        traces.append(
            {
                "type": "scatter",
                "x": _short(X[idx, 0]),
                "y": _short(t[idx]),
                "mode": "markers",
                "marker": marker,
                "name": f"{name}: {idx.size}",
                "hovertemplate": "x = %{x:.3g}<br>t = %{y:.3g}<extra>"
                + name
                + "</extra>",
            }
        )
    if added is not None and np.any(added):
        mask = np.asarray(added, dtype=bool)
        traces.append(
            {
                "type": "scatter",
                "x": _short(X[mask, 0]),
                "y": _short(t[mask]),
                "mode": "markers",
                "marker": {
                    "symbol": "x-thin-open",
                    "size": 12 * scale,
                    "line": {"color": PALETTE["orange"], "width": 2.5 * scale},
                },
                "name": "clicked in",
                "hoverinfo": "skip",
            }
        )
    if test is not None and np.asarray(test[1]).size:
        Xt = np.asarray(test[0], dtype=float).reshape(-1, 1)
        traces.append(
            {
                "type": "scatter",
                "x": _short(Xt[:, 0]),
                "y": _short(np.asarray(test[1], dtype=float)),
                "mode": "markers",
                "marker": {
                    "color": "rgba(0,0,0,0)",
                    "size": 7 * scale,
                    "line": {"color": PALETTE["accent"], "width": 1.5},
                },
                "name": "test points (click to show)",
                "hoverinfo": "skip",
                # Hidden until asked for: 400 rings would bury the training
                # points and the tube; the legend entry shows them.
                "visible": "legendonly",
            }
        )
    bottom = 150
    if narrow:
        # One row per entry (the tube's two lines share one), under the tick
        # labels and the axis title; the plot keeps its height.
        rows = sum(1 for tr in traces if tr.get("showlegend", True)) - 1
        bottom = round((64 + _LEGEND_ROW * rows) * scale)
        height += bottom - 150
    return chart(
        traces,
        height=height,
        margin={"l": 70, "r": 20, "t": 20, "b": bottom},
        legend="below",
        font={"size": round(16 * scale)},
        xaxis=_axis("x", range=[float(xs[0]), float(xs[-1])]),
        yaxis=_axis("t (the target)"),
        dragmode="zoom",  # a drag zooms, a click adds a point
    )


def stem_figure(model: Any, X: ArrayLike, *, C: float | None, height: int = 300) -> Any:
    """α − α* of every training point as a stem at its x; ±C dotted (the
    box), so a point at the box is outside the tube."""
    X = np.asarray(X, dtype=float).reshape(-1)
    coef = np.asarray(model.alpha_, dtype=float)
    states = np.asarray(model.sv_state_)
    xs, ys = [], []
    for x, c in zip(X, coef, strict=True):
        xs += [float(x), float(x), None]
        ys += [0.0, float(c), None]
    traces: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "x": xs,
            "y": ys,
            "mode": "lines",
            "line": {"color": PALETTE["reference"], "width": 1.5},
            "name": "α − α*",
            "hoverinfo": "skip",
            "showlegend": False,
        }
    ]
    for state, (name, colour) in state_names(model).items():
        idx = np.flatnonzero(states == state)
        if not idx.size:
            continue
        traces.append(
            {
                "type": "scatter",
                "x": _short(X[idx]),
                "y": _short(coef[idx]),
                "mode": "markers",
                "marker": {"color": colour, "size": 7},
                "name": name.split(" (")[0],
                "hovertemplate": "x = %{x:.3g}<br>α − α* = %{y:.3g}<extra></extra>",
            }
        )
    shapes = []
    if C is not None and np.isfinite(C):
        for level in (C, -C):
            shapes.append(
                {
                    "type": "line",
                    "xref": "paper",
                    "x0": 0,
                    "x1": 1,
                    "y0": level,
                    "y1": level,
                    "line": {"color": PALETTE["bound"], "dash": "dot", "width": 1.5},
                }
            )
    return chart(
        traces,
        height=height,
        title=_title(
            "the multipliers α − α*",
            "no box: the squared loss" if _squared(model) else "±C dotted: the box",
        ),
        margin={"l": 70, "r": 20, "t": 76, "b": 110},
        legend="below",
        xaxis=_axis("x"),
        yaxis=_axis("α − α*", zeroline=True),
        shapes=shapes,
    )


def residual_loss_figure(
    residuals: ArrayLike,
    *,
    epsilon: float,
    squared: bool = False,
    C: float | None = None,
    height: int = 300,
    states: ArrayLike | None = None,
) -> Any:
    """The ε-insensitive loss max(0, |r| − ε) (squared: its half square) against
    the residual r = t − f(x), with the training residuals as a rug.

    ``states`` (the model's ``sv_state_``): the rug split as the tube chart and
    the numbers split the points, by their multipliers (inside, on the edge,
    outside: :data:`STATE_NAMES`), so every chart counts by one definition. A
    point on the edge has |r| = ε up to the solver's tol, on either side of it:
    split by the sign of |r| − ε alone it was counted paying or not by its
    rounding (22 paying against 17 on the edge and 16 outside). Without
    ``states``: paying (loss > 0) or not."""
    r = np.asarray(residuals, dtype=float)
    span = max(float(np.abs(r).max(initial=0.0)) * 1.15, 2.5 * epsilon, 0.5)
    rs = np.linspace(-span, span, 241)
    excess = np.maximum(np.abs(rs) - epsilon, 0.0)
    loss = 0.5 * excess**2 if squared else excess
    top = float(loss.max(initial=1.0)) or 1.0
    paid = np.maximum(np.abs(r) - epsilon, 0.0)
    paid = 0.5 * paid**2 if squared else paid
    pays = paid > 0
    name = "½ max(0, |r| − ε)²" if squared else "max(0, |r| − ε)"
    traces: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "x": _short(rs),
            "y": _short(loss),
            "mode": "lines",
            "line": {"color": PALETTE["positive"], "width": 3.5},
            "name": name,
            "hovertemplate": "r = %{x:.3g}<br>loss = %{y:.3g}<extra></extra>",
        }
    ]
    if states is None:
        groups = [
            (pays, f"pays: {int(pays.sum())}", PALETTE["bound"]),
            (~pays, f"in the tube: {int((~pays).sum())}", PALETTE["non_sv"]),
        ]
    else:
        states = np.asarray(states)
        names = SQUARED_STATE_NAMES if squared else STATE_NAMES
        groups = [
            (states == k, f"{name.split(' (')[0]}: {int(np.sum(states == k))}", colour)
            for k, (name, colour) in names.items()
        ]
    for mask, label, colour in groups:
        traces.append(
            {
                "type": "scatter",
                "x": _short(r[mask]),
                "y": [-0.06 * top] * int(mask.sum()),
                "mode": "markers",
                "marker": {
                    "symbol": "line-ns-open",
                    "size": 14,
                    "color": colour,
                    "line": {"width": 2, "color": colour},
                },
                "name": label,
                "hovertemplate": "r = %{x:.3g}<extra></extra>",
            }
        )
    total = float(paid.sum()) * (1.0 if C is None else float(C))
    subtitle = f"{'C ' if C is not None else ''}Σ loss(rᵢ) = {total:.4g}"
    return chart(
        traces,
        height=height,
        title=_title(
            f"the {'squared ' if squared else ''}ε-insensitive loss", subtitle
        ),
        margin={"l": 70, "r": 20, "t": 76, "b": 110},
        legend="below",
        xaxis=_axis("residual r = t − f(x)", range=[-span, span]),
        yaxis=_axis("loss", range=[-0.12 * top, 1.05 * top]),
    )


def epsilon_path_figure(
    epsilons: Sequence[float],
    support: Sequence[float],
    outside: Sequence[float],
    rmse: Sequence[float],
    *,
    cursor: float | None = None,
    height: int = 340,
) -> Any:
    """Against ε (a log axis: the path spans decades): the fraction of support
    vectors and of points outside the tube (left axis) and the test RMSE
    (right axis); the current ε dotted when it is on the axis (> 0)."""
    eps = [float(e) for e in epsilons]
    traces = [
        {
            "type": "scatter",
            "x": eps,
            "y": [100.0 * s for s in support],
            "mode": "lines+markers",
            "line": {"color": PALETTE["free"], "width": 3},
            "name": "support vectors (%)",
        },
        {
            "type": "scatter",
            "x": eps,
            "y": [100.0 * s for s in outside],
            "mode": "lines+markers",
            "line": {"color": PALETTE["bound"], "width": 3, "dash": "dash"},
            "name": "outside the tube (%)",
        },
        {
            "type": "scatter",
            "x": eps,
            "y": list(map(float, rmse)),
            "mode": "lines+markers",
            "line": {"color": PALETTE["accent"], "width": 2.5, "dash": "dot"},
            "name": "test RMSE (right)",
            "yaxis": "y2",
        },
    ]
    shapes = []
    if cursor is not None and cursor > 0:
        shapes.append(
            vertical_line(
                cursor, {"color": PALETTE["reference"], "dash": "dot", "width": 2}
            )
        )
    return chart(
        traces,
        height=height,
        margin={"l": 70, "r": 70, "t": 20, "b": 120},
        legend="below",
        xaxis=_axis("ε (the tube's half-width, log scale)", type="log"),
        yaxis=_axis("% of the training points", rangemode="tozero"),
        # Its own ticks (an overlaying axis syncs to the left one's by default:
        # 0.085, 0.17, ...).
        yaxis2=_axis(
            "test RMSE",
            overlaying="y",
            side="right",
            rangemode="tozero",
            tickmode="auto",
            mirror=False,
        ),
        shapes=shapes,
    )
