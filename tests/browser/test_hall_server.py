"""The lecture hall on a running server (issue 45), spoken to as its clients
speak: the lecturer in Streamlit's protocol
(``benchmarks/harness/streamlit_client.py``), followers as the follower
page's event stream and requests (``benchmarks/harness/sse_client.py``), each
with a visitor cookie of its own.

Each status reaches a follower (live, paused, live, closed; gone when the
lecturer's connection ends); followers leave when their connections end; the
caps a real server can be driven to (pages per browser, rooms per browser) and
the attempt limit say their sentences; a hostile code and hostile answers are
escaped or refused; a question is answered by followers and revealed, the
counts against the test's own tally. The caps too large to reach here (1000
pages a room, 50 rooms, 200 wrong codes a minute for the server) are checked
on the store (tests/test_hall_store.py)."""

from __future__ import annotations

import asyncio
import json
import re
import time
from urllib.parse import quote, urlencode

import pytest

from benchmarks.harness.sse_client import http
from benchmarks.harness.streamlit_client import Client, connect, move_slider, open_room
from svmlab.ui.frame import presets
from svmlab.ui.hall import limits
from tests.browser.hall_clients import (
    ask_answer_reveal,
    cookie,
    follower,
    run_async,
    states,
    wait_counts,
)

pytestmark = pytest.mark.timeout(300)


def test_each_status_reaches_a_follower_and_pages_leave_when_they_end(
    streamlit_url: str,
) -> None:
    async def hall() -> dict[str, float]:
        seen_after: dict[str, float] = {}
        async with connect(streamlit_url, cookie()) as ws:
            lecturer = Client(ws)
            code, first, opened = await open_room(lecturer)
            assert code and len(code) == 6 and not opened.errors
            pages = [follower(streamlit_url, code) for _ in range(8)]
            branched = follower(streamlit_url, code, "branched")
            for f in [*pages, branched]:
                await f.open()
            watch = pages[0]
            await watch.wait_for(lambda f: f.version >= 1 and states(f) == ["live"])
            await wait_counts(lecturer, (8, 1))

            async def act(label: str, want: str, step) -> None:
                start = time.perf_counter()
                await step()
                await watch.wait_for(lambda f: states(f)[-1:] == [want])
                await branched.wait_for(lambda f: states(f)[-1:] == [want])
                seen_after[label] = time.perf_counter() - start

            fragment = first.sliders["C"][3]
            pause = opened.toggles["pause the room"]

            async def toggle(on: bool) -> None:
                lecturer.states[pause] = on
                await lecturer.run(fragment=opened.fragments["pause the room"])

            await act("paused", "paused", lambda: toggle(True))
            paused_at = watch.version
            move_slider(lecturer, first.sliders, {}, "C", 2)
            await lecturer.run(fragment=fragment)  # not sent while paused ...
            await act("live", "live", lambda: toggle(False))
            await watch.wait_for(lambda f: f.version == paused_at + 1)  # ... but now

            # Five pages go away (their connections end): the room counts them out.
            for f in pages[3:]:
                await f.close()
            await wait_counts(lecturer, (3, 1))
            closing = await lecturer.run(fragment=fragment)
            await act(
                "closed", "closed", lambda: lecturer.click(closing, "Close the room")
            )
            for f in [*pages[:3], branched]:
                await f.wait_for(lambda f: f.closed)  # the server ends the streams

        # The lecturer's page itself goes away: "gone" on the followers' side.
        async with connect(streamlit_url, cookie()) as ws:
            code, _, _ = await open_room(Client(ws))
            gone = follower(streamlit_url, code)
            await gone.open()
            await gone.wait_for(lambda f: states(f) == ["live"])
        start = time.perf_counter()
        await gone.wait_for(lambda f: states(f)[-1:] == ["gone"])
        seen_after["gone"] = time.perf_counter() - start
        await gone.close()
        return seen_after

    delays = run_async(hall())
    print("each status seen after (s):", {k: round(v, 2) for k, v in delays.items()})


