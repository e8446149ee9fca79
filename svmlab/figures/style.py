"""What every figure shares: the palette, the fonts and the layout helpers.

Colours are the Okabe-Ito palette (:data:`PALETTE`), safe for colour-blind viewers;
the two classes also differ in marker shape.

Traces hold plain lists rounded to a few significant digits (:func:`_short`); no
template, fixed margins and a constant ``uirevision`` (:func:`_base_layout`,
:func:`_figure`). ``layout.datarevision`` and the chart ``config`` (modebar) are the
page's job.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike, NDArray

__all__ = ["FONT_SIZE", "PALETTE", "UIREVISION", "tint"]

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


def _rgb(hexcode: str) -> list[int]:
    return [int(hexcode[i : i + 2], 16) for i in (1, 3, 5)]


def tint(hexcode: str, opacity: float) -> str:
    """``hexcode`` at ``opacity`` over white, as an opaque colour."""
    rgb = [round(255 + opacity * (c - 255)) for c in _rgb(hexcode)]
    return "#" + "".join(f"{c:02X}" for c in rgb)
