"""The Solvers page's line plots: convergence traces of every solver overlaid,
and fit time against n (log-log) with Lee (2006) Table 1's numbers."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from svmlab.figures.solver_style import solver_style
from svmlab.figures.style import PALETTE, _axis, _base_layout, _figure, _short

__all__ = ["scaling_figure", "traces_figure"]

#: The smallest relative objective gap drawn (log scale: 0 has no place on it;
#: below 1e-12 is round-off of a 1e-8 reference).
GAP_FLOOR = 1e-12


def _decade_step(values) -> int:
    """Label every decade of a log axis over up to 6 decades, every 2nd or 3rd
    over more: sixteen labels (KKT 1 to 1e-15) crowded into one another."""
    v = np.asarray([x for x in values if x is not None and x > 0], dtype=float)
    if v.size < 2:
        return 1
    decades = math.log10(v.max() / v.min())
    return 1 if decades <= 6 else 2 if decades <= 12 else 3


def _line(name: str, title: str, x, y, xaxis: str, yaxis: str, legend: bool):
    colour, dash, symbol = solver_style(name)
    return {
        "type": "scatter",
        "x": _short(x, 6),
        "y": _short(y),
        "xaxis": xaxis,
        "yaxis": yaxis,
        "mode": "lines+markers" if len(x) <= 40 else "lines",
        "name": title,
        "legendgroup": name,
        "showlegend": legend,
        "line": {"color": colour, "dash": dash, "width": 2.5},
        "marker": {"size": 7, "symbol": symbol, "color": colour},
        "hovertemplate": f"{title}<br>%{{x}}: %{{y:.3g}}<extra></extra>",
    }


def _row_y(
    domain: list[float], anchor: str, matches: str, log: dict[str, Any]
) -> dict[str, Any]:
    """A right panel's y axis: its row's scale (``matches``) without tick
    labels, which repeated the left's and, in a phone's 358 px, sat inside the
    left panel, over its curves and ticks."""
    return _axis(
        "", domain=domain, anchor=anchor, matches=matches, showticklabels=False, **log
    )


def traces_figure(
    traces: Mapping[str, Any],
    titles: Mapping[str, str],
    *,
    best_objective: float,
    tol: float,
    height: int = 620,
    gap_only: bool = False,
    narrow: bool = False,
) -> go.Figure:
    """Relative objective gap ``(P_k - P_best) / max(|P_best|, 1)`` (top) and KKT
    violation (bottom), against iteration (left) and milliseconds (right), log y.
    ``gap_only``: the top row alone (a projector's short screen). ``narrow``:
    a phone's column, about 120 px a panel: at most three x labels each, never
    turned (turned, the milliseconds' labels hung into the panel below).

    Parameters
    ----------
    traces
        name -> :class:`svmlab.experiments.solver_comparison.Trace` (iteration, time,
        objective, kkt arrays).
    titles
        name -> the legend's name.
    best_objective
        The lowest objective any solver reached (the reference's when there is
        one); gaps below :data:`GAP_FLOOR` are drawn at it.
    tol
        Drawn as a dotted line on the KKT panels ("tol").
    """
    data = []
    gaps, kkts = [], []
    scale = max(abs(best_objective), 1.0)
    for name, trace in traces.items():
        gap = (np.asarray(trace.objective) - best_objective) / scale
        gap = np.maximum(gap, GAP_FLOOR)
        kkt = np.where(np.asarray(trace.kkt) > 0, trace.kkt, np.nan)
        gaps += gap.tolist()
        kkts += [float(k) for k in trace.kkt]
        title = titles.get(name, name)
        ms = 1e3 * np.asarray(trace.time)
        for x, xa, suffix in ((trace.iteration, "x", ""), (ms, "x2", "2")):
            data.append(_line(name, title, x, gap, xa, "y" + suffix, not suffix))
            data.append(
                _line(name, title, x, kkt, "x3" if not suffix else "x4",
                      "y3" if not suffix else "y4", False)
            )  # fmt: skip
    # tol as a dotted line across each KKT panel (a trace: shapes on a log
    # axis take log10 coordinates, which is easy to get wrong).
    spans = (
        [
            [float(x.min()), float(x.max())]
            for x in (
                np.concatenate(
                    [np.asarray(t.iteration, float) for t in traces.values()]
                ),
                np.concatenate([1e3 * np.asarray(t.time) for t in traces.values()]),
            )
        ]
        if traces
        else []
    )
    for xs, axes in zip(spans, (("x3", "y3"), ("x4", "y4")), strict=False):
        data.append(
            {
                "type": "scatter",
                "x": _short(xs, 6),
                "y": [tol, tol],
                "xaxis": axes[0],
                "yaxis": axes[1],
                "mode": "lines",
                "name": "tol",
                "showlegend": False,
                "hoverinfo": "skip",
                "line": {"color": PALETTE["reference"], "dash": "dot", "width": 1.5},
            }
        )
    annotations = [
        {
            "text": f"tol {tol:g}",
            "xref": f"x{a} domain",
            "yref": f"y{a}",
            "x": 0.01,
            "y": math.log10(tol),
            "xanchor": "left",
            "yanchor": "bottom",
            "showarrow": False,
            "font": {"size": 13, "color": PALETTE["reference"]},
        }
        for a in (3, 4)
    ]
    # Decades only: the 2 and 5 between them crowd a log axis unreadable.
    log = {"type": "log", "exponentformat": "power"}
    gap_log = {**log, "dtick": _decade_step(gaps)}
    kkt_log = {**log, "dtick": _decade_step([*kkts, tol])}
    layout = _base_layout(
        height=height,
        margin={"l": 84, "r": 16, "t": 56, "b": 64},
        annotations=annotations,
        legend={
            "orientation": "h",
            "x": 0,
            "y": 1.0,
            "yref": "container",
            "yanchor": "top",
            "font": {"size": 15},
        },
        xaxis=_axis("", domain=[0, 0.47], anchor="y", matches="x3"),
        xaxis2=_axis("", domain=[0.55, 1], anchor="y2", matches="x4"),
        xaxis3=_axis("iteration", domain=[0, 0.47], anchor="y3"),
        xaxis4=_axis("milliseconds", domain=[0.55, 1], anchor="y4"),
        yaxis=_axis("objective gap (rel.)", domain=[0.55, 1], anchor="x", **gap_log),
        yaxis2=_row_y([0.55, 1], "x2", "y", gap_log),
        yaxis3=_axis("KKT violation", domain=[0, 0.45], anchor="x3", **kkt_log),
        yaxis4=_row_y([0, 0.45], "x4", "y3", kkt_log),
    )
    if gap_only:
        data = [t for t in data if t.get("yaxis") in ("y", "y2")]
        layout["annotations"] = []
        for name in ("xaxis3", "xaxis4", "yaxis3", "yaxis4"):
            layout.pop(name, None)
        layout["xaxis"] = _axis("iteration", domain=[0, 0.47], anchor="y")
        layout["xaxis2"] = _axis("milliseconds", domain=[0.55, 1], anchor="y2")
        layout["yaxis"]["domain"] = layout["yaxis2"]["domain"] = [0, 1]
        layout["margin"] = {**layout["margin"], "t": 36, "b": 56}
        layout["yaxis"]["title"]["text"] = "objective gap"
    if narrow:
        for name in ("xaxis", "xaxis2", "xaxis3", "xaxis4"):
            if name in layout:
                layout[name].update(nticks=3, tickangle=0)
    return _figure(data, layout)


def scaling_figure(
    sizes: Sequence[int],
    times: Mapping[str, Sequence[float | None]],
    titles: Mapping[str, str],
    *,
    lee: Sequence[Any] = (),
    height: int = 520,
) -> go.Figure:
    """Seconds against n, log-log: one line per solver (None: not run), and
    Lee (2006) Table 1 as hollow markers joined by thin lines ("Lee 2006:
    IRWLS", "Lee 2006: QP"; rows with ``n``, ``paper_irwls``, ``paper_qp``)."""
    data = []
    for name, row in times.items():
        pts = [(n, t) for n, t in zip(sizes, row, strict=False) if t]
        if not pts:
            continue
        xs, ys = zip(*pts, strict=True)
        trace = _line(name, titles.get(name, name), list(xs), list(ys), "x", "y", True)
        trace["mode"] = "lines+markers"
        data.append(trace)
    for key, name, label in (
        ("paper_irwls", "irwls", "Lee 2006: IRWLS (MATLAB)"),
        ("paper_qp", "qp", "Lee 2006: QP (quadprog)"),
    ):
        if not lee:
            break
        colour, _, symbol = solver_style(name)
        data.append(
            {
                "type": "scatter",
                "x": [r.n for r in lee],
                "y": _short([getattr(r, key) for r in lee]),
                "mode": "lines+markers",
                "name": label,
                "line": {"color": colour, "dash": "dot", "width": 1.5},
                "marker": {
                    "size": 10,
                    "symbol": f"{symbol}-open",
                    "color": colour,
                    "line": {"width": 2, "color": colour},
                },
                "hovertemplate": f"{label}<br>n %{{x}}: %{{y:.3g}} s<extra></extra>",
            }
        )
    log = {"type": "log", "exponentformat": "power", "dtick": 1}
    # The sizes themselves label the n axis (decades alone are 2 labels).
    ticks = sorted(sizes)
    layout = _base_layout(
        height=height,
        margin={"l": 84, "r": 16, "t": 16, "b": 64},
        # Below the plot: beside it, the legend took a third of a narrow column.
        legend={
            "orientation": "h",
            "x": 0,
            "y": -0.22,
            "yanchor": "top",
            "font": {"size": 14},
        },
        xaxis=_axis(
            "n (training points)",
            type="log",
            tickvals=ticks,
            ticktext=[str(n) for n in ticks],
        ),
        yaxis=_axis("seconds (kernel + solve)", **log),
    )
    return _figure(data, layout)
