"""Model selection's "Lee (2006) reproduced": the shipped (or this session's
recomputed) results drawn, the paper's Table 1 beside ours, and the Recompute
button.

Its figure (the paper's Figure 2, :func:`figure`) is the page's first figure
while no sweep has run (issue 46: the figure first, on one screen), and
:func:`section` then leaves it out; after a sweep it is drawn in the section.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from svmlab import SvmlabError, figures
from svmlab.errors import FitCancelled, counted
from svmlab.ui.frame import page_url, panels
from svmlab.ui.frame.page_state import SELECTION_STATE
from svmlab.ui.frame.run_state import superseded
from svmlab.ui.selection import requests as sp

__all__ = ["figure", "section", "shown_results"]

#: The "Results shown" switch (shipped or this session's recomputed results).
SOURCE_KEY = "selection_lee_source"


def shown_results() -> dict[str, Any] | None:
    """The Lee results this run shows: this session's recompute when the
    switch says so (or it was just made), else the shipped ones; None when
    neither exists. Read before the switch is drawn, so that a figure above
    it shows what it says."""
    shipped = sp.load_lee()
    # This session's own recompute, if it made one (kept in the session only:
    # no other visitor sees it).
    local = st.session_state.get(sp.LEE_SESSION_KEY)
    if local is None:
        return shipped
    if st.session_state.pop("selection_lee_show_local", False):
        # set before the radio exists: a widget's state cannot change after.
        st.session_state[SOURCE_KEY] = "recomputed"
    if st.session_state.get(SOURCE_KEY) == "recomputed" or shipped is None:
        return local
    return shipped


def figure(lee: dict[str, Any], *, height: int = 480) -> None:
    """The paper's Figure 2 for ``lee``, with its caption."""
    panels.plotly_chart(
        figures.lee_boxplot(
            sp.lee_test_errors(lee),
            titles=sp.LEE_TITLES,
            paper={
                "irwls_lee": lee["paper"]["irwls_acv_error"],
                "qp_loo": lee["paper"]["qp_cv_error"],
            },
            bayes_error=lee["paper"].get("bayes_error"),
            height=height,
            scale=page_url.text_scale(SELECTION_STATE),
        ),
        "selection_lee_box",
    )
    st.caption(
        "The paper's Figure 2: test errors of the chosen models, every test set of "
        f"every seed pooled ({counted(len(lee['seeds']), 'training seed')}; dashed "
        "line in each box: the mean)."
    )


def _source_switch() -> None:
    """Shipped or recomputed results, once this session has recomputed."""
    local = st.session_state.get(sp.LEE_SESSION_KEY)
    if local is None:
        return
    shipped = sp.load_lee()
    st.radio(
        "Results shown",
        ["shipped", "recomputed"],
        format_func=lambda k: (
            f"recomputed by you ({counted(len(local['seeds']), 'seed')})"
            if k == "recomputed"
            else "shipped"
            + (f" ({counted(len(shipped['seeds']), 'seed')})" if shipped else "")
        ),
        horizontal=True,
        key=SOURCE_KEY,
    )


def section(lee: dict[str, Any] | None, *, with_figure: bool) -> None:
    """The whole section under its header; the figure only ``with_figure``
    (without it, the figure is at the top of the page)."""
    st.header("Lee (2006) reproduced")
    _source_switch()
    st.markdown(
        "One training set of 100 two-circle points and 100 test sets of 100: (C, σ²) "
        "chosen by ACV for IRWLS (modified hinge, δ = 10⁻⁴) and by exact leave-one-out "
        "CV for the hinge QP, both without a bias, over a grid that contains the "
        "paper's choices (500, 0.7) and (500, 0.5). Repeated over several training "
        "seeds: one draw says little. **σ² here is Lee's**: k = exp(−‖x − z‖² / σ²) "
        "(svmlab's σ = √(σ²/2))."
    )
    if lee is None:
        st.info(
            "No cached results yet: run `python -m svmlab.experiments.lee2006`, or "
            "press Recompute below."
        )
    else:
        _results(lee, with_figure)
    _table1()
    _recompute()


