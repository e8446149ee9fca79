"""The session's theme: System (the default), Light, Dark or High contrast,
chosen in the frame's sidebar and part of the link as ``theme=``.

Streamlit 1.67 draws its own page in light or dark (the visitor's system
setting, or the one its settings menu stored in the browser's
``localStorage``, which this app's ``toolbarMode = "minimal"`` hides) and says
which to the script (``st.context.theme.type``); it has no call that sets the
theme of one session from Python (streamlit#14172). So:

- the figures follow the choice on the server: :func:`current` is the
  :class:`svmlab.figures.theme.Theme` every chart of the run is drawn in
  (``svmlab.ui.frame.chart`` recolours each figure with it; with "System", the
  type the browser reported);
- Streamlit's own page follows it in the browser: a small invisible
  ``components.v2`` element (:func:`sync`) stores the choice where
  Streamlit's settings menu stores it and reloads the page once when the page
  shows the other base (the link holds the page's settings, so the reload
  shows the same screen); with "System" it removes what it stored and, when
  the system's setting changes while the page is open, reruns the script so
  that the charts follow Streamlit's page;
- the high-contrast theme is Streamlit's light page with black text and
  borders (:data:`CONTRAST_CSS`) and the figures' high-contrast colours.
"""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from svmlab.figures import theme as figure_theme
from svmlab.figures.theme import Theme
from svmlab.ui.frame.page_state import THEME_PARAM

__all__ = [
    "CHOICES",
    "CONTRAST_CSS",
    "KEY",
    "PARAM",
    "control",
    "current",
    "load",
    "page_params",
    "publish",
    "sync",
    "with_theme",
]

#: The link's parameter and the session key of the selector.
PARAM = THEME_PARAM
KEY = "svmlab_theme"
_WRITTEN = "svmlab_theme_written"
_NOTE = "svmlab_theme_note"
#: The link's values and the selector's labels; "auto" follows the system.
CHOICES: dict[str, str] = {
    "auto": "System",
    "light": "Light",
    "dark": "Dark",
    "contrast": "High contrast",
}

#: Streamlit's light page made high-contrast: black text, labels, captions and
#: widget borders (Streamlit's greys are about 4.8 : 1 on white).
CONTRAST_CSS = (
    "<style>"
    '[data-testid="stApp"],[data-testid="stApp"] p,[data-testid="stApp"] li,'
    '[data-testid="stApp"] label,[data-testid="stApp"] h1,'
    '[data-testid="stApp"] h2,[data-testid="stApp"] h3,'
    '[data-testid="stCaptionContainer"],[data-testid="stMetricLabel"],'
    '[data-testid="stMetricValue"],[data-testid="stWidgetLabel"] p,'
    '[data-testid="stSidebar"] span,[data-testid="stTickBarMin"],'
    '[data-testid="stTickBarMax"],[data-testid="stSliderThumbValue"]'
    "{color:#000 !important}"
    '[data-baseweb="select"]>div,[data-baseweb="input"],'
    '[data-testid="stNumberInputContainer"],[data-testid="stExpander"] details,'
    '[data-testid="stBaseButton-secondary"],[data-testid="stPopoverButton"]'
    "{border:2px solid #000 !important}"
    "hr{border-color:#000 !important}"
    "</style>"
)


def page_params(params: Mapping[str, str]) -> dict[str, str]:
    """The link's parameters less the frame's own (``theme``): what a page
    reads as its settings and compares with what it wrote."""
    return {k: v for k, v in params.items() if k != PARAM}


def with_theme(query: Mapping[str, str]) -> dict[str, str]:
    """A page's ``query`` with the session's theme added (not "auto", the
    default): what the page writes as its link."""
    choice = st.session_state.get(KEY, "auto")
    out = dict(query)
    if choice in CHOICES and choice != "auto":
        out[PARAM] = choice
    return out


def load() -> None:
    """Take the link's ``theme=`` when it names another theme than the one
    written last (a link followed); a value that is not a theme is said once
    and the session keeps its own. Call before :func:`control`."""
    value = st.query_params.get(PARAM)
    if value is None or value == st.session_state.get(_WRITTEN):
        return
    text = str(value).strip().lower()
    if text in CHOICES:
        st.session_state[KEY] = text
        st.session_state[_WRITTEN] = text
    else:
        names = ", ".join(CHOICES)
        st.session_state[_NOTE] = (
            f"The link's theme {str(value)[:20]!r} is not one of {names}; "
            "showing the theme chosen here."
        )
        st.session_state[_WRITTEN] = value