def test_caps_and_the_attempt_limit_say_their_sentences(streamlit_url: str) -> None:
    async def hall() -> None:
        lecturer_cookie = cookie()
        async with (
            connect(streamlit_url, lecturer_cookie) as ws1,
            connect(streamlit_url, lecturer_cookie) as ws2,
            connect(streamlit_url, lecturer_cookie) as ws3,
        ):
            owner = Client(ws1)
            code, _, _ = await open_room(owner)
            second, _, _ = await open_room(Client(ws2))
            assert code and second
            third, _, refused = await open_room(Client(ws3))
            assert third is None
            assert limits.sentence("my_rooms") in refused.text()

            # One browser, many tabs: the seventh is refused in a sentence.
            tabs = cookie()
            pages = [follower(streamlit_url, code, who=tabs) for _ in range(6)]
            for f in pages:
                await f.open()
            await pages[-1].wait_for(lambda f: f.version >= 0)
            extra = follower(streamlit_url, second, who=tabs)
            await extra.open()
            await extra.wait_for(lambda f: f.said("refused"))
            assert extra.said("refused")[0]["text"] == limits.sentence("my_pages")
            await pages[0].close()  # a tab closed frees its place ...
            await wait_counts(owner, (5, 0))  # ... once the server saw it end
            again = follower(streamlit_url, second, who=tabs)
            await again.open()
            await again.wait_for(lambda f: f.version >= 0)
            for f in [*pages, extra, again]:
                await f.close()

            # Wrong codes: ten, then even the right code waits; others are let in.
            guesser = cookie()
            wrong = "ZZZZZZ" if code != "ZZZZZZ" else "YYYYYY"
            for _ in range(limits.WRONG_CODES_PER_VISITOR):
                status, _, body = await asyncio.to_thread(
                    http, f"{streamlit_url}/room/{wrong}", guesser
                )
                assert status == 404 and limits.sentence("wrong").encode() in body
            status, _, body = await asyncio.to_thread(
                http, f"{streamlit_url}/room/{code}", guesser
            )
            assert status == 429 and b"typed 10 wrong codes" in body
            stream = follower(streamlit_url, code, who=guesser)
            await stream.open()
            await stream.wait_for(lambda f: f.said("refused"))
            await stream.close()
            status, _, _ = await asyncio.to_thread(
                http, f"{streamlit_url}/room/{code.lower()}", cookie()
            )
            assert status == 200

    run_async(hall())


