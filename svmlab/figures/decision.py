"""The decision picture (Explore's main figure): the regions of f, the boundary and
the margins, the training and test points, the support vectors.

Built from the surface image and level lines of :mod:`svmlab.figures.plane` and the
points layer of :mod:`svmlab.figures.points`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from svmlab.array_types import Bounds
from svmlab.errors import DataError, ParameterError
from svmlab.figures.model_state import (
    _has_box,
    _label_text,
    _signed_labels,
    _snapshot_index,
    _state,
)
from svmlab.figures.plane import (
    PLANE_TITLES,
    data_bounds,
    grid_points,
    iso_line,
    plane_axes,
    plane_image,
    surface_png,
)
from svmlab.figures.points import (
    _CLASS_COLOUR,
    _SYMBOLS,
    POINT_SCALE,
    _hover_trace,
    _marker_size,
    _swatch,
    points_png,
)
from svmlab.figures.style import (
    FONT_SIZE,
    PALETTE,
    _base_layout,
    _figure,
    _short,
    marker_trace,
)
from svmlab.user_text import for_plotly

if TYPE_CHECKING:
    from svmlab.svm.classifier import SVC

__all__ = ["data_spec", "decision_figure", "decision_spec", "legend_entries"]


def legend_entries(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The legend of a figure spec as plain records, in legend order.

    Each is ``{"name", "kind", "symbol", "colour", "line_colour", "line_width",
    "dash"}`` (``kind`` "marker" or "line"), read from the traces Plotly would
    list, for a page that draws the key itself (``decision_spec(legend="none")``:
    on a narrow column a wrapped Plotly legend takes the plot's height).
    """
    entries = []
    traces = [t for t in spec.get("data", []) if t.get("showlegend", True)]
    for trace in sorted(traces, key=lambda t: t.get("legendrank", 1000)):
        name = trace.get("name")
        if not name:
            continue
        mode = str(trace.get("mode", "markers"))
        marker = trace.get("marker") or {}
        line = trace.get("line") or {}
        if "markers" in mode:
            edge = marker.get("line") or {}
            entries.append(
                {
                    "name": str(name),
                    "kind": "marker",
                    "symbol": str(marker.get("symbol", "circle")),
                    "colour": str(marker.get("color", PALETTE["text"])),
                    "line_colour": str(edge.get("color", "white")),
                    "line_width": float(edge.get("width", 0.0)),
                    "dash": "solid",
                }
            )
        elif "lines" in mode:
            entries.append(
                {
                    "name": str(name),
                    "kind": "line",
                    "symbol": "",
                    "colour": str(line.get("color", PALETTE["text"])),
                    "line_colour": str(line.get("color", PALETTE["text"])),
                    "line_width": float(line.get("width", 2.0)),
                    "dash": str(line.get("dash", "solid")),
                }
            )
    return entries


_POINT_HOVER = (
    "<b>i = %{customdata[0]}</b><br>αᵢ = %{customdata[1]}<br>"
    "mᵢ = yᵢ f(xᵢ) = %{customdata[2]}<br>ξᵢ = max(0, 1 − mᵢ) = %{customdata[3]}"
    "<extra>%{fullData.name}</extra>"
)


def decision_figure(
    model: SVC, X: ArrayLike, y: ArrayLike, **options: Any
) -> go.Figure:
    """The main picture: regions of f, boundary and margins, points, support vectors.

    ``options`` are :func:`decision_spec`'s keywords. In a notebook,
    ``decision_figure(model, X, y)`` draws the fitted model on its training
    points (the figure shows itself as a cell's last value, or ``fig.show()``).

    Parameters
    ----------
    model
        A fitted :class:`svmlab.SVC`.
    X, y
        The training data the model was fitted on, shapes (n, 2) and (n,).
    bounds
        ``(xmin, xmax, ymin, ymax)``: the fixed axis ranges (see :func:`data_bounds`);
        None (the default): the training and test points' own, padded.
    test
        Optional ``(X_test, y_test)``, drawn as hollow markers.
    resolution
        Grid points per axis for the shaded surface and the level lines.
    snapshot
        Draw the state at ``model.history_`` record ``snapshot`` (negative indices
        count from the end) instead of the final one, for playback.
    new_points
        Optional boolean mask (n,) of user-added points, drawn with a dark outline.
    height
        Figure height in pixels.
    dragmode
        Plotly's drag mode (``"zoom"``, ``"select"``, ``"lasso"``, ``"pan"``).
    legend
        ``"right"`` (vertical, beside the plot) or ``"top"`` (horizontal).

    Returns
    -------
    go.Figure
        Layout image (the regions), then traces "f = 0 (boundary)",
        "f = +1 margin", "f = −1 margin", "class <label>" for both classes,
        "test: <label>" (with ``test``), the free SV ring trace ("free SV (0 < α < C)",
        or "SV (α > 0)" when alpha has no upper bound) and "bound SV (α = C)".
    """
    spec = decision_spec(model, X, y, **options)
    return _figure(spec["data"], spec["layout"])


