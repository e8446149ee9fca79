"""Plotly figure builders: model + data in, ``go.Figure`` out (STYLE rule 1).

The only module of svmlab that imports plotly. Builders are pure: they never fit,
they only evaluate a fitted model (``decision_function``,
``history_decision_function``) and read its fitted attributes.

Speed and size (measured facts in the project's tools notes): the decision surface
is a small server-rendered PNG placed as a layout image, not a contour or heatmap
trace; the training and test points are painted into a second, transparent PNG
layer (SVG markers cost the browser ~0.1 ms each on every redraw), with hover
from marker-less traces (``mode="none"``, ``hoveron="points"``: no SVG node per
point) and legend entries from one-point swatch traces; the f = 0 and f = +-1
lines are traced on the server with contourpy; traces hold plain lists rounded to a
few significant digits; no template, fixed margins and a constant ``uirevision``.
``layout.datarevision`` and the chart ``config`` (modebar) are the page's job.

Colours are the Okabe-Ito palette (:data:`PALETTE`), safe for colour-blind viewers;
the two classes also differ in marker shape.
"""

from __future__ import annotations

import base64
import io
import math
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import contourpy
import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike, NDArray
from PIL import Image, ImageDraw

from svmlab.errors import DataError, ParameterError
from svmlab.losses import Hinge, Loss, ModifiedHinge
from svmlab.solvers.base import sv_states

if TYPE_CHECKING:
    from svmlab.estimator import SVC
    from svmlab.solvers.base import History

__all__ = [
    "PALETTE",
    "alpha_histogram",
    "convergence_figure",
    "data_bounds",
    "decision_figure",
    "decision_spec",
    "grid_points",
    "legend_entries",
    "loss_figure",
    "unresolved_width_note",
]

Array = NDArray[np.float64]
Bounds = tuple[float, float, float, float]

#: Okabe-Ito colours (Okabe & Ito 2008) by role; every figure takes its colours here.
PALETTE: dict[str, str] = {
    "positive": "#0072B2",  # blue: class +1, f > 0
    "negative": "#D55E00",  # vermillion: class -1, f < 0
    "free": "#000000",  # black: free support vectors (0 < alpha < C)
    "bound": "#CC79A7",  # reddish purple: bound support vectors (alpha = C)
    "non_sv": "#A0A0A0",  # grey: alpha = 0
    "boundary": "#000000",
    "reference": "#555555",  # the hinge drawn for comparison
    "accent": "#009E73",  # bluish green
    "orange": "#E69F00",
    "sky": "#56B4E9",
    "yellow": "#F0E442",
    "axis": "#444444",
    "text": "#222222",
}

FONT_SIZE = 16
#: |f| at which the region tint saturates.
F_SATURATION = 1.5
#: Strongest tint of the class colour over white (light: points stay readable).
MAX_TINT = 0.36
#: Tint levels per side in the PNG palette (2 * levels + 1 colours in all).
TINT_LEVELS = 24
UIREVISION = "svmlab"


# -- shared helpers ---------------------------------------------------------------


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _base_layout(**overrides: Any) -> dict[str, Any]:
    """The layout every figure shares (fonts, margins, colours), with overrides.

    Nested dicts (``margin``, ``font``, ``legend``...) are merged key by key.
    """
    base: dict[str, Any] = {
        "font": {"size": FONT_SIZE, "color": PALETTE["text"]},
        "margin": {"l": 72, "r": 24, "t": 40, "b": 64},
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "hovermode": "closest",
        "hoverlabel": {"font": {"size": FONT_SIZE}},
        "legend": {"font": {"size": FONT_SIZE}, "bgcolor": "rgba(255,255,255,0.85)"},
        "uirevision": UIREVISION,
    }
    return _merge(base, overrides)


def _axis(title: str, **overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "title": {"text": title, "font": {"size": FONT_SIZE + 1}},
        "showline": True,
        "linecolor": PALETTE["axis"],
        "mirror": True,
        "ticks": "outside",
        "showgrid": False,
        "zeroline": False,
    }
    return _merge(base, overrides)


