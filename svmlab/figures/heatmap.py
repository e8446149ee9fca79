"""One criterion's surface over the (C, sigma) grid on log axes (Model selection
page): its argmin starred, exact LOO's argmin crossed, the chosen cell boxed, and a
layer of invisible cell-centre markers that carries the hover and the click."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from svmlab.figures.selection_style import (
    TITLE_LINE,
    TITLE_LINE_HEIGHT,
    _fmt,
    title_on_plot,
)
from svmlab.figures.style import PALETTE, _axis, _short, chart
from svmlab.kernels import lee_sigma2_from_sigma

__all__ = ["heatmap_figure", "log_ticks"]


HEATMAP_SCALE = "Viridis"
#: C ticks on a heatmap: seven vertical labels ran into the x-axis title.
HEATMAP_X_TICKS = 4


def log_ticks(values: ArrayLike, max_ticks: int = 7) -> tuple[list[float], list[str]]:
    """Tick positions (log10 of the values) and labels (the values) for an axis
    that plots ``log10(value)``; at most ``max_ticks`` of them, evenly picked."""
    v = np.asarray(values, dtype=np.float64)
    step = max(1, math.ceil(v.size / max_ticks))
    picked = v[::step]
    return [float(np.log10(x)) for x in picked], [_fmt(float(x)) for x in picked]


def shared_zrange(surfaces: Sequence[ArrayLike]) -> tuple[float, float] | None:
    """One colour range for several criteria's heatmaps: from the smallest
    finite value to the 95th percentile of all of them (a few huge cells, a
    criterion that blew up at extreme C, would otherwise wash every other cell
    to one colour); None when no cell is finite yet."""
    finite = np.concatenate(
        [np.asarray(z, dtype=float)[np.isfinite(z)].ravel() for z in surfaces]
        or [np.empty(0)]
    )
    if not finite.size:
        return None
    return float(finite.min()), float(np.percentile(finite, 95))


def heatmap_figure(
    sweep: Any,
    name: str,
    *,
    value: str = "scores",
    zrange: tuple[float, float] | None = None,
    chosen: tuple[int, int] | None = None,
    reference: str = "loo",
    title: str | None = None,
    height: int = 460,
    scale: float = 1.0,
) -> go.Figure:
    """One criterion's surface over the grid: rows sigma, columns C, log axes.

    The axes plot ``log10(C)`` and ``log10(sigma)`` with the values as tick labels,
    so every cell has the same size. ``zrange`` fixes the colour scale (the page
    gives every heatmap the same one); the colour bar is Viridis, dark = small.

    Returns
    -------
    go.Figure
        Traces, in order: ``"surface"`` (the heatmap, no hover), ``"cells"``
        (transparent square markers at the cell centres, ``customdata`` =
        ``[sigma index, C index]``: the hover and the click target),
        ``"argmin: <name>"`` (star), ``"argmin: <reference>"`` (x, when ``name``
        is not the reference and the sweep holds it); with ``chosen``, a layout
        rectangle named ``"chosen cell"`` on that cell's edges. The title is the
        annotation named ``"title"``, on two lines if it is long. No legend: the
        page's caption explains the symbols.
    """
    Cs = np.asarray(sweep.Cs, dtype=np.float64)
    sigmas = np.asarray(sweep.sigmas, dtype=np.float64)
    z = np.asarray(getattr(sweep, value)[name], dtype=np.float64)
    lx, ly = np.log10(Cs), np.log10(sigmas)
    xt, xl = log_ticks(Cs, max_ticks=HEATMAP_X_TICKS)
    yt, yl = log_ticks(sigmas)
    zmin, zmax = zrange if zrange is not None else (None, None)
    rows = [[_short(z[i])[j] for j in range(Cs.size)] for i in range(sigmas.size)]
    surface = {
        "type": "heatmap",
        "name": "surface",
        "x": _short(lx),
        "y": _short(ly),
        "z": rows,
        "zmin": zmin,
        "zmax": zmax,
        "colorscale": HEATMAP_SCALE,
        "hoverinfo": "skip",
        "colorbar": {
            "title": {
                "text": "value" if value == "scores" else "error",
                "side": "right",
            },
            "thickness": 16,
        },
    }
    ii, jj = np.meshgrid(np.arange(sigmas.size), np.arange(Cs.size), indexing="ij")
    ii, jj = ii.ravel(), jj.ravel()
    cells = {
        "type": "scatter",
        "mode": "markers",
        "name": "cells",
        "showlegend": False,
        "x": _short(lx[jj]),
        "y": _short(ly[ii]),
        "customdata": [[int(i), int(j)] for i, j in zip(ii, jj, strict=True)],
        "text": [
            f"C = {_fmt(Cs[j])}<br>σ = {_fmt(sigmas[i])} "
            f"(Lee σ² = {_fmt(lee_sigma2_from_sigma(sigmas[i]))})<br>"
            f"value = {z[i, j]:.4g}"
            for i, j in zip(ii, jj, strict=True)
        ],
        "hovertemplate": "%{text}<extra>click: choose this cell</extra>",
        "marker": {"symbol": "square", "size": 12, "color": "rgba(0,0,0,0)"},
    }
    data: list[dict[str, Any]] = [surface, cells]

    def marker(label: str, ij: tuple[int, int], symbol: str, size: int) -> dict:
        i, j = ij
        return {
            "type": "scatter",
            "mode": "markers",
            "name": label,
            "showlegend": False,
            "x": [float(lx[j])],
            "y": [float(ly[i])],
            "marker": {
                "symbol": symbol,
                "size": size,
                "color": "white",
                "line": {"color": "black", "width": 2},
            },
            "hoverinfo": "skip",
        }

    if np.isfinite(z).any():
        data.append(marker(f"argmin: {name}", _argmin(z), "star", 22))
    if name != reference and reference in getattr(sweep, value):
        ref = np.asarray(getattr(sweep, value)[reference], dtype=np.float64)
        if np.isfinite(ref).any():
            data.append(marker(f"argmin: {reference}", _argmin(ref), "x", 16))
    xedges, yedges = _edges(lx), _edges(ly)
    shapes = []
    if chosen is not None:
        i, j = chosen
        # The chosen cell's outline, drawn at the cell's exact edges.
        shapes.append(
            {
                "type": "rect",
                "name": "chosen cell",
                "xref": "x",
                "yref": "y",
                "x0": xedges[j],
                "x1": xedges[j + 1],
                "y0": yedges[i],
                "y1": yedges[i + 1],
                "line": {"color": PALETTE["bound"], "width": 4},
            }
        )
    # Lines as wide in pixels whatever the text's scale.
    fig = chart(
        data,
        scale=scale,
        height=height,
        # The title is an annotation standing on the plot area: Plotly anchors
        # a layout title by its first line, so a second line ran off the top
        # (yanchor "top") or into the heatmap (yanchor "bottom").
        annotations=[
            title_on_plot(
                title or name,
                xshift=round(-72 * scale),
                width=round(TITLE_LINE / scale),
            )
        ],
        # Room for two title lines above, whatever this title needs, so that
        # heatmaps side by side have their plot areas level; below, the tick
        # labels, a gap and the axis title (automargin grows it if need be).
        margin={"t": 32 + 2 * TITLE_LINE_HEIGHT, "b": 76, "l": 80, "r": 20},
        xaxis=_axis(
            "C (log scale)",
            tickvals=xt,
            ticktext=xl,
            tickangle=0,
            automargin=True,
            range=[xedges[0], xedges[-1]],
        ),
        yaxis=_axis(
            "σ (log scale)",
            tickvals=yt,
            ticktext=yl,
            range=[yedges[0], yedges[-1]],
        ),
        showlegend=False,
        shapes=shapes,
        clickmode="event+select",
        # A click anywhere picks the nearest cell centre.
        hoverdistance=-1,
        dragmode=False,
    )
    fig.layout.xaxis.title.standoff = 10  # the gap below the tick labels
    return fig


def _edges(centres: np.ndarray) -> list[float]:
    """Cell edges around evenly or unevenly spaced centres (half-way points, and
    half a step beyond each end); one centre gets a unit-wide cell."""
    c = np.asarray(centres, dtype=np.float64)
    if c.size == 1:
        return [float(c[0] - 0.5), float(c[0] + 0.5)]
    mid = (c[1:] + c[:-1]) / 2.0
    first, last = c[0] - (mid[0] - c[0]), c[-1] + (c[-1] - mid[-1])
    return [float(first), *map(float, mid), float(last)]


def _argmin(z: np.ndarray) -> tuple[int, int]:
    """(row, column) of the smallest finite entry, first on ties (as the engine)."""
    flat = np.where(np.isfinite(z), z, np.inf)
    i, j = np.unravel_index(int(np.argmin(flat)), z.shape)
    return int(i), int(j)
