"""The lecture hall across two server processes sharing a real Redis (issue
45): Debian's ``redis-server`` on a free port and two ``streamlit run app.py``
with ``SVMLAB_REDIS_URL`` set, the lecturer on the first and followers on both
(as a sticky proxy would spread them). Every follower sees each move, the
statuses and the reveal; the lecturer counts the other process's followers
and their answers, and counts out one that leaves; when the lecturer's page
goes away, the other process's followers are told."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import urlencode

import pytest

from benchmarks.harness import app_server
from benchmarks.harness.redis_server import redis_server
from benchmarks.harness.streamlit_client import Client, connect, move_slider, open_room
from svmlab.ui.frame import presets
from tests.browser.hall_clients import (
    ask_answer_reveal,
    follower,
    run_async,
    states,
    wait_counts,
)

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def two_processes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """Redis and two app processes using it: their base URLs."""
    workdir = tmp_path_factory.mktemp("hall-redis")
    with ExitStack() as stack:
        url = stack.enter_context(redis_server(workdir))
        env = {"OPENBLAS_NUM_THREADS": "1", "SVMLAB_REDIS_URL": url}
        servers = []
        for k in range(2):
            log = stack.enter_context(Path(workdir / f"server{k}.log").open("wb"))
            proc, base = app_server.launch(env=env, output=log)
            stack.callback(app_server.stop, proc)
            servers.append((proc, base))
        for proc, base in servers:
            why = app_server.wait_healthy(proc, base)
            if why is not None:
                pytest.fail(why)
        yield [base for _, base in servers]


def test_followers_on_another_process_follow_through_redis(
    two_processes: list[str],
) -> None:
    first, second = two_processes

    async def hall() -> None:
        async with connect(first, secrets.token_urlsafe(18)) as ws:
            lecturer = Client(ws)
            query = urlencode(presets.query("c_too_large"))
            code, page, opened = await open_room(lecturer, query)
            assert code, opened.text()[:300]
            there = [follower(second, code) for _ in range(4)]
            here = [follower(first, code) for _ in range(2)]
            everyone = [*there, *here]
            for f in everyone:
                await f.open()
            for f in everyone:
                await f.wait_for(lambda f: f.version >= 1 and states(f) == ["live"])
            await wait_counts(lecturer, (6, 0))

            # A move reaches every follower, on both processes, as one version.
            start = max(f.version for f in everyone)
            move_slider(lecturer, page.sliders, {}, "C", -2)
            await lecturer.run(fragment=page.sliders["C"][3])
            for f in everyone:
                await f.wait_for(lambda f: f.version == start + 1)

            # Pause and resume, told on the other process too.
            toggle = opened.toggles["pause the room"]
            for on, state in ((True, "paused"), (False, "live")):
                lecturer.states[toggle] = on
                await lecturer.run(fragment=opened.fragments["pause the room"])
                for f in there:
                    await f.wait_for(lambda f, s=state: states(f)[-1:] == [s])

            # A question: answers posted to the second process, counted on the
            # first; the reveal reaches the second.
            asking = await lecturer.run()
            picks = [k % 2 for k in range(len(there))]
            await ask_answer_reveal(
                lecturer, asking, there, second, code, picks, following=6
            )
            reveal = there[0].said("question")[-1]["reveal"]
            assert reveal["summary"]["counts"] == [2, 2, 0, 0]

            # A follower on the second process leaves: the first counts it out.
            await there[0].close()
            await wait_counts(lecturer, (5, 0))
        # The lecturer's page is gone: the second process's followers are told.
        for f in there[1:]:
            await f.wait_for(lambda f: states(f)[-1:] == ["gone"], timeout=30)
        for f in everyone:
            await f.close()

    run_async(hall())
