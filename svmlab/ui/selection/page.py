"""Model selection: approximate leave-one-out (Lee's ACV and better) against exact
leave-one-out over a (C, sigma) grid, and Lee (2006)'s experiment reproduced.

Sidebar widgets -> a SweepRequest -> "Run sweep" -> one cached engine call
(svmlab.ui.selection.requests.run_sweep) -> session state -> figure builders
(svmlab.figures). The display controls read the stored
sweep and never recompute it.

The page's figure comes first (issue 46: on a projector's 720 lines and on a
phone, the figure before the text): the sweep's slices with the Run button and
the display controls beside them, or, before a sweep, Lee's reproduced Figure 2
(svmlab.ui.selection.lee_view) with the Run button beside it; the page's
explanation follows.
"""

from __future__ import annotations

import functools

import numpy as np
import streamlit as st

from svmlab import SvmlabError, figures
from svmlab.experiments import selection
from svmlab.figures.heatmap import shared_zrange
from svmlab.kernels import lee_sigma2_from_sigma
from svmlab.snippets import selection_code
from svmlab.ui.frame import page_hands, page_url, panels, router, view_code
from svmlab.ui.frame.model_block import engine_result
from svmlab.ui.frame.page_state import SELECTION_STATE
from svmlab.ui.selection import lee_view
from svmlab.ui.selection import requests as sp

__all__ = ["render"]

TITLES = {name: c.title for name, c in selection.CRITERIA.items()}
CELL_C, CELL_SIGMA = "selection_cell_C", "selection_cell_sigma"
#: The slices chart's widest narrow (stacked) layout: a phone's 358 px column
#: takes it, a desktop's at least 700 px does not.
NARROW_BELOW = 560

INTRO = (
    "Choosing C and σ by leave-one-out cross-validation costs up to n refits per "
    "grid cell. Lee (2006) proposed the **ACV** function: an approximation of "
    "leave-one-out from one fit of the modified hinge loss (his by IRWLS). Its "
    "printed eq. (11) has sign errors; svmlab computes the corrected formula, "
    "three better first-order approximations (plug-in, ALO, span rule) and exact "
    "leave-one-out, so you can see where the shortcut tracks the real thing, what "
    "it saves, and whether it picks the same model. Every fit and refit here meets "
    "the loss's optimality conditions (its dual, solved exactly: Notes on the "
    "sources), so exact leave-one-out is exact; Lee's looser stop rule is an "
    "option under **Fits**, with what it changes."
)
KERNEL_NOTE = (
    "Kernel convention: svmlab's σ means k(x, z) = exp(−‖x − z‖² / 2σ²). Lee "
    "writes exp(−‖x − z‖² / σ²), so **Lee's σ² = 2σ²**; both are shown where his "
    "numbers appear."
)


def render() -> None:
    """Draw the Model selection page (``pages/2_Model_selection.py``'s run)."""
    request, code = page_hands.top_with_code(
        SELECTION_STATE, sp.sweep_controls, title="Model selection", require=False
    )
    classroom = page_url.classroom(SELECTION_STATE)
    # The figure first (on a phone right under the title and the Run button),
    # the display controls under it; a slot, so that a sweep that cannot be
    # shown is taken back whole.
    lead = router.figure_area("selection")
    run_col, note_col = lead.columns([1, 4], vertical_alignment="center")
    run = run_col.button(
        "Run sweep", type="primary", key="selection_run", disabled=request is None
    )
    if request is not None:
        upload = sp.request_data(request) if request.source == sp.UPLOAD else None
        view_code.popover(selection_code(request, upload), key=sp.PREFIX, where=code)

    if request is not None:
        note_col.caption(_size_note(request))
    body = lead.empty()
    # The sweep's progress and its partial surfaces at the full width, under.
    running = st.container()
    about = st.expander(
        "What this page compares",
        expanded=st.session_state.get(sp.STATE_KEY) is None and not run,
    )
    about.markdown(INTRO)
    about.caption(KERNEL_NOTE)
    rest = st.empty()

    if run and request is not None:
        with running:
            stored = engine_result(
                lambda: sp.run_sweep(request, _partial_grid), stop=False
            )
        if stored is not None:
            st.session_state[sp.STATE_KEY] = stored
            i, j = stored.result.argmin("loo")
            st.session_state[CELL_SIGMA], st.session_state[CELL_C] = i, j

    lee = lee_view.shown_results()
    stored = st.session_state.get(sp.STATE_KEY)
    if stored is not None:
        # A stored sweep that cannot be shown is said once and dropped (with what
        # it drew before failing), never replayed on every rerun: the next run
        # (another source, new settings) starts from a clean page.
        try:
            _sweep(stored, request, body, rest, classroom)
        except SvmlabError as error:
            _drop(body, rest)
            running.error(
                f"{sp.plain(error)} The last sweep was discarded: change the data or "
                "the settings and press **Run sweep**."
            )
            stored = None
        except Exception as error:  # a bug: say so plainly, keep the page usable
            _drop(body, rest)
            with running:
                panels.internal_error(error)
            stored = None
    if stored is None:
        with body.container():
            left, right = st.columns([2, 1], gap="medium")
            right.info(
                "Choose the data, the grid and the criteria in the sidebar, then "
                "press **Run sweep**. " + sp.speed_sentence()
            )
            if lee is not None:
                with left:
                    st.subheader("Lee (2006), reproduced")
                    lee_view.figure(lee, height=400 if classroom else 480)
    lee_view.section(lee, with_figure=stored is not None)


