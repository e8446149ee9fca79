"""Plotly figure builders for the Model selection page (pure: no streamlit, no fits).

Every builder takes numbers the engine computed (:class:`svmlab.selection.SweepResult`,
the :mod:`svmlab.experiments.lee2006` result dict) and returns a ``go.Figure``:

- :func:`slices_figure`: the criteria against C at a fixed sigma and against sigma
  at a fixed C, side by side on a shared y axis, each line's minimum starred;
- :func:`heatmap_figure`: one criterion's surface over the (C, sigma) grid on log
  axes, its argmin starred, exact LOO's argmin crossed, the chosen cell boxed, and
  a layer of invisible cell-centre markers that carries the hover and the click;
- :func:`margin_gap_figure`: the data coloured by |approximate - exact| leave-one-out
  margin at one cell (where an approximation fails);
- :func:`lee_boxplot`: the test errors of each selector over every seed and test set
  (Lee 2006, Figure 2), with the paper's means and the Bayes error.

Kernel widths: ``sigma`` is svmlab's, ``k = exp(-||x - z||^2 / (2 sigma^2))``; Lee's
``sigma_L^2 = 2 sigma^2`` (``k = exp(-||x - z||^2 / sigma_L^2)``) is shown beside it
in hovers and titles wherever it helps to compare with the paper.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from svmlab.figures import (
    FONT_SIZE,
    PALETTE,
    _axis,
    _base_layout,
    _figure,
    _short,
    _title,
)
from svmlab.kernels import lee_sigma2_from_sigma

__all__ = [
    "CRITERION_STYLE",
    "VALUE_TITLES",
    "heatmap_figure",
    "lee_boxplot",
    "log_ticks",
    "margin_gap_figure",
    "slices_figure",
]

#: Colour (Okabe-Ito, colour-blind safe) and dash of each criterion's line; the
#: dash tells them apart in grey print too. Exact LOO is the black reference.
CRITERION_STYLE: dict[str, tuple[str, str]] = {
    "loo": (PALETTE["free"], "solid"),
    "lee": (PALETTE["negative"], "dash"),
    "plugin": (PALETTE["positive"], "dot"),
    "alo": (PALETTE["accent"], "dashdot"),
    "span": (PALETTE["orange"], "longdashdot"),
    "kfold": (PALETTE["bound"], "longdash"),
}
_FALLBACK = (PALETTE["sky"], "solid")

#: What each surface holds, as an axis or colour-bar title.
VALUE_TITLES: dict[str, str] = {
    # Short enough for the y axis of a 400 px figure; the page's caption says
    # what the value is (the mean loss at the held-out margins).
    "scores": "criterion value",
    "errors": "held-out misclassification",
}

HEATMAP_SCALE = "Viridis"
GAP_SCALE = "Cividis"


def _fmt(v: float) -> str:
    """Three significant digits, written out below a million (1000, not 1e+03)."""
    return f"{float(f'{v:.3g}'):g}"


def log_ticks(values: ArrayLike, max_ticks: int = 7) -> tuple[list[float], list[str]]:
    """Tick positions (log10 of the values) and labels (the values) for an axis
    that plots ``log10(value)``; at most ``max_ticks`` of them, evenly picked."""
    v = np.asarray(values, dtype=np.float64)
    step = max(1, math.ceil(v.size / max_ticks))
    picked = v[::step]
    return [float(np.log10(x)) for x in picked], [_fmt(float(x)) for x in picked]


#: Longest title line of a heatmap: two sit side by side, about 400 px each on a
#: 1280 px projector page, where 40 characters at FONT_SIZE clipped.
TITLE_LINE = 32
#: Heatmap title font size and the height of one of its lines, in pixels.
TITLE_SIZE = FONT_SIZE + 3
TITLE_LINE_HEIGHT = 26
#: C ticks on a heatmap: seven vertical labels ran into the x-axis title.
HEATMAP_X_TICKS = 4


def _wrap_title(text: str, width: int = TITLE_LINE) -> str:
    """``text`` on at most two lines (joined by ``<br>``): broken before its
    parenthesis if it has one ("Plug-in ACV" / "(h at the predicted LOO
    output)"), else at the last space that keeps the first line short."""
    if len(text) <= width:
        return text
    head, paren, tail = text.partition(" (")
    if paren and len(head) <= width and len(tail) + 1 <= width:
        return f"{head}<br>({tail}"
    cut = text.rfind(" ", 0, width + 1)
    if cut <= 0:
        return text
    return f"{text[:cut]}<br>{text[cut + 1 :]}"


