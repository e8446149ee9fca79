"""Losses: robustness to outliers, every loss side by side and measured.

Widgets (svmlab.ui.losses.requests) -> a LossesRequest -> cached engine calls
(svmlab.experiments.robustness) -> figure builders (svmlab.figures.robustness).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from svmlab import figures
from svmlab.experiments.robustness import LOSS_ORDER, best_start
from svmlab.figures import robustness as fig
from svmlab.losses import make_loss
from svmlab.snippets import losses_code
from svmlab.ui.frame import page_hands, page_url, panels, view_code
from svmlab.ui.frame.model_block import clicked_result, engine_result, kept_result
from svmlab.ui.frame.page_state import LOSSES_STATE
from svmlab.ui.losses import requests as lp
from svmlab.user_text import for_markdown

__all__ = ["render"]


def render() -> None:
    """Draw the Losses page: one script run of ``pages/4_Losses.py``."""
    request, _ = page_hands.top_with_code(
        LOSSES_STATE, lp.controls, title=lp.TITLE, help=lp.HELP, code=False
    )

    # A refused comparison keeps the last one drawn (model_block.kept_result).
    request, result = kept_result(
        "losses_comparison", request, lambda: lp.comparison(request)
    )
    # At the top, right: the popover opens downwards and fits a 720-line screen.
    _, code = st.columns([5, 2])
    upload = None if request.generated else request.data()
    view_code.popover(losses_code(request, upload), key=lp.PREFIX, where=code)

    # A preset comparing two losses: their panels first, side by side, its box
    # beside them (issue 46: the figure and the number read on one screen).
    preset = page_url.active_preset(LOSSES_STATE)
    compared = [n for n in (preset.panels if preset else ()) if n in LOSS_ORDER][:2]
    if not compared:
        page_url.preset_box(LOSSES_STATE, result)
    if request.matches_fig_27_17() and not page_url.active_preset(LOSSES_STATE):
        st.info(lp.FIG_27_17_TEXT, icon=":material/menu_book:")
    if not request.generated:
        st.caption(
            "An upload has no fresh points: the test error is measured on your clean "
            "points themselves, and the sweep's seeds move only the outliers' jitter."
        )

    bounds = figures.data_bounds(result.X)
    TITLES = {name: lp.loss_title(name) for name in LOSS_ORDER}
    st.caption(lp.KEY_TEXT)

    def panel(name: str) -> None:
        item = result.results[name]
        bounded = make_loss(name, delta=request.delta).bounded
        st.markdown(f"**{TITLES[name]}** · {'bounded' if bounded else 'unbounded'}")
        if item.error:
            st.error(for_markdown(item.error))
            return
        panels.plotly_chart(
            fig.loss_panel_figure(
                item.model,
                item.clean_model,
                result.X,
                result.y,
                result.is_outlier,
                bounds=bounds,
                # On a projector the preset and the first row share one screen.
                height=250 if page_url.classroom(LOSSES_STATE) else 300,
            ),
            key=f"losses_panel_{name}",
            axis_titles=request.axis_titles,
        )
        st.markdown(lp.numbers_markdown(item, request.kernel))

    def story() -> None:
        st.markdown("**What the panels show**")
        st.markdown(lp.story(result, request))

    # Three panels a row; None: the story in a panel's place.
    order: list[str | None] = [
        "hinge",
        "squared_hinge",
        "modified_hinge",
        "ramp",
        "squared_ramp",
        None,
    ]
    if compared:
        first = st.columns(3, gap="small")
        for column, name in zip(first, compared, strict=False):
            with column:
                panel(name)
        with first[2]:
            page_url.preset_box(LOSSES_STATE, result, narrow=True)
        order = [n for n in order if n not in compared]
    for start in range(0, len(order), 3):
        row = order[start : start + 3]
        if row == [None]:
            story()  # alone in its row: the page's width
            continue
        for column, name in zip(st.columns(3, gap="small"), row, strict=False):
            with column:
                if name is None:
                    story()
                else:
                    panel(name)

    # -- where each loss breaks --------------------------------------------------------
    st.header("Where each loss breaks")
    st.caption(
        f"The panels' setting again for every swept value and {lp.N_SEEDS} data "
        "seeds: the line is the median over the seeds, the band runs from the "
        "smallest to the largest."
    )
    controls = st.columns([2, 2, 1], vertical_alignment="bottom")
    axis = controls[0].radio(
        "Sweep",
        ["distance", "count"],
        format_func={"distance": "outlier distance", "count": "number of outliers"}.get,
        horizontal=True,
        key="losses_sweep_axis",
    )
    run = controls[2].button("Run sweep", type="primary", key="losses_run_sweep")
    sweep_request = lp.SweepRequest(request, axis)

    def sweep_measures(sweep_request: lp.SweepRequest) -> list[str]:
        """The boundary-shift measures that apply to the sweep's kernel."""
        if sweep_request.base.kernel == "linear":
            return ["angle", "shift_data"]
        return ["shift_data", "shift_plane"]

    def partial_sweep(sweep) -> None:
        """The two sweep charts over the seeds done so far, while the sweep runs."""
        shift = st.session_state.get("losses_sweep_measure")
        if shift not in sweep_measures(sweep_request):
            shift = sweep_measures(sweep_request)[0]
        fitted = int(np.isfinite(sweep.test_error).any(axis=2).sum())
        total = len(sweep.values) * sweep_request.n_seeds
        seeds = f"{len(sweep.seeds)} of {sweep_request.n_seeds} seeds"
        note = f"{fitted} of {total} data sets ({seeds})"
        for column, measure in zip(st.columns(2), ("test_error", shift), strict=True):
            with column:
                panels.partial_chart(fig.sweep_figure(sweep, measure, TITLES), note)

    stored = clicked_result(
        run,
        lambda: lp.run_sweep(sweep_request, partial_sweep),
        lp.stored_sweep,
        "Run the sweep to see each loss's error and boundary shift against the "
        f"outliers' {'distance' if axis == 'distance' else 'number'} "
        f"({lp.sweep_promise(sweep_request)}).",
    )
    if stored is not None:
        done, sweep = stored
        waited = st.session_state.get(lp.SWEEP_WAIT_KEY)
        if waited is not None and done == sweep_request:
            st.caption(f"{lp.sweep_promise(done)}: done in {waited:.1f} s.")
        if done != sweep_request:
            st.caption(
                "This sweep was run for other settings; press Run sweep to redo it for "
                "the current ones."
            )
        measures = sweep_measures(done)
        shift = controls[1].selectbox(
            "Boundary shift measured as",
            measures,
            format_func=lambda k: fig.MEASURES[k][0],
            key="losses_sweep_measure",
        )
        left, right = st.columns(2)
        with left:
            panels.plotly_chart(
                fig.sweep_figure(sweep, "test_error", TITLES),
                key="losses_sweep_error",
            )
        with right:
            panels.plotly_chart(
                fig.sweep_figure(sweep, shift, TITLES),
                key="losses_sweep_shift",
            )
        for failure in sweep.failures[:3]:
            st.warning(for_markdown(failure))

    # -- why ---------------------------------------------------------------------------
    st.header("Why: bounded losses stop listening")
    losses = [make_loss(name, delta=request.delta) for name in LOSS_ORDER]
    fitted = [n for n in LOSS_ORDER if not result.results[n].error]
    rug = st.selectbox(
        "Training margins in the rug (right), from the fit with",
        fitted or LOSS_ORDER,
        format_func=TITLES.get,
        key="losses_rug",
    )
    left, right = st.columns(2)
    with left:
        panels.plotly_chart(
            fig.losses_figure(losses),
            key="losses_curves",
        )
    with right:
        if rug in fitted:
            panels.plotly_chart(
                fig.influence_figure(
                    losses,
                    result.results[rug].model.margins_,
                    result.is_outlier,
                    TITLES[rug],
                ),
                key="losses_influence",
            )
    st.markdown(lp.WHY_TEXT)

    # -- non-convexity -----------------------------------------------------------------
    st.header("Non-convex: the start decides")
    st.caption(
        "The same data from several starts; the objectives compare directly. At the "
        "default settings every start agrees; with many far outliers (20 at distance "
        "8, say) the default start is stuck in a poor local minimum."
    )
    loss = st.radio(
        "Loss",
        ["ramp", "squared_ramp"],
        format_func=TITLES.get,
        horizontal=True,
        key="losses_starts_loss",
    )
    starts = engine_result(lambda: lp.starts(request, loss), stop=False)
    if starts is not None:
        left, right = st.columns([3, 2])
        with left:
            panels.plotly_chart(
                fig.starts_figure(starts),
                key="losses_starts",
            )
        with right:
            st.markdown(lp.starts_text(starts, TITLES[loss]))
        st.dataframe(
            pd.DataFrame(
                {
                    "start": [s.start for s in starts],
                    "objective": [s.objective for s in starts],
                    "clean test error (%)": [100 * s.test_error for s in starts],
                    "labels changed where the data are (%)": [
                        100 * s.shift_data for s in starts
                    ],
                    "iterations": [s.n_iter for s in starts],
                    "converged": [s.converged for s in starts],
                    "lowest": [s is best_start(starts) for s in starts],
                }
            ).round({"objective": 4}),
            hide_index=True,
            width="stretch",
        )
