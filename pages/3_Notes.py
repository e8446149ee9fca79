"""Notes on the sources: the project's own account of the formulas it takes from
Sugiyama, Lee, Zhu and Rifkin, and of its corrections (``docs/corrections.md``,
rendered as it is in the repository, so the page and the file never disagree)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from svmlab.ui import frame, page_url
from svmlab.ui.page_state import NOTES_STATE

frame.guard()


NOTES = Path(__file__).resolve().parents[1] / "docs" / "corrections.md"

page_url.publish(NOTES_STATE)  # classroom=1 stays in the link
st.markdown(NOTES.read_text(encoding="utf-8"))
