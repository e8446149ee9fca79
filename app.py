"""svmlab's home page: what the lab is, its pages, and its sources.

Kept light on purpose (it is what a lecturer projects first): it draws text and
links only, and computes nothing.
"""

from __future__ import annotations

import streamlit as st

from svmlab.ui.navigation import PAGES, sidebar_links

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

st.set_page_config(page_title="svmlab", layout="wide")
sidebar_links()
st.title("svmlab")
st.markdown(
    "svmlab is an interactive lab for seeing support vector machines work. "
    "Generate a two-dimensional data set, pick a kernel, a loss and a solver, and "
    "watch the decision contours, the margins f = ±1, the support vectors coloured "
    "by their KKT state and the histogram of the dual coefficients α respond as "
    "you move the settings."
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
