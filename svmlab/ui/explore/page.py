"""Explore: the live SVM playground.

Widgets (svmlab.ui.explore.controls) -> settings -> cached data and fit
(svmlab.ui.explore.cache) -> figure builders (svmlab.figures) ->
svmlab.ui.frame.chart (a Plotly chart the browser keeps across reruns and
redraws in place). The sidebar holds the data
and model choices; C, σ, the chart and everything computed from them sit in one
fragment, so moving a slider or selecting on the chart reruns only that part.
"""

from __future__ import annotations

import functools

import streamlit as st

from svmlab import SvmlabError, figures, losses, solvers
from svmlab.errors import FitCancelled
from svmlab.ui.explore import (
    cache,
    compare,
    controls,
    edit,
    hall_panel,
    inspector,
    kernel_view,
    keys,
    lecture,
    panels,
    path_view,
    slides_panel,
    undo_bar,
    upload,
)
from svmlab.ui.frame import chart as ui_chart
from svmlab.ui.frame import refusals, router
from svmlab.ui.frame.presets import PRESETS

__all__ = ["render"]


def render() -> None:
    """Draw the Explore page: one script run of ``pages/1_Explore.py``."""
    router.guard()

    controls.sidebar()
    title_area, reset_area, room_area, keys_area = st.columns(
        [5.5, 1.5, 1.1, 1], vertical_alignment="center"
    )
    title_area.title(
        "Explore",
        help="Move C and σ and watch the boundary f = 0 (solid), the margins f = ±1 "
        "(dashed) and the support vectors (ringed: black free, pink bound) follow. "
        "Click the plane to add a point; drag a box or lasso to remove points.",
    )
    panels.reset_button(reset_area, edit.reset_edits)
    hall_panel.title_popover(
        room_area, bool(st.session_state.get(controls.KEYS["classroom"]))
    )
    keys.help(keys_area)
    hall_panel.banner()
    controls.show_notes()
    controls.show_switch()
    refusals.show_refusal("explore", "The picture still shows the data from before it.")

    def chart(
        fig,
        key: str,
        revision: object,
        select: bool = False,
        defer: bool = True,
        fit: tuple[int, int] | None = None,
        move: object = None,
    ) -> object:
        """Draw ``fig`` (a figure or a ``figures.*_spec`` dict) in a Plotly chart kept
        alive across reruns (svmlab.ui.frame.chart): the browser redraws it in place
        with ``Plotly.react``, once. A ``datarevision`` that changes with the inputs
        tells Plotly the data changed. Charts other than the main one are drawn when the
        browser is idle (``defer``). Returns the box or lasso selection of this run
        (``select=True``), if any."""
        return ui_chart.plot(
            fig,
            key=key,
            config=panels.CHART_CONFIG,
            select=select,
            defer=defer,
            revision=str(hash(revision)),
            fit=fit,
            move=move,
        )

    add_label, dragmode = panels.edit_tools()
    keys.hidden_buttons()
    # Outside the fragment: the listener then costs nothing on a slider move.
    edit.click_listener()

    @st.fragment
    def playground() -> None:
        undo_bar.rerun_if_restored()
        settings, undo_area = controls.live_controls()
        identity = edit.identity_of(settings)
        # "inspects" (0): a click picks the point to inspect instead of adding one.
        click = edit.pending_click() if add_label == 0.0 else None
        data = None
        try:
            data = cache.load_data(identity)
            if add_label != 0.0:
                edit.apply_pending_click(identity, add_label)
            edits = edit.current_edits(identity)
            no_solver = cache.no_solver_message(settings)
            # A value on a computed path draws its stored model: a scrub fits nothing.
            record = None if no_solver else path_view.stored_record(settings, edits)
            if not no_solver:
                record = record or cache.fit_settings(settings, edits)
        except FitCancelled:
            return  # superseded: the next run draws the picture
        except SvmlabError as error:
            no_solver, record = None, None
            st.error(str(error))
        except Exception as error:  # a bug: say so plainly, keep the page usable
            no_solver, record = None, None
            panels.internal_error(error)
        # Every state the lecturer made is a step (a refused model too).
        undo_bar.record(settings, edit.current_edits(identity))
        with undo_area:
            slides_slot = undo_bar.buttons()
        if no_solver:
            st.info(no_solver)
        if record is None:
            # The last picture that could be drawn stays, with every setting.
            last = cache.last_good()
            if last is None:
                # Nothing drawn yet in this session (a link to a model the
                # engine refuses): the data, the room and the downloads still.
                if data is not None:
                    _data_alone(settings, identity, data)
                return
            picture = last
            st.caption(
                "The picture below is the last one that could be drawn; every "
                "setting above is kept as you set it."
            )
        else:
            picture = cache.Picture(settings, identity, data, edits, record)
            cache.keep_good(picture)
        settings, identity, data, edits, record = picture
        model = record.model
        if click is not None:
            inspector.pick(record.X, click)
        inspected = inspector.current(len(record.y))
        revision = (settings, edits, inspected)
        test = (data.X_test, data.y_test) if settings.show_test else None
        added = edit.added_mask(len(record.y), edits)

        last_spec: list[dict] = []
        # The plane as drawn here and as the room's followers see it: the key
        # sits beside the chart (panels.legend_key), not in it.
        plane = functools.partial(
            panels.plane, model, record.X, record.y, data, test, added
        )

        def decision(snapshot: int | None = None) -> object:
            fig = plane(
                snapshot=snapshot,
                dragmode=False if dragmode == "move" else dragmode,
                scale=1.5 if settings.classroom else 1.0,
                highlight=inspected if snapshot is None else None,
                axis_titles=upload.axis_titles(settings.upload),
            )
            last_spec[:] = [fig]
            # A click while dragging selects is an event only (explore.edit adds a
            # point).
            fig["layout"]["clickmode"] = (
                "event" if dragmode in ("select", "lasso") else "none"
            )
            if snapshot is not None:
                return chart(fig, "explore_snapshot", (revision, snapshot), defer=False)
            # At most 760 px, less on a short screen: the title, the tools and the
            # sliders above take about 300 px (1280 x 720 leaves a 420 px chart).
            return chart(
                fig,
                edit.chart_key(identity),
                revision,
                select=True,
                defer=False,
                # The page above the chart in classroom mode: title, edit and C/σ rows.
                fit=(400, 270 if settings.classroom else 300),
                move=record.X if dragmode == "move" else None,
            )

        # In classroom mode an open lecture tool sits beside the figure (a 720
        # px projector: under it, the path scrubber was 650 px below the
        # plane), the big numbers under the tool and the preset's paragraph
        # under both.
        tool_open = settings.classroom and lecture.current_tool() != "none"
        if tool_open:
            left, side = st.columns([3, 2], gap="medium")
            tool_area, right = side.container(), side.container()
            paragraph_area = st.container()
        else:
            left, right = st.columns([2, 1], gap="medium")
            tool_area = st.container()
            paragraph_area = right
        with left:
            # In classroom mode the key goes beside the square plot, in the width its
            # equal aspect leaves free: under the numbers it fell below a 720 px screen.
            plot_area, key_area = (
                st.columns([4, 1]) if settings.classroom else (left, None)
            )
            with plot_area, router.figure_area("explore"):
                selection = decision()

            def follower_spec() -> dict:
                # The room sees the figure at its normal scale, no point ringed.
                if last_spec and not settings.classroom and inspected is None:
                    return last_spec[0]
                return plane()

            hall_panel.publish(settings, edits, record, follower_spec)
            key_entries = figures.legend_entries(last_spec[0]) if last_spec else []
            if key_area is not None:
                with key_area:
                    panels.legend_key(key_entries, columns=1)
        if edit.apply_chart_event(identity, len(data.y_train), record, data, selection):
            edit.rerun()
        with right:
            # Open a room, or its code, followers and answers (live).
            hall_panel.room_row(settings, edits, last_spec[0] if last_spec else None)
            if settings.classroom:  # the big numbers first, the paragraph below
                highlight = PRESETS[settings.preset].number if settings.preset else None
                panels.numbers(record, highlight, classroom=True)
                with paragraph_area:
                    lecture.preset_panel(settings)
            else:
                highlight = lecture.preset_panel(settings)
                panels.numbers(record, highlight)
                panels.legend_key(key_entries)
        if last_spec:
            title = PRESETS[settings.preset].title if settings.preset else ""
            spec = last_spec[0]
            slides_panel.popover(
                slides_slot, settings, record, data, spec, added, title
            )
        note = figures.unresolved_width_note(model, data.bounds)
        if note:
            left.info(note, icon=":material/zoom_in:")
        scale = 1.5 if settings.classroom else 1.0
        with tool_area:
            tool = lecture.tool_picker()
            if tool == "path":
                path_view.section(settings, edits, scale)
            elif tool == "inspect":
                inspector.section(
                    settings, identity, len(data.y_train), record, data.bounds
                )
            elif tool == "kernel":
                kernel_view.section(picture, chart, scale)
            elif tool == "compare":
                compare.section(picture, chart, scale, test)
        left, right = st.columns(2, gap="medium")
        with left:
            chart(
                figures.alpha_histogram(model, log_count=settings.log_count),
                "explore_alpha_chart",
                revision,
            )
        with right:
            loss = losses.make_loss(
                "hinge" if settings.is_nu else settings.loss, delta=settings.delta
            )
            chart(
                figures.loss_spec(
                    loss,
                    model.margins_,
                    C=model.C if settings.is_nu else settings.effective_C,
                ),
                "explore_loss_chart",
                revision,
            )

        if settings.playback:
            st.subheader("Iteration playback")
            if not solvers.SOLVERS[model.solver_].iterative:
                st.info(
                    f"The {model.solver_} solver is not iterative: choose an "
                    "iterative solver in the sidebar to replay its steps."
                )
            else:

                def draw(k: int) -> None:
                    a, b = st.columns([2, 1])
                    with a:
                        decision(snapshot=k)
                    with b:
                        history = model.history_
                        chart(
                            figures.convergence_figure(history, current=k),
                            "explore_convergence",
                            (revision, k),
                        )
                        chart(
                            figures.alpha_histogram(model, snapshot=k),
                            "explore_alpha_k",
                            (revision, k),
                        )

                panels.playback(record, draw)

        panels.downloads(data, record, settings, edits)

    playground()
    panels.theory(controls.current_settings())


def _data_alone(settings, identity: tuple, data: cache.Data) -> None:
    """The page under a refused first fit: the training points on the plane
    (no model to draw yet), the room row beside them, and a sentence saying
    what comes back with a model the engine accepts."""
    X, y = cache.apply_edits(data.X_train, data.y_train, edit.current_edits(identity))
    left, right = st.columns([2, 1], gap="medium")
    with left:
        ui_chart.plot(
            figures.data_spec(
                X,
                y,
                bounds=data.bounds,
                height=760,
                scale=1.5 if settings.classroom else 1.0,
                axis_titles=upload.axis_titles(settings.upload),
            ),
            key=edit.chart_key(identity),
            config=panels.CHART_CONFIG,
            revision=str(hash((settings, "data alone"))),
            fit=(400, 270 if settings.classroom else 300),
        )
    with right:
        hall_panel.room_row(settings)
        st.info(
            "The training points, with no model yet: the fit these settings ask "
            "for was refused (the sentence above). Change what it names and the "
            "boundary, the numbers and the slides come back."
        )
