"""The lecture hall's test clients, shared by the tests over one server
(test_hall_server.py) and over two processes and Redis (test_hall_redis.py):
followers' event streams, the lecturer's room row read from a rerun, and a
question asked, answered by followers and revealed."""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlparse

from benchmarks.harness.sse_client import Follower, http
from benchmarks.harness.streamlit_client import Client

COUNTS = re.compile(r"(\d+) following · (\d+) branched off")


def run_async(coroutine: Any) -> Any:
    """``asyncio.run`` in a thread of its own: Playwright's sync API, live in
    this process for the other browser tests, holds this thread's event loop."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def cookie() -> str:
    return secrets.token_urlsafe(18)


def follower(url: str, code: str, role: str = "", who: str | None = None) -> Follower:
    """A follower's page of room ``code`` on the server at ``url`` (its event
    stream; ``role``: ``?as=`` the projector, say)."""
    u = urlparse(url)
    query = f"?as={role}" if role else ""
    return Follower(u.hostname, u.port, f"/room/{code}/events{query}", who or cookie())


async def counts(lecturer: Client) -> tuple[int, int]:
    """The lecturer's "N following · M branched off", from a rerun."""
    found = COUNTS.search((await lecturer.run()).text())
    assert found, "no room row on the lecturer's page"
    return int(found.group(1)), int(found.group(2))


async def wait_counts(lecturer: Client, want: tuple[int, int], timeout=30.0) -> None:
    deadline = time.perf_counter() + timeout
    while (got := await counts(lecturer)) != want:
        assert time.perf_counter() < deadline, f"counts {got}, wanted {want}"
        await asyncio.sleep(0.2)


def states(f: Follower) -> list[str]:
    return [s["state"] for s in f.said("status")]


async def ask_answer_reveal(
    lecturer: Client,
    page: Any,
    followers: list[Follower],
    answers_url: str,
    code: str,
    picks: list[int],
    following: int,
) -> dict[str, Any]:
    """The lecturer asks from ``page`` (its "Ask" button); each follower, told
    the question, answers its pick (posted to the server at ``answers_url``);
    the lecturer's page counts "len(picks) answered of ``following``" and its
    "Reveal" reaches every follower. Returns the question as first told."""
    await lecturer.click(page, next(b for b in page.buttons if "Ask" in b))
    for f in followers:
        await f.wait_for(lambda f: (f.said("question") or [None])[-1])
    question = followers[0].said("question")[-1]
    for f, pick in zip(followers, picks, strict=True):
        status, _, _ = await asyncio.to_thread(
            http,
            f"{answers_url}/room/{code}/answer",
            f.cookie,
            json.dumps({"q": question["id"], "a": pick}).encode(),
        )
        assert status == 200
    seen = await lecturer.run()
    assert f"{len(picks)} answered of {following} following" in seen.text()
    await lecturer.click(seen, "Reveal")
    for f in followers:
        await f.wait_for(lambda f: f.said("question")[-1]["reveal"])
    return question