def _style(name: str) -> tuple[str, str]:
    return CRITERION_STYLE.get(name, _FALLBACK)


def _finite_argmin(values: np.ndarray) -> int | None:
    ok = np.isfinite(values)
    if not ok.any():
        return None
    return int(np.argmin(np.where(ok, values, np.inf)))


def _panel_title(text: str, x: float) -> dict:
    """A left-aligned title above one panel of a two-panel figure."""
    return {
        "text": text,
        "x": x,
        "xref": "paper",
        "y": 1.02,
        "yref": "paper",
        "xanchor": "left",
        "yanchor": "bottom",
        "showarrow": False,
        "font": {"size": FONT_SIZE},
    }


def slices_figure(
    sweep: Any,
    sigma_index: int,
    C_index: int,
    *,
    criteria: Sequence[str] | None = None,
    titles: Mapping[str, str] | None = None,
    value: str = "scores",
    log_y: bool = False,
    height: int = 460,
) -> go.Figure:
    """The criteria against C at ``sigmas[sigma_index]`` (left) and against sigma at
    ``Cs[C_index]`` (right), one line per criterion on a shared y axis.

    Each line's minimum along its slice is a star of the line's colour; a dotted
    vertical line marks the chosen C (left) and sigma (right), the other slice.

    Returns
    -------
    go.Figure
        Traces ``"<title>"`` (left, legend) and ``"<title> (vs σ)"`` (right) per
        criterion, then ``"min: <title>"`` stars on both sides.
    """
    criteria = list(criteria if criteria is not None else sweep.criteria)
    titles = dict(titles or {})
    Cs = np.asarray(sweep.Cs, dtype=np.float64)
    sigmas = np.asarray(sweep.sigmas, dtype=np.float64)
    sigma, C = float(sigmas[sigma_index]), float(Cs[C_index])
    data: list[dict[str, Any]] = []
    stars: list[dict[str, Any]] = []
    for name in criteria:
        colour, dash = _style(name)
        surface = np.asarray(getattr(sweep, value)[name], dtype=np.float64)
        title = titles.get(name, name)
        for side, (x, y_line) in enumerate(
            ((Cs, surface[sigma_index, :]), (sigmas, surface[:, C_index]))
        ):
            axes = {"xaxis": "x", "yaxis": "y"} if side == 0 else {"xaxis": "x2"}
            axes.setdefault("yaxis", "y")
            hover = (
                "C = %{x:.3g}<br>value = %{y:.4g}<extra>" + title + "</extra>"
                if side == 0
                else "σ = %{x:.3g}<br>Lee σ² = %{customdata:.3g}<br>"
                "value = %{y:.4g}<extra>" + title + "</extra>"
            )
            trace: dict[str, Any] = {
                "type": "scatter",
                "mode": "lines+markers",
                "name": title if side == 0 else f"{title} (vs σ)",
                "legendgroup": name,
                "showlegend": side == 0,
                "x": _short(x),
                "y": _short(y_line),
                "line": {"color": colour, "dash": dash, "width": 3},
                "marker": {"color": colour, "size": 7},
                "hovertemplate": hover,
                **axes,
            }
            if side == 1:
                trace["customdata"] = _short(2.0 * x * x)
            data.append(trace)
            k = _finite_argmin(y_line)
            if k is not None:
                stars.append(
                    {
                        "type": "scatter",
                        "mode": "markers",
                        "name": f"min: {title}",
                        "legendgroup": name,
                        "showlegend": False,
                        "x": [float(x[k])],
                        "y": [float(y_line[k])],
                        "marker": {
                            "symbol": "star",
                            "size": 20,
                            "color": colour,
                            "line": {"color": "white", "width": 1.5},
                        },
                        "hovertemplate": "minimum of this line<extra>"
                        + title
                        + "</extra>",
                        **axes,
                    }
                )
    ytitle = VALUE_TITLES.get(value, value)
    if log_y:
        ytitle += " (log scale)"
    lee = lee_sigma2_from_sigma(sigma)
    layout = _base_layout(
        height=height,
        margin={"t": 70, "b": 130},
        xaxis=_axis(
            "C (log scale)",
            type="log",
            domain=[0.0, 0.47],
            tickvals=_grid_ticks(Cs),
            ticktext=[_fmt(v) for v in _grid_ticks(Cs)],
        ),
        xaxis2=_axis(
            "σ (log scale)",
            type="log",
            domain=[0.53, 1.0],
            tickvals=_grid_ticks(sigmas),
            ticktext=[_fmt(v) for v in _grid_ticks(sigmas)],
        ),
        yaxis=_axis(ytitle, type="log" if log_y else "linear"),
        legend={
            "orientation": "h",
            "x": 0.0,
            "y": -0.27,
            "xanchor": "left",
            "yanchor": "top",
        },
        annotations=[
            _panel_title(f"against C at σ = {_fmt(sigma)} (Lee σ² = {_fmt(lee)})", 0.0),
            _panel_title(f"against σ at C = {_fmt(C)}", 0.53),
        ],
        shapes=[
            _vline(C, "x"),
            _vline(sigma, "x2"),
        ],
    )
    # The right panel shares the left's y axis (a second y axis would let the
    # two halves disagree on scale).
    layout["xaxis2"]["anchor"] = "y"
    return _figure(data + stars, layout)


