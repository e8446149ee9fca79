"""Model selection: approximate leave-one-out (Lee's ACV and better) against exact
leave-one-out over a (C, sigma) grid, and Lee (2006)'s experiment reproduced.

Sidebar widgets -> a SweepRequest -> "Run sweep" -> one cached engine call
(svmlab.ui.selection.requests.run_sweep) -> session state -> figure builders
(svmlab.figures). The display controls read the stored
sweep and never recompute it.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from svmlab import SvmlabError, figures
from svmlab.errors import FitCancelled, counted
from svmlab.experiments import selection
from svmlab.figures.heatmap import shared_zrange
from svmlab.kernels import lee_sigma2_from_sigma
from svmlab.snippets import selection_code
from svmlab.ui.frame import page_hands, panels, view_code
from svmlab.ui.frame.model_block import engine_result
from svmlab.ui.frame.page_state import SELECTION_STATE
from svmlab.ui.frame.run_state import superseded
from svmlab.ui.selection import requests as sp

__all__ = ["render"]


def render() -> None:
    """Draw the Model selection page (``pages/2_Model_selection.py``'s run)."""
    request, code = page_hands.top_with_code(
        SELECTION_STATE, sp.sweep_controls, title="Model selection", require=False
    )
    st.markdown(
        "Choosing C and σ by leave-one-out cross-validation costs up to n refits per "
        "grid cell. Lee (2006) proposed the **ACV** function: an approximation of "
        "leave-one-out from one fit of the modified hinge loss (his by IRWLS). Its "
        "printed eq. (11) has sign errors; svmlab computes the corrected formula, "
        "three "
        "better first-order approximations (plug-in, ALO, span rule) and exact "
        "leave-one-out, so you can see where the shortcut tracks the real thing, what "
        "it saves, and whether it picks the same model. Every fit and refit here meets "
        "the loss's optimality conditions (its dual, solved exactly: Notes on the "
        "sources), so exact leave-one-out is exact; Lee's looser stop rule is an "
        "option "
        "under **Fits**, with what it changes."
    )
    st.caption(
        "Kernel convention: svmlab's σ means k(x, z) = exp(−‖x − z‖² / 2σ²). Lee "
        "writes "
        "exp(−‖x − z‖² / σ²), so **Lee's σ² = 2σ²**; both are shown where his numbers "
        "appear."
    )

    TITLES = {name: c.title for name, c in selection.CRITERIA.items()}
    CELL_C, CELL_SIGMA = "selection_cell_C", "selection_cell_sigma"

    chart = panels.plotly_chart

    run_col, note_col = st.columns([1, 4], vertical_alignment="center")
    run = run_col.button(
        "Run sweep", type="primary", key="selection_run", disabled=request is None
    )
    if request is not None:
        upload = sp.request_data(request) if request.source == sp.UPLOAD else None
        view_code.popover(selection_code(request, upload), key=sp.PREFIX, where=code)

    if request is not None:
        cells = len(request.Cs) * len(request.sigmas)
        X_request = dict(request.data_items)
        size = (
            f"n = {X_request['n_samples']} points, " if "n_samples" in X_request else ""
        )
        note_col.caption(
            f"{size}{len(request.Cs)} C × {len(request.sigmas)} σ = {cells} cells, "
            f"{len(request.criteria)} criteria. Exact leave-one-out refits the model "
            "once for each point with a non-zero multiplier, in every cell, each refit "
            "warm-started from the full solution; the approximations need the full "
            f"fit alone. The sweep runs on {sp.sweep_location()}."
        )

    def partial_grid(r) -> None:
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
                        title=f"{TITLES[name].partition(' (')[0]} (so far: {note})",
                    ),
                    note,
                )

    if run and request is not None:
        stored = engine_result(lambda: sp.run_sweep(request, partial_grid), stop=False)
        if stored is not None:
            st.session_state[sp.STATE_KEY] = stored
            i, j = stored.result.argmin("loo")
            st.session_state[CELL_SIGMA], st.session_state[CELL_C] = i, j

    def clicked(key: str) -> None:
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
            st.session_state[CELL_SIGMA] = int(
                np.argmin(np.abs(np.log10(r.sigmas) - y))
            )
            return

    def show(stored: sp.StoredSweep) -> None:
        r = stored.result
        if request is not None and request != stored.request:
            st.info(
                "The settings in the sidebar changed since this sweep: press "
                "**Run sweep** to compute them. Below is the last sweep."
            )
        warning = sp.non_converged_message(stored)
        if warning:
            st.warning(warning, icon="⚠️")
        for key, top in ((CELL_C, len(r.Cs) - 1), (CELL_SIGMA, len(r.sigmas) - 1)):
            if not 0 <= st.session_state.get(key, 0) <= top:
                st.session_state[key] = 0

        st.subheader("Display")
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
        C, sigma = float(r.Cs[j]), float(r.sigmas[i])

        st.subheader("The criteria along the chosen slices")
        chart(
            figures.slices_figure(r, i, j, titles=TITLES, value=value, log_y=log_y),
            "selection_slices",
        )
        st.caption(
            "The criterion value is the mean loss at the held-out margins (the "
            "misclassification counts a wrong sign). Stars: each line's minimum along "
            "the slice. Dotted lines: the chosen C (left) and σ (right). All criteria "
            "estimate the same leave-one-out quantity, so they share the y axis."
        )

        st.subheader("Every surface over the grid")
        query = sp.explore_query(stored, C, sigma)
        if query is not None:
            st.link_button(
                f"Open C = {C:.4g}, σ = {sigma:.4g} in Explore",
                f"Explore?{query}",
                icon=":material/open_in_new:",
            )
        else:
            st.caption(
                "Uploaded data never travel in a link: Explore cannot open them."
            )
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
                    ),
                    key,
                    on_select=lambda key=key: clicked(key),
                    selection_mode="points",
                )

        st.subheader("How close, how fast, and which model each picks")
        tests = {
            name: sp.fresh_test_errors(
                stored.request, *r.best(name), stored.X, stored.y
            )
            for name in r.criteria
        }
        summary = sp.summary_frame(stored, tests)
        panels.number_table(
            summary,
            {
                "ρ vs LOO": "%.3f",
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
                f"ρ vs LOO: Spearman rank correlation of each surface with exact LOO's "
                f"over all cells. C, σ, Lee σ² = 2σ²: the cell the criterion chooses; "
                f"steps from LOO: grid steps to exact LOO's choice. Time: the whole "
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
                np.sum(
                    np.sign(r.margins[picked][i, j]) != np.sign(r.margins["loo"][i, j])
                )
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
            with right:
                chart(
                    figures.margin_gap_figure(
                        stored.X,
                        stored.y,
                        r.margins[picked][i, j],
                        r.margins["loo"][i, j],
                        bounds=figures.data_bounds(stored.X),
                        title=f"{TITLES[picked]} vs exact LOO at the chosen cell",
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
                f"; fresh test error **{np.mean(errs):.3f}**"
                if errs is not None
                else ""
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
                    ),
                    f"selection_model_{name}",
                )

    stored = st.session_state.get(sp.STATE_KEY)
    if stored is None:
        st.info(
            "Choose the data, the grid and the criteria in the sidebar, then press "
            "**Run sweep**. " + sp.speed_sentence()
        )
    else:
        # A stored sweep that cannot be shown is said once and dropped (with what
        # it drew before failing), never replayed on every rerun: the next run
        # (another source, new settings) starts from a clean page.
        shown = st.empty()
        try:
            with shown.container():
                show(stored)
        except SvmlabError as error:
            shown.empty()
            del st.session_state[sp.STATE_KEY]
            st.error(
                f"{sp.plain(error)} The last sweep was discarded: change the data or "
                "the settings and press **Run sweep**."
            )
        except Exception as error:  # a bug: say so plainly, keep the page usable
            shown.empty()
            del st.session_state[sp.STATE_KEY]
            panels.internal_error(error)

    # -- Lee (2006) reproduced
    # ------------------------------------------------------------

    st.header("Lee (2006) reproduced")
    shipped = sp.load_lee()
    # This session's own recompute, if it made one (kept in the session only:
    # no other visitor sees it).
    local = st.session_state.get(sp.LEE_SESSION_KEY)
    lee = shipped
    if local is not None:
        if st.session_state.pop("selection_lee_show_local", False):
            # set before the radio exists: a widget's state cannot change after.
            st.session_state["selection_lee_source"] = "recomputed"
        shown = st.radio(
            "Results shown",
            ["shipped", "recomputed"],
            format_func=lambda k: (
                f"recomputed by you ({counted(len(local['seeds']), 'seed')})"
                if k == "recomputed"
                else "shipped"
                + (f" ({counted(len(shipped['seeds']), 'seed')})" if shipped else "")
            ),
            horizontal=True,
            key="selection_lee_source",
        )
        lee = local if shown == "recomputed" or shipped is None else shipped
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
        seeds = len(lee["seeds"])
        settings = lee["settings"]
        st.markdown(
            f"**{seeds} training seeds**, each with {settings['n_test_sets']} test "
            "sets "
            f"of {settings['n_test']}; grid C ∈ "
            f"{{{', '.join(f'{c:g}' for c in settings['Cs'])}}}, Lee σ² ∈ "
            f"{{{', '.join(f'{v:g}' for v in settings['lee_sigma2s'])}}}."
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
            "sd "
            "over seeds). Paper: 0.1252 (IRWLS, ACV) and 0.1315 (QP, CV), one training "
            "set. 'Picks the best cell': how often the criterion chose the cell with "
            "the "
            "smallest mean test error; 'within one grid step': that cell or a "
            "neighbour. "
            "Bayes error of our radii (0.5 / 0.75): "
            f"{lee['paper']['bayes_error']:.4f}; "
            "no classifier does better on average."
        )
        st.markdown("**Reference cells**, on the same test sets")
        panels.number_table(
            sp.lee_reference_frame(lee),
            {"mean test error": "%.4f", "sd over seeds": "%.4f"},
            key="selection_lee_reference",
        )
        chart(
            figures.lee_boxplot(
                sp.lee_test_errors(lee),
                titles=sp.LEE_TITLES,
                paper={
                    "irwls_lee": lee["paper"]["irwls_acv_error"],
                    "qp_loo": lee["paper"]["qp_cv_error"],
                },
                bayes_error=lee["paper"].get("bayes_error"),
            ),
            "selection_lee_box",
        )
        st.caption(
            "The paper's Figure 2: test errors of the chosen models, every test set of "
            "every seed pooled (dashed line in each box: the mean)."
        )
        st.markdown("**Chosen (C, Lee σ²) per training seed**")
        st.dataframe(
            sp.lee_choices_frame(lee), hide_index=True, key="selection_lee_choices"
        )

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
