"""Notes on the sources: the project's own account of the formulas it takes from
Sugiyama, Lee, Zhu and Rifkin, and of its corrections (``docs/corrections.md``,
then the derivation of the modified hinge's dual, ``docs/modified_hinge_dual.md``,
rendered as they are in the repository, so the page and the files never disagree)."""

from __future__ import annotations

import streamlit as st

from svmlab.ui.frame import app_files, page_url, router
from svmlab.ui.frame.page_state import NOTES_STATE

__all__ = ["render"]


def render() -> None:
    """Draw the Notes on the sources page: one script run of ``pages/3_Notes.py``."""
    router.guard()

    DOCS = app_files.DOCS  # the checkout's docs/, or the installed copy
    NOTES = DOCS / "corrections.md"
    #: The derivation of the modified hinge's dual, which the notes refer to.
    DUAL = DOCS / "modified_hinge_dual.md"

    page_url.publish(NOTES_STATE)  # classroom=1 stays in the link
    page_url.messages(NOTES_STATE)  # what the link had that the page cannot use
    st.markdown(NOTES.read_text(encoding="utf-8"))
    st.divider()
    st.markdown(DUAL.read_text(encoding="utf-8"))