def control() -> str:
    """The selector (in the sidebar, under the classroom toggle); returns the
    choice."""
    st.session_state.setdefault(KEY, "auto")
    choice = st.sidebar.selectbox(
        "Theme",
        list(CHOICES),
        format_func=CHOICES.__getitem__,
        key=KEY,
        help="System follows the computer's light or dark setting; High "
        "contrast is black on white with bolder lines, for a washed-out "
        "projector. Part of the page's link.",
    )
    note = st.session_state.pop(_NOTE, None)
    if note:
        st.sidebar.info(note, icon=":material/contrast:")
    return str(choice)


def current() -> Theme:
    """The theme this run's figures are drawn in."""
    choice = st.session_state.get(KEY, "auto")
    if choice == "auto" or choice not in figure_theme.THEMES:
        try:
            kind = st.context.theme.type
        except Exception:  # no browser (a bare script, AppTest without one)
            kind = None
        return figure_theme.DARK if kind == "dark" else figure_theme.LIGHT
    return figure_theme.THEMES[choice]


def publish() -> None:
    """Keep ``theme=`` in the link (after the page wrote its own parameters)."""
    choice = st.session_state.get(KEY, "auto")
    if choice == "auto":
        if PARAM in st.query_params:
            del st.query_params[PARAM]
        st.session_state[_WRITTEN] = None
    else:
        if st.query_params.get(PARAM) != choice:
            st.query_params[PARAM] = choice
        st.session_state[_WRITTEN] = choice


_SYNC_JS = r"""
// Streamlit keeps the visitor's theme in localStorage under
// "stActiveTheme-<path>-v2" ("Light", "Dark"; none: the system's), read when
// the page loads (Streamlit 1.67's bundle, utils.*.js).
function shownBase() {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app) return null;
  const m = getComputedStyle(app).backgroundColor.match(/\d+(\.\d+)?/g);
  if (!m) return null;
  const [r, g, b] = m.map(Number);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b < 128 ? "dark" : "light";
}
function systemBase() {
  return window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}
export default function (component) {
  const { data, setTriggerValue } = component;
  if (!data) return;
  const want = data.want, served = data.served;
  const path = window.location.pathname;
  const base = data.page && path.endsWith("/" + data.page)
    ? path.slice(0, path.length - data.page.length) : path.replace(/[^/]*$/, "");
  const paths = new Set([path, ...data.pages.map((p) => base + p)]);
  const keys = [...paths].map((p) => "stActiveTheme-" + p + "-v2");
  const hub = (window.__svmlabTheme = window.__svmlabTheme || {});
  hub.send = setTriggerValue;
  hub.want = want;
  hub.served = served;
  const reloadOnce = () => {
    // One reload per choice and minute: a browser that keeps no
    // localStorage must not reload forever.
    const mark = "svmlab-theme-reload";
    const last = JSON.parse(sessionStorage.getItem(mark) || "null");
    if (last && last.want === want && Date.now() - last.t < 60000) return;
    sessionStorage.setItem(mark, JSON.stringify({ want: want, t: Date.now() }));
    window.location.reload();
  };
  let stored = false;
  try {
    if (want === "auto") {
      stored = keys.some((k) => localStorage.getItem(k) !== null);
      keys.forEach((k) => localStorage.removeItem(k));
    } else {
      const name = JSON.stringify(want === "dark" ? "Dark" : "Light");
      keys.forEach((k) => localStorage.setItem(k, name));
    }
  } catch (error) {
    return;  // no storage: Streamlit's page stays as it is
  }
  const shown = shownBase();
  if (want !== "auto") {
    if (shown && shown !== want) reloadOnce();
    return;
  }
  if (stored && shown && shown !== systemBase()) { reloadOnce(); return; }
  // "System": the charts follow Streamlit's page when the system's setting
  // changes while the page is open (Streamlit switches its page by itself).
  if (shown && shown !== served) setTriggerValue("shown", shown);
  if (!hub.listening) {
    hub.listening = true;
    window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
      setTimeout(() => {
        const now = shownBase();
        if (hub.want === "auto" && now && now !== hub.served) hub.send("shown", now);
      }, 300);
    });
  }
}
"""

_syncer = st.components.v2.component("svmlab_theme_sync", js=_SYNC_JS)
#: The element's key (the frame's style takes it out of the flow).
SYNC_KEY = "svmlab_theme_sync"


def sync(page: str, pages: list[str]) -> None:
    """Mount the invisible element that keeps Streamlit's own page in the
    chosen base (see the module docstring). ``page`` is the URL path of the page
    shown, ``pages`` every page's (Streamlit stores a theme per path)."""
    choice = st.session_state.get(KEY, "auto")
    want = choice if choice in ("auto", "dark") else "light"
    _syncer(
        key=SYNC_KEY,
        data={"want": want, "served": current().base, "page": page, "pages": pages},
        on_shown_change=lambda: None,
        height=0,
    )


def css() -> str:
    """The frame's extra style for the session's theme ("" but for High
    contrast)."""
    return CONTRAST_CSS if st.session_state.get(KEY) == "contrast" else ""
