"""Kernel views: the Gram matrix as a heatmap, one support vector's bump over the
plane, and the degree-2 lift in 3-D with the separating plane (rotatable).

Builds from numbers :mod:`svmlab.experiments.kernel_views` computed; never fits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from svmlab.figures.style import FONT_SIZE, PALETTE, _axis, _base_layout, _figure

if TYPE_CHECKING:
    from svmlab.experiments.kernel_views import Lift

__all__ = ["bump_figure", "gram_figure", "lift_figure"]


def _fonts(scale: float) -> dict[str, Any]:
    return {"size": round(FONT_SIZE * scale)}


def gram_figure(
    K: ArrayLike,
    y_sorted: ArrayLike,
    *,
    by: str = "class",
    height: int = 520,
    scale: float = 1.0,
) -> go.Figure:
    """``K`` (already in display order) as a heatmap; with ``by="class"`` a line
    marks where class +1 ends."""
    K = np.asarray(K, dtype=np.float64)
    n = K.shape[0]
    y_sorted = np.asarray(y_sorted)
    trace = dict(
        type="heatmap",
        z=np.round(K, 4).tolist(),
        colorscale="Viridis",
        colorbar={"title": {"text": "k(xᵢ, xⱼ)"}, "thickness": 14},
        hovertemplate="i = %{y}, j = %{x}<br>k = %{z:.3g}<extra></extra>",
    )
    shapes = []
    if by == "class":
        cut = int(np.sum(y_sorted > 0)) - 0.5
        for axis in ("x", "y"):
            line = {"color": "white", "width": 2 * scale}
            shapes.append(
                {
                    "type": "line",
                    "xref": "x",
                    "yref": "y",
                    "x0": cut if axis == "x" else -0.5,
                    "x1": cut if axis == "x" else n - 0.5,
                    "y0": cut if axis == "y" else -0.5,
                    "y1": cut if axis == "y" else n - 0.5,
                    "line": line,
                }
            )
    order = "class +1 first, then −1; by α within each" if by == "class" else "by α"
    layout = _base_layout(
        height=int(height),
        margin={"l": 72, "r": 16, "t": 16, "b": 64},
        font=_fonts(scale),
        xaxis=_axis(f"sample j ({order})", constrain="domain"),
        yaxis=_axis(
            "sample i", autorange="reversed", scaleanchor="x", constrain="domain"
        ),
        shapes=shapes,
    )
    return _figure([trace], layout)


def bump_figure(
    xs: ArrayLike,
    ys: ArrayLike,
    Z: ArrayLike,
    centre: tuple[float, float],
    X: ArrayLike,
    *,
    title: str,
    height: int = 520,
    scale: float = 1.0,
) -> go.Figure:
    """One support vector's term ``αᵢ yᵢ k(xᵢ, x)`` over the plane (``Z`` on the
    grid ``xs`` × ``ys``), the training points faint, the support vector marked."""
    Z = np.asarray(Z, dtype=np.float64)
    top = float(np.max(np.abs(Z))) or 1.0
    X = np.asarray(X, dtype=np.float64)
    data = [
        dict(
            type="heatmap",
            x=np.round(np.asarray(xs), 4).tolist(),
            y=np.round(np.asarray(ys), 4).tolist(),
            z=np.round(Z, 5).tolist(),
            zmin=-top,
            zmax=top,
            colorscale=[
                [0.0, PALETTE["negative"]],
                [0.5, "#FFFFFF"],
                [1.0, PALETTE["positive"]],
            ],
            colorbar={"title": {"text": "αᵢyᵢk(xᵢ,x)"}, "thickness": 14},
            hovertemplate="x = (%{x:.2f}, %{y:.2f})<br>%{z:.3g}<extra></extra>",
        ),
        dict(
            type="scatter",
            x=np.round(X[:, 0], 4).tolist(),
            y=np.round(X[:, 1], 4).tolist(),
            mode="markers",
            marker={"size": 4 * scale, "color": "rgba(60,60,60,0.35)"},
            hoverinfo="skip",
            showlegend=False,
        ),
        dict(
            type="scatter",
            x=[centre[0]],
            y=[centre[1]],
            mode="markers",
            marker={
                "symbol": "circle-open",
                "size": 18 * scale,
                "color": PALETTE["orange"],
                "line": {"width": 3 * scale, "color": PALETTE["orange"]},
            },
            name=title,
            showlegend=False,
            hoverinfo="skip",
        ),
    ]
    layout = _base_layout(
        height=int(height),
        margin={"l": 64, "r": 16, "t": 16, "b": 56},
        font=_fonts(scale),
        xaxis=_axis("x₁", constrain="domain"),
        yaxis=_axis("x₂", scaleanchor="x", scaleratio=1, constrain="domain"),
    )
    return _figure(data, layout)


def lift_figure(
    lift: Lift, y: ArrayLike, *, height: int = 560, scale: float = 1.0
) -> go.Figure:
    """The points lifted to ``φ(x) = (x₁², √2 x₁x₂, x₂²)`` (``lift.Phi``, from
    :func:`svmlab.experiments.kernel_views.lift`), one colour per class ``y``, and the
    plane ``w·φ + b = 0`` drawn over the data's box (rotatable)."""
    Phi = np.asarray(lift.Phi, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w = np.asarray(lift.w, dtype=np.float64)
    b = lift.b
    data: list[dict[str, Any]] = []
    for sign, name, symbol in (
        (1.0, "class +1", "circle"),
        (-1.0, "class −1", "square"),
    ):
        P = Phi[y == sign]
        data.append(
            dict(
                type="scatter3d",
                x=np.round(P[:, 0], 4).tolist(),
                y=np.round(P[:, 1], 4).tolist(),
                z=np.round(P[:, 2], 4).tolist(),
                mode="markers",
                name=name,
                marker={
                    "size": 3.5 * scale,
                    "symbol": symbol,
                    "color": PALETTE["positive" if sign > 0 else "negative"],
                },
            )
        )
    low, high = Phi.min(axis=0), Phi.max(axis=0)
    k = int(np.argmax(np.abs(w)))  # solve the plane for its steepest coordinate
    others = [i for i in range(3) if i != k]
    u = np.linspace(low[others[0]], high[others[0]], 60)
    v = np.linspace(low[others[1]], high[others[1]], 60)
    U, V = np.meshgrid(u, v)
    if abs(w[k]) > 0:
        W = -(w[others[0]] * U + w[others[1]] * V + b) / w[k]
        W = np.where((W >= low[k]) & (W <= high[k]), W, np.nan)
        coords = {others[0]: U, others[1]: V, k: W}
        data.append(
            dict(
                type="surface",
                x=np.round(coords[0], 4).tolist(),
                y=np.round(coords[1], 4).tolist(),
                z=np.round(coords[2], 4).tolist(),
                opacity=0.55,
                showscale=False,
                colorscale=[[0, "#444444"], [1, "#444444"]],
                name="w·φ + b = 0",
                hoverinfo="skip",
            )
        )
    layout = _base_layout(
        height=int(height),
        margin={"l": 0, "r": 0, "t": 8, "b": 0},
        font=_fonts(scale),
        legend={"x": 0.0, "y": 1.0},
        scene={
            name: {
                "title": {"text": text, "font": {"size": round(FONT_SIZE * scale)}},
                "tickfont": {"size": round((FONT_SIZE - 5) * scale)},
                "nticks": 4,
            }
            for name, text in (
                ("xaxis", "x₁²"),
                ("yaxis", "√2 x₁x₂"),
                ("zaxis", "x₂²"),
            )
        }
        | {"aspectmode": "cube"},
    )
    return _figure(data, layout)
