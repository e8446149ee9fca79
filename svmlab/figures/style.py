"""What every figure shares: the palette, the fonts and the layout helpers.

Colours are the Okabe-Ito palette (:data:`PALETTE`), safe for colour-blind viewers;
the two classes also differ in marker shape.

Traces hold plain lists rounded to a few significant digits (:func:`_short`); no
template, fixed margins and a constant ``uirevision`` (:func:`_base_layout`,
:func:`_figure`). ``layout.datarevision`` and the chart ``config`` (modebar) are the
page's job.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

__all__ = [
    "FONT_SIZE",
    "PALETTE",
    "UIREVISION",
    "chart",
    "mark_partial",
    "marker_trace",
    "scaled_text",
    "tint",
    "vertical_line",
]


#: Okabe-Ito colours (Okabe & Ito 2008) by role; every figure takes its colours here.
PALETTE: dict[str, str] = {
    "positive": "#0072B2",  # blue: class +1, f > 0
    "negative": "#D55E00",  # vermillion: class -1, f < 0
    "free": "#000000",  # black: free support vectors (0 < alpha < C)
    "bound": "#CC79A7",  # reddish purple: bound support vectors (alpha = C)
    "non_sv": "#8C8C8C",  # grey: alpha = 0 (3.4 : 1 on white, WCAG graphics)
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
#: Plotly's own title size for that font (1.4 times it); a title's second line
#: (its subtitle, see :func:`_title`) takes it too.
TITLE_FONT_SIZE = round(1.4 * FONT_SIZE)
UIREVISION = "svmlab"


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


def scaled_text(layout: dict[str, Any], scale: float) -> dict[str, Any]:
    """``layout`` with every font size in it (the base font, which the tick
    labels take, the legend's, the titles' and the annotations') and its margins
    times ``scale``: classroom mode's larger text (Plotly's pixel sizes do not
    follow the page's root font). The margins grow with the text they hold."""
    if scale == 1.0:
        return layout

    def grow(value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            out = {k: grow(v, k) for k, v in value.items()}
            if key == "font" and isinstance(out.get("size"), (int, float)):
                out["size"] = round(value["size"] * scale)
            if key == "margin":
                out = {
                    k: round(v * scale) if isinstance(v, (int, float)) else v
                    for k, v in out.items()
                }
            return out
        if isinstance(value, list):
            return [grow(v, key) for v in value]
        return value

    out = grow(layout)
    out.setdefault("font", {}).setdefault("size", round(FONT_SIZE * scale))
    return out


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


def vertical_line(
    x: float, line: dict[str, Any], *, xref: str = "x", name: str | None = None
) -> dict[str, Any]:
    """A layout shape: a vertical line at ``x`` across the whole plot height (a
    cursor, a current value, a bound)."""
    shape: dict[str, Any] = {
        "type": "line",
        "xref": xref,
        "yref": "paper",
        "x0": x,
        "x1": x,
        "y0": 0,
        "y1": 1,
        "line": line,
    }
    if name is not None:
        shape["name"] = name
    return shape


def _legend_below() -> dict[str, Any]:
    """A horizontal legend standing on the figure's bottom edge (the margin
    below the plot must hold the tick labels, the x-axis title and the legend's
    rows). Placed relative to the plot instead (``y = -0.22``) it sat on the
    x-axis title whenever the legend wrapped to another row."""
    return {
        "orientation": "h",
        "x": 0.0,
        "xanchor": "left",
        "yref": "container",
        "y": 0.0,
        "yanchor": "bottom",
    }


def _title(text: str, subtitle: str | None = None) -> dict[str, Any]:
    """A title at the top left; a ``subtitle`` goes on a line of its own under
    it. Plotly anchors a layout title by its first line, so a title broken by
    ``<br>`` ran off the top ("Where an approximation fails" lost its first
    line): its second line becomes the subtitle, which Plotly places."""
    continued = subtitle is None and "<br>" in text
    if continued:
        text, subtitle = text.split("<br>", 1)
    out: dict[str, Any] = {
        "text": text,
        "x": 0.01,
        "xanchor": "left",
        "y": 0.98,
        "yanchor": "top",
        "yref": "container",
    }
    if subtitle:
        size = TITLE_FONT_SIZE if continued else FONT_SIZE
        out["subtitle"] = {"text": subtitle, "font": {"size": size}}
    return out


def _figure(data: Sequence[dict[str, Any]], layout: dict[str, Any]) -> go.Figure:
    """A figure from plain dicts, with no template and without plotly's validation.

    Validation costs ~10x the rest of a build (it walks every list); the property
    names here are checked once by the tests, which rebuild each figure validated.
    An empty template keeps plotly's default one out of the payload.
    """
    return go.Figure(
        {"data": list(data), "layout": {**layout, "template": {}}}, _validate=False
    )


def chart(
    data: Sequence[dict[str, Any]], *, scale: float = 1.0, **layout: Any
) -> go.Figure:
    """A figure of ``data`` on the shared layout (:func:`_base_layout` with
    ``layout``'s overrides): a ``title`` given as text is placed by
    :func:`_title`, and ``legend="below"`` stands on the figure's bottom edge
    (:func:`_legend_below`). The overrides keep their order. ``scale`` grows
    the text and margins (:func:`scaled_text`)."""
    if isinstance(layout.get("title"), str):
        layout["title"] = _title(layout["title"])
    if layout.get("legend") == "below":
        layout["legend"] = _legend_below()
    return _figure(data, scaled_text(_base_layout(**layout), scale))


def _short(values: ArrayLike, digits: int = 4) -> list[float | None]:
    """Plain floats rounded to ``digits`` significant digits; non-finite -> None.

    Rounding the decimal mantissa ``m = round(v 10^k)`` and dividing by the exact
    power ``10^k`` gives the double nearest to the decimal ``m / 10^k`` (IEEE
    division rounds correctly), whose shortest repr is that decimal: the JSON
    reads ``0.1234``, not ``0.12340000000000001``. Vectorised, because a figure
    holds thousands of coordinates and a lecture room redraws many per second
    (formatting each through a string cost ~1 us per value). Values whose
    exponent is outside 10^-300..10^300 are returned unrounded.
    """
    flat = np.asarray(values, dtype=np.float64).ravel()
    finite = np.isfinite(flat)
    out = np.where(finite, flat, 0.0)
    work = np.flatnonzero(out)
    if work.size:
        v = out[work]
        k = digits - 1 - np.floor(np.log10(np.abs(v))).astype(np.int64)
        extreme = np.abs(k) > 300  # left alone (10^k would overflow)
        k[extreme] = 0
        power = 10.0 ** np.abs(k)  # exact for |k| <= 22, the usual case
        up = k >= 0
        # np.where computes both branches; the one not taken may overflow.
        with np.errstate(over="ignore", under="ignore"):
            scaled = np.where(up, v * power, v / power)
            mantissa = np.round(scaled)
            rounded = np.where(up, mantissa / power, mantissa * power)
        rounded[extreme] = v[extreme]
        # A scaled value that lands on .5 may be a rounded near-tie (0.12345 is
        # 0.1234500000000000041...): those few go through exact formatting.
        for i in np.flatnonzero(np.abs(scaled - np.trunc(scaled)) == 0.5).tolist():
            rounded[i] = float(f"{v[i]:.{digits}g}")
        out[work] = rounded
    result: list[float | None] = out.tolist()
    for i in np.flatnonzero(~finite).tolist():
        result[i] = None
    return result


def marker_trace(
    X: ArrayLike,
    idx: ArrayLike,
    name: str,
    *,
    symbol: str,
    size: float,
    colour: str,
    width: float,
    outline: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The points ``X[idx]`` (indices or a mask) as markers of one symbol, size
    and colour, outlined in ``outline`` (default: that colour): the rings around
    support vectors and outliers, a class's points. ``extra`` are further trace
    keys (hover, legend)."""
    X = np.asarray(X)
    return dict(
        type="scatter",
        x=_short(X[idx, 0]),
        y=_short(X[idx, 1]),
        mode="markers",
        name=name,
        marker={
            "symbol": symbol,
            "size": size,
            "color": colour,
            "line": {"width": width, "color": outline or colour},
        },
        **extra,
    )


def _rgb(hexcode: str) -> list[int]:
    return [int(hexcode[i : i + 2], 16) for i in (1, 3, 5)]


def tint(hexcode: str, opacity: float) -> str:
    """``hexcode`` at ``opacity`` over white, as an opaque colour."""
    rgb = [round(255 + opacity * (c - 255)) for c in _rgb(hexcode)]
    return "#" + "".join(f"{c:02X}" for c in rgb)


def mark_partial(fig: go.Figure, note: str) -> go.Figure:
    """``fig`` marked as drawn from a partial result: "so far: <note>" in its
    top left corner, above the plot (the top margin grows to hold it), so a
    chart that is still filling in is never read as the finished one. A figure
    whose title is an annotation named "title" (the heatmaps) gets the note at
    the end of its title instead (unless the title says "so far" already: a
    long title leaves the note no room on its line, so the page shortens it
    and puts the note in it itself)."""
    layout = fig.layout
    for annotation in layout.annotations or ():
        if annotation.name == "title":
            if "so far" not in annotation.text:  # else its builder said it
                annotation.text = f"{annotation.text} <i>(so far: {note})</i>"
            return fig
    top = layout.margin.t if layout.margin.t is not None else 80
    fig.update_layout(margin={"t": max(top, 0) + 2 * FONT_SIZE})
    fig.add_annotation(
        text=f"<i>so far: {note}</i>",
        xref="paper",
        yref="paper",
        x=0.0,
        y=1.0,
        xanchor="left",
        yanchor="bottom",
        yshift=4,
        showarrow=False,
        font={"size": FONT_SIZE, "color": PALETTE["negative"]},
    )
    return fig