def _size_note(request: sp.SweepRequest) -> str:
    """What the next sweep computes, and where."""
    cells = len(request.Cs) * len(request.sigmas)
    X_request = dict(request.data_items)
    size = f"n = {X_request['n_samples']} points, " if "n_samples" in X_request else ""
    return (
        f"{size}{len(request.Cs)} C × {len(request.sigmas)} σ = {cells} cells, "
        f"{len(request.criteria)} criteria. Exact leave-one-out refits the model "
        "once for each point with a non-zero multiplier, in every cell, each refit "
        "warm-started from the full solution; the approximations need the full "
        f"fit alone. The sweep runs on {sp.sweep_location()}."
    )


def _drop(*slots) -> None:
    for slot in slots:
        slot.empty()
    del st.session_state[sp.STATE_KEY]


def _partial_grid(r) -> None:
    """Every criterion's surface over the cells done so far, while the sweep
    runs (the same heatmaps, colour range and columns as the finished ones)."""
    done = int(np.isfinite(r.scores[r.criteria[0]]).sum())
    note = f"{done} of {r.Cs.size * r.sigmas.size} cells"
    zrange = shared_zrange(list(r.scores.values()))
    columns = st.columns(2)
    for k, name in enumerate(r.criteria):
        with columns[k % 2]:
            panels.partial_chart(
                # The title's first part only: the note takes its second line.
                figures.heatmap_figure(
                    r,
                    name,
                    zrange=zrange,
                    title=f"{selection.CRITERIA[name].short_title} (so far: {note})",
                    scale=page_url.text_scale(SELECTION_STATE),
                ),
                note,
            )


def _clicked(key: str) -> None:
    """A heatmap click: the nearest grid cell becomes the chosen cell."""
    stored = st.session_state.get(sp.STATE_KEY)
    event = st.session_state.get(key)
    if stored is None or not event:
        return
    points = event.get("selection", {}).get("points", [])
    for point in points:
        x, y = point.get("x"), point.get("y")
        if x is None or y is None:
            continue
        r = stored.result
        st.session_state[CELL_C] = int(np.argmin(np.abs(np.log10(r.Cs) - x)))
        st.session_state[CELL_SIGMA] = int(np.argmin(np.abs(np.log10(r.sigmas) - y)))
        return


