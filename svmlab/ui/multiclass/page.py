"""Multiclass: one-vs-rest, one-vs-one and Crammer-Singer on the same data.

Widgets (svmlab.ui.multiclass.requests) -> a MulticlassRequest -> the cached
comparison (svmlab.experiments.multiclass_compare) -> figure builders
(svmlab.figures.multiclass).
"""

from __future__ import annotations

import streamlit as st

from svmlab.figures import multiclass as fig
from svmlab.snippets import multiclass_code
from svmlab.svm.multiclass import METHODS
from svmlab.ui.frame import page_hands, page_url, panels, view_code
from svmlab.ui.frame.model_block import engine_result, kept_result
from svmlab.ui.frame.page_state import MULTICLASS_STATE
from svmlab.ui.multiclass import requests as mp
from svmlab.user_text import for_markdown

__all__ = ["render"]


def render() -> None:
    """Draw the Multiclass page: one script run of ``pages/6_Multiclass.py``."""
    request, code = page_hands.top_with_code(
        MULTICLASS_STATE, mp.controls, title=mp.TITLE, help=mp.HELP
    )

    def compute():
        _, y, _, _ = request.data()
        return y, mp.comparison(request)

    # A refused comparison keeps the last one drawn (model_block.kept_result).
    request, (y, results) = kept_result("multiclass_comparison", request, compute)

    # In the title row (no row of its own: the panels stay on the projector).
    upload = None if request.generated else request.points()
    view_code.popover(multiclass_code(request, upload), key=mp.PREFIX, where=code)

    page_url.preset_box(MULTICLASS_STATE, results)
    names = request.class_names(int(max(y)) + 1)
    classroom = page_url.classroom(MULTICLASS_STATE)
    panels.plotly_chart(
        # The key grows with classroom mode's text (Plotly's pixels do not
        # follow the page's root font), as the family's key does.
        fig.key_figure(names, scale=page_url.text_scale(MULTICLASS_STATE)),
        config={"displayModeBar": False, "staticPlot": True},
        key="multiclass_key",
    )

    # Built once per server for these settings (a visit evaluates nothing again).
    specs = engine_result(
        lambda: mp.panel_specs(
            request,
            # On a projector the preset and the panels share one screen: 244
            # since the key grew with classroom text (at 260 the panels ended
            # at 730 px of 720).
            244 if classroom else 350,
            tuple(names),
        )
    )
    columns = st.columns(len(METHODS), gap="small")
    for column, (method, title) in zip(columns, METHODS.items(), strict=True):
        result = results[method]
        with column:
            st.markdown(f"**{title}**")
            if result.error:
                st.error(for_markdown(result.error))
                continue
            panels.plotly_chart(
                fig.panel_figure(specs[method]),
                key=f"multiclass_panel_{method}",
                axis_titles=request.axis_titles,
            )
            st.markdown(mp.numbers_markdown(result))
            for note in result.notes[:2]:
                st.caption(for_markdown(note))
    st.markdown(mp.story(results))

    panels.formula_section(
        "The Crammer-Singer dual", (mp.DUAL_LATEX, mp.PREDICT_LATEX), mp.DUAL_TEXT
    )
