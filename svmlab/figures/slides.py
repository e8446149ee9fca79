"""Slides from the figures: a decision picture as PNG or SVG with its key and a
caption line, and an animated GIF of a sequence of them (a C or σ path).

The slide is drawn from the figure spec the page shows
(:func:`svmlab.figures.decision_spec`: its surface and points images, its
level lines and support-vector rings, its key from
:func:`svmlab.figures.legend_entries`), so it reads as the lecture did. It is
rendered with matplotlib (Agg for PNG and each GIF frame, its SVG backend with
the text kept as text) and Pillow (the GIF). Both are pip wheels: nothing here
needs a browser or a binary the install does not bring (Plotly's own export,
kaleido, needs a Chrome from version 1 on; its 0.2 wheels bundled one, but
Plotly 7 no longer drives them; README, "Slides").

matplotlib is imported inside the functions: ``import svmlab`` stays as light
as it was, and only a page that exports pays for it.
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from PIL import Image

from svmlab.errors import ParameterError, plain_value
from svmlab.figures import legend_entries
from svmlab.figures.theme import LIGHT, Theme, themed
from svmlab.parameter_checks import is_number

__all__ = [
    "FRAME_SIZE",
    "SLIDE_SIZE",
    "animation",
    "caption_line",
    "drawn_entries",
    "frame_image",
    "slide",
    "wrap_caption",
]

#: A 16:9 slide, in pixels (PNG; the SVG has the same proportions).
SLIDE_SIZE = (1600, 900)
#: One frame of an animation, in pixels.
FRAME_SIZE = (960, 540)
_DPI = 100
_DASHES = {"solid": "-", "dash": (0, (5, 3)), "dot": ":", "dashdot": "-."}
_MARKERS = {"circle": "o", "square": "s", "diamond": "D", "cross": "P"}


def caption_line(
    *,
    data: str,
    n: int,
    kernel: str,
    loss: str,
    C: float,
    sigma: float | None,
    train_error: float | None,
    test_error: float | None,
) -> str:
    """The slide's caption: data set, n, kernel, loss, C, σ (Gaussian only),
    training and test error ("–" when there are no test points)."""

    def pct(value: float | None) -> str:
        return "–" if value is None else f"{100.0 * value:.1f} %"

    parts = [data, f"n = {n}", f"{kernel} kernel", f"{loss} loss"]
    parts.append("C = ∞" if math.isinf(C) else f"C = {C:g}")
    if sigma is not None:
        parts.append(f"σ = {sigma:g}")
    parts.append(f"training error {pct(train_error)}")
    parts.append(f"test error {pct(test_error)}")
    return " · ".join(parts)


def drawn_entries(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The spec's key (:func:`svmlab.figures.legend_entries`) less what the
    picture does not draw: an entry whose traces hold no point ("bound SV"
    when no multiplier is at C, the test points when none are shown)."""
    drawn = {
        str(t.get("name"))
        for t in spec.get("data", [])
        if np.isfinite(_values(t.get("x", []))).any()
    }
    return [e for e in legend_entries(spec) if e["name"] in drawn]


#: Between two parts of a caption.
SEPARATOR = " · "


def wrap_caption(caption: str, fits: Any) -> list[str]:
    """``caption``'s parts (split at :data:`SEPARATOR`) on as few lines as
    ``fits(line) -> bool`` allows, each part whole (a part longer than a line
    gets a line of its own)."""
    lines: list[str] = []
    for part in caption.split(SEPARATOR) if caption else []:
        joined = f"{lines[-1]}{SEPARATOR}{part}" if lines else part
        if lines and fits(joined):
            lines[-1] = joined
        else:
            lines.append(part)
    return lines


def _image(source: str) -> np.ndarray:
    """A ``data:image/png;base64,...`` URI as an RGBA array."""
    _, _, payload = source.partition(",")
    with Image.open(io.BytesIO(base64.b64decode(payload))) as image:
        return np.asarray(image.convert("RGBA"))


def _values(seq: Any) -> np.ndarray:
    return np.array([np.nan if v is None else float(v) for v in seq], dtype=float)


def _marker(symbol: str) -> tuple[str, bool]:
    base = symbol.removesuffix("-open")
    return _MARKERS.get(base, "o"), symbol.endswith("-open")