def _results(lee: dict[str, Any], with_figure: bool) -> None:
    seeds = len(lee["seeds"])
    settings = lee["settings"]
    st.markdown(
        f"**{seeds} training seeds**, each with {settings['n_test_sets']} test "
        "sets "
        f"of {settings['n_test']}; grid C ∈ "
        f"{{{', '.join(f'{c:g}' for c in settings['Cs'])}}}, Lee σ² ∈ "
        f"{{{', '.join(f'{v:g}' for v in settings['lee_sigma2s'])}}}."
        + ("" if with_figure else " Their test errors: the figure at the top.")
    )
    panels.number_table(
        sp.lee_summary_frame(lee),
        {
            "ours: mean test error": "%.4f",
            "sd over seeds": "%.4f",
            "picks the best cell": "percent",
            "within one grid step": "percent",
        },
        key="selection_lee_table",
    )
    st.caption(
        "Ours: mean over seeds of each seed's mean test misclassification (± the "
        "sd over seeds). Paper: 0.1252 (IRWLS, ACV) and 0.1315 (QP, CV), one "
        "training set. 'Picks the best cell': how often the criterion chose the "
        "cell with the smallest mean test error; 'within one grid step': that "
        "cell or a neighbour. Bayes error of our radii (0.5 / 0.75): "
        f"{lee['paper']['bayes_error']:.4f}; no classifier does better on average."
    )
    st.markdown("**Reference cells**, on the same test sets")
    panels.number_table(
        sp.lee_reference_frame(lee),
        {"mean test error": "%.4f", "sd over seeds": "%.4f"},
        key="selection_lee_reference",
    )
    if with_figure:
        figure(lee)
    st.markdown("**Chosen (C, Lee σ²) per training seed**")
    st.dataframe(
        sp.lee_choices_frame(lee), hide_index=True, key="selection_lee_choices"
    )


def _table1() -> None:
    st.subheader("Lee's Table 1: seconds per fit, IRWLS against QP")
    ours = sp.read_table1()
    panels.number_table(
        sp.table1_frame(ours),
        {
            column: "%.4g"
            for column in (
                "paper IRWLS (s)",
                "paper QP (s)",
                "paper QP / IRWLS",
                "ours IRWLS (s)",
                "ours QP (s)",
                "ours QP / IRWLS",
            )
        },
        key="selection_table1",
    )
    if ours is None:
        st.caption(
            "Our column is empty: benchmarks/results/solvers.json is missing; run "
            "`python -m benchmarks solvers`."
        )
    else:
        st.caption(
            "Paper: MATLAB 6.5 on a Pentium IV. Ours: benchmarks/solvers.py (C = 500, "
            "Lee σ² = 0.7, δ = 10⁻⁴, no bias; median of repeated fits on a shared "
            "2-core machine)."
        )


def _recompute() -> None:
    with st.expander("Recompute the Lee experiment"):
        refusal = sp.recompute_refusal()
        if refusal:
            st.caption(refusal)
        n_seeds = st.slider(
            "Training seeds",
            1,
            sp.MAX_RECOMPUTE_SEEDS,
            2,
            key="selection_lee_seeds",
            help="Each seed sweeps an 8 × 8 grid with exact LOO twice: about a minute.",
            disabled=refusal is not None,
        )
        st.caption(
            "Runs here, for you alone: the result stays in this browser session "
            "(no file is written, no other visitor sees it) and a switch above "
            "chooses it or the shipped results. What bounds it: one recompute at "
            f"a time on this server, of at most {sp.MAX_RECOMPUTE_SEEDS} seeds, "
            "on one core and in turns with everybody's long fits; it stops when "
            "you leave the page. Off in room mode."
        )
        if st.button(
            "Recompute", key="selection_lee_run", disabled=refusal is not None
        ):
            bar = st.progress(0.0, text="Starting…")
            try:
                result = sp.recompute_lee(
                    n_seeds,
                    lambda f, m: bar.progress(min(max(float(f), 0.0), 1.0), text=m),
                    superseded(),
                )
            except FitCancelled:
                st.stop()  # the visitor ran the page again: that run draws it
            except sp.RecomputeRunning as busy:
                bar.empty()
                st.warning(sp.plain(busy), icon="⏳")
            except SvmlabError as error:
                st.error(sp.plain(error))
            except Exception as error:  # a bug: say so plainly, keep the page usable
                panels.internal_error(error)
            else:
                bar.empty()
                st.session_state[sp.LEE_SESSION_KEY] = result
                st.session_state["selection_lee_show_local"] = True
                st.rerun()