def decision_spec(
    model: SVC,
    X: ArrayLike,
    y: ArrayLike,
    *,
    bounds: Bounds | None = None,
    test: tuple[ArrayLike, ArrayLike] | None = None,
    resolution: int = 120,
    snapshot: int | None = None,
    new_points: ArrayLike | None = None,
    height: int = 620,
    dragmode: str = "zoom",
    legend: str = "right",
    scale: float = 1.0,
    highlight: int | None = None,
    axis_titles: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """:func:`decision_figure`'s figure as plain dicts, before ``go.Figure`` wraps it.

    ``{"data": [trace dicts], "layout": {...}}``, lists and floats only, ready for
    ``json.dumps``: for callers that serialise the figure themselves (building the
    ``go.Figure`` and turning it back into a dict copies every list twice, about a
    third of the build). The arguments are listed under :func:`decision_figure`,
    and:

    scale
        Markers, lines and text (the key's too, with the margin holding it)
        this many times their size (classroom mode on a projector uses about
        1.5).
    highlight
        Index of one training point to mark with a large ring (the point
        inspector's point), or None.
    axis_titles
        The axes' titles (an upload's column names: visitor text, escaped
        here); x₁ and x₂ when None.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        raise DataError(f"decision_figure draws 2-D data; X has shape {X.shape}.")
    n = X.shape[0]
    if np.asarray(model.alpha_).shape[0] != n or np.asarray(y).shape[0] != n:
        raise DataError(
            f"X and y must be the {np.asarray(model.alpha_).shape[0]} training "
            f"points of the model; got {n} points and {np.asarray(y).shape[0]} labels."
        )
    y_pm = _signed_labels(model, y)
    if bounds is None:
        every = [X] if test is None else [X, np.asarray(test[0], dtype=np.float64)]
        bounds = data_bounds(np.vstack(every))
    xs, ys, XY = grid_points(bounds, resolution)
    if snapshot is None:
        f_grid = model.decision_function(XY)
    else:
        f_grid = model.history_decision_function(XY, _snapshot_index(model, snapshot))
    alpha, margins, state = _state(model, X, y_pm, snapshot)
    Z = f_grid.reshape(len(ys), len(xs))

    traces: list[dict[str, Any]] = []
    lines = (
        (0.0, "f = 0 (boundary)", PALETTE["boundary"], "solid", 3.0),
        (1.0, "f = +1 margin", PALETTE["positive"], "dash", 2.0),
        (-1.0, "f = −1 margin", PALETTE["negative"], "dash", 2.0),
    )
    for rank, (level, name, colour, dash, width) in enumerate(lines):
        lx, ly = iso_line(xs, ys, Z, level)
        traces.append(
            dict(
                type="scatter",
                x=lx,
                y=ly,
                mode="lines",
                name=name,
                line={"color": colour, "dash": dash, "width": width * scale},
                hoverinfo="skip",
                legendrank=20 + rank,
            )
        )

    size = max(1, round(_marker_size(n) * scale))
    added = (
        np.zeros(n, dtype=bool)
        if new_points is None
        else np.asarray(new_points, dtype=bool)
    )
    if added.shape != (n,):
        raise DataError(f"new_points must be a mask of length {n}.")
    slack = np.maximum(0.0, 1.0 - margins)
    painted: list[tuple[Any, ...]] = []  # the points layer, in drawing order
    for rank, sign in enumerate((1.0, -1.0)):
        idx = np.flatnonzero(y_pm == sign)
        label = _label_text(model.classes_[1 if sign > 0 else 0], model.classes_)
        name, colour = f"class {label}", _CLASS_COLOUR[sign]
        custom = list(
            zip(
                idx.tolist(),
                _short(alpha[idx], 3),
                _short(margins[idx], 3),
                _short(slack[idx], 3),
                strict=True,
            )
        )
        traces.append(_hover_trace(name, X[idx], colour, custom, _POINT_HOVER))
        marker = {"symbol": _SYMBOLS[sign], "color": colour, "size": size}
        traces.append(
            _swatch(name, {**marker, "line": {"color": "white", "width": 1}}, 1 + rank)
        )
        # User-added points get a dark, wider outline.
        new = added[idx]
        painted.append(
            (
                X[idx],
                _SYMBOLS[sign],
                colour,
                size,
                np.where(new, PALETTE["free"], "#FFFFFF"),
                np.where(new, 2.0, 1.0),
                False,
            )
        )

    if test is not None:
        test_traces, test_painted = _test_traces(model, test, size, snapshot)
        traces += test_traces
        painted += test_painted

    boxed = _has_box(model)
    rings = (
        (1, "free SV (0 < α < C)" if boxed else "SV (α > 0)", PALETTE["free"], 2.0),
        (2, "bound SV (α = C)", PALETTE["bound"], 2.5),
    )
    for rank, (code, name, colour, width) in enumerate(rings):
        traces.append(
            marker_trace(
                X,
                state == code,
                name,
                symbol="circle-open",
                size=size + 7,
                colour=colour,
                width=width * scale,
                hoverinfo="skip",
                showlegend=boxed or code == 1,
                legendrank=10 + rank,
            )
        )

    surface = plane_image(surface_png(Z), bounds, grid=(len(xs), len(ys)))
    if legend == "top":
        legend_layout: dict[str, Any] = {
            "orientation": "h",
            "x": 0.0,
            "xanchor": "left",
            "y": 1.02,
            "yanchor": "bottom",
        }
        margin = {"l": 72, "r": 24, "t": 110, "b": 64}
    elif legend == "right":
        legend_layout = {
            "orientation": "v",
            "x": 1.02,
            "xanchor": "left",
            "y": 1.0,
            "yanchor": "top",
        }
        margin = {"l": 72, "r": 230, "t": 24, "b": 64}
    elif legend == "none":  # the page draws the key beside the chart
        legend_layout = {}
        margin = {"l": 64, "r": 16, "t": 16, "b": 56}
    else:
        raise ParameterError(
            f"legend must be 'right', 'top' or 'none'; got {legend!r}."
        )
    if scale != 1.0:  # room for the larger tick labels and axis titles
        grown = ("l", "b") if legend == "none" else ("l", "b", "t", "r")
        # and for the larger key, where there is one (above or beside the plot)
        margin = {**margin, **{k: round(margin[k] * scale) for k in grown}}
    # The plot area is square (equal aspect): as tall as the figure allows, or
    # narrower when the page column is (about 520 px on a 1400 px wide screen
    # with the sidebar open). Paint the points for that width, at POINT_SCALE
    # image pixels per screen pixel, so they show at their Plotly size.
    px = POINT_SCALE
    side = px * max(64, min(int(height) - margin["t"] - margin["b"], 520))
    points_layer = plane_image(
        points_png(
            bounds,
            side,
            [
                (
                    P,
                    symbol,
                    colour,
                    px * size,
                    lines,
                    px * np.asarray(widths),
                    hollow,
                )
                for P, symbol, colour, size, lines, widths, hollow in painted
            ],
        ),
        bounds,
    )
    layout = _base_layout(
        height=int(height),
        margin=margin,
        legend=legend_layout,
        showlegend=legend != "none",
        dragmode=dragmode,
        images=[surface, points_layer],
        **plane_axes(bounds, _titles(axis_titles)),
    )
    if highlight is not None and 0 <= highlight < n:
        traces.append(
            dict(
                type="scatter",
                x=[float(X[highlight, 0])],
                y=[float(X[highlight, 1])],
                mode="markers",
                name="inspected point",
                marker={
                    "symbol": "circle-open",
                    "size": size + 20,
                    "color": PALETTE["orange"],
                    "line": {"width": 4 * scale, "color": PALETTE["orange"]},
                },
                hoverinfo="skip",
                showlegend=True,
                legendrank=40,
            )
        )
    if scale != 1.0:
        big = round(FONT_SIZE * scale)
        layout["font"] = {**layout["font"], "size": big}
        layout["legend"] = {**layout["legend"], "font": {"size": big}}
        for axis in ("xaxis", "yaxis"):
            layout[axis]["title"]["font"] = {"size": big + 1}
            layout[axis]["tickfont"] = {"size": big}
    return {"data": traces, "layout": {**layout, "template": {}}}


def _titles(axis_titles: tuple[str, str] | None) -> tuple[str, str]:
    """The axes' titles: visitor text (an upload's columns) escaped for Plotly."""
    if axis_titles is None:
        return PLANE_TITLES
    return (for_plotly(axis_titles[0]), for_plotly(axis_titles[1]))


def data_spec(
    X: ArrayLike,
    y: ArrayLike,
    *,
    bounds: Bounds,
    height: int = 620,
    dragmode: str = "zoom",
    scale: float = 1.0,
    axis_titles: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """The training points alone (labels ±1), on the axes and with the markers
    :func:`decision_spec` draws, and no model: what a page shows while no fit
    could be drawn (the first one it asked for was refused), so the data never
    disappear with it. Plain dicts, as :func:`decision_spec`'s, legend beside."""
    X = np.asarray(X, dtype=np.float64)
    y_pm = np.where(np.asarray(y, dtype=np.float64) > 0, 1.0, -1.0)
    if X.ndim != 2 or X.shape[1] != 2 or y_pm.shape != (X.shape[0],):
        raise DataError(f"data_spec draws 2-D points with a label each; got {X.shape}.")
    size = max(1, round(_marker_size(X.shape[0]) * scale))
    traces: list[dict[str, Any]] = []
    painted = []
    template = "x = (%{x}, %{y})<extra>%{fullData.name}</extra>"
    for rank, sign in enumerate((1.0, -1.0)):
        idx = np.flatnonzero(y_pm == sign)
        name, colour = f"class {'+1' if sign > 0 else '−1'}", _CLASS_COLOUR[sign]
        traces.append(_hover_trace(name, X[idx], colour, [], template))
        marker = {"symbol": _SYMBOLS[sign], "color": colour, "size": size}
        traces.append(
            _swatch(name, {**marker, "line": {"color": "white", "width": 1}}, 1 + rank)
        )
        painted.append(
            (X[idx], _SYMBOLS[sign], colour, POINT_SCALE * size, "#FFFFFF", 1.0, False)
        )
    margin = {"l": 64, "r": 16, "t": 16, "b": 56}
    side = POINT_SCALE * max(64, min(int(height) - margin["t"] - margin["b"], 520))
    layer = plane_image(
        points_png(
            bounds,
            side,
            [
                (P, sym, col, sz, line, POINT_SCALE * np.full(len(P), width), hollow)
                for P, sym, col, sz, line, width, hollow in painted
            ],
        ),
        bounds,
    )
    layout = _base_layout(
        height=int(height),
        margin=margin,
        legend={},
        showlegend=False,
        dragmode=dragmode,
        images=[layer],
        **plane_axes(bounds, _titles(axis_titles)),
    )
    return {"data": traces, "layout": {**layout, "template": {}}}


