"""The session side of a page's URL state (every page with settings; Explore
loads its link itself into its settings object, by the same rule
:func:`link_wins`, and says it through :func:`say` and :func:`messages`).

A page calls :func:`load` before its widgets are drawn, :func:`publish` after,
and :func:`messages` and :func:`preset_box` where it shows them:

- :func:`load` fills the widget keys from the URL on the session's first run on
  the page, and whenever the URL is a preset's link other than the one the page
  wrote last (a preset followed from the lecture hub wins over the session's
  state, as on Explore); otherwise the widgets keep their session values (those
  not drawn in the last run too: every state widget has persist_state="session");
- :func:`publish` writes the widgets' values to the URL (and the page's preset,
  while it is on), so the address bar is always a link to what the page shows;
- :func:`messages` shows, once, a link's malformed values (``st.error``) and its
  clamped ones (``st.info``), each one plain sentence; every other setting keeps
  its value;
- :func:`preset_box` draws the preset's paragraph with the number it promises
  and the number measured now, what changed since, and the way back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import streamlit as st

from svmlab.ui.frame import presets, refusals, theme_choice
from svmlab.ui.frame.page_state import PageState
from svmlab.ui.frame.presets import PRESETS, Preset, page_query
from svmlab.user_text import for_markdown

__all__ = [
    "CLASSROOM_TEXT_SCALE",
    "active_preset",
    "classroom",
    "go_to_preset",
    "link_wins",
    "load",
    "messages",
    "preset_box",
    "preset_key",
    "publish",
    "require",
    "say",
    "sidebar_request",
    "text_scale",
]


def _slot(state: PageState, name: str) -> str:
    return f"{state.prefix}_url_{name}"


def preset_key(state: PageState) -> str:
    """The session key of the preset this page's settings came from ("")."""
    return f"{state.prefix}_preset"


def _page_preset(state: PageState, name: Any) -> str:
    """``name`` if it is one of this page's presets, else ""."""
    preset = PRESETS.get(name) if isinstance(name, str) else None
    return name if preset is not None and preset.page == state.page else ""


def _apply(state: PageState, params: Mapping[str, Any]) -> None:
    """Fill the widget keys from ``params`` (``st.query_params`` itself, so a
    name the link repeats is seen and said, or a dict)."""
    errors: list[str] = []
    notes: list[str] = []
    st.session_state.update(state.values(params, errors, notes))
    preset = params.get("preset")
    if preset is not None and not _page_preset(state, preset):
        errors.append(
            f"The link's preset {str(preset)[:40]!r} is not one of this page's "
            "presets; showing the link's settings."
        )
    st.session_state[preset_key(state)] = _page_preset(state, preset)
    st.session_state[_slot(state, "messages")] = (errors, notes)


def link_wins(
    params: Mapping[str, str],
    last: Any,
    read: Callable[[Mapping[str, str]], Any] = dict,
) -> bool:
    """Whether the link ``params`` wins over the session's values (every page's
    rule, Explore's too): on the page's first run in the session (``last``
    None: nothing written yet), and when the link names a preset and shows
    other settings than the ones the page wrote last (a preset followed from
    the lecture hub). The page writes its settings to the URL on every run, so
    a URL that differs from them is one the visitor followed. ``read`` turns
    the link into the form of ``last``: the query itself, or Explore's
    settings object (so two spellings of one value are one link)."""
    if last is None:
        return True
    return "preset" in params and read(params) != last


def load(state: PageState) -> None:
    """Fill the widget keys from the URL when the URL should win
    (:func:`link_wins`). Call before the page's widgets are drawn."""
    params = theme_choice.page_params(st.query_params.to_dict())
    if link_wins(params, st.session_state.get(_slot(state, "written"))):
        _apply(state, st.query_params)
        st.session_state[_slot(state, "written")] = params
    # A widget the page hides (another generator's sliders, the generator's
    # under an upload), or that another page replaced, keeps its value by
    # Streamlit's own persist_state="session" (tests/test_state_mechanisms.py).


def publish(state: PageState) -> dict[str, str]:
    """Write the widgets' values (and the page's preset) to the URL; returns the
    query. Call after the page's widgets are drawn."""
    values = {
        key: st.session_state[key]
        for key in state.keys(st.session_state)
        if key in st.session_state
    }
    query = state.query(values)
    preset = active_preset(state)
    if preset is not None:
        query["preset"] = preset.name
    link = theme_choice.with_theme(query)
    if link != st.query_params.to_dict():
        st.query_params.from_dict(link)
    st.session_state[_slot(state, "written")] = query
    return query


def classroom(state: PageState) -> bool:
    """Whether this page shows classroom mode now (the frame draws its toggle)."""
    return bool(st.session_state.get(state.classroom_key))


#: How much a chart's text grows in classroom mode: as the page's root font
#: (16 -> 19 px, about x1.2) and a bit more for a projector's back rows.
#: Plotly's pixel sizes do not follow the root font, so charts scale themselves.
CLASSROOM_TEXT_SCALE = 1.25


