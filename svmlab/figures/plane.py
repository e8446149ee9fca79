"""The 2-D plane: its grid, its bounds, the decision surface and its level lines.

Speed and size (measured facts in the project's tools notes): the decision surface
is a small server-rendered PNG placed as a layout image (:func:`surface_png`), not a
contour or heatmap trace; the f = 0 and f = +-1 lines are traced on the server with
contourpy (:func:`iso_line`).
"""

from __future__ import annotations

import base64
import io
import math
from typing import Any

import contourpy
import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike
from PIL import Image

from svmlab.array_types import Array, Bounds
from svmlab.errors import DataError, ParameterError
from svmlab.figures.style import PALETTE, _axis, _short
from svmlab.user_text import for_plotly

__all__ = [
    "data_bounds",
    "grid_points",
    "iso_line",
    "plane_axes",
    "plane_image",
    "retitled",
    "surface_png",
    "unresolved_width_note",
]


#: |f| at which the region tint saturates.
F_SATURATION = 1.5
#: Strongest tint of the class colour over white (light: points stay readable).
MAX_TINT = 0.36
#: Tint levels per side in the PNG palette (2 * levels + 1 colours in all).
TINT_LEVELS = 24


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
    # A spread some 1e-8 of the magnitude (near 1e308) leaves too few floats to
    # widen the shorter side exactly: the plot could not keep an equal aspect.
    spans = out[1] - out[0], out[3] - out[2]
    if not math.isclose(spans[0], spans[1], rel_tol=1e-9):
        raise DataError(_UNDRAWABLE)
    return out[0], out[1], out[2], out[3]


def _tidy(value: float, digits: int) -> float:
    """``round(value, digits)``, unless that loses the value (inf, or nothing left)."""
    if not math.isfinite(value) or not -300 <= digits <= 300:
        return float(value)
    tidied = round(float(value), digits)
    return tidied if math.isfinite(tidied) else float(value)


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


def plane_image(
    source: str, bounds: Bounds, *, grid: tuple[int, int] | None = None
) -> dict[str, Any]:
    """A layout image stretched over the plane ``bounds`` (drawn below the traces).

    With ``grid`` (the image's columns and rows, one pixel per grid point of
    :func:`grid_points`) the pixel centres sit on the grid points: the image
    overhangs half a pixel, which plotly clips to the plot area.
    """
    xmin, xmax, ymin, ymax = (float(b) for b in bounds)
    dx = dy = 0.0
    if grid is not None:
        dx = (xmax - xmin) / (grid[0] - 1)
        dy = (ymax - ymin) / (grid[1] - 1)
    return {
        "source": source,
        "xref": "x",
        "yref": "y",
        "x": xmin - dx / 2,
        "y": ymax + dy / 2,
        "sizex": xmax - xmin + dx,
        "sizey": ymax - ymin + dy,
        "xanchor": "left",
        "yanchor": "top",
        "sizing": "stretch",
        "layer": "below",
    }


#: The axes' titles of generated data (an upload's are its column names).
PLANE_TITLES = ("x₁", "x₂")


def retitled(figure: Any, titles: tuple[str, str] | None) -> Any:
    """``figure`` (a ``go.Figure`` or a ``{"data", "layout"}`` spec) with every
    axis titled x₁ or x₂ (:data:`PLANE_TITLES`) titled ``titles`` instead: an
    upload's column names, visitor text escaped for Plotly. A copy: a cached
    figure other visitors are sent is never changed. ``titles`` None: the
    figure itself."""
    if titles is None:
        return figure
    new = dict(zip(PLANE_TITLES, (for_plotly(t) for t in titles), strict=True))
    if isinstance(figure, dict):
        layout = dict(figure.get("layout", {}))
        for name, axis in layout.items():
            if name.startswith(("xaxis", "yaxis")) and isinstance(axis, dict):
                title = axis.get("title")
                text = title.get("text") if isinstance(title, dict) else title
                if text in new:
                    title = dict(title) if isinstance(title, dict) else {}
                    layout[name] = {**axis, "title": {**title, "text": new[text]}}
        return {**figure, "layout": layout}
    copy = go.Figure(figure)

    def rename(axis: Any) -> None:
        if axis.title.text in new:
            axis.title.text = new[axis.title.text]

    copy.for_each_xaxis(rename)
    copy.for_each_yaxis(rename)
    return copy


def plane_axes(
    bounds: Bounds, titles: tuple[str, str] = PLANE_TITLES
) -> dict[str, Any]:
    """The axes of a 2-D plane over ``bounds`` (titled ``titles``: x₁ and x₂, or
    an upload's column names, escaped for Plotly by the caller), at equal
    aspect (a circle in the data stays a circle on the screen)."""
    xmin, xmax, ymin, ymax = (float(b) for b in bounds)
    return {
        "xaxis": _axis(
            titles[0], range=[xmin, xmax], autorange=False, constrain="domain"
        ),
        "yaxis": _axis(
            titles[1],
            range=[ymin, ymax],
            autorange=False,
            constrain="domain",
            scaleanchor="x",
            scaleratio=1,
        ),
    }
