"""The SVM family page's pictures: the plane (f or Platt's probability shaded,
or the one-class region f ≥ 0), and the ROC curve with the threshold's point.

Colours are the shared Okabe-Ito roles (:data:`~svmlab.figures.style.PALETTE`):
class +1 blue circles, class −1 vermillion squares, support vectors ringed black
(free) or reddish purple (at the bound: ν-SVC's margin errors are among these),
the one-class SVM's outliers crossed. Every builder returns a plain
:class:`plotly.graph_objects.Figure`; none fits.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from svmlab.array_types import Array, Bounds
from svmlab.figures.plane import (
    F_SATURATION,
    grid_points,
    iso_line,
    plane_axes,
    plane_image,
    surface_png,
)
from svmlab.figures.style import (
    PALETTE,
    _axis,
    _short,
    chart,
    marker_trace,
    vertical_line,
)

__all__ = ["PROBABILITY_LEVELS", "family_figure", "nu_path_figure", "roc_figure"]

#: The probability contours drawn when the shading is Platt's p.
PROBABILITY_LEVELS = (0.1, 0.25, 0.75, 0.9)
RESOLUTION = 140


def _margin(scale: float, **scaled: float) -> dict[str, int]:
    """The plot's margins in pixels: the sides named are given at scale 1 and
    grow with the page's ``scale`` (tick labels and titles grow with it), the
    others stay 16 px."""
    return {
        side: round(scaled[side] * scale) if side in scaled else 16 for side in "lrtb"
    }


def _key_rows(traces: list[dict[str, Any]], width: float = 420.0) -> int:
    """The rows a horizontal key of ``traces`` takes in a plot ``width`` px
    wide at scale 1: Plotly's entry is a 40 px symbol and its text (about
    7.5 px a character at 13 px)."""
    names = [t.get("name") or "" for t in traces if t.get("showlegend", True)]
    total = sum(40 + 7.5 * len(name) for name in names if name)
    return max(1, int(np.ceil(total / width)))


def _line(
    xs: Array, ys: Array, Z: Array, level: float, name: str, **line: Any
) -> dict[str, Any]:
    x, y = iso_line(xs, ys, Z, level)
    return dict(
        type="scatter",
        x=x,
        y=y,
        mode="lines",
        name=name,
        line={"color": PALETTE["boundary"], "width": 2, **line},
        hoverinfo="skip",
    )


def _diagonal(end: float, name: str, dash: str, width: float) -> dict[str, Any]:
    """The grey line y = x from 0 to ``end``, a reference (chance on the ROC
    plane, ν itself on the ν path), not hoverable."""
    return dict(
        type="scatter",
        x=[0, end],
        y=[0, end],
        mode="lines",
        name=name,
        line={"color": PALETTE["non_sv"], "dash": dash, "width": width},
        hoverinfo="skip",
    )


def _points(
    X: Array,
    mask: NDArray[np.bool_],
    name: str,
    colour: str,
    symbol: str,
    size: float,
    hollow: bool = False,
) -> dict[str, Any]:
    return marker_trace(
        X,
        mask,
        name,
        symbol=f"{symbol}-open" if hollow else symbol,
        size=size,
        colour=colour,
        width=1.5 if hollow else 0.5,
        outline=None if hollow else "white",
        hovertemplate="(%{x}, %{y})<extra>" + name + "</extra>",
    )


def _rings(
    X: Array, mask: NDArray[np.bool_], name: str, colour: str, size: float
) -> dict[str, Any]:
    return marker_trace(
        X,
        mask,
        name,
        symbol="circle-open",
        size=size + 9,
        colour=colour,
        width=2.2,
        hoverinfo="skip",
    )


def family_figure(
    model: Any,
    X: Array,
    y: Array,
    bounds: Bounds,
    *,
    machine: str,
    state: NDArray[np.int8],
    shade: str = "f",
    platt: tuple[float, float] | None = None,
    threshold: float = 0.0,
    others: Array | None = None,
    scale: float = 1.0,
    height: int = 560,
) -> Any:
    """The plane: the shading, f = 0 (solid), f = ±1 (dashed, classifiers), the
    threshold's line f = t when t ≠ 0, the points by class, the support vectors
    ringed; for the one-class SVM the region f ≥ 0 shaded and the outliers
    crossed. ``shade="p"`` with ``platt = (A, B)`` shades Platt's probability
    (white at p = 1/2) with its contours at :data:`PROBABILITY_LEVELS`."""
    xs, ys, grid = grid_points(bounds, RESOLUTION)
    Z = np.asarray(model.decision_function(grid)).reshape(RESOLUTION, RESOLUTION)
    traces: list[dict[str, Any]] = []
    size = 8.0 * scale
    width = 2.0 * scale
    if machine == "one_class":
        shading = np.where(Z >= 0.0, 0.55 * F_SATURATION, 0.0)
        traces.append(_line(xs, ys, Z, 0.0, "f = 0 (the region's edge)", width=width))
    elif shade == "p" and platt is not None:
        A, B = platt
        P = 1.0 / (1.0 + np.exp(np.clip(A * Z + B, -500, 500)))
        shading = (P - 0.5) * 2.0 * F_SATURATION
        traces.append(_line(xs, ys, P, 0.5, "p = 0.5", width=width))
        for k, level in enumerate(PROBABILITY_LEVELS):
            piece = _line(
                xs,
                ys,
                P,
                level,
                "p = 0.1, 0.25, 0.75, 0.9",
                width=1.2 * scale,
                dash="dot",
                color=PALETTE["axis"],
            )
            piece["showlegend"] = k == 0
            piece["legendgroup"] = "p"
            traces.append(piece)
        traces.append(
            _line(xs, ys, Z, 0.0, "f = 0", width=width, color=PALETTE["accent"])
        )
    else:
        shading = Z
        traces.append(_line(xs, ys, Z, 0.0, "f = 0", width=width))
        for k, level in enumerate((-1.0, 1.0)):
            piece = _line(xs, ys, Z, level, "f = ±1", width=width * 0.7, dash="dash")
            piece["showlegend"] = k == 0
            piece["legendgroup"] = "margins"
            traces.append(piece)
    if machine != "one_class" and threshold != 0.0:
        traces.append(
            _line(
                xs,
                ys,
                Z,
                threshold,
                f"f = t = {threshold:g}",
                width=width,
                dash="dashdot",
                color=PALETTE["orange"],
            )
        )
    positive = np.asarray(y) > 0
    if machine == "one_class":
        # Outside is ξ > 0: at the bound with f < 0 (a free support vector sits
        # on f = 0 to the solver's rounding and is inside).
        f = np.asarray(model.decision_function(X))
        inside = ~((state == 2) & (f < 0.0))
        traces.append(
            _points(X, inside, "inside (f ≥ 0)", PALETTE["positive"], "circle", size)
        )
        traces.append(
            _points(
                X,
                ~inside,
                "outside (f < 0): outliers",
                PALETTE["negative"],
                "x",
                size + 2,
            )
        )
        if others is not None and others.shape[0]:
            traces.append(
                _points(
                    others,
                    np.ones(others.shape[0], bool),
                    "the other class (not fitted)",
                    PALETTE["axis"],
                    "diamond",
                    size,
                    hollow=True,
                )
            )
    else:
        traces.append(
            _points(X, positive, "class +1", PALETTE["positive"], "circle", size)
        )
        traces.append(
            _points(X, ~positive, "class −1", PALETTE["negative"], "square", size)
        )
    if np.any(state == 1):
        traces.append(_rings(X, state == 1, "free SV", PALETTE["free"], size))
    if np.any(state == 2):
        name = "bound SV (α at its bound)"
        traces.append(_rings(X, state == 2, name, PALETTE["bound"], size))
    surface = plane_image(surface_png(shading), bounds, grid=(len(xs), len(ys)))
    # The key in rows above the square plot: beside it, it took 250 px of the
    # width and left the plane 166 px wide (issue 46); below, it took the rows
    # of the x-axis. Hung from the figure's top, its rows set the top margin
    # (with the probability lines it takes three: hung on the plot's top in two
    # rows' margin, the third covered the plot).
    legend = {
        "orientation": "h",
        "x": 0.0,
        "xanchor": "left",
        "y": 1.0,
        "yanchor": "top",
        "yref": "container",
        "font": {"size": round(13 * scale)},
    }
    return chart(
        traces,
        height=int(height),
        margin=_margin(scale, l=60, r=16, t=32 * _key_rows(traces), b=56),
        legend=legend,
        images=[surface],
        font={"size": round(16 * scale)},
        **plane_axes(bounds),
    )


def roc_figure(
    fpr: Array,
    tpr: Array,
    auc: float,
    point: tuple[float, float],
    *,
    where: str = "test",
    scale: float = 1.0,
    height: int = 360,
) -> Any:
    """The ROC curve (false against true positive rate) with the diagonal and the
    threshold's point on it."""
    traces = [
        _diagonal(1, "guessing", "dot", 1.5),
        dict(
            type="scatter",
            x=_short(fpr),
            y=_short(tpr),
            mode="lines",
            name=f"ROC (AUC = {auc:.3f})",
            line={"color": PALETTE["positive"], "width": 2.5 * scale, "shape": "hv"},
            hovertemplate="FPR %{x}, TPR %{y}<extra></extra>",
        ),
        dict(
            type="scatter",
            x=[point[0]],
            y=[point[1]],
            mode="markers",
            name="this threshold",
            marker={
                "size": 14 * scale,
                "color": PALETTE["orange"],
                "symbol": "diamond",
                "line": {"width": 1.5, "color": PALETTE["text"]},
            },
            hovertemplate="FPR %{x:.3f}, TPR %{y:.3f}<extra></extra>",
        ),
    ]
    return chart(
        traces,
        height=int(height),
        title=f"ROC on the {where} points",
        # The key's three rows under the x-axis title, in a bottom margin kept
        # for them (inside the plot it covered the ticks and the axis title
        # when the chart sat in a narrow column, 1280x720; in the plot's
        # paper coordinates it sat on the title).
        margin=_margin(scale, l=64, t=48, b=60 + 3 * 22),
        legend={
            "orientation": "h",
            "x": 0.0,
            "xanchor": "left",
            "xref": "container",
            "y": 0.0,
            "yanchor": "bottom",
            "yref": "container",
        },
        font={"size": round(16 * scale)},
        xaxis=_axis("false positive rate", range=[-0.02, 1.02]),
        yaxis=_axis("true positive rate", range=[-0.02, 1.02]),
    )


