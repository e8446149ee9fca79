"""Follow the lecturer on Explore (issue 33): the room's controls, the push to
followers, and what a follower's page does.

- The lecturer opens a room ("Room" popover above the numbers, in the page's
  fragment): a four-letter code, shown big there, with the link students
  open (``/Explore?follow=CODE``), how many follow, pause and close. Every run of
  the lecturer's page publishes its state (:func:`after_run`: settings and edited
  points, classroom mode left out) to :data:`ROOMS`.
- A publish asks each follower's session for a rerun (:func:`_push`: Streamlit's
  own ``AppSession.request_rerun`` with the session's last client state, as
  Streamlit's run-on-save does, scheduled on the server's event loop), so a
  follower's page changes within one rerun of the lecturer's, with no polling.
  At the start of that rerun (the frame's state hook, before any widget) the
  follower's session takes the room's state (:func:`load`).
- A follower who changes anything has branched off ("Try it yourself" does it
  too): the room stops moving their page, and "Back to the lecturer" takes the
  room's state again. A follower's session never writes the room's state: only
  the session holding the owner's token publishes.

Uploaded data travel with the room (a link never carries them): the lecturer's
run publishes the held upload its settings name (:func:`after_run`, at most
``follow_rooms.MAX_DATA_POINTS`` points) and a follower's session holds it
before its settings name it (:func:`_take`); points clicked, deleted or moved
travel as the snapshot's edits, on generated and uploaded data alike.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import streamlit as st

from svmlab.ui.explore import controls, edit, upload
from svmlab.ui.explore.undo import Snapshot
from svmlab.ui.frame.follow_rooms import Rooms

__all__ = ["FOLLOW_KEY", "OWN_KEY", "ROOMS", "after_run", "banner", "load", "room_row"]

#: ``(code, owner token)`` of the room this session opened.
OWN_KEY = "explore_room_own"
#: ``{"code", "version", "state", "branched", "closed"}`` of the room followed.
FOLLOW_KEY = "explore_room_follow"
JOIN_KEY = "explore_room_join"


#: follower -> the id of its page's fragment (the C/σ row, chart and numbers),
#: learnt from its runs: a move of C or σ alone reruns only that fragment.
_FRAGMENTS: dict[str, str] = {}


def _push(follower: str, fragment_only: Any = None) -> None:
    """Ask the follower's session (``"<session id>:<token>"``) for a rerun with
    its last client state (its page, URL and widgets as the browser last sent
    them): of the page's fragment when ``fragment_only`` (the lecturer moved C
    or σ and nothing else) and the fragment is known, else of the whole page."""
    session_id = follower.rsplit(":", 1)[0]
    fragment = _FRAGMENTS.get(follower, "") if fragment_only else ""
    try:
        from streamlit.proto.ClientState_pb2 import ClientState
        from streamlit.runtime import get_instance

        info = get_instance()._session_mgr.get_active_session_info(session_id)
        if info is None:
            return
        session = info.session
        state = ClientState()
        state.CopyFrom(session._client_state)
        state.fragment_id = fragment  # "": the whole page (the sidebar changes)
        state.is_auto_rerun = False
        session._event_loop.call_soon_threadsafe(session.request_rerun, state)
    except Exception:  # a session gone, or Streamlit's internals moved
        return


#: The server's rooms (one table per process, every session's).
ROOMS = Rooms(notify=_push)


def _session_id() -> str:
    """This session as a follower: ``"<Streamlit session id>:<token>"`` (the
    token tells apart sessions that share an id, as AppTest's do)."""
    import secrets

    from streamlit.runtime.scriptrunner import get_script_run_ctx

    token = st.session_state.setdefault("explore_room_token", secrets.token_hex(8))
    ctx = get_script_run_ctx()
    return f"{ctx.session_id if ctx is not None else 'bare'}:{token}"


def _take(snapshot: Snapshot, data: Any = None) -> None:
    """Show the room's ``snapshot`` (before the widgets are drawn), and send
    its link to the browser whatever this run's query was.

    Why always: a run the server pushed (:func:`_push`) starts from the
    session's saved client state, whose query Streamlit refreshes only when the
    session's script thread ends. While pushed runs follow one another (the
    lecturer moves twice within a run), each starts from the query of the run
    before that chain, not from the address bar; a link compared with that
    query and found equal (C 10 → 12 → 10) was not sent, and the address bar
    kept 12 while the page showed 10.

    ``data``: the room's uploaded data, held here before the settings name
    them (else the page would fall back to the generator: ``upload.resolve``)."""
    if data is not None and data.key == snapshot.settings.upload:
        upload.adopt(data)
    classroom = bool(st.session_state.get(controls.KEYS["classroom"]))
    settings = replace(snapshot.settings, classroom=classroom)
    controls.apply_settings(settings, send_link=True)
    edit.restore_edits(edit.identity_of(settings), snapshot.edits)


def load() -> None:
    """At the start of every Explore run (before the widgets): join the room a
    ``?follow=CODE`` link names, and take the room's state when it moved on
    since this session last took it (unless branched off or paused)."""
    state = st.session_state
    code = st.query_params.get("follow")
    followed = state.get(FOLLOW_KEY)
    if code and (followed is None or followed["code"] != str(code).upper()):
        room = ROOMS.join(code, _session_id())
        followed = {
            "code": str(code).strip().upper(),
            "version": -1,
            "state": None,
            "branched": False,
            "closed": room is None,
        }
        state[FOLLOW_KEY] = followed
    if not followed or followed["branched"] or followed["closed"]:
        return
    room = ROOMS.get(followed["code"])
    if room is None:
        followed["closed"] = True
        return
    if room.paused or room.state is None or room.version == followed["version"]:
        return
    _take(room.state, room.data)
    followed.update(version=room.version, state=room.state)


def _only_c_sigma(old: Any, new: Snapshot) -> bool:
    """Whether ``new`` differs from ``old`` in C or σ alone (the fragment's
    widgets): then a follower's fragment is all that must run again."""
    if not isinstance(old, Snapshot) or old.edits != new.edits:
        return False
    return replace(old.settings, C=new.settings.C, sigma=new.settings.sigma) == (
        new.settings
    )


def load_in_fragment() -> None:
    """First thing in the page's fragment: in a fragment run the server pushed
    (the lecturer moved C or σ), take the room's state; a change beyond C and
    σ (a later move) reruns the whole page."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    followed = st.session_state.get(FOLLOW_KEY)
    if ctx is None or not ctx.fragment_ids_this_run or not followed:
        return
    if followed["branched"] or followed["closed"]:
        return
    room = ROOMS.get(followed["code"])
    if room is None or room.paused or room.version == followed["version"]:
        return
    light = _only_c_sigma(followed["state"], room.state)
    _take(room.state, room.data)
    followed.update(version=room.version, state=room.state)
    if not light:
        st.rerun(scope="app")


def _fragment_id() -> str:
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import (
            ThreadState,
        )

        return ThreadState.get().fragment_id or ""
    except Exception:  # Streamlit's internals moved: full reruns only
        return ""


def after_run(settings: Any, edits: Any) -> None:
    """After the page's settings and edits are known (in its fragment): the
    lecturer's session publishes them; a follower whose page now differs from
    the room's state has branched off."""
    state = st.session_state
    snapshot = Snapshot.of(settings, edits)
    own = state.get(OWN_KEY)
    if own is not None:
        room = ROOMS.get(own[0])
        if room is None:  # expired
            state.pop(OWN_KEY, None)
        else:
            light = _only_c_sigma(room.state, snapshot)
            held = upload.held(settings.upload)
            data = None if held is None else (held, len(held.y))
            ROOMS.publish(own[0], own[1], snapshot, hint=light, data=data)
    followed = state.get(FOLLOW_KEY)
    if followed and len(_FRAGMENTS) < 10_000:
        fragment = _fragment_id()
        if fragment:
            _FRAGMENTS[_session_id()] = fragment
    if (
        followed
        and not followed["branched"]
        and not followed["closed"]
        and followed["state"] is not None
        and snapshot != followed["state"]
    ):
        _branch(True)


def _open() -> None:
    opened = ROOMS.open(None)
    if opened is not None:
        room, owner = opened
        st.session_state[OWN_KEY] = (room.code, owner)


def _close() -> None:
    own = st.session_state.pop(OWN_KEY, None)
    if own is not None:
        ROOMS.close(*own)


def _pause() -> None:
    own = st.session_state.get(OWN_KEY)
    if own is not None:
        ROOMS.set_paused(own[0], own[1], bool(st.session_state["explore_room_pause"]))


def _branch(branched: bool) -> None:
    followed = st.session_state.get(FOLLOW_KEY)
    if not followed:
        return
    ROOMS.join(followed["code"], _session_id(), branched=branched)
    followed["branched"] = branched
    if not branched:
        followed["version"] = -1  # take the room's state again (load)


def _follow() -> None:
    code = str(st.session_state.get(JOIN_KEY, "")).strip().upper()
    if code:
        st.query_params["follow"] = code


def _leave() -> None:
    followed = st.session_state.pop(FOLLOW_KEY, None)
    if followed:
        ROOMS.leave(followed["code"], _session_id())
        _FRAGMENTS.pop(_session_id(), None)
    st.query_params.pop("follow", None)


def popover(where: Any) -> None:
    """The "Room" popover: open a room (or its code, followers, pause and
    close), or join one by its code."""
    own = st.session_state.get(OWN_KEY)
    room = ROOMS.get(own[0]) if own else None
    with where.popover("Room", help="Let the room follow this screen, or follow one."):
        if room is None:
            st.button(
                "Open a room",
                key="explore_room_open",
                on_click=_open,
                help="Students who open the room's link see this page follow "
                "yours on their own devices.",
            )
            st.text_input("or follow a room: its code", key=JOIN_KEY, max_chars=4)
            st.button("Follow", key="explore_room_follow_button", on_click=_follow)
            return
        st.markdown(f"Room **{room.code}**: {room.following} following")
        st.caption(f"Students open /Explore?follow={room.code} (or type the code).")
        st.toggle(
            "pause the room",
            value=room.paused,
            key="explore_room_pause",
            on_change=_pause,
            help="Followers keep what they see until you resume.",
        )
        st.button("Close the room", key="explore_room_close", on_click=_close)


def _own_room() -> Any:
    own = st.session_state.get(OWN_KEY)
    return ROOMS.get(own[0]) if own else None


def title_popover(where: Any, classroom: bool) -> None:
    """In classroom mode, before a room is open: the "Room" popover in the
    title row, so the lecturer can open one without leaving classroom mode (the
    row above the numbers, :func:`room_row`, then shows its code big)."""
    if classroom and _own_room() is None:
        popover(where)


def room_row(classroom: bool = False) -> None:
    """Above the numbers, in the page's fragment (so the followers' count
    follows every move): the "Room" popover and, once a room is open, its code
    big with how many follow. In classroom mode only once a room is open (the
    row would push the big numbers down a 720-line screen; the popover sits in
    the title row then, :func:`title_popover`)."""
    room = _own_room()
    if classroom and room is None:
        return
    left, right = st.columns([1.4, 3], vertical_alignment="center")
    popover(left)
    if room is None:
        return
    paused = " · paused" if room.paused else ""
    right.html(
        '<div data-svmlab-room style="font-size:1.1rem;font-weight:600;'
        'line-height:1.2"><span style="font-size:1.9rem;letter-spacing:0.12em">'
        f"{room.code}</span><br>{room.following} following{paused}</div>"
    )


def banner() -> None:
    """A follower's line at the top of the page: following, branched off, or
    the room closed, with the one click that changes it."""
    followed = st.session_state.get(FOLLOW_KEY)
    if not followed:
        return
    code = followed["code"]
    left, right = st.columns([4, 1.3], vertical_alignment="center")
    if followed["closed"]:
        left.info(f"Room {code} is closed (or no such room).", icon=":material/groups:")
        right.button("Leave", key="explore_room_leave", on_click=_leave)
        return
    # One click flips between following and branched off.
    branched = bool(followed["branched"])
    if branched:
        text = f"You branched off room {code}: the lecturer's moves wait for you."
        icon, label = ":material/call_split:", "Back to the lecturer"
        key = "explore_room_back_button"
    else:
        room = ROOMS.get(code)
        paused = " (paused by the lecturer)" if room and room.paused else ""
        text = f"Following room {code}{paused}: this page follows the lecturer's."
        icon, label = ":material/groups:", "Try it yourself"
        key = "explore_room_branch"
    left.info(text, icon=icon)
    right.button(label, key=key, on_click=_branch, args=(not branched,))
