"""Solvers: every solver on the same problem, side by side, against LIBSVM.

Widgets (svmlab.ui.solvers.requests) -> a SolversRequest -> cached engine calls
(svmlab.experiments.solver_comparison, svmlab.experiments.solver_scaling) -> figure
builders (svmlab.figures.solver_traces, svmlab.figures.solver_race).
"""

from __future__ import annotations

import functools

import streamlit as st

from svmlab.experiments.solver_race import CLOCKS
from svmlab.figures.solver_race import race_panel
from svmlab.figures.solver_traces import scaling_figure, traces_figure
from svmlab.snippets import solvers_code
from svmlab.ui.frame import keyed, page_hands, page_url, panels, router, view_code
from svmlab.ui.frame.model_block import clicked_result, kept_result
from svmlab.ui.frame.page_state import SOLVERS_STATE
from svmlab.ui.solvers import requests as sp
from svmlab.ui.solvers import text
from svmlab.user_text import for_markdown

__all__ = ["render"]

#: The traces chart's widest narrow layout: a phone's 358 px column takes it,
#: the page's on a 1280 px screen does not.
NARROW_BELOW = 560


def render() -> None:
    """Draw the Solvers page: one script run of ``pages/5_Solvers.py``."""
    request, code = page_hands.top_with_code(
        SOLVERS_STATE, sp.controls, title=sp.TITLE, help=sp.HELP
    )

    # A refused comparison keeps the last one drawn (model_block.kept_result).
    request, result = kept_result(
        "solvers_comparison", request, lambda: sp.comparison(request)
    )

    # In the title row (no row of its own: the traces stay on the screen).
    upload = None if request.generated else request.data()
    view_code.popover(solvers_code(request, upload), key=sp.PREFIX, where=code)

    page_url.preset_box(SOLVERS_STATE, result)
    TITLES = text.titles()
    table, invalid = sp.table(result)
    classroom = page_url.classroom(SOLVERS_STATE)
    for row in result.rows:
        if row.error:
            st.error(f"{row.title}: {for_markdown(row.error)}")
    if not table.empty:
        st.dataframe(
            table,
            hide_index=True,
            width="stretch",
            column_config={"solver": st.column_config.TextColumn(width="medium")},
        )

    def table_notes() -> None:
        st.caption(
            text.reference_sentence(result)
            + " "
            + text.TABLE_HELP
            + " · library: scikit-learn on the same problem, scored by the same "
            "formulas."
        )
        for row in [r for r in result.rows if r.note]:
            st.caption(f"{TITLES.get(row.name, row.name)}: {for_markdown(row.note)}")
        if invalid:
            with st.expander(f"Not valid for this loss and bias ({len(invalid)})"):
                st.markdown(
                    "\n".join(f"- **{t}**: {for_markdown(r)}" for t, r in invalid)
                )

    def convergence() -> None:
        if not (result.traces and result.best_objective is not None):
            if not classroom:
                st.header("Convergence")
            st.info(sp.nothing_recorded(result))
            return
        # The page's figure: on a phone it comes first, its heading with it.
        with router.figure_area("solvers"):
            if not classroom:  # on a projector the table and traces share one screen
                st.header("Convergence")
            traces = functools.partial(
                traces_figure,
                result.traces,
                TITLES,
                best_objective=result.best_objective,
                tol=request.tol,
                # On a projector the table (zoomed with classroom mode) and
                # the traces share one 720 px screen; on a 1080 px screen
                # they too end inside it (issue 46).
                height=190 if classroom else 540,
                gap_only=classroom,
            )
            panels.plotly_chart(
                traces(),
                key="solvers_traces",
                # A phone's column: fewer x labels, none turned.
                narrow=(NARROW_BELOW, traces(narrow=True)),
            )
        st.caption(
            "Each solver's recorded iterates (at most 200 kept, evenly thinned). "
            "Seconds are each run's own clock rescaled to its timed run (recording "
            "slows a run). An objective gap at the bottom of the scale is 0 or "
            "below (round-off)."
        )

    # In classroom mode the traces come straight under the table, the notes after.
    for part in (convergence, table_notes) if classroom else (table_notes, convergence):
        part()

    # -- the race ----------------------------------------------------------------------
    st.header("The race")
    if result.traces:
        left, right = st.columns([1, 3], vertical_alignment="bottom")
        clock = keyed.radio(
            "Clock", CLOCKS, "solvers_clock", where=left, format_func=CLOCKS.get
        )
        percent = right.slider(
            "How far into the race (%)",
            0,
            100,
            value=int(keyed.value("solvers_race", 30)),
            step=2,
            key="solvers_race",
            help="Scrubbing reads the recorded iterates: nothing is refitted.",
        )
        frames = sp.race(request, percent / 100.0, clock)
        if len(frames) == 1:
            st.caption(
                f"Only {TITLES[frames[0].name]} records its iterates here. For a race, "
                "choose no bias (SMO against coordinate ascent) or the squared hinge."
            )
        # Two panels a row: three in a row were 200 px wide on a 1280 px screen.
        cells = [c for _ in range(0, len(frames), 2) for c in st.columns(2)]
        for cell, item in zip(cells, frames, strict=False):
            with cell:
                st.markdown(
                    sp.frame_caption(
                        item, TITLES.get(item.name, item.name), result.reference
                    )
                )
                panels.plotly_chart(
                    race_panel(
                        item,
                        result.X,
                        result.y,
                        bounds=result.bounds,
                        f_reference=result.f_reference,
                    ),
                    key=f"solvers_race_{item.name}",
                    axis_titles=request.axis_titles,
                )
        key = cells[len(frames)] if len(frames) % 2 else st.container()
        key.caption(
            "Thick line: the solver's f = 0 at that moment; thin dashes: f = ±1; grey "
            "dots: the reference's f = 0; yellow: where its sign still disagrees with "
            "the reference. ● class +1 · ■ class −1."
        )
    else:
        st.info(sp.nothing_recorded(result).replace("recorded", "recorded to race"))

    # -- scaling -----------------------------------------------------------------------
    st.header("Scaling with n")
    scale_request = sp.ScalingRequest(request)
    run = st.button(
        f"Run scaling (n up to {max(scale_request.sizes)}, budget "
        f"{sp.SCALING_SECONDS:.0f} s)",
        type="primary",
        key="solvers_run_scaling",
    )

    def partial_scaling(scaled) -> None:
        """The times over the sizes done so far, in the finished chart's column."""
        note = f"n up to {scaled.sizes[-1]} of {max(scale_request.sizes)}"
        left, _ = st.columns(2)
        with left:
            panels.partial_chart(
                scaling_figure(scaled.sizes, scaled.times, TITLES), note
            )

    stored = clicked_result(
        run,
        lambda: sp.run_scaling(scale_request, partial_scaling),
        sp.stored_scaling,
        "Run it to time every solver and the library at n = "
        f"{', '.join(map(str, scale_request.sizes))} (same model and data source), "
        "with Lee's Table 1 beside.",
    )
    if stored is not None:
        done, scaled, lee = stored
        if done != scale_request:
            st.caption("This run was for other settings; press the button to redo it.")
        left, right = st.columns(2)
        with left:
            panels.plotly_chart(
                scaling_figure(scaled.sizes, scaled.times, TITLES, lee=lee),
                key="solvers_scaling",
            )
            st.markdown(text.scaling_sentence(scaled))
            for name, why in scaled.stopped.items():
                st.caption(f"{TITLES.get(name, name)}: {for_markdown(why)}.")
        with right:
            st.markdown(
                "**Lee (2006) Table 1 beside ours** (QP / IRWLS above 1: IRWLS faster)"
            )
            st.dataframe(sp.lee_frame(lee), hide_index=True, width="stretch")
            st.markdown(text.lee_sentence(lee))

    # -- how each works ----------------------------------------------------------------
    st.header("How each works")
    shown = [r.name for r in result.rows if r.valid] + [
        r.name for r in result.rows if not r.valid
    ]
    columns = st.columns(2)
    for i, name in enumerate(shown):
        rule, iteration = text.HOW[name]
        with columns[i % 2]:
            st.markdown(
                f"**{TITLES[name]}**: {rule} *{iteration}* Source: {text.source(name)}."
            )
