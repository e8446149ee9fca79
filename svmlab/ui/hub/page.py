"""The lecture hub, svmlab's home page: the teaching presets by topic, the pages,
the sources.

Kept light on purpose (it is what a lecturer projects first): it draws text and
links only, and computes nothing. Each preset is a link to its page (Explore,
Losses, Solvers or Multiclass) with its settings in the URL
(:mod:`svmlab.ui.frame.presets`).
"""

from __future__ import annotations

import streamlit as st

from svmlab.ui.frame import router
from svmlab.ui.frame.presets import by_topic, query
from svmlab.ui.frame.router import PAGES

__all__ = ["render"]


def render() -> None:
    """Draw the The lecture hub page: one script run of ``pages/hub.py``."""
    router.guard()

    SOURCES = (
        'M. Sugiyama, textbook chapter 27, "Support Vector Classification": margins, '
        "the dual QP, KKT sparsity, kernels, hinge and ramp losses.",
        'S.-B. Lee (2006), "SVC with Modified Hinge Loss Function": the modified hinge '
        "loss, the IRWLS solver and approximate cross-validation.",
        'X. Zhu, lecture notes "Support Vector Machine": the primal/dual derivation '
        "and the KKT conditions.",
        'R. M. Rifkin (2007), slides "Several Views of Support Vector Machines": the '
        "Tikhonov view and coordinate-ascent dual algorithms.",
        "For the SVM family: Schölkopf, Smola, Williamson & Bartlett (2000), ν-SVC; "
        "Schölkopf, Platt, Shawe-Taylor, Smola & Williamson (2001), the one-class SVM; "
        "Platt (1999) and Lin, Lin & Weng (2007), probabilities; Chang & Lin (2001), "
        "ν-SVC's equivalent C (docs/family_page.md).",
    )

    # Page links are one line with an ellipsis by default: let the presets' titles wrap.
    st.html(
        "<style>[data-testid=stMainBlockContainer] [data-testid=stPageLink-NavLink] *"
        "{white-space:normal !important;overflow:visible !important;"
        "text-overflow:clip !important}</style>"
    )
    st.title("svmlab")
    st.markdown(
        "svmlab is an interactive lab for seeing support vector machines work. "
        "Each preset below opens a page (Explore unless it names another) at one "
        "idea, with a paragraph beside the figure saying what to look at and the "
        "number that shows it; every preset is a link you can share. Add "
        "`&classroom=1` (or the toggle at the top of Explore's sidebar) for a "
        "projector."
    )
    st.subheader("Presets for a lecture")
    columns = st.columns(3, gap="medium")
    for i, (topic, presets) in enumerate(by_topic().items()):
        with columns[i % 3]:
            st.markdown(f"**{topic}**")
            for preset in presets:
                st.page_link(
                    preset.page,
                    label=preset.title,
                    query_params=query(preset.name),
                    help=preset.look,
                )
    st.subheader("Pages")
    for page in PAGES[1:]:
        st.page_link(page.script, label=f"{page.title}: {page.purpose}", icon=page.icon)
    st.subheader("Sources")
    st.markdown("\n".join(f"- {source}" for source in SOURCES))
    st.caption(
        "Where a printed formula is wrong, svmlab uses a corrected form: see Notes on "
        "the sources."
    )