def _title(text: str) -> dict[str, Any]:
    return {
        "text": text,
        "x": 0.01,
        "xanchor": "left",
        "y": 0.98,
        "yanchor": "top",
        "yref": "container",
    }


def _figure(data: Sequence[dict[str, Any]], layout: dict[str, Any]) -> go.Figure:
    """A figure from plain dicts, with no template and without plotly's validation.

    Validation costs ~10x the rest of a build (it walks every list); the property
    names here are checked once by the tests, which rebuild each figure validated.
    An empty template keeps plotly's default one out of the payload.
    """
    return go.Figure(
        {"data": list(data), "layout": {**layout, "template": {}}}, _validate=False
    )


def _short(values: ArrayLike, digits: int = 4) -> list[float | None]:
    """Plain floats rounded to ``digits`` significant digits; non-finite -> None.

    Formatting through a string gives the shortest JSON (``0.1234``, not
    ``0.12340000000000001``).
    """
    flat = np.asarray(values, dtype=np.float64).ravel().tolist()
    return [float(f"{v:.{digits}g}") if math.isfinite(v) else None for v in flat]


def _label_text(label: object, classes: Sequence[object]) -> str:
    if isinstance(label, bool | np.bool_):
        return str(label)
    if isinstance(label, int | float | np.number):
        value = float(label)
        if value.is_integer():
            numeric = [float(c) for c in classes]
            if sorted(numeric) == [-1.0, 1.0]:
                return "+1" if value > 0 else "−1"
            return str(int(value))
        return f"{value:g}"
    return str(label)


def _signed_labels(model: SVC, y: ArrayLike) -> Array:
    """+1 for ``model.classes_[1]``, -1 otherwise."""
    return np.where(np.asarray(y) == model.classes_[1], 1.0, -1.0)


def _snapshot_index(model: SVC, snapshot: int) -> int:
    history = getattr(model, "history_", None)
    count = 0 if history is None else len(history.alpha)
    if count == 0:
        raise ParameterError(
            "This model has no recorded iterations to replay; fit it with "
            "record_history=True and an iterative solver."
        )
    k = int(snapshot)
    if not -count <= k < count:
        raise ParameterError(
            f"snapshot {snapshot} is out of range: the history holds {count} "
            f"snapshots (0 to {count - 1})."
        )
    return k % count


def _loss_name(model: SVC) -> str:
    return str(getattr(model, "loss", "hinge"))


def _has_box(model: SVC) -> bool:
    """Whether alpha has the upper bound C (no bound for the squared hinge, C = inf)."""
    return math.isfinite(float(model.C)) and _loss_name(model) != "squared_hinge"


def _state(
    model: SVC, X: Array, y_pm: Array, snapshot: int | None
) -> tuple[Array, Array, NDArray[np.integer]]:
    """alpha, margins and SV states now or at a history snapshot."""
    if snapshot is None:
        return (
            np.asarray(model.alpha_, dtype=np.float64),
            np.asarray(model.margins_, dtype=np.float64),
            np.asarray(model.sv_state_),
        )
    k = _snapshot_index(model, snapshot)
    alpha = np.asarray(model.history_.alpha[k], dtype=np.float64)
    margins = y_pm * model.history_decision_function(X, k)
    return alpha, margins, sv_states(alpha, float(model.C), _loss_name(model), rel=1e-6)


# -- grid and bounds ----------------------------------------------------------------


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


def unresolved_width_note(
    model: Any, bounds: Bounds, resolution: int = 120
) -> str | None:
    """A sentence when the Gaussian width is too small for the decision plane.

    The plane is ``f`` on a ``resolution x resolution`` grid over ``bounds``.
    With ``exp(-d^2 / 2 sigma^2)``, a training point's influence falls below 1 %
    at ``d = 3 sigma``: when ``6 sigma`` is less than one grid cell, the islands
    the model draws around its points fall between the grid points and the plane
    shows only the level far from the data, ``f = b``. None otherwise.
    """
    if getattr(model, "kernel", None) != "gaussian":
        return None
    xmin, xmax, ymin, ymax = (float(v) for v in bounds)
    cell = max(xmax - xmin, ymax - ymin) / max(int(resolution) - 1, 1)
    sigma = float(model.sigma)
    if not 6.0 * sigma < cell:
        return None
    b = float(model.intercept_[0])
    return (
        f"σ = {sigma:.3g} is too small to draw: each training point is an island "
        f"about {6.0 * sigma:.2g} wide, smaller than one cell of this plane "
        f"({cell:.2g}), so the plane shows only the value far from the points, "
        f"f = b = {b:.3g}. The numbers beside it are the model's own: it "
        "memorises the training points and guesses elsewhere."
    )