def nu_path_figure(
    path: Any, *, current: float, low_name: str, scale: float = 1.0, height: int = 360
) -> Any:
    """The ν-property along ν (``path``: a :class:`svmlab.ui.family.requests.NuPath`
    or anything with its ``nus``, ``low``, ``high`` and ``top``): the fraction
    ``low`` (margin errors, or points outside) under the diagonal ν and the
    fraction of support vectors ``high`` above it, with a cursor at the
    slider's ν and, for ν-SVC, the largest feasible ν (``top``) dotted."""
    nus, top = path.nus, path.top
    percent = _short([100.0 * v for v in nus])

    def fraction(values: Any, name: str, colour: str, symbol: str, unit: str) -> dict:
        return dict(
            type="scatter",
            x=percent,
            y=_short([100.0 * v for v in values]),
            mode="lines+markers",
            name=name,
            line={"color": PALETTE[colour], "width": 2.5 * scale},
            marker={"size": 7 * scale, "symbol": symbol},
            hovertemplate=f"ν = %{{x}} %: %{{y}} %{unit}<extra></extra>",
        )

    traces = [
        _diagonal(100, "ν", "dash", 1.5 * scale),
        fraction(path.high, "support vectors (≥ ν)", "free", "circle", " SVs"),
        fraction(path.low, f"{low_name} (≤ ν)", "bound", "square", ""),
    ]
    shapes = [
        vertical_line(
            100.0 * current, {"color": PALETTE["orange"], "width": 2.5 * scale}
        )
    ]
    if top is not None and top < 1.0:
        shapes.append(
            vertical_line(
                100.0 * top, {"color": PALETTE["axis"], "width": 1.5, "dash": "dot"}
            )
        )
    # The axes end a little past what is drawn: ν-SVC's path stops at its
    # largest feasible ν, often a third of the way.
    end = max([*nus, *path.high, current, top if top is not None else 0.0], default=1.0)
    end = min(102.0, 100.0 * end + 6.0)
    return chart(
        traces,
        height=int(height),
        margin=_margin(scale, l=64, t=64, b=60),
        # Above the plot: inside it the cursor crossed the key, and right of it
        # the key took half of a projector's column.
        legend={
            "orientation": "h",
            "x": 0.0,
            "xanchor": "left",
            "y": 1.02,
            "yanchor": "bottom",
        },
        font={"size": round(16 * scale)},
        shapes=shapes,
        xaxis=_axis("ν (%)", range=[0, end]),
        yaxis=_axis("% of the points", range=[0, end]),
    )
