"""The lecture-room load generator (issue 21) against a test server: a few
sessions for a few seconds, each must get its answers with no error; and a
slider move sent in Streamlit's protocol really reaches the page."""

from __future__ import annotations

import asyncio
import math
from concurrent.futures import ThreadPoolExecutor

import pytest

from benchmarks import lecture_room

pytestmark = pytest.mark.timeout(180)


def _run(coroutine):
    """``asyncio.run`` in a thread of its own: Playwright's sync API, live in
    this process for the other browser tests, holds this thread's event loop."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def test_a_small_room_gets_every_answer(streamlit_url, server_pid):
    room = _run(
        lecture_room.run_room(
            streamlit_url,
            3,
            6.0,
            seed=1,
            server_pid=server_pid,
            ramp_seconds=1.0,
        )
    )
    assert room["sessions_with_errors"] == 0, room["errors"]
    assert room["lost_moves"] == 0
    assert room["sessions_that_moved"] == 3 and room["moves"] >= 3
    assert 0.0 < room["p50_s"] <= room["p99_s"] < lecture_room.MOVE_TIMEOUT_S
    assert room["rss_max_mb"] > 50 and math.isfinite(room["cpu_percent"])


def test_a_move_in_the_protocol_reaches_the_page(streamlit_url):
    async def move() -> tuple[float, float, str]:
        log = lecture_room.SessionLog(slow=False)
        async with lecture_room.connect(streamlit_url) as ws:
            _, sliders, before = await lecture_room._rerun(ws, "", {}, log)
            _, options, at, _ = sliders["C"]
            target = options[min(at + 7, len(options) - 1)]
            states: dict[str, list[str]] = {}
            fragment = lecture_room.move(sliders, states, "C", options.index(target))
            _, _, after = await lecture_room._rerun(ws, "", states, log, fragment)
        assert not log.errors, log.errors
        return before["C (type a value)"], after["C (type a value)"], target

    before, after, target = _run(move())
    assert after == pytest.approx(float(target)) and after != before


def test_only_loopback():
    with pytest.raises(SystemExit, match="loopback"):
        _run(lecture_room.run_room("http://10.0.0.1:8501", 1, 1.0))


def test_the_generator_moves_c_as_the_browser_does(streamlit_url, page, wait_for_rerun):
    """Chromium moving the C slider sends a rerun of the playground fragment only;
    the generator must send that same fragment id, or it would measure whole-page
    reruns no student causes (they cost about twice as much)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    sent: list[bytes] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda p: sent.append(p)))
    page.goto(f"{streamlit_url}/Explore?data=two_circles")
    wait_for_rerun(page)
    before = len(sent)
    page.locator(".st-key-explore_C_slider").get_by_role("slider").focus()
    page.keyboard.press("ArrowRight")
    wait_for_rerun(page)
    reruns = []
    for payload in sent[before:]:
        msg = BackMsg()
        msg.ParseFromString(payload if isinstance(payload, bytes) else payload.encode())
        if msg.WhichOneof("type") == "rerun_script":
            reruns.append(msg.rerun_script)
    assert len(reruns) == 1 and reruns[0].fragment_id

    async def generator_move() -> tuple[dict[str, list[str]], str]:
        log = lecture_room.SessionLog(slow=False)
        async with lecture_room.connect(streamlit_url) as ws:
            _, sliders, _ = await lecture_room._rerun(ws, "data=two_circles", {}, log)
        states: dict[str, list[str]] = {}
        at = sliders["C"][2]
        return states, lecture_room.move(sliders, states, "C", at + 1)

    states, fragment = _run(generator_move())
    # Fragment and widget ids are the same for every session of the same page.
    assert fragment == reruns[0].fragment_id
    browser = {
        w.id: list(w.string_array_value.data)
        for w in reruns[0].widget_states.widgets
        if w.id in states
    }
    assert browser == states
