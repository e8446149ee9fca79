"""The criteria against C at a fixed sigma and against sigma at a fixed C, side by
side on a shared y axis, each line's minimum starred (Model selection page)."""

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


def _panel_title(text: str, x: float) -> dict:
    """A left-aligned title above one panel of a two-panel figure."""
    return {
        "text": text,
        "x": x,
        "xref": "paper",
        "y": 1.02,
        "yref": "paper",
        "xanchor": "left",
        "yanchor": "bottom",
        "showarrow": False,
        "font": {"size": FONT_SIZE},
    }


def _log_axis(name: str, values: Sequence[float], domain: list[float]) -> dict:
    """One panel's x axis: log scale over ``domain``, ticks at the grid's values."""
    ticks = _grid_ticks(values)
    return _axis(
        f"{name} (log scale)",
        type="log",
        domain=domain,
        tickvals=ticks,
        ticktext=[_fmt(v) for v in ticks],
    )


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
) -> go.Figure:
    """The criteria against C at ``sigmas[sigma_index]`` (left) and against sigma at
    ``Cs[C_index]`` (right), one line per criterion on a shared y axis.

    Each line's minimum along its slice is a star of the line's colour; a dotted
    vertical line marks the chosen C (left) and sigma (right), the other slice.
    ``scale`` grows the text and margins (classroom mode: 1.25).

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
            axes = {"xaxis": "x", "yaxis": "y"} if side == 0 else {"xaxis": "x2"}
            axes.setdefault("yaxis", "y")
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
    return chart(
        data + stars,
        height=height,
        scale=scale,
        margin={"t": 70, "b": 160},
        xaxis=_log_axis("C", Cs, [0.0, 0.47]),
        # The right panel shares the left's y axis (a second y axis would let
        # the two halves disagree on scale).
        xaxis2={**_log_axis("σ", sigmas, [0.53, 1.0]), "anchor": "y"},
        yaxis=_axis(ytitle, type="log" if log_y else "linear"),
        legend="below",
        annotations=[
            _panel_title(f"against C at σ = {_fmt(sigma)} (Lee σ² = {_fmt(lee)})", 0.0),
            _panel_title(f"against σ at C = {_fmt(C)}", 0.53),
        ],
        shapes=[
            _vline(C, "x"),
            _vline(sigma, "x2"),
        ],
    )


def _grid_ticks(values: np.ndarray, max_ticks: int = 7) -> list[float]:
    """At most ``max_ticks`` of the grid's own values, evenly picked (ticks at the
    computed points, not Plotly's minor log ticks)."""
    step = max(1, math.ceil(values.size / max_ticks))
    return [float(v) for v in values[::step]]


def _vline(x: float, xref: str) -> dict[str, Any]:
    line = {"color": PALETTE["reference"], "width": 1.5, "dash": "dot"}
    return vertical_line(x, line, xref=xref)
