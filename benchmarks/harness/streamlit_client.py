"""A browser tab in Streamlit's own protocol (its websocket, protobuf
``BackMsg`` / ``ForwardMsg``): the lecturer of ``benchmarks/lecture_hall.py``
and of the hall's server tests. Opens Explore, clicks buttons, moves the C
and σ sliders as Chromium does (a rerun of the fragment the widget lives in),
and reads what each run drew."""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

__all__ = ["RUN_TIMEOUT_S", "Client", "Seen", "connect", "move_slider", "open_room"]

RUN_TIMEOUT_S = 60.0


def _protocol():
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    return BackMsg, ForwardMsg


def connect(url: str, cookie: str | None = None):
    """A websocket to the Streamlit server at base ``url`` as a tab opens one,
    with the app's visitor cookie if given (``async with connect(url) as ws``)."""
    import websockets

    host = urlparse(url).netloc
    headers = {"Cookie": f"svmlab_visitor={cookie}"} if cookie else None
    return websockets.connect(
        f"ws://{host}/_stcore/stream",
        subprotocols=["streamlit"],
        max_size=None,
        additional_headers=headers,
        proxy=None,
    )


@dataclass
class Seen:
    """What one run of the page sent: its widgets and its texts."""

    seconds: float = 0.0
    sliders: dict[str, tuple[str, list[str], int, str]] = field(default_factory=dict)
    buttons: dict[str, str] = field(default_factory=dict)
    #: label -> the fragment each widget was drawn in ("" for none).
    fragments: dict[str, str] = field(default_factory=dict)
    #: label -> id of the toggles and checkboxes, and of the text inputs.
    toggles: dict[str, str] = field(default_factory=dict)
    inputs: dict[str, str] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def text(self) -> str:
        return "\n".join(self.texts)


class Client:
    """One tab: its websocket, the widget states it sends, its last query."""

    def __init__(self, ws: Any, page: str = "Explore") -> None:
        self.ws = ws
        self.page = page
        self.states: dict[str, Any] = {}
        self.query = ""

    async def click(self, seen: Seen, label: str) -> Seen:
        """Click the button ``label`` that run ``seen`` drew (a rerun of its
        fragment, as the browser asks)."""
        return await self.run(
            fragment=seen.fragments.get(label, ""), trigger=seen.buttons[label]
        )

    async def run(
        self, query: str | None = None, fragment: str = "", trigger: str = ""
    ) -> Seen:
        """Ask for a rerun (``trigger``: a button's id, clicked) and read it."""
        BackMsg, _ = _protocol()
        msg = BackMsg()
        msg.rerun_script.query_string = self.query if query is None else query
        msg.rerun_script.page_name = self.page
        msg.rerun_script.fragment_id = fragment
        for wid, value in self.states.items():
            w = msg.rerun_script.widget_states.widgets.add()
            w.id = wid
            if isinstance(value, bool):
                w.bool_value = value
            elif isinstance(value, str):
                w.string_value = value
            else:
                w.string_array_value.data.extend(value)
        if trigger:
            w = msg.rerun_script.widget_states.widgets.add()
            w.id = trigger
            w.trigger_value = True
        start = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        return await self.receive(start)

    async def receive(self, start: float | None = None, timeout=RUN_TIMEOUT_S) -> Seen:
        """Read one run to its end (one the server started by itself too)."""
        _, ForwardMsg = _protocol()
        seen = Seen()
        while True:
            fm = ForwardMsg()
            fm.ParseFromString(await asyncio.wait_for(self.ws.recv(), timeout))
            if start is None:
                start = time.perf_counter()
            kind = fm.WhichOneof("type")
            if kind == "page_info_changed":
                self.query = fm.page_info_changed.query_string
            elif kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
                _element(fm.delta.new_element, fm.delta.fragment_id, seen)
            elif kind == "script_finished":
                if fm.script_finished == fm.FINISHED_EARLY_FOR_RERUN:
                    continue  # st.rerun(): the run it asked for follows
                seen.seconds = time.perf_counter() - start
                return seen


def _element(el: Any, fragment: str, seen: Seen) -> None:
    what = el.WhichOneof("type")
    if what == "slider" and el.slider.options:
        at = int(el.slider.default[0]) if el.slider.default else 0
        seen.sliders[el.slider.label] = (
            el.slider.id,
            list(el.slider.options),
            at,
            fragment,
        )
    elif what == "button":
        seen.buttons[el.button.label] = el.button.id
        seen.fragments[el.button.label] = fragment
    elif what == "checkbox":
        seen.toggles[el.checkbox.label] = el.checkbox.id
        seen.fragments[el.checkbox.label] = fragment
    elif what == "text_input":
        seen.inputs[el.text_input.label] = el.text_input.id
    elif what in ("markdown", "html", "alert", "code"):
        seen.texts.append(
            getattr(el, what).body if what != "code" else el.code.code_text
        )
        if what == "alert" and el.alert.format == 1:
            seen.errors.append(el.alert.body[:160])
    elif what == "exception":
        seen.errors.append(el.exception.message[:160])


def move_slider(
    client: Client, sliders: dict, position: dict[str, int], name: str, step: int
) -> str:
    """Move slider ``name`` (as a full run drew ``sliders``; ``position``: where
    each is now) by ``step`` stops in the client's widget states; the fragment
    to rerun."""
    wid, options, at, fragment = sliders[name]
    position[name] = min(max(position.get(name, at) + step, 0), len(options) - 1)
    client.states[wid] = [options[position[name]]]
    return fragment


ROOM_CODE = re.compile(r"data-svmlab-room.*?letter-spacing[^>]*>([A-Z0-9 ]{7})<", re.S)


async def open_room(lecturer: Client, query: str = "data=two_circles") -> tuple:
    """Open Explore and a room on ``lecturer``: ``(code, the first run, the
    run that opened it)``; the code is None when the page refused (its
    sentence is in the run's texts)."""
    first = await lecturer.run(query)
    opened = await lecturer.run(
        fragment=first.sliders["C"][3], trigger=first.buttons["Open a room"]
    )
    found = ROOM_CODE.search(opened.text())
    return (found.group(1).replace(" ", "") if found else None), first, opened