def grid_points(bounds: Bounds, resolution: int) -> tuple[Array, Array, Array]:
    """A ``resolution x resolution`` grid over ``bounds``.

    Parameters
    ----------
    bounds
        ``(xmin, xmax, ymin, ymax)``; the grid includes the edges.
    resolution
        Points per axis, at least 2.

    Returns
    -------
    xs, ys
        The grid coordinates along each axis, shape (resolution,).
    XY
        All grid points, shape (resolution**2, 2), x varying fastest, so that
        ``f(XY).reshape(resolution, resolution)[j, i]`` is f at ``(xs[i], ys[j])``.
    """
    xmin, xmax, ymin, ymax = (float(b) for b in bounds)
    resolution = int(resolution)
    if resolution < 2:
        raise ParameterError(f"resolution must be at least 2; got {resolution}.")
    if not (xmin < xmax and ymin < ymax):
        raise ParameterError(f"bounds must be (xmin, xmax, ymin, ymax); got {bounds}.")
    xs = np.linspace(xmin, xmax, resolution)
    ys = np.linspace(ymin, ymax, resolution)
    gx, gy = np.meshgrid(xs, ys)
    return xs, ys, np.column_stack([gx.ravel(), gy.ravel()])


def _nice_step(span: float) -> float:
    """A round step of about a tenth to a twentieth of ``span`` (1, 2 or 5 x 10^k).

    ``span`` must be finite and positive (:func:`data_bounds` checks); anything
    else is a DataError, never an OverflowError from ``log10(inf)``.
    """
    raw = span / 10.0
    if not (math.isfinite(raw) and raw > 0.0):
        raise DataError(_UNDRAWABLE)
    power = 10.0 ** math.floor(math.log10(raw))
    if power == 0.0:  # below the smallest float (span ~ 1e-323)
        raise DataError(_UNDRAWABLE)
    for factor in (1.0, 2.0, 5.0, 10.0):
        if raw <= factor * power:
            return factor * power / 2.0
    return 10.0 * power  # pragma: no cover (unreachable)


_UNDRAWABLE = (
    "The points cannot be drawn at this scale: their values are too large (near "
    "the largest number a computer stores) or too close together for distinct "
    "axis limits. Rescale the features."
)


