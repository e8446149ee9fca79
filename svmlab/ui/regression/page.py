"""Regression: ε-SVR and ν-SVR on one input, the tube drawn.

Widgets (svmlab.ui.regression.requests) -> a RegressionRequest -> the cached fit
(svmlab.EpsilonSVR / svmlab.NuSVR) -> figure builders (svmlab.figures.regression).
"""

from __future__ import annotations

import functools

import streamlit as st

from svmlab.figures import regression as fig
from svmlab.snippets import regression_code
from svmlab.ui.frame import page_hands, page_url, panels, view_code
from svmlab.ui.frame.chart import plot
from svmlab.ui.frame.chart_click import remove_clicked_button
from svmlab.ui.frame.model_block import engine_result, kept_result
from svmlab.ui.frame.page_state import REGRESSION_STATE
from svmlab.ui.regression import requests as rp

__all__ = ["render"]

#: The tube chart's widest narrow layout: a phone's 358 px column takes it,
#: the page's column on a 1280 px screen (about 800 px) does not.
NARROW_BELOW = 560


def render() -> None:
    """Draw the Regression page: one script run of ``pages/7_Regression.py``."""
    request, added, _ = page_hands.top_taking_points(REGRESSION_STATE, rp)
    # At the top, right: the popover opens downwards and fits a 720-line screen.
    _, code = st.columns([5, 2])
    upload = None if request.generated else request.data()
    view_code.popover(
        regression_code(request, added, upload), key=rp.PREFIX, where=code
    )

    # A refused fit keeps the last one drawn (model_block.kept_result).
    (request, added), fitted = kept_result(
        "regression_fit", (request, added), lambda: rp.fit(request, added)
    )
    page_url.preset_box(REGRESSION_STATE, fitted)

    classroom = page_url.classroom(REGRESSION_STATE)
    left, right = st.columns([7, 2], gap="small")
    with left:
        tube = functools.partial(
            fig.tube_figure,
            fitted.model,
            fitted.X,
            fitted.t,
            epsilon=fitted.epsilon,
            test=fitted.test,
            added=fitted.added,
            scale=1.25 if classroom else 1.0,
            height=460,
        )
        plot(
            tube(),
            key=rp.CHART_KEY,
            config=panels.CHART_CONFIG,
            revision=str(hash((request, added))),
            fit=(300, 260 if classroom else 330),
            # On a phone the key takes a row an entry, under the x axis.
            narrow=(NARROW_BELOW, tube(narrow=True)),
        )
    with right:
        st.markdown(rp.numbers_markdown(request, fitted))
        st.caption("Click the chart to add a point (x, t) there.")
        remove_clicked_button(added, "regression_clear_points", rp.clear_points)
    st.markdown(rp.story(request, fitted))

    stems, losses = st.columns(2, gap="small")
    squared = request.machine == "epsilon" and request.loss != "epsilon_insensitive"
    with stems:
        panels.plotly_chart(
            fig.stem_figure(
                fitted.model, fitted.X, C=None if squared else request.C, height=300
            ),
            key="regression_stems_chart",
        )
    with losses:
        panels.plotly_chart(
            fig.residual_loss_figure(
                fitted.model.residuals_,
                epsilon=fitted.epsilon,
                squared=squared,
                height=300,
                states=fitted.model.sv_state_,
            ),
            key="regression_loss_chart",
        )

    st.subheader("Along ε")
    if request.machine == "nu":
        st.caption(
            "The ε path is ε-SVR's: switch the machine to ε-SVR to run it (ν-SVR "
            "finds one ε from ν)."
        )
    elif st.button(
        "Run the ε path",
        key="regression_run_path",
        help="ε-SVR at 15 values of ε around this one, with these C and kernel: how "
        "many points are support vectors, how many lie outside the tube, and the "
        "test error.",
    ):
        st.session_state["regression_path_for"] = (request, added)
    if st.session_state.get("regression_path_for") == (request, added):
        path = engine_result(lambda: rp.run_tube_path(request, added))
        n = len(path.models)
        panels.plotly_chart(
            fig.epsilon_path_figure(
                path.epsilons[:n],
                path.support_fraction[:n],
                path.outside_fraction[:n],
                path.test_rmse[:n],
                cursor=request.epsilon,
            ),
            key="regression_path_chart",
        )
        st.caption(rp.path_caption(path))

    panels.formula_section(
        "The ε-SVR dual", (rp.DUAL_LATEX, rp.PREDICT_LATEX), rp.DUAL_TEXT
    )
