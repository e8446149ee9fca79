"""The lecture-room load generator (issue 21) against a test server: a few
sessions for a few seconds, each must get its answers with no error; and a
slider move sent in Streamlit's protocol really reaches the page."""

from __future__ import annotations

import asyncio
import math
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlparse

import pytest
import websockets

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
        host = urlparse(streamlit_url).netloc
        log = lecture_room.SessionLog(slow=False)
        async with websockets.connect(
            f"ws://{host}/_stcore/stream", subprotocols=["streamlit"], max_size=None
        ) as ws:
            _, sliders, before = await lecture_room._rerun(ws, "", {}, log)
            wid, options, at = sliders["C"]
            target = options[min(at + 7, len(options) - 1)]
            _, _, after = await lecture_room._rerun(ws, "", {wid: [target]}, log)
        assert not log.errors, log.errors
        return before["C (type a value)"], after["C (type a value)"], target

    before, after, target = _run(move())
    assert after == pytest.approx(float(target)) and after != before


def test_only_loopback():
    with pytest.raises(SystemExit, match="loopback"):
        _run(lecture_room.run_room("http://10.0.0.1:8501", 1, 1.0))