def data_bounds(X: ArrayLike, pad: float = 0.08) -> Bounds:
    """Padded, rounded, equal-span bounds for a 2-D data set.

    Both axes get the same span (the shorter side is widened about its centre), so
    the plot has an equal aspect ratio; the edges are rounded outward to a round
    step of about 1/20 of the span, so editing a few points rarely moves them.
    The page computes them once per generated data set: the axes never jump.

    Parameters
    ----------
    X
        Points, shape (n, 2).
    pad
        Padding on each side as a fraction of the larger data span.

    Returns
    -------
    tuple
        ``(xmin, xmax, ymin, ymax)``, finite, with ``xmin < xmax``, ``ymin < ymax``
        and ``xmax - xmin == ymax - ymin`` (to rounding).

    Raises
    ------
    DataError
        Not points of shape (n, 2), NaN or infinite values, or points that give
        no finite, distinct limits (values near 1e308, whose span overflows, or a
        spread far below their magnitude).
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2 or X.shape[0] == 0:
        raise DataError(f"data_bounds needs points of shape (n, 2); got {X.shape}.")
    if not np.all(np.isfinite(X)):
        raise DataError("The data contain NaN or infinite values.")
    lo, hi = X.min(axis=0), X.max(axis=0)
    # Near 1e308 the span and the padded edges overflow to inf: that is checked
    # at the end (and by _nice_step), not allowed to raise on the way.
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        span = float((hi - lo).max())
        if span <= 0.0:
            span = max(1.0, float(np.abs(lo).max()))
        half = span * (0.5 + pad)
        step = _nice_step(2.0 * half)
        centre = lo / 2.0 + hi / 2.0  # (lo + hi) / 2 overflows near 1e308
        a = np.floor((centre - half) / step) * step
        b = np.ceil((centre + half) / step) * step
        width = float((b - a).max())
        extra = (width - (b - a)) / 2.0
        a, b = a - extra, b + extra
    # Tidy the round-off of k * step (0.30000000000000004) at the step's own
    # precision: rounding to a fixed number of decimals collapsed small spans.
    digits = 3 - math.floor(math.log10(step))
    out = [_tidy(v, digits) for pair in zip(a, b, strict=True) for v in pair]
    finite = all(math.isfinite(v) for v in out)
    if not (finite and out[0] < out[1] and out[2] < out[3]):
        raise DataError(_UNDRAWABLE)
    return out[0], out[1], out[2], out[3]


def _tidy(value: float, digits: int) -> float:
    """``round(value, digits)``, unless that loses the value (inf, or nothing left)."""
    if not math.isfinite(value) or not -300 <= digits <= 300:
        return float(value)
    tidied = round(float(value), digits)
    return tidied if math.isfinite(tidied) else float(value)


# -- the decision picture -------------------------------------------------------------


def _tint_palette() -> list[int]:
    """RGB palette: index ``TINT_LEVELS + l`` is the tint for level l in [-L, L]."""
    white = np.array([255.0, 255.0, 255.0])
    out: list[int] = []
    for level in range(-TINT_LEVELS, TINT_LEVELS + 1):
        hexcode = PALETTE["positive"] if level > 0 else PALETTE["negative"]
        colour = np.array([int(hexcode[i : i + 2], 16) for i in (1, 3, 5)], float)
        weight = MAX_TINT * abs(level) / TINT_LEVELS
        rgb = np.rint(white + weight * (colour - white)).astype(int)
        out += rgb.tolist()
    return out


_PALETTE_BYTES = _tint_palette()


def surface_png(Z: Array) -> str:
    """The decision surface as a PNG data URI (one pixel per grid point).

    ``Z[j, i]`` is f at grid point (i, j) with y increasing with j; the image's top
    row is the largest y. White at f = 0, tints of the class colours saturating at
    ``|f| = F_SATURATION``, quantised to ``2 * TINT_LEVELS + 1`` colours (a palette
    PNG of a few kB; the steps are below what the eye separates).
    """
    t = np.clip(np.nan_to_num(Z, nan=0.0) / F_SATURATION, -1.0, 1.0)
    index = np.rint(t * TINT_LEVELS).astype(np.int16) + TINT_LEVELS
    image = Image.fromarray(index[::-1].astype(np.uint8), mode="P")
    image.putpalette(_PALETTE_BYTES)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=6)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def iso_line(xs: Array, ys: Array, Z: Array, level: float) -> tuple[list, list]:
    """The level set ``f = level`` as x and y lists, pieces separated by None.

    Traced on the server with contourpy (marching squares); coordinates keep 4
    significant digits and repeated vertices are dropped.
    """
    generator = contourpy.contour_generator(
        xs, ys, Z, line_type=contourpy.LineType.Separate
    )
    px: list[float | None] = []
    py: list[float | None] = []
    for piece in generator.lines(level):
        lx, ly = _short(piece[:, 0]), _short(piece[:, 1])
        if px:
            px.append(None)
            py.append(None)
        last: tuple[float | None, float | None] | None = None
        for point in zip(lx, ly, strict=True):
            if point != last:
                px.append(point[0])
                py.append(point[1])
                last = point
    return px, py


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


def _rgb(hexcode: str) -> list[int]:
    return [int(hexcode[i : i + 2], 16) for i in (1, 3, 5)]


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


_POINT_HOVER = (
    "<b>i = %{customdata[0]}</b><br>αᵢ = %{customdata[1]}<br>"
    "mᵢ = yᵢ f(xᵢ) = %{customdata[2]}<br>ξᵢ = max(0, 1 − mᵢ) = %{customdata[3]}"
    "<extra>%{fullData.name}</extra>"
)


def decision_figure(
    model: SVC,
    X: ArrayLike,
    y: ArrayLike,
    *,
    bounds: Bounds,
    test: tuple[ArrayLike, ArrayLike] | None = None,
    resolution: int = 120,
    snapshot: int | None = None,
    new_points: ArrayLike | None = None,
    height: int = 620,
    dragmode: str = "zoom",
    legend: str = "right",
) -> go.Figure:
    """The main picture: regions of f, boundary and margins, points, support vectors.

    Parameters
    ----------
    model
        A fitted :class:`svmlab.SVC`.
    X, y
        The training data the model was fitted on, shapes (n, 2) and (n,).
    bounds
        ``(xmin, xmax, ymin, ymax)``: the fixed axis ranges (see :func:`data_bounds`).
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
    spec = decision_spec(
        model,
        X,
        y,
        bounds=bounds,
        test=test,
        resolution=resolution,
        snapshot=snapshot,
        new_points=new_points,
        height=height,
        dragmode=dragmode,
        legend=legend,
    )
    return _figure(spec["data"], spec["layout"])