def _test_traces(
    model: SVC, test: tuple[ArrayLike, ArrayLike], size: int, snapshot: int | None
) -> tuple[list[dict[str, Any]], list[tuple[Any, ...]]]:
    """Hover and legend traces of the test points, and their points-layer entries."""
    X_test = np.asarray(test[0], dtype=np.float64)
    y_test = _signed_labels(model, test[1])
    if X_test.shape[0] == 0:
        return [], []
    if snapshot is None:
        f = model.decision_function(X_test)
    else:
        f = model.history_decision_function(X_test, _snapshot_index(model, snapshot))
    m = y_test * f
    traces, painted = [], []
    for rank, sign in enumerate((1.0, -1.0)):
        idx = np.flatnonzero(y_test == sign)
        label = _label_text(model.classes_[1 if sign > 0 else 0], model.classes_)
        name, colour = f"test: {label}", _CLASS_COLOUR[sign]
        template = (
            "test point<br>m = y f(x) = %{customdata}<extra>%{fullData.name}</extra>"
        )
        traces.append(
            _hover_trace(name, X_test[idx], colour, _short(m[idx], 3), template)
        )
        marker = {
            "symbol": _SYMBOLS[sign] + "-open",
            "color": colour,
            "size": size,
            "line": {"width": 2, "color": colour},
        }
        traces.append(_swatch(name, marker, 3 + rank))
        painted.append((X_test[idx], _SYMBOLS[sign], colour, size, colour, 2.0, True))
    return traces, painted