def _sweep(stored, request, body, rest, classroom: bool) -> None:
    """A stored sweep: its slices in the figure's place, the display controls
    under them, everything else under the page's explanation."""
    r = stored.result
    for key, top in ((CELL_C, len(r.Cs) - 1), (CELL_SIGMA, len(r.sigmas) - 1)):
        if not 0 <= st.session_state.get(key, 0) <= top:
            st.session_state[key] = 0
    with body.container():
        st.subheader("The criteria along the chosen slices")
        figure = st.container()  # drawn once the controls under it are read
        a, b, c, d = st.columns([2, 2, 2, 1], vertical_alignment="bottom")
        value = a.radio(
            "Show",
            ["scores", "errors"],
            format_func={
                "scores": "criterion value",
                "errors": "held-out misclassification",
            }.get,
            horizontal=True,
            key="selection_value",
        )
        j = b.select_slider(
            "Chosen C",
            options=list(range(len(r.Cs))),
            format_func=lambda k: f"{r.Cs[k]:.4g}",
            key=CELL_C,
        )
        i = c.select_slider(
            "Chosen σ",
            options=list(range(len(r.sigmas))),
            format_func=lambda k: (
                f"{r.sigmas[k]:.4g} (Lee σ² {lee_sigma2_from_sigma(r.sigmas[k]):.4g})"
            ),
            key=CELL_SIGMA,
        )
        log_y = d.toggle("log y", key="selection_log_y")
        if request is not None and request != stored.request:
            st.info(
                "The settings in the sidebar changed since this sweep: press "
                "**Run sweep** to compute them. Shown: the last sweep."
            )
        warning = sp.non_converged_message(stored)
        if warning:
            st.warning(warning, icon="⚠️")
        with figure:
            slices = functools.partial(
                figures.slices_figure,
                r,
                i,
                j,
                titles=TITLES,
                value=value,
                log_y=log_y,
                scale=page_url.text_scale(SELECTION_STATE),
            )
            panels.plotly_chart(
                # Classroom's larger text takes more of the height: 440 keeps
                # the plots readable and the figure inside 720 lines.
                slices(height=440 if classroom else 460),
                "selection_slices",
                # On a phone the panels stacked, the legend under them.
                narrow=(NARROW_BELOW, slices(narrow=True)),
            )
    with rest.container():
        st.caption(
            "The criterion value is the mean loss at the held-out margins (the "
            "misclassification counts a wrong sign). Stars: each line's minimum along "
            "the slice. Dotted lines: the chosen C and σ, in their panels. All "
            "criteria estimate the same leave-one-out quantity, so they share the y "
            "scale."
        )
        _rest(stored, value, i, j)