def decision_spec(
    model: SVC,
    X: ArrayLike,
    y: ArrayLike,
    *,
    bounds: Bounds,
    test: tuple[ArrayLike, ArrayLike] | None = None,
    resolution: int = 120,
    snapshot: int | None = None,
    new_points: ArrayLike | None = None,
    height: int = 620,
    dragmode: str = "zoom",
    legend: str = "right",
) -> dict[str, Any]:
    """:func:`decision_figure`'s figure as plain dicts, before ``go.Figure`` wraps it.

    ``{"data": [trace dicts], "layout": {...}}``, lists and floats only, ready for
    ``json.dumps``: for callers that serialise the figure themselves (building the
    ``go.Figure`` and turning it back into a dict copies every list twice, about a
    third of the build). The arguments are :func:`decision_figure`'s.
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
                line={"color": colour, "dash": dash, "width": width},
                hoverinfo="skip",
                legendrank=20 + rank,
            )
        )

    size = _marker_size(n)
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
        idx = np.flatnonzero(state == code)
        traces.append(
            dict(
                type="scatter",
                x=_short(X[idx, 0]),
                y=_short(X[idx, 1]),
                mode="markers",
                name=name,
                marker={
                    "symbol": "circle-open",
                    "size": size + 7,
                    "color": colour,
                    "line": {"width": width, "color": colour},
                },
                hoverinfo="skip",
                showlegend=boxed or code == 1,
                legendrank=10 + rank,
            )
        )

    xmin, xmax, ymin, ymax = (float(b) for b in bounds)
    dx = (xmax - xmin) / (len(xs) - 1)
    dy = (ymax - ymin) / (len(ys) - 1)
    surface = {
        "source": surface_png(Z),
        "xref": "x",
        "yref": "y",
        # Pixel centres on the grid points: the image overhangs half a pixel,
        # which plotly clips to the plot area.
        "x": xmin - dx / 2,
        "y": ymax + dy / 2,
        "sizex": xmax - xmin + dx,
        "sizey": ymax - ymin + dy,
        "xanchor": "left",
        "yanchor": "top",
        "sizing": "stretch",
        "layer": "below",
    }
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
    # The plot area is square (equal aspect): as tall as the figure allows, or
    # narrower when the page column is (about 520 px on a 1400 px wide screen
    # with the sidebar open). Paint the points for that width, at POINT_SCALE
    # image pixels per screen pixel, so they show at their Plotly size.
    scale = POINT_SCALE
    side = scale * max(64, min(int(height) - margin["t"] - margin["b"], 520))
    points_layer = {
        "source": points_png(
            bounds,
            side,
            [
                (
                    P,
                    symbol,
                    colour,
                    scale * size,
                    lines,
                    scale * np.asarray(widths),
                    hollow,
                )
                for P, symbol, colour, size, lines, widths, hollow in painted
            ],
        ),
        "xref": "x",
        "yref": "y",
        "x": xmin,
        "y": ymax,
        "sizex": xmax - xmin,
        "sizey": ymax - ymin,
        "xanchor": "left",
        "yanchor": "top",
        "sizing": "stretch",
        "layer": "below",
    }
    layout = _base_layout(
        height=int(height),
        margin=margin,
        legend=legend_layout,
        showlegend=legend != "none",
        dragmode=dragmode,
        images=[surface, points_layer],
        xaxis=_axis("x₁", range=[xmin, xmax], autorange=False, constrain="domain"),
        yaxis=_axis(
            "x₂",
            range=[ymin, ymax],
            autorange=False,
            constrain="domain",
            scaleanchor="x",
            scaleratio=1,
        ),
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


# -- alpha histogram ------------------------------------------------------------------


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
            {
                "type": "line",
                "name": "C",
                "xref": "x",
                "yref": "paper",
                "x0": C,
                "x1": C,
                "y0": 0,
                "y1": 1,
                "line": {"color": PALETTE["text"], "dash": "dash", "width": 2},
            }
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
    layout = _base_layout(
        title=_title(title),
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
    return _figure(traces, layout)


# -- the loss -------------------------------------------------------------------------

#: The margin axis of :func:`loss_figure`.
LOSS_M = np.linspace(-2.0, 3.0, 501)
#: The loss above which a training point counts as paying, in :func:`loss_figure`.
PAYS = 1e-3


def _loss_title(loss: Loss) -> str:
    if isinstance(loss, ModifiedHinge):
        return f"{loss.title}, δ = {loss.delta:g}"
    return loss.title


#: Opacity of a rug tick over white.
RUG_OPACITY = 0.6


def _tint(hexcode: str, opacity: float) -> str:
    """``hexcode`` at ``opacity`` over white, as an opaque colour."""
    rgb = [round(255 + opacity * (c - 255)) for c in _rgb(hexcode)]
    return "#" + "".join(f"{c:02X}" for c in rgb)


def rug_png(
    groups: Sequence[tuple[ArrayLike, str]],
    x_range: tuple[float, float],
    width: int = 1200,
    height: int = 32,
    line_width: int = 3,
) -> str:
    """A rug strip: a vertical tick at each x, as a transparent palette PNG.

    ``groups`` are ``(xs, colour)`` drawn in order (later on top); the image spans
    ``x_range`` over its ``width`` pixels, ticks the full ``height``.
    """
    lo, hi = (float(v) for v in x_range)
    image = Image.new("P", (int(width), int(height)), 0)
    palette = [255, 255, 255]
    draw = ImageDraw.Draw(image)
    for index, (xs, colour) in enumerate(groups, start=1):
        palette += _rgb(colour)
        cols = (np.asarray(xs, dtype=np.float64) - lo) / (hi - lo) * (width - 1)
        for col in np.rint(cols).astype(int).tolist():
            left = col - line_width // 2
            draw.rectangle((left, 0, left + line_width - 1, height - 1), fill=index)
    image.putpalette(palette)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", transparency=0, compress_level=6)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def loss_figure(
    loss: Loss,
    margins: ArrayLike | None = None,
    *,
    C: float | None = None,
    show_printed: bool = True,
) -> go.Figure:
    """The loss as a function of the margin, with the training margins as a rug.

    Parameters
    ----------
    loss
        A loss object from :mod:`svmlab.losses`.
    margins
        Optional training margins ``m_i = y_i f(x_i)``, shape (n,); drawn as ticks
        in a strip below the axis, coloured by whether the point pays
        (``loss(m_i) >`` :data:`PAYS`; the smooth modified hinge charges every point
        a little, so "pays" means more than 0.001, a tenth of a percent of
        ``loss(0) = 1``). Margins outside [-2, 3] sit at the edge.
    C
        The model's C; with ``margins`` the title shows ``C sum loss(m_i)``.
    show_printed
        For the modified hinge, also draw Lee's printed form (not C^1), dotted.

    Returns
    -------
    go.Figure
        The loss on :data:`LOSS_M` (the curve named ``loss.title``, with δ for the
        modified hinge; drawn last of the curves, listed first in the legend), the
        hinge (dashed) when the loss is not the hinge, the printed modified hinge
        (dotted), and the rug: the ticks painted in a layout image (see
        :func:`rug_png`), hover traces "ℓ(mᵢ) > 0.001: k" and "ℓ(mᵢ) ≤ 0.001: k"
        (``mode="none"``, one point per margin, clipped to the axis) and their
        legend swatches.
    """
    m = LOSS_M
    # References first, so that the loss itself is drawn on top of them.
    curves: list[tuple[str, Array, str, str, float]] = []
    if loss.name != "hinge":
        curves.append(
            ("hinge (reference)", Hinge().value(m), PALETTE["reference"], "dash", 2.0)
        )
    if isinstance(loss, ModifiedHinge) and loss.form == "c1" and show_printed:
        printed = ModifiedHinge(delta=loss.delta, form="printed")
        curves.append(
            (
                "Lee's printed form (not C¹)",
                printed.value(m),
                PALETTE["accent"],
                "dot",
                3.0,
            )
        )
    curves.append((_loss_title(loss), loss.value(m), PALETTE["positive"], "solid", 3.5))
    top = max(float(np.max(values)) for _, values, *_ in curves)
    traces: list[dict[str, Any]] = []
    x = _short(m)
    for rank, (name, values, colour, dash, width) in enumerate(curves):
        traces.append(
            dict(
                type="scatter",
                x=x,
                y=_short(values, 5),
                mode="lines",
                name=name,
                line={"color": colour, "dash": dash, "width": width},
                hovertemplate="m = %{x}<br>ℓ(m) = %{y:.3g}<extra>%{fullData.name}"
                "</extra>",
                legendrank=len(curves) - rank,
            )
        )
    title = _loss_title(loss)
    rug_y = -0.07 * top
    images: list[dict[str, Any]] = []
    if margins is not None:
        margins = np.asarray(margins, dtype=np.float64).ravel()
        paid = loss.value(margins)
        pays = paid > PAYS
        groups = (
            (pays, f"ℓ(mᵢ) > {PAYS:g}: {int(pays.sum())}", PALETTE["negative"]),
            (~pays, f"ℓ(mᵢ) ≤ {PAYS:g}: {int((~pays).sum())}", PALETTE["non_sv"]),
        )
        # The ticks are painted into a strip image (an SVG path per tick cost
        # ~0.2 ms each in the browser); hover comes from marker-less traces.
        tick = 0.037 * top
        strip = []
        for rank, (mask, name, colour) in enumerate(groups):
            at = np.clip(margins[mask], m[0], m[-1])
            custom = list(
                zip(_short(margins[mask], 3), _short(paid[mask], 3), strict=True)
            )
            template = (
                "mᵢ = %{customdata[0]}<br>ℓ(mᵢ) = %{customdata[1]}"
                "<extra>%{fullData.name}</extra>"
            )
            spot = np.column_stack([at, np.full(at.shape, rug_y)])
            traces.append(_hover_trace(name, spot, colour, custom, template))
            marker = {
                "symbol": "line-ns-open",
                "size": 16,
                "color": colour,
                "line": {"width": 2, "color": colour},
            }
            traces.append(_swatch(name, marker, 10 + rank))
            strip.insert(0, (at, _tint(colour, RUG_OPACITY)))  # paying on top
        images.append(
            {
                "source": rug_png(strip, (float(m[0]), float(m[-1]))),
                "xref": "x",
                "yref": "y",
                "x": float(m[0]),
                "y": rug_y + tick,
                "sizex": float(m[-1] - m[0]),
                "sizey": 2.0 * tick,
                "xanchor": "left",
                "yanchor": "top",
                "sizing": "stretch",
                "layer": "above",
            }
        )
        total = float(paid.sum()) * (1.0 if C is None else float(C))
        prefix = "Σ ℓ(mᵢ)" if C is None else "C Σ ℓ(mᵢ)"
        title += f": {prefix} = {total:.4g}"
    layout = _base_layout(
        title=_title(title),
        height=380,
        margin={"t": 60},
        legend={"x": 1.0, "xanchor": "right", "y": 1.0, "yanchor": "top"},
        images=images,
        xaxis=_axis(
            "margin m = y f(x)",
            range=[m[0], m[-1]],
            autorange=False,
            showgrid=True,
            gridcolor="#e4e4e4",
            dtick=1,
        ),
        yaxis=_axis(
            "loss ℓ(m)",
            range=[-0.14 * top, 1.05 * top],
            autorange=False,
            zeroline=True,
            zerolinecolor="#bbbbbb",
        ),
    )
    return _figure(traces, layout)


# -- convergence -----------------------------------------------------------------------


def convergence_figure(
    history: History, *, current: int | None = None, x: str = "iteration"
) -> go.Figure:
    """Objective and KKT violation per recorded iteration, in two rows.

    Parameters
    ----------
    history
        A :class:`svmlab.solvers.base.History`.
    current
        Optional record index (as for ``snapshot``) marked by a vertical line.
    x
        ``"iteration"`` or ``"time"`` (seconds since the start) on the x axis.

    Returns
    -------
    go.Figure
        Two line traces "objective" (row 1) and "KKT violation" (row 2, log scale),
        one point per record; a shape named "current" when ``current`` is given.
    """
    if x not in ("iteration", "time"):
        raise ParameterError(f"x must be 'iteration' or 'time'; got {x!r}.")
    xs = _short(history.iteration if x == "iteration" else history.time, 6)
    count = len(xs)
    mode = "lines+markers" if count <= 60 else "lines"
    kkt = [
        v if v is not None and v > 0 else None for v in _short(history.kkt_violation)
    ]
    rows = (
        ("objective", _short(history.objective, 6), "y", PALETTE["positive"], "circle"),
        ("KKT violation", kkt, "y2", PALETTE["negative"], "square"),
    )
    traces = [
        {
            "type": "scatter",
            "x": xs,
            "y": values,
            "xaxis": "x2" if axis == "y2" else "x",
            "yaxis": axis,
            "mode": mode,
            "name": name,
            "line": {"color": colour, "width": 2.5},
            "marker": {"size": 6, "symbol": symbol},
        }
        for name, values, axis, colour, symbol in rows
    ]
    shapes, annotations = [], []
    if count and current is not None:
        k = int(current)
        if not -count <= k < count:
            raise ParameterError(
                f"current {current} is out of range: the history holds {count} records."
            )
        xc = xs[k % count]
        shapes.append(
            {
                "type": "line",
                "name": "current",
                "xref": "x2",
                "yref": "paper",
                "x0": xc,
                "x1": xc,
                "y0": 0,
                "y1": 1,
                "line": {"color": PALETTE["text"], "dash": "dot", "width": 2},
            }
        )
    if not count:
        annotations.append(
            {
                "text": "No iterations recorded (fit with record_history=True and "
                "an iterative solver).",
                "xref": "paper",
                "yref": "paper",
                "x": 0.5,
                "y": 0.5,
                "showarrow": False,
            }
        )
    xtitle = "iteration" if x == "iteration" else "time (s)"
    layout = _base_layout(
        height=460,
        showlegend=False,
        margin={"t": 24},
        shapes=shapes,
        annotations=annotations,
        xaxis=_axis("", anchor="y", matches="x2", showticklabels=False),
        xaxis2=_axis(xtitle, anchor="y2"),
        yaxis=_axis("objective", domain=[0.55, 1.0], anchor="x"),
        yaxis2=_axis(
            "KKT violation",
            domain=[0.0, 0.45],
            anchor="x2",
            type="log",
            exponentformat="power",
        ),
    )
    return _figure(traces, layout)
