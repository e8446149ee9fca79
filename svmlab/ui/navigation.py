"""The app's navigation: every page's name, path and purpose, and the sidebar links.

Streamlit's automatic page list names the home page after its file ("app"), and
``st.navigation`` cannot replace it while the pages live in ``pages/``: Streamlit
then runs its pages-directory mode until some session happens to run ``app.py``
first, so the first visitor of a direct link would see the old list. So the built-in
list is hidden (``client.showSidebarNavigation = false``) and every page draws these
links at the top of its sidebar, with the names a course uses, in the order a
course meets them (the machine, losses, solving the dual, choosing C and σ), each
under its group's caption; the landing page is the "Lecture hub". The URLs stay
Streamlit's (``/Explore``, ``/Model_selection``, ``/Notes``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import (
    get_script_run_ctx,
)

__all__ = ["PAGES", "Page", "sidebar_links"]


@dataclass(frozen=True)
class Page:
    """One page: its script (relative to the app root), menu title, icon and what
    it is for (the home page's list)."""

    script: str
    title: str
    icon: str
    purpose: str
    group: str = ""


PAGES: tuple[Page, ...] = (
    Page(
        "app.py",
        "Lecture hub",
        ":material/school:",
        "the teaching presets by topic, the pages and the sources.",
        "Start",
    ),
    Page(
        "pages/1_Explore.py",
        "Explore",
        ":material/play_arrow:",
        "a live playground: generate data or upload your own, pick a kernel, a "
        "loss and a solver, move C and σ and watch the model refit.",
        "1 · The machine",
    ),
    Page(
        "pages/4_Losses.py",
        "Losses",
        ":material/scatter_plot:",
        "robustness to outliers: every loss fitted on the same data with "
        "outliers, side by side and measured; where each loss breaks, and why.",
        "2 · Losses",
    ),
    Page(
        "pages/5_Solvers.py",
        "Solvers",
        ":material/speed:",
        "every solver on the same problem, side by side and against LIBSVM: "
        "the table, convergence traces, a race of their boundaries, scaling "
        "with n and Lee's Table 1.",
        "3 · Solving the dual",
    ),
    Page(
        "pages/2_Model_selection.py",
        "Model selection",
        ":material/grid_on:",
        "approximate cross-validation (Lee's ACV, plug-in, ALO, the span rule) "
        "against exact leave-one-out over a grid of C and σ, and Lee (2006) "
        "reproduced.",
        "4 · Choosing C and σ",
    ),
    Page(
        "pages/6_Multiclass.py",
        "Multiclass",
        ":material/category:",
        "one-vs-rest, one-vs-one (LIBSVM's vote) and Crammer-Singer's direct "
        "multiclass SVM on the same data: regions, the binary boundaries, where "
        "the votes tie, errors and fit times; the Crammer-Singer dual.",
        "5 · More than two classes",
    ),
    Page(
        "pages/3_Notes.py",
        "Notes on the sources",
        ":material/menu_book:",
        "which formulas svmlab takes from the sources, and where it corrects them.",
        "Reference",
    ),
)


def _served_as_app() -> bool:
    """Whether the running script belongs to the whole app (``streamlit run
    app.py``): a page run on its own (AppTest of one file) knows no other page,
    and links to them would raise."""
    ctx = get_script_run_ctx()
    manager = getattr(ctx, "pages_manager", None)
    if manager is None:
        return False
    return Path(manager.main_script_path).resolve() == ROOT / "app.py"


ROOT = Path(__file__).resolve().parents[2]


def sidebar_links() -> None:
    """The page links, at the top of the sidebar."""
    if not _served_as_app():
        return
    with st.sidebar:
        group = None
        for page in PAGES:
            if page.group != group:
                group = page.group
                st.caption(group)
            st.page_link(page.script, label=page.title, icon=page.icon)
        st.divider()