def _rest(stored, value: str, i: int, j: int) -> None:
    """Under the slices: the surfaces, the summary table, the stop rule's
    effect, where an approximation fails and the model each criterion picks."""
    r = stored.result
    C, sigma = float(r.Cs[j]), float(r.sigmas[i])
    chart = panels.plotly_chart
    st.subheader("Every surface over the grid")
    query = sp.explore_query(stored, C, sigma)
    if query is not None:
        st.link_button(
            f"Open C = {C:.4g}, σ = {sigma:.4g} in Explore",
            f"Explore?{query}",
            icon=":material/open_in_new:",
        )
    else:
        st.caption("Uploaded data never travel in a link: Explore cannot open them.")
    st.caption(
        "Click a cell to choose it (and open it in Explore with the button above). "
        "★ each surface's argmin, ✕ exact leave-one-out's argmin, □ the chosen "
        "cell. Every heatmap uses the same colour range (dark = small), clipped at "
        "the 95th percentile of all surfaces so one blow-up does not wash out the "
        "rest."
    )
    zrange = shared_zrange([getattr(r, value)[n] for n in r.criteria])
    columns = st.columns(2)
    for k, name in enumerate(r.criteria):
        key = f"selection_heat_{name}"
        with columns[k % 2]:
            chart(
                figures.heatmap_figure(
                    r,
                    name,
                    value=value,
                    zrange=zrange,
                    chosen=(i, j),
                    title=TITLES[name],
                    scale=page_url.text_scale(SELECTION_STATE),
                ),
                key,
                on_select=lambda key=key: _clicked(key),
                selection_mode="points",
            )

    st.subheader("How close, how fast, and which model each picks")
    tests = {
        name: sp.fresh_test_errors(stored.request, *r.best(name), stored.X, stored.y)
        for name in r.criteria
    }
    summary = sp.summary_frame(stored, tests)
    panels.number_table(
        summary,
        {
            "ρ": "%.3f",
            "C": "%.4g",
            "σ": "%.4g",
            "Lee σ²": "%.4g",
            "time (s)": "%.3f",
            "speed-up": "%.1f×",
            "test error": "%.4f",
        },
        key="selection_summary",
    )
    if stored.request.source == sp.UPLOAD:
        st.caption("Fresh test sets need a generator: none for uploaded data.")
    else:
        st.caption(
            f"ρ: Spearman rank correlation of each surface with exact LOO's "
            f"over all cells. C, σ, Lee σ² = 2σ²: the cell the criterion chooses; "
            f"steps: grid steps from that cell to exact LOO's choice; unconverged: "
            f"cells where a fit stopped before its tolerance. Time: the whole "
            f"grid, each criterion paying its own full fits; speed-up: exact LOO's "
            f"time (its refits warm-started) over this one's. Test error: mean "
            f"misclassification of the chosen "
            f"model on "
            f"{sp.N_TEST_SETS} new test sets of "
            f"{sp.fresh_test_size(stored.request)} "
            "points from the same generator (other seeds than the training set)."
        )

    lee_rule = sp.stop_rule_frame(stored)
    if lee_rule is not None:
        st.subheader("What Lee's rule does to the numbers")
        panels.number_table(
            lee_rule, {"largest change": "%.3g"}, key="selection_stop_rule"
        )
        st.caption(
            "This sweep's fits stopped by Lee's rule (IRWLS, mean squared change "
            "of α below 1e-3), as in his paper; beside them the same sweep with "
            "every fit and refit converged (KKT residual ≤ 1e-6). Largest change: "
            "the largest difference of the criterion's value over the grid; cells "
            "with another error: where the held-out misclassification differs; "
            "and the cell each picks. Exact leave-one-out of loosely solved fits "
            "is not exact leave-one-out."
        )

    st.caption(
        "Sources: "
        + "; ".join(
            f"{selection.CRITERIA[n].title}: {selection.CRITERIA[n].seed_section}"
            for n in r.criteria
        )
        + "."
    )

    approximations = [n for n in r.criteria if selection.CRITERIA[n].approximate]
    if approximations:
        st.subheader("Where an approximation fails")
        left, right = st.columns([1, 2], vertical_alignment="top")
        picked = left.radio(
            "Approximation",
            approximations,
            format_func=TITLES.__getitem__,
            key="selection_gap_criterion",
        )
        gap = np.abs(r.margins[picked][i, j] - r.margins["loo"][i, j])
        flips = int(
            np.sum(np.sign(r.margins[picked][i, j]) != np.sign(r.margins["loo"][i, j]))
        )
        left.markdown(
            f"At C = {C:.4g}, σ = {sigma:.4g} (Lee σ² = "
            f"{lee_sigma2_from_sigma(sigma):.4g}): largest |approximate − exact| "
            f"leave-one-out margin **{np.nanmax(gap):.4g}**, "
            f"mean {np.nanmean(gap):.4g}; "
            f"**{flips}** of {len(gap)} points change held-out sign (ringed)."
        )
        left.caption(
            "The approximations linearise the fit around the full-data solution. "
            "They are worst for the points that move the solution most when left "
            "out: support vectors near the boundary, and points the small-δ "
            "modified hinge treats almost like the hinge's corner."
        )
        scale = page_url.text_scale(SELECTION_STATE)
        with right:
            chart(
                figures.margin_gap_figure(
                    stored.X,
                    stored.y,
                    r.margins[picked][i, j],
                    r.margins["loo"][i, j],
                    bounds=figures.data_bounds(stored.X),
                    title=f"{TITLES[picked]} vs exact LOO at the chosen cell",
                    scale=scale,
                    # Classroom mode's larger text took the plot down to 180 px.
                    height=460 if scale == 1.0 else 580,
                ),
                "selection_gap",
            )

    st.subheader("The model each criterion chooses")
    models = sp.chosen_models(stored)
    bounds = figures.data_bounds(stored.X)
    columns = st.columns(2, gap="large")
    for k, (name, model) in enumerate(models.items()):
        bC, bs = r.best(name)
        errs = tests.get(name)
        extra = (
            f"; fresh test error **{np.mean(errs):.3f}**" if errs is not None else ""
        )
        with columns[k % 2]:
            st.markdown(
                f"**{TITLES[name]}**: C = {bC:.4g}, σ = {bs:.4g} (Lee σ² = "
                f"{lee_sigma2_from_sigma(bs):.4g}){extra}"
            )
            chart(
                figures.decision_figure(
                    model,
                    stored.X,
                    stored.y,
                    bounds=bounds,
                    height=600,
                    legend="top",
                    scale=page_url.text_scale(SELECTION_STATE),
                ),
                f"selection_model_{name}",
            )
