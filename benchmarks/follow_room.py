"""A room that follows the lecturer (issue 33): how long a follower waits.

    python -m benchmarks follow_room [--followers 2 20 60] [--moves 10]
        [--url http://127.0.0.1:8501 | --start-server]

Spoken in the lecture-room benchmark's protocol (:mod:`benchmarks.lecture_room`:
Streamlit's own websocket and protobuf messages, no browser): a lecturer's
session opens Explore and a room ("Open a room"), N followers open
``/Explore?follow=CODE``, then the lecturer moves C and σ ``--moves`` times, one
move every 1.5 s. For each move it records, per follower, the time from the
lecturer's rerun request to the end of the follower's own rerun that the move
caused (the server pushes it: the follower sends nothing), and checks that the
follower's settings (its URL's query, which encodes every setting) equal the
lecturer's. Reported: p50/p90/p99 of that latency, followers that missed a move
or showed other settings, and the server's CPU over the moves
(``--start-server`` or ``--server-pid``). Loopback only; at most 200
followers. Writes ``benchmarks/results/follow_room.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

import numpy as np

from benchmarks.lecture_room import ServerProbe, _check_loopback, _protocol, connect

MAX_FOLLOWERS = 200
RUN_TIMEOUT_S = 60.0
C_LABEL = "C (type a value)"


@dataclass
class Seen:
    """What one run of the page sent: its widgets and its texts."""

    seconds: float = 0.0
    sliders: dict[str, tuple[str, list[str], int, str]] = field(default_factory=dict)
    numbers: dict[str, float] = field(default_factory=dict)
    buttons: dict[str, str] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)
    query: str | None = None
    errors: list[str] = field(default_factory=list)


class Client:
    """One browser tab in Streamlit's protocol: its websocket, the widget
    states it sends, and the last query string the server gave it."""

    def __init__(self, ws) -> None:
        self.ws = ws
        self.states: dict[str, Any] = {}
        self.query = ""

    async def run(
        self, query: str | None = None, fragment: str = "", trigger: str = ""
    ) -> Seen:
        """Ask for a rerun (``trigger``: a button's id, clicked) and read it."""
        BackMsg, _ = _protocol()
        msg = BackMsg()
        msg.rerun_script.query_string = self.query if query is None else query
        msg.rerun_script.page_name = "Explore"
        msg.rerun_script.fragment_id = fragment
        for wid, value in self.states.items():
            w = msg.rerun_script.widget_states.widgets.add()
            w.id = wid
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
                start = time.perf_counter()  # the run's first message
            kind = fm.WhichOneof("type")
            if kind == "page_info_changed":
                self.query = seen.query = fm.page_info_changed.query_string
            elif kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
                _element(fm.delta.new_element, fm.delta.fragment_id, seen)
            elif kind == "script_finished":
                seen.seconds = time.perf_counter() - start
                return seen


def _element(el, fragment: str, seen: Seen) -> None:
    what = el.WhichOneof("type")
    if what == "slider" and el.slider.options:
        at = int(el.slider.default[0]) if el.slider.default else 0
        seen.sliders[el.slider.label] = (
            el.slider.id,
            list(el.slider.options),
            at,
            fragment,
        )
    elif what == "number_input":
        seen.numbers[el.number_input.label] = el.number_input.value
    elif what == "button":
        seen.buttons[el.button.label] = el.button.id
    elif what == "markdown":
        seen.texts.append(el.markdown.body)
    elif what == "html":
        seen.texts.append(el.html.body)
    elif what == "alert":
        seen.texts.append(el.alert.body)
        if el.alert.format == 1:
            seen.errors.append(el.alert.body[:120])
    elif what == "exception":
        seen.errors.append(el.exception.message[:120])


def settings_of(query: str) -> dict[str, str]:
    """The settings a page's query string holds (the room's link name left out)."""
    return {k: v for k, v in parse_qsl(query) if k != "follow"}


async def open_room(lecturer: Client, query: str = "n=60") -> tuple[str, Seen]:
    """Open Explore and a room on ``lecturer``; the room's code and the run."""
    first = await lecturer.run(query)
    # The button sits in the page's fragment: its click reruns the fragment.
    seen = await lecturer.run(
        fragment=first.sliders["C"][3], trigger=first.buttons["Open a room"]
    )
    seen.sliders = first.sliders
    code = next(
        m.group(1) for t in seen.texts if (m := re.search(r"Room \*\*(\w{4})\*\*", t))
    )
    return code, seen


def move_slider(
    client: Client, sliders: dict, position: dict[str, int], name: str, step: int
) -> str:
    """Move slider ``name`` (as a full run drew ``sliders``; ``position`` holds
    where each is now) by ``step`` stops in the client's widget states; the
    fragment to rerun."""
    wid, options, at, fragment = sliders[name]
    position[name] = min(max(position.get(name, at) + step, 0), len(options) - 1)
    client.states[wid] = [options[position[name]]]
    return fragment


async def follow(url: str, code: str) -> tuple[Client, Any, Seen]:
    """A follower: a websocket opened on ``/Explore?follow=CODE``."""
    ws = await connect(url).__aenter__()
    client = Client(ws)
    seen = await client.run(f"follow={code}")
    return client, ws, seen


async def run_follow(
    url: str, followers: int, moves: int, server_pid: int | None = None
) -> dict[str, Any]:
    """``followers`` follow a lecturer who moves ``moves`` times; the numbers."""
    _check_loopback(url)
    if not 1 <= followers <= MAX_FOLLOWERS:
        raise SystemExit(f"followers must be 1..{MAX_FOLLOWERS}")
    async with connect(url) as lws:
        lecturer = Client(lws)
        code, seen = await open_room(lecturer)
        sliders, position = seen.sliders, {}
        joined = [await follow(url, code) for _ in range(followers)]
        probe = ServerProbe(server_pid)
        probe.start()
        latencies: list[float] = []
        missed = wrong = 0
        try:
            for k in range(moves):
                await asyncio.sleep(1.5)
                name, step = (("C", 1), ("σ", -1), ("C", -1), ("σ", 1))[k % 4]
                fragment = move_slider(lecturer, sliders, position, name, step)
                start = time.perf_counter()
                waits = [c.receive(start) for c, _, _ in joined]
                await lecturer.run(fragment=fragment)
                for result in await asyncio.gather(*waits, return_exceptions=True):
                    if isinstance(result, BaseException):
                        missed += 1
                        continue
                    latencies.append(result.seconds)
                want = settings_of(lecturer.query)
                wrong += sum(settings_of(c.query) != want for c, _, _ in joined)
        finally:
            await probe.stop()
            for _, ws, _ in joined:
                await ws.close()
    a = np.asarray(latencies) if latencies else np.asarray([np.nan])
    return {
        "followers": followers,
        "moves": moves,
        "updates": len(latencies),
        "p50_s": float(np.percentile(a, 50)),
        "p90_s": float(np.percentile(a, 90)),
        "p99_s": float(np.percentile(a, 99)),
        "missed_updates": missed,
        "followers_with_other_settings": wrong,
        **probe.summary(),
    }


def main() -> None:
    from benchmarks.harness.app_server import start_server, stop
    from benchmarks.harness.report import machine_load, print_table, write_json

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--followers", type=int, nargs="+", default=[2, 20, 60])
    parser.add_argument("--moves", type=int, default=10)
    parser.add_argument("--url", default=None)
    parser.add_argument("--server-pid", type=int, default=None)
    parser.add_argument("--start-server", action="store_true")
    args = parser.parse_args()
    proc, url, pid = None, args.url or "http://127.0.0.1:8501", args.server_pid
    if args.start_server:
        proc, url = start_server(env={"OPENBLAS_NUM_THREADS": "1"})
        pid = proc.pid
    load_start = machine_load()
    try:
        rows = [
            asyncio.run(run_follow(url, n, args.moves, pid)) for n in args.followers
        ]
    finally:
        if proc is not None:
            stop(proc)
    print_table(rows, list(rows[0]))
    write_json(
        "follow_room",
        {
            "description": __doc__,
            "load_start": load_start,
            "load_end": machine_load(),
            "rows": rows,
        },
    )


if __name__ == "__main__":
    main()
