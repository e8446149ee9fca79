"""Plotly charts, tables and error sentences, the same on every page."""

from __future__ import annotations

import itertools
import logging
from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

from svmlab.figures.plane import retitled
from svmlab.figures.theme import themed
from svmlab.ui.frame import chart, theme_choice

__all__ = [
    "CHART_CONFIG",
    "internal_error",
    "number_table",
    "partial_chart",
    "plotly_chart",
]

#: Plotly chart options: a hover-only modebar with the PNG export alone.
CHART_CONFIG = {
    "displaylogo": False,
    "modeBarButtons": [["toImage"]],
    "toImageButtonOptions": {"format": "png", "filename": "svmlab", "scale": 2},
    "scrollZoom": False,
}


def plotly_chart(
    fig: Any,
    key: str,
    *,
    config: dict | None = None,
    axis_titles: tuple[str, str] | None = None,
    narrow: tuple[int, Any] | None = None,
    **kwargs: Any,
) -> Any:
    """A Plotly chart as every page draws it, with :data:`CHART_CONFIG` unless
    ``config`` says otherwise: svmlab's kept-alive chart
    (:func:`svmlab.ui.frame.chart.plot`), which draws 2-D figures with
    plotly.js's cartesian bundle (issue 28: a new tab evaluates it in a third
    of the time of the full plotly.js inside Streamlit's Plotly element code:
    every chart page's first load 0.4-0.7 s sooner). With ``kwargs``
    (``on_select``, ``selection_mode``: a chart that reports the points
    clicked, which the kept-alive chart does not) ``st.plotly_chart``. Both draw
    the figure's own fonts (``theme=None``: Streamlit's chart theme would
    replace its 16 px projector fonts by smaller grey ones). ``axis_titles``:
    an upload's column names for a plane's x₁ and x₂
    (:func:`svmlab.figures.plane.retitled`). ``narrow = (below, figure)``: the
    layout drawn while the chart is at most ``below`` px wide (a phone), in the
    kept-alive chart (:func:`svmlab.ui.frame.chart.figure_payload`)."""
    config = CHART_CONFIG if config is None else config
    fig = retitled(fig, axis_titles)
    if not kwargs:
        return chart.plot(fig, key=key, config=config, narrow=narrow)
    spec = fig.to_dict() if hasattr(fig, "to_dict") else fig
    return st.plotly_chart(
        themed(spec, theme_choice.current()),
        key=key,
        theme=None,
        config=config,
        **kwargs,
    )


#: Partial charts are redrawn in one run: each draw gets a key of its own.
_partial_draws = itertools.count()


def partial_chart(fig: Any, note: str) -> None:
    """A chart of a partial result (issue 28: a button shows something within a
    second): marked "so far: <note>" (:func:`svmlab.figures.style.mark_partial`),
    with a key of its own, never the final chart's, and no selection."""
    from svmlab.figures.style import mark_partial

    plotly_chart(mark_partial(fig, note), key=f"partial_chart_{next(_partial_draws)}")


def number_table(frame: Any, formats: Mapping[str, str], *, key: str) -> None:
    """A table without its index, each column named in ``formats`` printed in
    its format (``st.column_config.NumberColumn``'s: "%.4g", "percent", ...)."""
    st.dataframe(
        frame,
        hide_index=True,
        column_config={
            column: st.column_config.NumberColumn(format=fmt)
            for column, fmt in formats.items()
        },
        key=key,
    )


def internal_error(error: Exception) -> None:
    """An unexpected engine exception: a plain message on the page (no traceback
    on a projector), the traceback in the server log."""
    logging.getLogger("svmlab.ui").exception("unexpected error in the engine")
    st.error(
        f"Something went wrong inside svmlab ({type(error).__name__}: {error}). "
        "This is a bug: please report it with the link of this page. Other "
        "settings still work."
    )


def formula_section(title: str, formulas: Sequence[str], reading: str) -> None:
    """A page's formulas (``title``, each LaTeX block in turn) beside their
    reading in words, three fifths to two."""
    left, right = st.columns([3, 2])
    with left:
        st.subheader(title)
        for formula in formulas:
            st.latex(formula)
    with right:
        st.subheader("Reading it")
        st.markdown(reading)
