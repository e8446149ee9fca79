"""Lecture tools on the Explore page: the preset's paragraph and classroom mode.

- :func:`preset_panel`: beside the figure, the teaching preset's title, what to
  look at and the number that shows it (framed in the numbers panel), what the
  lecturer has changed since, and a button back to it.
- :func:`classroom_toggle` / :func:`classroom_style`: one toggle (``classroom=1``
  in the URL) that hides the advanced controls, enlarges text, and lets the page
  draw bigger markers and lines and only a few big numbers, so that figure,
  sliders and numbers fit together on a 1280 x 720 projector.
"""

from __future__ import annotations

from dataclasses import fields, replace

import streamlit as st

from svmlab.ui import keyed
from svmlab.ui.controls import KEYS, TOOL_KEY, apply_settings
from svmlab.ui.presets import PRESETS, Preset
from svmlab.ui.settings import ExploreSettings

__all__ = [
    "TOOLS",
    "changes_from",
    "classroom_requested",
    "classroom_style",
    "classroom_toggle",
    "preset_panel",
    "tool_picker",
]

#: The lecture tools under the figure; one is drawn at a time (a chart in a
#: hidden tab or a closed expander would be drawn at zero width).
TOOLS: dict[str, str] = {
    "none": "none",
    "path": "Regularisation path",
    "inspect": "Point inspector",
    "kernel": "Kernel views",
    "compare": "Compare",
}

#: Fields that are display choices, not part of what a preset shows.
_DISPLAY = {"preset", "classroom", "log_count", "show_test", "compare"}
_NAMES = {"sigma": "σ", "test_fraction": "test fraction", "hard_margin": "hard margin"}


def changes_from(preset: Preset, s: ExploreSettings) -> list[str]:
    """What differs between the preset's settings and ``s``, in words."""
    base = preset.settings
    out = []
    for f in fields(ExploreSettings):
        if f.name in _DISPLAY or f.name == "data_params":
            continue
        old, new = getattr(base, f.name), getattr(s, f.name)
        if old != new:
            out.append(f"{_NAMES.get(f.name, f.name)} {_show(old)} → {_show(new)}")
    for (name, old), (_, new) in zip(
        base.data_params,
        s.data_params if s.dataset == base.dataset else (),
        strict=False,
    ):
        if old != new:
            out.append(f"{name.replace('_', ' ')} {_show(old)} → {_show(new)}")
    return out


def _show(value: object) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _back(name: str, classroom: bool) -> None:
    apply_settings(replace(PRESETS[name].url_settings, classroom=classroom))


def _leave(s: ExploreSettings) -> None:
    apply_settings(replace(s, preset=""))


def preset_panel(s: ExploreSettings) -> str | None:
    """The preset's paragraph (if the settings came from one); returns the label
    of the number it points at, for the numbers panel to frame."""
    preset = PRESETS.get(s.preset)
    if preset is None:
        return None
    changed = changes_from(preset, s)
    with st.container(border=True, key="explore_preset_box"):
        st.markdown(f"**{preset.title}**")
        st.markdown(preset.look)
        st.markdown(f"The number: **{preset.number} = {preset.promise}** (framed).")
        if changed:
            st.caption("Changed since: " + "; ".join(changed) + ".")
        if changed:
            st.button(
                "Back to the preset",
                key="explore_preset_back",
                on_click=_back,
                args=(preset.name, s.classroom),
            )
        st.button(
            "Leave the preset",
            key="explore_preset_leave",
            on_click=_leave,
            args=(s,),
        )
    return preset.number


def classroom_requested() -> bool:
    """Whether this run shows classroom mode (the URL or the session says so):
    read before the page config, which then starts with the sidebar collapsed."""
    # A click on the toggle first: in the run it starts the settings are still
    # the last run's, and the page config must already collapse the sidebar
    # (the toggle must give the screen a classroom link gives).
    toggled = st.session_state.get(KEYS["classroom"])
    last = st.session_state.get("explore_settings")
    if toggled is not None and last is not None and bool(toggled) != last.classroom:
        return bool(toggled)
    if last is not None and "preset" not in st.query_params:
        return bool(last.classroom)
    return st.query_params.get("classroom") in ("1", "true")


def classroom_toggle() -> bool:
    """The classroom-mode toggle (top of the sidebar); its value."""
    key = KEYS["classroom"]
    return bool(
        st.sidebar.toggle(
            "Classroom mode",
            value=bool(keyed.value(key, False)),
            key=key,
            help="For a projector: bigger text, markers and lines, the advanced "
            "controls hidden, figure, sliders and a few big numbers on one "
            "1280 x 720 screen.",
        )
    )


#: Bigger text (Streamlit sizes in rem: the root font scales all of it), and the
#: space above the title and Streamlit's header taken back for the figure.
_CLASSROOM_CSS = (
    "<style>"
    "html{font-size:19px}"
    '[data-testid="stMainBlockContainer"]{padding-top:0.6rem;max-width:100%}'
    '[data-testid="stHeader"]{height:0;min-height:0;background:transparent}'
    "h1{font-size:1.7rem !important;padding:0 !important}"
    '[data-testid="stWidgetLabel"] p{font-size:1.05rem}'
    "</style>"
)


def classroom_style() -> None:
    """The classroom-mode page style (call when the mode is on)."""
    st.html(_CLASSROOM_CSS)


def tool_picker() -> str:
    """The row that picks the lecture tool drawn under the figure."""
    names = list(TOOLS)
    return str(
        st.radio(
            "Lecture tool",
            names,
            index=keyed.index(TOOL_KEY, names),
            format_func=TOOLS.__getitem__,
            horizontal=True,
            key=TOOL_KEY,
        )
    )
