"""svmlab landing page: what the lab is, links to its pages, and its sources.

Kept light on purpose (it is what a lecturer projects first): it imports only
streamlit and the standard library, and nothing from the svmlab engine.
"""

from __future__ import annotations

import re
from pathlib import Path

import streamlit as st

PAGES_DIR = Path(__file__).parent / "pages"

PLANNED = (
    (
        "Explore",
        "a live playground: generate data, pick a kernel, loss and solver, "
        "move C and σ and watch the model refit.",
    ),
    (
        "Model selection",
        "approximate cross-validation (ACV) against exact "
        "cross-validation: the curves over C and σ and what each costs.",
    ),
    (
        "Later pages",
        "losses (hinge, squared hinge, ramp, modified hinge), solvers "
        "step by step, and multiclass SVMs.",
    ),
)

SOURCES = (
    'M. Sugiyama, textbook chapter 27, "Support Vector Classification": margins, '
    "the dual QP, KKT sparsity, kernels, hinge and ramp losses.",
    'S.-B. Lee (2006), "SVC with Modified Hinge Loss Function": the modified hinge '
    "loss, the IRWLS solver and approximate cross-validation.",
    'X. Zhu, lecture notes "Support Vector Machine": the primal/dual derivation and '
    "the KKT conditions.",
    'R. M. Rifkin (2007), slides "Several Views of Support Vector Machines": the '
    "Tikhonov view and coordinate-ascent dual algorithms.",
)


def page_label(path: Path) -> str:
    """Turn ``pages/1_Model_selection.py`` into ``Model selection``."""
    return re.sub(r"^\d+_", "", path.stem).replace("_", " ")


st.set_page_config(page_title="svmlab", layout="wide")

st.title("svmlab")
st.markdown(
    "svmlab is an interactive lab for seeing support vector machines work. "
    "Generate a two-dimensional data set, pick a kernel, a loss and a solver, and "
    "watch the decision contours, the margins f = ±1, the support vectors coloured "
    "by their KKT state and the histogram of the dual coefficients α respond as "
    "you move the settings."
)

EXPLORE = PAGES_DIR / "1_Explore.py"
if EXPLORE.is_file():
    st.page_link(
        "pages/1_Explore.py",
        label="Start here: Explore, the live SVM playground",
        icon=":material/play_arrow:",
    )

st.subheader("Pages")
st.markdown("\n".join(f"- **{name}**: {what}" for name, what in PLANNED))

pages = sorted(PAGES_DIR.glob("*.py")) if PAGES_DIR.is_dir() else []
for path in pages:
    st.page_link(f"pages/{path.name}", label=page_label(path))
if not pages:
    st.caption("No pages yet: they appear here as they are added.")

st.subheader("Sources")
st.markdown("\n".join(f"- {source}" for source in SOURCES))