def _draw_plane(
    ax: Any, spec: dict[str, Any], px: float, font: float, ink: str = "black"
) -> None:
    """The spec's picture on ``ax``: images, lines and marker traces; ``px`` is
    the size of one of the figure's screen pixels in points."""
    layout = spec.get("layout", {})
    for picture in layout.get("images", []):
        x0, y1 = float(picture["x"]), float(picture["y"])
        x1, y0 = x0 + float(picture["sizex"]), y1 - float(picture["sizey"])
        ax.imshow(
            _image(picture["source"]),
            extent=(x0, x1, y0, y1),
            origin="upper",
            interpolation="bilinear",
            aspect="auto",
            zorder=0,
        )
    for trace in spec.get("data", []):
        mode = str(trace.get("mode", "markers"))
        x, y = _values(trace.get("x", [])), _values(trace.get("y", []))
        if not np.isfinite(x).any():
            continue  # a legend swatch or an empty layer
        if "lines" in mode:
            line = trace.get("line", {})
            ax.plot(
                x,
                y,
                color=line.get("color", ink),
                linewidth=float(line.get("width", 2.0)) * px,
                linestyle=_DASHES.get(line.get("dash", "solid"), "-"),
                zorder=2,
            )
        elif "markers" in mode:
            marker = trace.get("marker", {})
            symbol, hollow = _marker(str(marker.get("symbol", "circle")))
            colour = marker.get("color", ink)
            edge = marker.get("line", {})
            ax.scatter(
                x,
                y,
                s=(float(marker.get("size", 8)) * px) ** 2,
                marker=symbol,
                facecolors="none" if hollow else colour,
                edgecolors=edge.get("color", colour),
                linewidths=float(edge.get("width", 1.0)) * px,
                zorder=3,
            )
    xaxis, yaxis = layout.get("xaxis", {}), layout.get("yaxis", {})
    if "range" in xaxis and "range" in yaxis:
        ax.set_xlim(*xaxis["range"])
        ax.set_ylim(*yaxis["range"])
    ax.set_aspect("equal")
    ax.set_xlabel(xaxis.get("title", {}).get("text", ""), fontsize=font)
    ax.set_ylabel(yaxis.get("title", {}).get("text", ""), fontsize=font)
    ax.tick_params(labelsize=font * 0.85)


def _key(ax: Any, entries: list[dict[str, Any]], font: float, ink: str) -> None:
    """The figure's key on its own (empty) axes."""
    from matplotlib.lines import Line2D

    handles = []
    for e in entries:
        if e["kind"] == "line":
            handles.append(
                Line2D(
                    [],
                    [],
                    color=e["colour"],
                    linewidth=max(e["line_width"], 1.5),
                    linestyle=_DASHES.get(e["dash"], "-"),
                    label=e["name"],
                )
            )
            continue
        symbol, hollow = _marker(e["symbol"])
        handles.append(
            Line2D(
                [],
                [],
                linestyle="none",
                marker=symbol,
                markersize=font * (0.9 if hollow else 0.7),
                markerfacecolor="none" if hollow else e["colour"],
                markeredgecolor=e["colour"] if hollow else e["line_colour"],
                markeredgewidth=max(e["line_width"], 1.0),
                label=e["name"],
            )
        )
    ax.axis("off")
    if handles:
        ax.legend(
            handles=handles,
            loc="upper left",
            frameon=False,
            fontsize=font,
            handlelength=2.2,
            borderaxespad=0.0,
            labelcolor=ink,
        )


#: The largest slide or frame side in pixels (a 4K screen's width).
MAX_SIDE = 3840


def check_size(size: object) -> tuple[int, int]:
    """``(width, height)`` in whole pixels, each from 1 to :data:`MAX_SIDE`, or
    a ParameterError (issue 44, item 5: size (0, 0) failed in matplotlib)."""
    ok = isinstance(size, tuple | list) and len(size) == 2
    if ok:
        ok = all(is_number(v) and 1 <= v <= MAX_SIDE and v == int(v) for v in size)
    if not ok:
        raise ParameterError(
            "size must be (width, height) in whole pixels, each from 1 to "
            f"{MAX_SIDE}; got {size!r}."
        )
    return int(size[0]), int(size[1])


