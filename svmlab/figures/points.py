"""The points layer: training and test points painted into a transparent PNG.

SVG markers cost the browser ~0.1 ms each on every redraw, so the training and test
points are painted into a second, transparent PNG layer over the surface
(:func:`points_png`), with hover from marker-less traces (``mode="none"``,
``hoveron="points"``: no SVG node per point; :func:`_hover_trace`) and legend
entries from one-point swatch traces (:func:`_swatch`).
"""

from __future__ import annotations

import base64
import io
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from PIL import Image, ImageDraw

from svmlab.array_types import Array, Bounds
from svmlab.figures.style import PALETTE, _rgb, _short

__all__ = ["POINT_SCALE", "points_png"]


def _marker_size(n: int) -> int:
    return 10 if n <= 250 else 8 if n <= 600 else 6


_SYMBOLS = {1.0: "circle", -1.0: "square"}
_CLASS_COLOUR = {1.0: PALETTE["positive"], -1.0: PALETTE["negative"]}

#: Image pixels per screen pixel of the points layer (crisp on high-DPI screens).
POINT_SCALE = 2
#: Palette of the points layer; index 0 is transparent.
_POINT_COLOURS = (
    "#FFFFFF",
    "#FFFFFF",
    "#000000",
    PALETTE["positive"],
    PALETTE["negative"],
)
_POINT_INDEX = {colour: i for i, colour in enumerate(_POINT_COLOURS)}


_POINT_PALETTE = [c for colour in _POINT_COLOURS for c in _rgb(colour)]


def points_png(
    bounds: Bounds,
    side: int,
    layers: Sequence[tuple[ArrayLike, str, str, float, ArrayLike, ArrayLike, bool]],
) -> str:
    """Markers painted into a transparent square PNG spanning ``bounds``.

    Parameters
    ----------
    bounds
        ``(xmin, xmax, ymin, ymax)`` the image covers (its edges, not pixel centres).
    side
        Image width and height in pixels.
    layers
        Drawn in order, each ``(X, symbol, colour, size, line_colours, line_widths,
        hollow)``: points (k, 2); ``"circle"`` or ``"square"``; fill colour (a
        :data:`PALETTE` value); Plotly marker size in image pixels; outline colour
        and width per point (or one for all); ``hollow`` draws the outline only,
        in ``colour``. As Plotly strokes a marker of size s and line width w, the
        painted shape spans s + w.

    Returns
    -------
    str
        A palette PNG data URI (colours in ``_POINT_COLOURS``, index 0 clear).
        The last few layers are kept by their inputs and handed back as they are.
    """
    key = _points_key(bounds, side, layers)
    with _POINTS_LOCK:
        cached = _POINTS_CACHE.get(key)
    if cached is not None:
        return cached
    uri = _paint_points(bounds, side, layers)
    with _POINTS_LOCK:
        _POINTS_CACHE[key] = uri
        while len(_POINTS_CACHE) > _POINTS_CACHE_SIZE:
            _POINTS_CACHE.popitem(last=False)
    return uri


#: Painted point layers kept by their inputs: moving C or sigma changes the
#: fit, not the points, so the same layer comes back (a few ms per rerun).
_POINTS_CACHE: OrderedDict[tuple, str] = OrderedDict()
_POINTS_CACHE_SIZE = 16
_POINTS_LOCK = threading.Lock()


def _array_key(values: ArrayLike, dtype: Any = None) -> tuple:
    a = np.asarray(values, dtype=dtype)
    if a.dtype.kind == "O":
        return (a.shape, tuple(a.ravel().tolist()))
    return (a.dtype.str, a.shape, a.tobytes())


def _points_key(
    bounds: Bounds,
    side: int,
    layers: Sequence[tuple[ArrayLike, str, str, float, ArrayLike, ArrayLike, bool]],
) -> tuple:
    return (
        tuple(float(b) for b in bounds),
        int(side),
        tuple(
            (
                _array_key(X, np.float64),
                symbol,
                colour,
                float(size),
                _array_key(line_colours),
                _array_key(line_widths, np.float64),
                bool(hollow),
            )
            for X, symbol, colour, size, line_colours, line_widths, hollow in layers
        ),
    )


def _paint_points(
    bounds: Bounds,
    side: int,
    layers: Sequence[tuple[ArrayLike, str, str, float, ArrayLike, ArrayLike, bool]],
) -> str:
    """:func:`points_png` without the cache."""
    xmin, xmax, ymin, ymax = (float(b) for b in bounds)
    image = Image.new("P", (side, side), 0)
    image.putpalette(_POINT_PALETTE)
    draw = ImageDraw.Draw(image)
    for X, symbol, colour, size, line_colours, line_widths, hollow in layers:
        X = np.asarray(X, dtype=np.float64).reshape(-1, 2)
        k = X.shape[0]
        if k == 0:
            continue
        half = (size + np.broadcast_to(np.asarray(line_widths, float), (k,))) / 2.0
        px = (X[:, 0] - xmin) / (xmax - xmin) * side
        py = (ymax - X[:, 1]) / (ymax - ymin) * side
        boxes = np.column_stack([px - half, py - half, px + half, py + half]).tolist()
        widths = np.maximum(1, np.rint(2.0 * half - size)).astype(int).tolist()
        lines = [
            _POINT_INDEX[c]
            for c in np.broadcast_to(np.asarray(line_colours, str), (k,)).tolist()
        ]
        shape = draw.ellipse if symbol == "circle" else draw.rectangle
        fill = _POINT_INDEX[colour]
        for box, width, line in zip(boxes, widths, lines, strict=True):
            if hollow:
                shape(box, fill=None, outline=fill, width=width)
            else:
                shape(box, fill=fill, outline=line, width=width)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", transparency=0, compress_level=6)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def _swatch(name: str, marker: dict[str, Any], rank: int) -> dict[str, Any]:
    """A legend entry for points painted into the image: one empty point."""
    return dict(
        type="scatter",
        x=[None],
        y=[None],
        mode="markers",
        name=name,
        legendgroup=name,
        marker=marker,
        hoverinfo="skip",
        legendrank=rank,
    )


def _hover_trace(
    name: str, X: Array, colour: str, customdata: list, template: str
) -> dict[str, Any]:
    """Hover for painted points: a trace with no markers (no SVG node per point)."""
    return dict(
        type="scatter",
        x=_short(X[:, 0]),
        y=_short(X[:, 1]),
        mode="none",
        hoveron="points",
        name=name,
        legendgroup=name,
        showlegend=False,
        customdata=customdata,
        hovertemplate=template,
        hoverlabel={"bgcolor": colour, "font": {"color": "white"}},
    )
