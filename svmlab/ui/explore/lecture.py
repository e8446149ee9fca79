"""Lecture tools on the Explore page: the preset's paragraph and the tool picker.

- :func:`preset_panel`: beside the figure, the teaching preset's title, what to
  look at and the number that shows it (framed in the numbers panel), what the
  lecturer has changed since, and a button back to it.
- :func:`tool_picker`: the one lecture tool drawn under the figure.

Classroom mode's toggle and style are the frame's (:mod:`svmlab.ui.frame.router`); on
Explore it also hides the advanced controls and draws bigger markers, lines and
only a few big numbers, so that figure, sliders and numbers fit one 1280 x 720
projector.
"""

from __future__ import annotations

from dataclasses import fields, replace

import streamlit as st

from svmlab.ui.explore.controls import TOOL_KEY, apply_settings
from svmlab.ui.explore.settings import ExploreSettings
from svmlab.ui.frame import keyed
from svmlab.ui.frame.presets import (
    BACK_HELP,
    BACK_LABEL,
    LEAVE_ALONE_LABEL,
    LEAVE_HELP,
    LEAVE_LABEL,
    PRESETS,
    Preset,
)

__all__ = [
    "TOOLS",
    "changes_from",
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
        # The other pages' labels (presets.BACK_LABEL), one button a row.
        if changed:
            st.button(
                BACK_LABEL,
                key="explore_preset_back",
                on_click=_back,
                args=(preset.name, s.classroom),
                help=BACK_HELP,
            )
        st.button(
            LEAVE_LABEL if changed else LEAVE_ALONE_LABEL,
            key="explore_preset_leave",
            on_click=_leave,
            args=(s,),
            help=LEAVE_HELP,
        )
    return preset.number


def current_tool() -> str:
    """The lecture tool open now (before its picker is drawn in this run)."""
    return str(st.session_state.get(TOOL_KEY, "none"))


def tool_picker() -> str:
    """The row that picks the lecture tool drawn under the figure."""
    return str(
        keyed.radio(
            "Lecture tool",
            TOOLS,
            TOOL_KEY,
            format_func=TOOLS.__getitem__,
            horizontal=True,
        )
    )