def text_scale(state: PageState) -> float:
    """The scale of this page's chart text now: :data:`CLASSROOM_TEXT_SCALE`
    in classroom mode, else 1."""
    return CLASSROOM_TEXT_SCALE if classroom(state) else 1.0


def active_preset(state: PageState) -> Preset | None:
    """The preset this page's settings came from (kept while they change)."""
    return PRESETS.get(st.session_state.get(preset_key(state), ""))


def say(state: PageState, errors: list[str], notes: list[str]) -> None:
    """Add sentences for :func:`messages` to show once (a page's own checks
    beside the link's: Explore's across fields)."""
    held = st.session_state.get(_slot(state, "messages"), ((), ()))
    st.session_state[_slot(state, "messages")] = (
        [*held[0], *errors],
        [*held[1], *notes],
    )


def messages(state: PageState) -> None:
    """Say, once, what the link had wrong (st.error) or out of range (st.info)."""
    errors, notes = st.session_state.pop(_slot(state, "messages"), ((), ()))
    # Plain sentences that quote the link's own text: shown literally.
    if errors:
        st.error("  \n".join(map(for_markdown, errors)))
    if notes:
        st.info("  \n".join(map(for_markdown, notes)), icon=":material/tune:")


NO_DATA = "Upload a CSV file in the sidebar, or switch back to a generator."


def sidebar_request(
    state: PageState, controls: Callable[[], Any], still: str = ""
) -> Any:
    """The top of a page with a sidebar of settings: draw ``controls()`` in the
    sidebar, keep the link in step (:func:`publish`), say what the link had
    wrong (:func:`messages`) and which upload was refused (with ``still``:
    what the page shows instead); return the request the controls made."""
    with st.sidebar:
        request = controls()
    publish(state)
    messages(state)
    refusals.show_refusal(state.prefix, still)
    return request


def require(request: Any) -> Any:
    """``request``, or, when there is no data to show (an upload not chosen
    yet), a sentence saying what to do, and the page stops."""
    if request is None:
        st.info(NO_DATA)
        st.stop()
    return request


def go_to_preset(state: PageState, name: str) -> None:
    """Show the preset ``name``'s settings (a callback), in the same layout
    (classroom mode kept)."""
    keep = {"classroom": "1"} if st.session_state.get(state.classroom_key) else {}
    _apply(state, {**page_query(name), **keep})


def _leave(state: PageState) -> None:
    st.session_state[preset_key(state)] = ""


def _changes(
    state: PageState, wanted: Mapping[str, str], now: Mapping[str, str]
) -> list[str]:
    """What differs between the links ``wanted`` (a preset's) and ``now``, in
    words, each with both values as the page shows them: a link leaves a
    default out, and "C default → 1.5" hid what the default is."""
    skip = ("preset", "classroom", theme_choice.PARAM)  # not what a preset shows

    def shown(query: Mapping[str, str]) -> dict[str, str]:
        values = state.values(query, [], [])
        every = state.query(values, every=True)
        return {k: v for k, v in every.items() if k not in skip}

    before, after = shown(wanted), shown(now)
    return [
        f"{k} {before.get(k, '(none)')} → {after.get(k, '(none)')}"
        for k in sorted(set(before) | set(after))
        if before.get(k) != after.get(k)
    ]


def preset_box(state: PageState, result: Any, *, narrow: bool = False) -> bool:
    """The active preset's paragraph, the number it promises and the number
    measured now on ``result`` (the page's engine result), what changed since,
    and buttons back to it and out of it. Nothing without a preset. ``narrow``:
    drawn in a column beside the page's panels, the number and buttons under
    the paragraph. Returns whether the settings changed since the preset (the
    box then holds a line more: what changed)."""
    preset = active_preset(state)
    if preset is None:
        return False
    changed = _changes(state, page_query(preset.name), st.query_params.to_dict())
    measure: Callable[[Any], str] | None = preset.measure
    measured = measure(result) if measure is not None else None
    # Compact (a projector has 720 lines): the title runs into the paragraph,
    # the number and the buttons sit beside it (under it when narrow).
    with st.container(border=True, key=f"{state.prefix}_preset_box"):
        if narrow:
            text = side = st.container()
        else:
            text, side = st.columns([5, 2], vertical_alignment="center")
        text.markdown(f"**{preset.title}.** {preset.look}")
        line = f"The number: **{preset.number} = {preset.promise}**"
        if measured is not None:
            line += f" · measured now: **{measured}**"
        side.markdown(line + ".")
        if changed:
            side.caption("Changed since: " + "; ".join(changed) + ".")
        # Side by side in the side column: one word each (presets.BACK_LABEL).
        row = side.columns(2 if changed else 1)
        if changed:
            row[0].button(
                presets.BACK_LABEL,
                key=f"{state.prefix}_preset_back",
                on_click=go_to_preset,
                args=(state, preset.name),
                help=presets.BACK_HELP,
            )
        row[-1].button(
            presets.LEAVE_LABEL if changed else presets.LEAVE_ALONE_LABEL,
            key=f"{state.prefix}_preset_leave",
            on_click=_leave,
            args=(state,),
            help=presets.LEAVE_HELP,
        )
    return bool(changed)
