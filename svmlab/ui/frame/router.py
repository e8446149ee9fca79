"""The frame around every page, written once: Streamlit's own navigation with
the course's sections, the page config, the style, the classroom toggle and the
URL's state.

``app.py`` is the router: :func:`route` declares the pages with ``st.navigation``
(its sidebar menu, in the order a course meets them, under the course's
sections), then for the page asked for loads its URL state, sets the page config
(the sidebar collapsed in classroom mode, before anything is drawn), the compact
style, the classroom toggle at the top of the sidebar, and runs the page. The
pages stay in ``pages/`` (the design card), each a thin script.

Streamlit ignores ``pages/`` once any session has called ``st.navigation``, but a
freshly started server serves a direct link to a page file in its old
pages-directory mode, without the frame (seen here: the first visitor of
``/Explore`` got no menu). So every page starts with :func:`guard`, which in that
case runs the router itself, in the same run: the visitor lands on the same
page, inside the frame, with the link's query.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from svmlab.ui.frame import keyed, theme_choice
from svmlab.ui.frame.chart import preload as preload_plotly

__all__ = [
    "CLASSROOM_CSS",
    "FIGURE_KEY",
    "PAGES",
    "Page",
    "classroom",
    "figure_area",
    "guard",
    "route",
]


@dataclass(frozen=True)
class Page:
    """One page: its script (relative to the app root), title, icon, what it is
    for (the hub's list), its section in the menu, its URL path, and the prefix
    of its URL state (``""``: none)."""

    script: str
    title: str
    icon: str
    purpose: str
    group: str
    url_path: str
    state: str = ""


PAGES: tuple[Page, ...] = (
    Page(
        "pages/hub.py",
        "Lecture hub",
        ":material/school:",
        "the teaching presets by topic, the pages and the sources.",
        "Start",
        "",
    ),
    Page(
        "pages/1_Explore.py",
        "Explore",
        ":material/play_arrow:",
        "a live playground: generate data or upload your own, pick a kernel, a "
        "loss and a solver, move C and σ and watch the model refit.",
        "1 · The machine",
        "Explore",
        "explore",
    ),
    Page(
        "pages/8_Family.py",
        "SVM family",
        ":material/family_history:",
        "C-SVC with a C per class, ν-SVC (ν bounds the margin errors and the "
        "support vectors) and the one-class SVM on the same data; Platt's "
        "probabilities, a threshold with its confusion matrix and ROC curve; the "
        "sigmoid kernel.",
        "1 · The machine",
        "Family",
        "family",
    ),
    Page(
        "pages/4_Losses.py",
        "Losses",
        ":material/scatter_plot:",
        "robustness to outliers: every loss fitted on the same data with "
        "outliers, side by side and measured; where each loss breaks, and why.",
        "2 · Losses",
        "Losses",
        "losses",
    ),
    Page(
        "pages/5_Solvers.py",
        "Solvers",
        ":material/speed:",
        "every solver on the same problem, side by side and against LIBSVM: "
        "the table, convergence traces, a race of their boundaries, scaling "
        "with n and Lee's Table 1.",
        "3 · Solving the dual",
        "Solvers",
        "solvers",
    ),
    Page(
        "pages/2_Model_selection.py",
        "Model selection",
        ":material/grid_on:",
        "approximate cross-validation (Lee's ACV, plug-in, ALO, the span rule) "
        "against exact leave-one-out over a grid of C and σ, and Lee (2006) "
        "reproduced.",
        "4 · Choosing C and σ",
        "Model_selection",
        "selection",
    ),
    Page(
        "pages/6_Multiclass.py",
        "Multiclass",
        ":material/category:",
        "one-vs-rest, one-vs-one (LIBSVM's vote) and Crammer-Singer's direct "
        "multiclass SVM on the same data: regions, the binary boundaries, where "
        "the votes tie, errors and fit times; the Crammer-Singer dual.",
        "5 · More than two classes",
        "Multiclass",
        "multiclass",
    ),
    Page(
        "pages/7_Regression.py",
        "Regression",
        ":material/show_chart:",
        "support vector regression: ε-SVR and ν-SVR on one input, the ε-tube, "
        "the points inside, on and outside it, the multipliers, the loss and "
        "the ε path; click to add a point.",
        "6 · Regression",
        "Regression",
        "regression",
    ),
    Page(
        "pages/3_Notes.py",
        "Notes on the sources",
        ":material/menu_book:",
        "which formulas svmlab takes from the sources, and where it corrects them.",
        "Reference",
        "Notes",
        "notes",
    ),
)

#: Classroom mode's style on every page: bigger text (Streamlit sizes in rem:
#: the root font scales all of it), the space above the title and Streamlit's
#: header taken back for the figures.
CLASSROOM_CSS = (
    "<style>"
    "html{font-size:19px}"
    '[data-testid="stMainBlockContainer"]{padding-top:0.6rem;max-width:100%}'
    '[data-testid="stHeader"]{height:0;min-height:0;background:transparent}'
    "h1{font-size:1.7rem !important;padding:0 !important}"
    '[data-testid="stWidgetLabel"] p{font-size:1.05rem}'
    # Tables grow with the text: Streamlit's data grid draws on a canvas in
    # pixels, not rem (the Solvers table stayed 13 px). Its width is set in
    # pixels too, which the zoom would enlarge past the column (244 px past a
    # 1280 px window on Losses): kept to the column, the grid scrolls inside.
    '[data-testid="stDataFrame"]{zoom:1.3}'
    '[data-testid="stDataFrame"],[data-testid="stDataFrameResizable"]'
    "{max-width:100% !important}"
    "</style>"
)

#: A phone (Streamlit stacks columns below 640 px): the title clear of
#: Streamlit's header, then the page's main figure at the full width (the
#: element holding a container keyed ``figure_main_...`` comes first in its
#: block, after the title), the controls after it.
FIGURE_KEY = "figure_main"
_PHONE = (
    "@media (max-width:640px){"
    '[data-testid="stMainBlockContainer"]{padding-top:3.6rem}'
    f'[data-testid="stVerticalBlock"]>:has([class*="st-key-{FIGURE_KEY}"]),'
    f'[data-testid="stVerticalBlock"]>[class*="st-key-{FIGURE_KEY}"]{{order:-1}}'
    '[data-testid="stVerticalBlock"]>:has(h1){order:-2}'
    # The square plane as tall as the phone is wide, not the desktop's height
    # (blank bands above and below it).
    f".st-key-{FIGURE_KEY}_explore .svmlab-plot,"
    f".st-key-{FIGURE_KEY}_family .svmlab-plot"
    "{height:calc(100vw + 40px) !important}"
    # Multiclass's key strip, one entry a row in the phone's width: tall enough
    # for its eight entries (72 px showed three, Plotly scrolled the rest away).
    ".st-key-multiclass_key .svmlab-plot{height:184px !important}"
    # Formulas and code inside the width: the multiclass dual was 484 px in a
    # 358 px column, the notes' formulas scrolled sideways.
    ".katex-display{font-size:0.7em}"
    "pre,pre code{white-space:pre-wrap !important;overflow-wrap:anywhere}"
    "}"
)

#: Tighter margins on every page: on a projector's 720 lines the charts and
#: their sliders then fit on one screen. The invisible chart-click listeners
#: (svmlab.ui.frame.chart_click, 0 px high) are taken out of the flow: in it each
#: cost a block gap (19 px), enough to push Explore's chart below 720 lines.
_COMPACT = (
    "<style>"
    '[data-testid="stMainBlockContainer"]{padding-top:2.2rem;padding-bottom:2rem}'
    '[class*="st-key-click_listener_"],.st-key-svmlab_plotly_preload,'
    ".st-key-svmlab_theme_sync{position:absolute}"
    '[data-testid="stSidebarUserContent"]{padding-top:0.5rem}'
    "h1{padding-top:0.25rem !important}"
    f"{_PHONE}"
    "</style>"
)


def figure_area(page: str) -> object:
    """The container a page draws its main figure in: on a phone it comes
    first, right under the title (:data:`FIGURE_KEY`)."""
    return st.container(key=f"{FIGURE_KEY}_{page}")


def _state_hooks(prefix: str) -> tuple[Callable[[], None], str] | None:
    """``(load, classroom key)`` of the URL state with ``prefix``: ``load`` fills
    the widget keys from the link (or keeps the session's), the key is its
    classroom toggle's. Imported here, when a page asks: each page's state
    module imports the page's widgets."""
    if prefix == "explore":
        from svmlab.ui.explore import controls, hall_panel, upload

        def load() -> None:
            hall_panel.remember_room()  # ?from_room=, before the link is rewritten
            controls.sync_state()
            upload.resolve()

        return load, controls.KEYS["classroom"]
    from svmlab.ui.frame import page_url
    from svmlab.ui.frame.page_state import PAGE_STATES

    state = PAGE_STATES.get(prefix)
    if state is None:
        return None
    return (lambda: page_url.load(state)), state.classroom_key


def classroom(page: Page) -> bool:
    """Whether ``page`` shows classroom mode in this run."""
    hooks = _state_hooks(page.state) if page.state else None
    return bool(hooks and st.session_state.get(hooks[1]))


def _menu() -> dict[str, list]:
    sections: dict[str, list] = {}
    for i, page in enumerate(PAGES):
        sections.setdefault(page.group, []).append(
            # No icon: Streamlit's menu fetches a material icon's SVG from
            # fonts.gstatic.com (a lecture room may be offline; a visitor's
            # browser should not call out), where page links draw them locally.
            st.Page(
                page.script,
                title=page.title,
                url_path=page.url_path or None,
                default=i == 0,
            )
        )
    return sections


def _ignored_link() -> None:
    """On a page without settings (the hub), one sentence naming what the
    link carries, which nothing reads (every other page says so through its
    :class:`~svmlab.ui.frame.page_state.PageState`)."""
    from svmlab.ui.frame.link_values import quoted
    from svmlab.ui.frame.page_state import STREAMLIT_NAMES
    from svmlab.user_text import for_markdown

    names = [k for k in st.query_params if k not in STREAMLIT_NAMES]
    if names:
        listed = ", ".join(quoted(k) for k in names[:5])
        more = f" and {len(names) - 5} more" if len(names) > 5 else ""
        st.info(
            for_markdown(
                f"This page has no settings: the link's {listed}{more} "
                f"{'is' if len(names) == 1 else 'are'} ignored."
            ),
            icon=":material/link_off:",
        )


def route() -> None:
    """The router (``app.py``): the menu, then the frame around the page asked
    for, then the page."""
    current = st.navigation(_menu())
    page = next((p for p in PAGES if p.title == current.title), PAGES[0])
    hooks = _state_hooks(page.state) if page.state else None
    theme_choice.load()  # before the page's own link, which rewrites the URL
    if hooks is not None:
        hooks[0]()  # before the page config: classroom mode collapses the sidebar
    on = bool(hooks and st.session_state.get(hooks[1]))
    st.set_page_config(
        page_title=f"svmlab · {page.title}",
        layout="centered" if page.state == "notes" else "wide",
        initial_sidebar_state="collapsed" if on else "auto",
    )
    st.html(_COMPACT)
    if not page.state:
        _ignored_link()
    if hooks is not None:
        key = hooks[1]
        on = bool(
            st.sidebar.toggle(
                "Classroom mode",
                value=bool(keyed.value(key, False)),
                key=key,
                help="For a projector: bigger text, markers and lines, the "
                "advanced controls hidden, the sidebar collapsed when a link "
                "with classroom=1 is opened.",
            )
        )
    theme_choice.control()
    if on:
        st.html(CLASSROOM_CSS)
    if theme_choice.css():
        st.html(theme_choice.css())
    with st.sidebar:
        theme_choice.sync(page.url_path, [p.url_path for p in PAGES])
        # The hub has no chart of its own to draw first (its presets lead to
        # charts: preloaded at once); every other page draws its own first.
        # Streamlit's Plotly code only where its element is drawn: Explore's path.
        preload_plotly(
            later=page is not PAGES[0], streamlit_code=page.state == "explore"
        )
    _routed.active = True
    try:
        current.run()
    finally:
        _routed.active = False
        theme_choice.publish()  # theme= stays in the link the page wrote


#: Whether this thread is running a page from :func:`route` (each session's
#: script runs in its own thread, the page inside ``route``'s call).
_routed = threading.local()


def guard() -> None:
    """First line of every page: a page served without the router (a direct link
    on a freshly started server, in Streamlit's pages-directory mode) routes
    itself, in the same run: the navigation, the frame and the page again,
    inside it; then this outer run stops. Otherwise nothing.

    (A rerun instead would lose what the visitor's action sent with this run: a
    button's click is true in one run only. AppTest starts every run in that
    mode, so the tests go through here on every run.)"""
    if getattr(_routed, "active", False):
        return  # run by the router: inside the frame
    route()
    st.stop()
