"""The solver's convergence: objective and KKT violation per recorded iteration."""

from __future__ import annotations

from typing import TYPE_CHECKING

import plotly.graph_objects as go

from svmlab.errors import ParameterError
from svmlab.figures.style import (
    PALETTE,
    _axis,
    _base_layout,
    _figure,
    _short,
    vertical_line,
)

if TYPE_CHECKING:
    from svmlab.solvers.base import History

__all__ = ["convergence_figure"]


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
            vertical_line(
                xc,
                {"color": PALETTE["text"], "dash": "dot", "width": 2},
                xref="x2",
                name="current",
            )
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