def _grid_ticks(values: np.ndarray, max_ticks: int = 7) -> list[float]:
    """At most ``max_ticks`` of the grid's own values, evenly picked (ticks at the
    computed points, not Plotly's minor log ticks)."""
    step = max(1, math.ceil(values.size / max_ticks))
    return [float(v) for v in values[::step]]


def _vline(x: float, xref: str) -> dict[str, Any]:
    return {
        "type": "line",
        "xref": xref,
        "x0": x,
        "x1": x,
        "yref": "paper",
        "y0": 0.0,
        "y1": 1.0,
        "line": {"color": PALETTE["reference"], "width": 1.5, "dash": "dot"},
    }


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
    heading = _wrap_title(title or name)
    layout = _base_layout(
        height=height,
        # The title is an annotation standing on the plot area: Plotly anchors
        # a layout title by its first line, so a second line ran off the top
        # (yanchor "top") or into the heatmap (yanchor "bottom").
        annotations=[
            {
                "name": "title",
                "text": heading,
                "xref": "paper",
                "x": 0.0,
                "xanchor": "left",
                "xshift": -72,
                "yref": "paper",
                "y": 1.0,
                "yanchor": "bottom",
                "yshift": 8,
                "align": "left",
                "showarrow": False,
                "font": {"size": TITLE_SIZE},
            }
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
    layout["xaxis"]["title"]["standoff"] = 10  # the gap below the tick labels
    return _figure(data, layout)


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


def margin_gap_figure(
    X: ArrayLike,
    y: ArrayLike,
    approximate: ArrayLike,
    exact: ArrayLike,
    *,
    bounds: tuple[float, float, float, float],
    title: str,
    height: int = 460,
) -> go.Figure:
    """The training points coloured by ``|approximate - exact|`` leave-one-out margin.

    Symbols give the class (circle +1, square -1, as on the Explore page); a thick
    black ring marks the points whose approximate leave-one-out margin has the other
    sign than the exact one (the approximation misjudges their held-out class).

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
    layout = _base_layout(
        height=height,
        # On two lines when long: the figure sits in a half-width column.
        title=_title(_wrap_title(title)),
        margin={"t": 32 + 2 * TITLE_LINE_HEIGHT, "b": 112},
        xaxis=_axis("x₁", range=[xmin, xmax]),
        yaxis=_axis("x₂", range=[ymin, ymax], scaleanchor="x", scaleratio=1),
        legend={
            "orientation": "h",
            "x": 0.0,
            # Below the x-axis title (at -0.16 the legend row covered "x₁").
            "y": -0.22,
            "xanchor": "left",
            "yanchor": "top",
        },
    )
    return _figure(data, layout)


def lee_boxplot(
    errors: Mapping[str, Sequence[float]],
    *,
    titles: Mapping[str, str] | None = None,
    paper: Mapping[str, float] | None = None,
    bayes_error: float | None = None,
    height: int = 480,
) -> go.Figure:
    """Boxplots of test misclassification, one box per selector (Lee 2006, Fig. 2).

    ``errors`` maps a selector to its test-set errors (every seed's test sets
    pooled); ``paper`` maps a selector to the paper's mean (drawn as a diamond);
    ``bayes_error`` is a dashed horizontal line.

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
    layout = _base_layout(
        height=height,
        margin={"t": 64, "b": 120},
        xaxis=_axis("selector (model and criterion)"),
        yaxis=_axis("test misclassification"),
        legend={
            "orientation": "h",
            "x": 1.0,
            "y": 1.02,
            "xanchor": "right",
            "yanchor": "bottom",
        },
    )
    return _figure(data, layout)
