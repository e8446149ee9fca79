"""The SVM family: C-SVC with class weights, ν-SVC and the one-class SVM on the
same data; Platt's probabilities and a threshold with its ROC curve.

Widgets (svmlab.ui.family.requests) -> a FamilyRequest -> the cached fit (svmlab.SVC,
svmlab.NuSVC or svmlab.OneClassSVM, with Platt's sigmoid) -> figure builders
(svmlab.figures.family). The threshold and the shading read the cached fit.
"""

from __future__ import annotations

import streamlit as st

from svmlab.figures import family as fig
from svmlab.figures.plane import retitled
from svmlab.snippets import family_code
from svmlab.ui.family import requests as fp
from svmlab.ui.frame import page_hands, page_url, panels, router, view_code
from svmlab.ui.frame.chart import plot
from svmlab.ui.frame.chart_click import remove_clicked_button
from svmlab.ui.frame.model_block import engine_result, kept_result
from svmlab.ui.frame.page_state import FAMILY_STATE

__all__ = ["render"]


def render() -> None:
    """Draw the SVM family page: one script run of ``pages/8_Family.py``."""
    request, added, code = page_hands.top_taking_points(FAMILY_STATE, fp, code=True)

    # A refused fit (a ν with no margin, a kernel the data break) keeps the last
    # picture, drawn with the settings it had; the sidebar keeps the new ones.
    (request, added), fitted = kept_result(
        "family_fit", (request, added), lambda: fp.fit(request, added)
    )
    shade, threshold = fp.field_value("shade"), float(fp.field_value("t"))
    # In the title row (no row of its own: the plane stays on the projector).
    upload = None if request.generated else request.data()
    view_code.popover(
        family_code(request, added, threshold, shade, upload),
        key=fp.PREFIX,
        where=code,
    )
    changed = page_url.preset_box(FAMILY_STATE, (request, fitted, threshold))

    classroom = page_url.classroom(FAMILY_STATE)
    scale = page_url.text_scale(FAMILY_STATE)
    # The plane, its numbers and, for a classifier, the threshold's controls
    # with the confusion matrix and the ROC curve beside it (a 720 px
    # projector: below the plane they were off the screen). On a projector
    # the ROC curve takes the numbers' column, which moves under the plane:
    # under the confusion matrix the curve ended 400 px below the 720-line
    # screen, and a fourth column shrank the plane to 150 px. A phone stacks
    # the columns: the plane first.
    projector = classroom and request.classifier
    if not request.classifier:
        widths = [3, 2]
    else:
        widths = [6, 4.4, 4] if projector else [6, 3, 4]
    columns = st.columns(widths, gap="small" if projector else "medium")
    left = columns[0]
    right = left if projector else columns[1]
    with left, router.figure_area("family"):
        plot(
            retitled(
                fig.family_figure(
                    fitted.model,
                    fitted.X,
                    fitted.y,
                    fitted.bounds,
                    machine=request.machine,
                    state=fitted.state,
                    shade=shade,
                    platt=None if fitted.A is None else (fitted.A, fitted.B),
                    threshold=threshold if request.classifier else 0.0,
                    others=fitted.others,
                    scale=scale,
                    height=620,
                ),
                request.axis_titles,
            ),
            key=fp.CHART_KEY,
            config=panels.CHART_CONFIG,
            revision=str(hash((request, added, shade, threshold, classroom))),
            # At most 620 px, less on a short screen: the title (and a preset's
            # paragraph) above take about 300 px, 45 more once the settings
            # changed ("Changed since" under the number): the x-axis title ran
            # 20 px below a 720 px projector.
            fit=(360, _above(page_url.active_preset(FAMILY_STATE), changed)),
        )
    with right:
        st.markdown(fp.numbers_markdown(request, fitted))
        if fitted.psd:
            st.info(fitted.psd, icon=":material/warning:")
        st.radio(
            "A click on the plane adds a point of class",
            (1.0, -1.0),
            format_func=lambda v: "+1" if v > 0 else "−1",
            horizontal=True,
            key=fp.CLICK_LABEL_KEY,
            help="The one-class SVM ignores the class, unless it is fitted on one "
            "class only: a point of the other class is then drawn hollow, flagged "
            "or not.",
        )
        remove_clicked_button(added, "family_clear_points", fp.clear_points)
    if request.classifier:
        with columns[1 if projector else 2]:
            # Not on a projector: with a preset's box above, its line pushed
            # the confusion matrix's second row below 720 px.
            if not projector:
                st.markdown("**Probabilities and a threshold**")
            shade, threshold = fp.view_controls()
            if fitted.platt_note:
                st.caption(fitted.platt_note)
            view = fp.threshold_view(fitted, threshold)
            st.markdown(fp.confusion_markdown(view))
            st.caption(fp.threshold_caption(view, fp.probability_at(fitted, threshold)))
        with columns[-1]:
            panels.plotly_chart(
                fig.roc_figure(
                    view.fpr,
                    view.tpr,
                    view.auc,
                    (view.report.fpr, view.report.tpr),
                    where=view.where,
                    scale=scale,
                    height=300 + 66,  # the key's rows under the plot
                ),
                key=fp.ROC_KEY,
            )
    st.markdown(fp.story(request, fitted))

    if request.machine != "C":
        st.subheader("Along ν")
        path = engine_result(lambda: fp.nu_path(fp.path_key(request), added))
        curve, words = st.columns([3, 2], gap="medium")
        with curve:
            panels.plotly_chart(
                fig.nu_path_figure(
                    path,
                    current=request.nu,
                    low_name="margin errors" if request.machine == "nu" else "outside",
                    scale=scale,
                ),
                key=fp.NU_PATH_KEY,
            )
        with words:
            st.markdown(fp.path_caption(request, path))


def _above(preset: object, changed: bool) -> int:
    """The page's height above the plane, in px (``plot``'s ``fit`` offset):
    the title row, and a preset's box with its "Changed since" line."""
    if preset is None:
        return 150
    return 345 if changed else 300
