"""Notes on the sources: the project's own account of the formulas it takes from
Sugiyama, Lee, Zhu and Rifkin, and of its corrections (``docs/corrections.md``,
then the derivation of the modified hinge's dual, ``docs/modified_hinge_dual.md``,
rendered as they are in the repository, so the page and the files never disagree)."""

from __future__ import annotations

import sys
from pathlib import Path

# AppTest puts pages/ on sys.path, not the app root: make `import svmlab` work.
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from svmlab.ui import navigation  # noqa: E402

NOTES = ROOT / "docs" / "corrections.md"
#: The derivation of the modified hinge's dual, which the notes refer to.
DUAL = ROOT / "docs" / "modified_hinge_dual.md"

st.set_page_config(page_title="svmlab · Notes on the sources", layout="centered")
navigation.sidebar_links()
st.markdown(NOTES.read_text(encoding="utf-8"))
st.divider()
st.markdown(DUAL.read_text(encoding="utf-8"))
