"""A room that follows the lecturer, on a running server, in the protocol the
lecture-room benchmark speaks (Streamlit's websocket and protobuf messages:
``benchmarks/follow_room.py``): with two and with twenty followers, each
follower's settings equal the lecturer's after every move, with no request of
its own (the server pushes the rerun); a follower who branches off changes
nothing of the lecturer's and hears no more moves; a closed room stops the
updates."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest

from benchmarks.follow_room import Client, follow, move_slider, open_room, settings_of
from benchmarks.lecture_room import connect

QUIET_S = 3.0  # how long "no update came" is waited for
pytestmark = pytest.mark.timeout(240)


def _run(coroutine):
    """``asyncio.run`` in a thread of its own: Playwright's sync API, live in
    this process for the other browser tests, holds this thread's event loop."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


async def _room(url: str, n_followers: int) -> dict:
    out: dict = {"latencies": []}
    async with connect(url) as lws:
        lecturer = Client(lws)
        code, seen = await open_room(lecturer)
        sliders, position = seen.sliders, {}
        fragment = sliders["C"][3]
        joined = [await follow(url, code) for _ in range(n_followers)]
        try:
            for client, _, _ in joined:
                assert settings_of(client.query) == settings_of(lecturer.query)
            # Follower 0 tries it itself: its C moves, the lecturer's does not.
            mine = joined[0][0]
            before = settings_of(lecturer.query)
            mine_seen = joined[0][2]
            await mine.run(fragment=move_slider(mine, mine_seen.sliders, {}, "C", 3))
            assert settings_of(mine.query) != before
            others = [c for c, _, _ in joined[1:]]
            for k, (name, step) in enumerate((("C", 1), ("σ", -1), ("C", -2))):
                move_slider(lecturer, sliders, position, name, step)
                start = asyncio.get_running_loop().time()
                waits = [asyncio.create_task(c.receive()) for c in others]
                quiet = asyncio.create_task(mine.receive(timeout=QUIET_S))
                await lecturer.run(fragment=fragment)
                await asyncio.gather(*waits)
                out["latencies"].append(asyncio.get_running_loop().time() - start)
                want = settings_of(lecturer.query)
                assert want != before or k > 0
                for c in others:
                    assert settings_of(c.query) == want, k
                with pytest.raises(TimeoutError):
                    await quiet  # branched off: the room leaves it alone
                assert settings_of(mine.query) != want
            # Close the room: the next move reaches nobody.
            closed = await lecturer.run(
                fragment=fragment, trigger=seen.buttons["Close the room"]
            )
            assert not closed.errors
            move_slider(lecturer, sliders, position, "C", 1)
            quiet = [asyncio.create_task(c.receive(timeout=QUIET_S)) for c in others]
            await lecturer.run(fragment=fragment)
            results = await asyncio.gather(*quiet, return_exceptions=True)
            assert all(isinstance(r, TimeoutError) for r in results)
        finally:
            for _, ws, _ in joined:
                await ws.close()
    return out


@pytest.mark.parametrize("followers", [2, 20])
def test_followers_follow_branch_off_and_stop_when_closed(
    streamlit_url: str, followers: int
) -> None:
    out = _run(_room(streamlit_url, followers))
    # Every follower's pushed run finished within a few seconds of the move.
    assert max(out["latencies"]) < 20.0, out