def _figure(
    spec: dict[str, Any],
    caption: str,
    size: tuple[int, int],
    title: str,
    theme: Theme = LIGHT,
    number: str = "",
):
    """The slide as a matplotlib figure in ``theme``: the title (and the
    preset's key ``number`` beside it) above, the plane on the left, its key on
    the right, the caption below, wrapped to the slide's width."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    spec = themed(spec, theme)
    ink = theme.ink
    width, height = size
    fig = Figure(
        figsize=(width / _DPI, height / _DPI), dpi=_DPI, facecolor=theme.background
    )
    font = height / 900 * 20
    left = 0.09  # the y-axis title inside the slide at every size
    renderer = FigureCanvasAgg(fig).get_renderer()
    room = (1.0 - 2 * left) * width

    def fits(size: float, weight: str = "normal") -> Any:
        def check(line: str) -> bool:
            probe = fig.text(0, 0, line, fontsize=size, weight=weight, parse_math=False)
            wide = probe.get_window_extent(renderer).width
            probe.remove()
            return wide <= room

        return check

    lines = wrap_caption(caption, fits(font))
    line_height = 1.45 * font * _DPI / 72 / height  # figure fraction
    heading = wrap_caption(
        SEPARATOR.join(t for t in (title, number) if t), fits(font * 1.3, "bold")
    )
    head_height = 1.3 * line_height
    top = 0.95 - head_height * (len(heading) - 0.5) if heading else 0.95
    # The caption's last line where a one-line caption always stood, the
    # others above it; the plane rises above them and the x-axis title.
    base = 0.045
    bottom = max(0.16, base + line_height * (max(len(lines), 1) - 1) + 0.12)
    side = (top - bottom) * height  # the plane's square side in pixels
    plane = fig.add_axes(
        (left, bottom, side / width, top - bottom),  # left, bottom, width, height
        facecolor=theme.background,
    )
    # The figure's marker sizes are screen pixels of a plot about 520 px wide.
    px = side / 520 * 72 / _DPI
    _draw_plane(plane, spec, px, font, ink)
    for spine in plane.spines.values():
        spine.set_color(ink)
    # Ticks and their labels' gaps in proportion to the font: a small GIF
    # frame keeps the x-axis title clear of the caption.
    plane.tick_params(colors=ink, length=font * 0.35, pad=font * 0.25)
    plane.xaxis.labelpad = plane.yaxis.labelpad = font * 0.2
    plane.xaxis.label.set_color(ink)
    plane.yaxis.label.set_color(ink)
    key = fig.add_axes((left + side / width + 0.04, bottom, 0.3, top - bottom))
    _key(key, drawn_entries(spec), font, ink)
    for i, line in enumerate(heading):
        fig.text(
            left,
            0.96 - head_height * i,
            line,
            fontsize=font * 1.3,
            weight="bold",
            va="center",
            color=ink,
            parse_math=False,
        )
    for i, line in enumerate(lines):
        fig.text(
            left,
            base + line_height * (len(lines) - 1 - i),
            line,
            fontsize=font,
            va="center",
            color=ink,
            parse_math=False,
        )
    return fig


def slide(
    spec: dict[str, Any],
    caption: str,
    *,
    fmt: str = "png",
    title: str = "",
    size: tuple[int, int] = SLIDE_SIZE,
    theme: Theme = LIGHT,
    number: str = "",
) -> bytes:
    """One slide of the decision figure ``spec`` (a ``decision_spec`` dict):
    the plane, its key (what the plane draws: :func:`drawn_entries`), ``title``
    (if any) with the preset's key ``number`` after it ("test error 22.5 %"),
    and the ``caption``, wrapped inside the slide, each part whole; in
    ``theme`` (:mod:`svmlab.figures.theme`).

    ``fmt`` is "png" (``size`` pixels) or "svg" (text kept as text, one
    element per line: the caption and the key can be searched and edited in
    slide software).
    """
    if fmt not in ("png", "svg"):
        raise ParameterError(f"fmt must be 'png' or 'svg'; got {fmt!r}.")
    import matplotlib

    fig = _figure(spec, caption, check_size(size), title, theme, number)
    out = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "svmlab"}):
        fig.savefig(out, format=fmt, dpi=_DPI, facecolor=theme.background)
    return out.getvalue()


def frame_image(
    spec: dict[str, Any],
    label: str,
    caption: str,
    size: tuple[int, int] = FRAME_SIZE,
    theme: Theme = LIGHT,
) -> Image.Image:
    """One frame of :func:`animation` as an RGB image: ``label`` above the
    plane, ``caption`` below, both wrapped inside the frame."""
    fig = _figure(spec, caption, check_size(size), label, theme)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=_DPI, facecolor=theme.background)
    buffer.seek(0)
    with Image.open(buffer) as image:
        return image.convert("RGB")


def animation(
    frames: Sequence[tuple[dict[str, Any], str]],
    caption: str,
    *,
    seconds_per_frame: float = 0.8,
    size: tuple[int, int] = FRAME_SIZE,
    theme: Theme = LIGHT,
) -> bytes:
    """An animated GIF (looping), one frame per ``(spec, label)``, in order: the
    label ("C = 10") printed large above the plane, ``caption`` (what stays the
    same along the path) below it, in ``theme``."""
    if not frames:
        raise ParameterError("An animation needs at least one frame.")
    if not (is_number(seconds_per_frame) and 0.01 <= seconds_per_frame <= 60):
        # GIF frame times are whole hundredths of a second.
        raise ParameterError(
            "seconds_per_frame must be a number from 0.01 to 60; got "
            f"{plain_value(seconds_per_frame)}."
        )
    size = check_size(size)
    images = [frame_image(spec, label, caption, size, theme) for spec, label in frames]
    # One palette for every frame (the first's): colours stay put between frames.
    palette = images[0].quantize(colors=255, method=Image.Quantize.MEDIANCUT)
    quantised = [
        im.quantize(palette=palette, dither=Image.Dither.NONE) for im in images
    ]
    out = io.BytesIO()
    quantised[0].save(
        out,
        format="GIF",
        save_all=True,
        append_images=quantised[1:],
        duration=int(seconds_per_frame * 1000),
        loop=0,
        optimize=False,
        disposal=1,
    )
    return out.getvalue()
