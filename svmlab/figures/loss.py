"""The loss against the margin, with the training margins as a rug.

The rug's ticks are painted into a strip image (:func:`rug_png`) as the points are
(:mod:`svmlab.figures.points`), with hover from marker-less traces.
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike
from PIL import Image, ImageDraw

from svmlab.array_types import Array
from svmlab.figures.points import _hover_trace, _swatch
from svmlab.figures.style import (
    PALETTE,
    _axis,
    _base_layout,
    _figure,
    _rgb,
    _short,
    _title,
    tint,
)
from svmlab.losses import Hinge, Loss, ModifiedHinge

__all__ = ["LOSS_M", "PAYS", "RUG_OPACITY", "loss_figure", "rug_png"]


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
    """:func:`loss_spec` as a ``go.Figure``."""
    spec = loss_spec(loss, margins, C=C, show_printed=show_printed)
    return _figure(spec["data"], spec["layout"])


def _paid_line(paid: float, C: float | None) -> str:
    """``C Σ ℓ(mᵢ)`` in words. A hard margin (C = ∞) pays nothing, and ∞ · 0 is
    NaN in floating point: it is said as the sum alone, with C = ∞."""
    if C is None:
        return f"Σ ℓ(mᵢ) = {paid:.4g}"
    if math.isinf(C):
        return f"C = ∞ (hard margin): Σ ℓ(mᵢ) = {paid:.4g}"
    return f"C Σ ℓ(mᵢ) = {paid * float(C):.4g}"


def loss_spec(
    loss: Loss,
    margins: ArrayLike | None = None,
    *,
    C: float | None = None,
    show_printed: bool = True,
) -> dict[str, Any]:
    """The loss as a function of the margin, with the training margins as a rug,
    as the plain ``{"data", "layout"}`` dicts a chart sends (building a
    ``go.Figure`` costs more than the figure's numbers on each slider move).

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
    dict
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
            strip.insert(0, (at, tint(colour, RUG_OPACITY)))  # paying on top
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
        # A subtitle, on a line of its own: beside a long loss name ("Modified
        # hinge (Lee), δ = 0.1") it ran past a half-width chart's edge at 1280 px.
        subtitle = _paid_line(float(paid.sum()), C)
    layout = _base_layout(
        title=_title(title, subtitle if margins is not None else None),
        height=380,
        margin={"t": 72 if margins is not None else 60},
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
    return {"data": traces, "layout": {**layout, "template": {}}}
