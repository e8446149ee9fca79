"""The Multiclass page's figures: one decision panel per method, and their key.

A panel (:func:`multiclass_panel`) shows the class regions of a fitted
one-vs-rest, one-vs-one or Crammer-Singer model as a tinted PNG (one pixel per
grid point), the region borders in black, the reductions' own binary boundaries
faintly (one-vs-rest: each class's ``f_c = 0``, dashed in its colour;
one-vs-one: each pair's ``f_ij = 0``, grey dotted), the cells where the
reduction's rule does not decide hatched in grey (one-vs-rest: no classifier or
several claim the cell; one-vs-one: a tied vote), the training points (a colour
and a marker shape per class) and a ring around every support vector. The
panels share one key (:func:`key_figure`), so no legend covers a plot.

Builders evaluate the fitted models on the grid (they never fit).
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike
from PIL import Image

from svmlab.array_types import Bounds
from svmlab.figures.plane import grid_points, iso_line, plane_axes, plane_image
from svmlab.figures.style import (
    PALETTE,
    _base_layout,
    _figure,
    _rgb,
    marker_trace,
    tint,
)
from svmlab.svm.multiclass import (
    CrammerSingerSVC,
    OneVsOneSVC,
    OneVsRestSVC,
    ovo_ties,
    ovr_ambiguity,
)
from svmlab.user_text import for_plotly

__all__ = [
    "CLASS_COLOURS",
    "CLASS_SYMBOLS",
    "key_figure",
    "multiclass_panel",
    "multiclass_panel_spec",
    "panel_figure",
    "region_map",
]

#: Class colours (Okabe-Ito, colour-blind safe), then a grey for an eighth class.
CLASS_COLOURS: tuple[str, ...] = (
    PALETTE["positive"],  # blue
    PALETTE["negative"],  # vermillion
    PALETTE["accent"],  # bluish green
    PALETTE["bound"],  # reddish purple
    PALETTE["orange"],
    PALETTE["sky"],
    "#8C7A00",  # Okabe-Ito's yellow darkened: readable on white
    "#666666",
)
#: One marker shape per class as well, so classes never rest on colour alone.
CLASS_SYMBOLS: tuple[str, ...] = (
    "circle",
    "x",
    "square",
    "diamond",
    "triangle-up",
    "cross",
    "star",
    "triangle-down",
)
#: Strength of the region tints over white.
REGION_TINT = 0.30
#: Hatching of the undecided cells: stripe period in grid cells, and its grey.
HATCH_PERIOD = 6
HATCH_COLOUR = "#555555"
BINARY_LINE = "#6E6E6E"


def _colour(c: int) -> str:
    return CLASS_COLOURS[c % len(CLASS_COLOURS)]


def region_map(model: Any, XY: ArrayLike) -> dict[str, Any]:
    """What a panel draws at the grid points ``XY`` (m, 2).

    Returns ``codes`` (m,) the predicted class numbers, ``undecided`` (m,) the
    cells the reduction's own rule leaves open (always False for
    Crammer-Singer), ``lines`` a list of ``(name, values, class or None)``: the
    binary decision values whose zero sets are drawn faintly.
    """
    XY = np.asarray(XY, dtype=np.float64)
    classes = model.classes_
    codes = np.searchsorted(classes, model.predict(XY))
    undecided = np.zeros(XY.shape[0], dtype=bool)
    lines: list[tuple[str, Any, int | None]] = []
    if isinstance(model, OneVsRestSVC):
        scores = model.binary_decisions(XY)
        undecided = ovr_ambiguity(scores) != 1
        if len(model.estimators_) > 1:
            lines = [
                (f"{classes[c]} vs rest", scores[:, c], c) for c in range(len(classes))
            ]
        else:
            lines = [(f"{classes[0]} vs {classes[1]}", scores[:, 1], None)]
    elif isinstance(model, OneVsOneSVC):
        pairwise = model.pairwise_decision_function(XY)
        undecided = ovo_ties(model.votes(XY))
        lines = [
            (f"{classes[i]} vs {classes[j]}", pairwise[:, p], None)
            for p, (i, j) in enumerate(model.pairs_)
        ]
    elif not isinstance(model, CrammerSingerSVC):
        raise TypeError(f"not a multiclass model: {type(model).__name__}")
    return {"codes": codes, "undecided": undecided, "lines": lines}


def _regions_png(codes: np.ndarray, undecided: np.ndarray, resolution: int) -> str:
    """The regions as a PNG data URI; row 0 of the grid is the bottom."""
    k = int(codes.max(initial=0)) + 1
    colours = np.array([_rgb(tint(_colour(c), REGION_TINT)) for c in range(k)])
    rgb = colours[codes].reshape(resolution, resolution, 3).astype(np.float64)
    j, i = np.mgrid[0:resolution, 0:resolution]
    stripe = ((i + j) // (HATCH_PERIOD // 2)) % 2 == 0
    hatch = undecided.reshape(resolution, resolution) & stripe
    rgb[hatch] = 0.45 * rgb[hatch] + 0.55 * np.array(_rgb(HATCH_COLOUR))
    image = Image.fromarray(np.rint(rgb[::-1]).astype(np.uint8), mode="RGB")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=6)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def _line(x: list, y: list, colour: str, dash: str, width: float) -> dict[str, Any]:
    return dict(
        type="scatter",
        x=x,
        y=y,
        mode="lines",
        line={"color": colour, "dash": dash, "width": width},
        hoverinfo="skip",
        showlegend=False,
    )


def multiclass_panel(model: Any, X: ArrayLike, y: ArrayLike, **view: Any) -> go.Figure:
    """One method's panel (see the module docstring): the figure of
    :func:`multiclass_panel_spec`, whose keywords (``bounds``, ``height``,
    ``resolution``, ``class_names``) it takes."""
    return panel_figure(multiclass_panel_spec(model, X, y, **view))


def panel_figure(spec: dict[str, Any]) -> go.Figure:
    """The figure of a :func:`multiclass_panel_spec` (no validation: the
    builder's names are checked by the tests)."""
    return _figure(spec["data"], spec["layout"])


def multiclass_panel_spec(
    model: Any,
    X: ArrayLike,
    y: ArrayLike,
    *,
    bounds: Bounds,
    height: int = 420,
    resolution: int = 160,
    class_names: Sequence[str] | None = None,
) -> dict[str, Any]:
    """:func:`multiclass_panel`'s figure as plain ``{"data", "layout"}`` dicts
    (lists, numbers and strings only): what a page caches once per request, so
    that a visit does not evaluate the three models on the grid again (about
    0.1 s of the page's script, issue 28). ``y`` holds labels of
    ``model.classes_``; ``class_names`` the texts shown for them."""
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    classes = model.classes_
    # Class names may be a CSV's labels: shown literally (svmlab.user_text).
    names = [for_plotly(c) for c in (classes if class_names is None else class_names)]
    xs, ys, XY = grid_points(bounds, resolution)
    regions = region_map(model, XY)
    codes = regions["codes"]
    traces: list[dict[str, Any]] = []
    for _, values, c in regions["lines"]:
        Z = np.asarray(values).reshape(len(ys), len(xs))
        lx, ly = iso_line(xs, ys, Z, 0.0)
        colour = BINARY_LINE if c is None else tint(_colour(c), 0.8)
        traces.append(_line(lx, ly, colour, "dash" if c is not None else "dot", 1.6))
    grid_codes = codes.reshape(len(ys), len(xs))
    for c in range(len(classes)):
        if np.any(grid_codes == c) and not np.all(grid_codes == c):
            Z = (grid_codes == c).astype(np.float64)
            lx, ly = iso_line(xs, ys, Z, 0.5)
            traces.append(_line(lx, ly, PALETTE["boundary"], "solid", 1.4))
    point_codes = np.searchsorted(classes, y)
    for c in range(len(classes)):
        traces.append(
            marker_trace(
                X,
                point_codes == c,
                names[c],
                symbol=CLASS_SYMBOLS[c % len(CLASS_SYMBOLS)],
                size=7,
                colour=_colour(c),
                width=1.2,
                hovertemplate=f"class {names[c]}<br>(%{{x}}, %{{y}})<extra></extra>",
                showlegend=False,
            )
        )
    traces.append(
        marker_trace(
            X,
            np.asarray(model.support_),
            "support vector",
            symbol="circle-open",
            size=13,
            colour=PALETTE["free"],
            width=1.3,
            hoverinfo="skip",
            showlegend=False,
        )
    )
    image = plane_image(_regions_png(codes, regions["undecided"], resolution), bounds)
    layout = _base_layout(
        height=int(height),
        margin={"l": 56, "r": 8, "t": 8, "b": 48},
        showlegend=False,
        images=[image],
        **plane_axes(bounds),
    )
    return {"data": traces, "layout": layout}


def key_figure(
    class_names: Sequence[str], *, height: int = 72, scale: float = 1.0
) -> go.Figure:
    """A legend-only strip: the classes' markers, the support-vector ring, the
    region border, the binary boundaries and the hatching of undecided cells.

    ``scale`` grows its text, symbols and entries with the page's (classroom
    mode: 1.25, as the family's key), and its height with them: a key drawn in
    Plotly's pixels does not follow the page's root font."""
    entries: list[dict[str, Any]] = []

    def entry(name: str, **style: Any) -> None:
        entries.append(
            dict(
                type="scatter",
                x=[None],
                y=[None],
                name=name,
                showlegend=True,
                hoverinfo="skip",
                **style,
            )
        )

    for c, name in enumerate(class_names):
        colour = _colour(c)
        entry(
            f"class {for_plotly(name)}",
            mode="markers",
            marker={
                "symbol": CLASS_SYMBOLS[c % len(CLASS_SYMBOLS)],
                "color": colour,
                "size": 10 * scale,
                "line": {"width": 1.5 * scale, "color": colour},
            },
        )
    entry(
        "support vector",
        mode="markers",
        marker={
            "symbol": "circle-open",
            "size": 13 * scale,
            "color": PALETTE["free"],
        },
    )
    line = 1.6 * scale
    entry("region border", mode="lines", line={"color": "#000000", "width": line})
    entry(
        "one-vs-rest boundary",
        mode="lines",
        line={"color": tint(_colour(0), 0.8), "dash": "dash", "width": line},
    )
    entry(
        "pairwise boundary",
        mode="lines",
        line={"color": BINARY_LINE, "dash": "dot", "width": line},
    )
    entry(
        "undecided (hatched)",
        mode="markers",
        marker={
            "symbol": "square",
            "size": 13 * scale,
            "color": tint(HATCH_COLOUR, 0.6),
        },
    )
    layout = _base_layout(
        height=round(height * scale),
        margin={"l": 0, "r": 0, "t": 0, "b": 0},
        showlegend=True,
        hovermode=False,
        legend={
            "orientation": "h",
            "x": 0,
            "y": 1,
            "yanchor": "top",
            "bgcolor": "rgba(0,0,0,0)",
            "font": {"size": round(14 * scale)},
            "itemwidth": round(30 * scale),
            "tracegroupgap": 0,
            "maxheight": 1.0,
            "entrywidthmode": "pixels",
            "entrywidth": round(150 * scale),
        },
        xaxis={"visible": False},
        yaxis={"visible": False},
    )
    return _figure(entries, layout)