def test_hostile_codes_and_answers_are_escaped_or_refused(streamlit_url: str) -> None:
    # A link's code is never echoed: not as a link, an image, or 10,000 letters.
    for hostile in (
        "[click me](https://example.com/login)",
        "![x](https://example.com/p.png)",
        "<script>alert(1)</script>",
        "A" * 10_000,
    ):
        status, headers, _ = http(
            f"{streamlit_url}/Explore?follow={quote(hostile)}", redirect=False
        )
        assert status == 303 and headers["location"] == "/room?unknown=1"
        for url in (
            f"{streamlit_url}/room?unknown=1",
            f"{streamlit_url}/room/{quote(hostile, safe='')}",
            f"{streamlit_url}/room?code={quote(hostile)}",
        ):
            status, _, body = http(url, cookie())
            assert status == 404
            text = body.decode()
            assert limits.sentence("wrong") in text
            for part in ("example.com", "click me", "<script>alert", "A" * 40):
                assert part not in text

    async def hall() -> None:
        async with connect(streamlit_url, cookie()) as ws:
            lecturer = Client(ws)
            query = urlencode(presets.query("c_too_large"))
            code, _, opened = await open_room(lecturer, query)
            label = next(b for b in opened.buttons if b.startswith("Ask: "))
            await lecturer.click(opened, label)
            student = cookie()
            base = f"{streamlit_url}/room/{code}/answer"
            page = follower(streamlit_url, code, who=student)
            await page.open()
            await page.wait_for(lambda f: (f.said("question") or [None])[-1])
            qid = page.said("question")[-1]["id"]

            def post(payload) -> tuple[int, dict]:
                status, _, body = http(base, student, json.dumps(payload).encode())
                return status, json.loads(body)

            for bad in ("<img src=x onerror=alert(1)>", 7, True, [1, 2], None):
                status, said = await asyncio.to_thread(post, {"q": qid, "a": bad})
                assert status == 400 and "choices" in said["error"]
            status, _, body = await asyncio.to_thread(
                http, base, student, b'{"q": "' + b"x" * 5000 + b'"}'
            )
            assert status == 413
            status, said = await asyncio.to_thread(post, {"q": "other", "a": 1})
            assert status == 409 and said["error"] == limits.sentence("no_question")
            names = ("<img src=x onerror=1>", "[a](https://e.co)\u202e", "x" * 99)
            for k, name in enumerate(names):
                status, _, body = await asyncio.to_thread(
                    http,
                    base,
                    f"{student}{k}",
                    json.dumps({"q": qid, "a": 1, "name": name}).encode(),
                )
                assert status == 200 and json.loads(body) == {"ok": True, "answer": 1}
            seen = await lecturer.run()
            assert "3 answered of 1 following" in seen.text()
            # The names reach the projector escaped (no tag, no link, no
            # right-to-left override) and cut to 24 characters.
            text = next(t for t in seen.texts if t.startswith("Answered:"))
            assert "\\<img src\\=x onerror\\=1\\>" in text
            assert "\\[a\\]\\(https\\://e\\.co\\)" in text
            assert "<img" not in text.replace("\\<img", "")
            assert "](" not in text.replace("\\](", "") and "\u202e" not in text
            assert "x" * 23 + "…" in text and "x" * 25 not in text
            await page.close()

    run_async(hall())


def test_a_question_answered_by_followers_and_revealed(streamlit_url: str) -> None:
    async def hall() -> None:
        async with connect(streamlit_url, cookie()) as ws:
            lecturer = Client(ws)
            query = urlencode(presets.query("c_too_large"))
            code, first, opened = await open_room(lecturer, query)
            # Away from every choice's C (the preset's is one of them), so that
            # the reveal has to move the page.
            move_slider(lecturer, first.sliders, {}, "C", -1)
            moved = await lecturer.run(fragment=first.sliders["C"][3])
            assert not moved.errors
            pages = [follower(streamlit_url, code) for _ in range(5)]
            for f in pages:
                await f.open()
            asked_at = lecturer.query
            picks = [0, 1, 2, 2, 3]
            question = await ask_answer_reveal(
                lecturer, opened, pages, streamlit_url, code, picks, following=5
            )
            assert question["kind"] == "choice" and question["open"]
            revealed = pages[-1].said("question")[-1]
            assert not revealed["open"]
            reveal = revealed["reveal"]
            assert reveal["summary"]["counts"] == [picks.count(k) for k in range(4)]
            # The true choice is the one with the fewest support vectors among
            # the values the reveal names ...
            named = dict(re.findall(r"C = ([\d,.]+): (\d+)", reveal["text"]))
            values = [int(named[c.removeprefix("C = ")]) for c in question["choices"]]
            assert values[reveal["truth"]] == min(values)
            # ... and the lecturer's page (every follower's with it) moved there,
            # its numbers panel showing that count. (The slider takes the value
            # the server set, as a browser's does: this client forgets its own.)
            lecturer.states.pop(first.sliders["C"][0], None)
            page = await lecturer.run()
            chosen = question["choices"][reveal["truth"]].removeprefix("C = ")
            c_in = re.compile(rf"(^|&)C={re.escape(chosen.replace(',', ''))}(&|$)")
            assert c_in.search(lecturer.query) and not c_in.search(asked_at)
            shown = re.search(
                r'data-svmlab-number="support vectors"[^>]*>(\d+) /', page.text()
            )
            assert shown and int(shown.group(1)) == values[reveal["truth"]]
            for f in pages:
                await f.close()

    run_async(hall())
