"""The criteria against C at a fixed sigma and against sigma at a fixed C, side by
side (stacked in a phone's narrow layout) on one y scale, each line's minimum
starred (Model selection page)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from svmlab.figures.selection_style import VALUE_TITLES, _fmt, _style
from svmlab.figures.style import FONT_SIZE, PALETTE, _axis, _short, chart, vertical_line
from svmlab.kernels import lee_sigma2_from_sigma

__all__ = ["slices_figure"]


def _finite_argmin(values: np.ndarray) -> int | None:
    ok = np.isfinite(values)
    if not ok.any():
        return None
    return int(np.argmin(np.where(ok, values, np.inf)))


def _panel_title(text: str, yref: str) -> dict:
    """A left-aligned title standing on one panel (``yref``: that panel's
    ``"y domain"``), as wide as the panel allows."""
    return {
        "text": text,
        "x": 0.0,
        "xref": yref.replace("y", "x"),
        "y": 1.0,
        "yref": yref,
        "yshift": 4,
        "xanchor": "left",
        "yanchor": "bottom",
        "showarrow": False,
        "font": {"size": FONT_SIZE},
    }


def _log_axis(
    name: str, values: Sequence[float], domain: list[float], max_ticks: int = 7
) -> dict:
    """One panel's x axis: log scale over ``domain``, ticks at the grid's values."""
    ticks = _grid_ticks(values, max_ticks)
    return _axis(
        f"{name} (log scale)",
        type="log",
        domain=domain,
        tickvals=ticks,
        ticktext=[_fmt(v) for v in ticks],
    )


#: The narrow layout's pixels (a phone's 358 px column): each panel's plot
#: height, the gap between them (the upper panel's tick labels and axis title,
#: the lower one's title), the margin above (the title under the modebar) and
#: the one below (tick labels, axis title and the legend's rows, one entry a row).
#: 170 px panels keep the whole figure (754 px) on a phone's screen under
#: Streamlit's 60 px header (200 px ones put the key's last row under its edge).
NARROW_PANEL, NARROW_GAP, NARROW_TOP, NARROW_BOTTOM = 170, 118, 60, 236
#: The narrow figure's height (the chart draws it at this height).
NARROW_HEIGHT = NARROW_TOP + 2 * NARROW_PANEL + NARROW_GAP + NARROW_BOTTOM


def slices_figure(
    sweep: Any,
    sigma_index: int,
    C_index: int,
    *,
    criteria: Sequence[str] | None = None,
    titles: Mapping[str, str] | None = None,
    value: str = "scores",
    log_y: bool = False,
    height: int = 490,
    scale: float = 1.0,
    narrow: bool = False,
) -> go.Figure:
    """The criteria against C at ``sigmas[sigma_index]`` (left) and against sigma at
    ``Cs[C_index]`` (right), one line per criterion on a shared y axis.

    Each line's minimum along its slice is a star of the line's colour; a dotted
    vertical line marks the chosen C (left) and sigma (right), the other slice.
    ``scale`` grows the text and margins (classroom mode: 1.25). ``narrow``
    stacks the panels (against C above, against sigma under it) for a phone's
    column, :data:`NARROW_HEIGHT` high: side by side in 358 px their titles
    ran into each other and the legend covered the axis titles. Both layouts
    draw the same traces.

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
            # The right (or lower) panel on axes of its own, its y matching the
            # left's: the same scale, side by side or stacked.
            axes = (
                {"xaxis": "x", "yaxis": "y"}
                if side == 0
                else {"xaxis": "x2", "yaxis": "y2"}
            )
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
    yaxis = _axis(ytitle, type="log" if log_y else "linear")
    # The lower (right) panel's y axis follows the upper's range and scale.
    yaxis2 = {**yaxis, "matches": "y", "anchor": "x2"}
    ticks = 4 if narrow else 7  # a phone's 300 px axis holds four labels
    xaxis = _log_axis("C", Cs, [0.0, 1.0] if narrow else [0.0, 0.47], ticks)
    xaxis2 = {
        **_log_axis("σ", sigmas, [0.0, 1.0] if narrow else [0.53, 1.0], ticks),
        "anchor": "y2",
    }
    if narrow:
        plot = 2 * NARROW_PANEL + NARROW_GAP
        yaxis["domain"] = [(NARROW_PANEL + NARROW_GAP) / plot, 1.0]
        yaxis2["domain"] = [0.0, NARROW_PANEL / plot]
        layout = {
            "height": NARROW_HEIGHT,
            "margin": {"t": NARROW_TOP, "b": NARROW_BOTTOM, "l": 64, "r": 16},
        }
    else:
        # Side by side on one y axis: the right panel's tick labels and title
        # would repeat the left's.
        yaxis2.update(showticklabels=False, title={"text": ""})
        layout = {"height": height, "margin": {"t": 52, "b": 160}}
    return chart(
        data + stars,
        scale=scale,
        **layout,
        xaxis=xaxis,
        xaxis2=xaxis2,
        yaxis=yaxis,
        yaxis2=yaxis2,
        legend="below",
        annotations=[
            _panel_title(
                f"against C at σ = {_fmt(sigma)} (Lee σ² = {_fmt(lee)})", "y domain"
            ),
            _panel_title(f"against σ at C = {_fmt(C)}", "y2 domain"),
        ],
        shapes=[_vline(C, "x", "y domain"), _vline(sigma, "x2", "y2 domain")],
    )


def _grid_ticks(values: np.ndarray, max_ticks: int = 7) -> list[float]:
    """At most ``max_ticks`` of the grid's own values, evenly picked (ticks at the
    computed points, not Plotly's minor log ticks)."""
    step = max(1, math.ceil(values.size / max_ticks))
    return [float(v) for v in values[::step]]


def _vline(x: float, xref: str, yref: str) -> dict[str, Any]:
    """A dotted vertical line across one panel's height (``yref``: its domain)."""
    line = {"color": PALETTE["reference"], "width": 1.5, "dash": "dot"}
    return {**vertical_line(x, line, xref=xref), "yref": yref}
