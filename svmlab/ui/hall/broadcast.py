"""One broadcast per process: the store's changes pushed to every follower's
page this process serves, the same bytes to each (issue 45).

The store tells the :class:`Hub` of each change (:meth:`RoomStore.listen
<svmlab.ui.hall.store.RoomStore.listen>`, from whatever thread made it: a
lecturer's script thread, Redis' subscriber thread); the hub turns it into one
server-sent event (:func:`frame`), appends it to the room's :class:`Channel`
on the server's event loop and wakes the room's pages, each of which writes
the frames it has not sent yet (:meth:`Hub.stream`). A page that starts, or
falls more than :data:`KEPT` frames behind, or receives a view whose base is
not the version it shows, gets the whole view instead (:meth:`Hub.full`,
encoded once per version). So an update costs the lecturer's session one
encoding and each page one write of shared bytes: no script run per follower.

:meth:`Hub.monitor` runs on the event loop: every half second it tells the
store whether each room's lecturer's page is still connected, and tells pages
of a room whose state changed without a message (expired, its lecturer's
process gone). No Streamlit, no Starlette here: the routes
(:mod:`svmlab.ui.hall.routes`) hand :meth:`Hub.stream` a ``send`` coroutine.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from svmlab.ui.hall.store import RoomStore, question_json, status_json
from svmlab.ui.hall.view import full_json

__all__ = ["KEEPALIVE_SECONDS", "KEPT", "Channel", "Hub", "frame"]

#: Frames a room keeps for pages that fall behind.
KEPT = 32
#: A comment line this often on a quiet stream (proxies close idle ones).
KEEPALIVE_SECONDS = 15.0
#: How often the monitor looks (seconds): a status is seen within about this.
MONITOR_SECONDS = 0.5
#: How often this process's pages are re-counted in a shared store.
REFRESH_SECONDS = 5.0

Send = Callable[[bytes], Awaitable[None]]


def frame(kind: str, payload: str, version: int | None = None) -> bytes:
    """One server-sent event (``payload`` is one line of JSON); ``version``
    as its id, which the browser sends back when it reconnects."""
    head = f"id: {version}\n" if version is not None else ""
    return f"{head}event: {kind}\ndata: {payload}\n\n".encode()


@dataclass
class Channel:
    """The recent frames of one room in this process, and its pages' wake-up."""

    seq: int = 0
    #: ``(seq, kind, version, base, bytes)``; version and base for views only.
    frames: deque[tuple[int, str, int, int, bytes]] = field(
        default_factory=lambda: deque(maxlen=KEPT)
    )
    pages: int = 0
    state: str | None = None
    woken: asyncio.Event = field(default_factory=asyncio.Event)

    def post(self, kind: str, payload: str) -> None:
        version = base = -1
        if kind == "view":
            head = json.loads(payload[: payload.index(',"parts"')] + "}")
            version, base = int(head["v"]), int(head["base"])
        elif kind == "status":
            self.state = json.loads(payload)["state"]
        self.seq += 1
        data = frame(kind, payload, version if version >= 0 else None)
        self.frames.append((self.seq, kind, version, base, data))
        woken, self.woken = self.woken, asyncio.Event()
        woken.set()


class Hub:
    """This process's rooms' channels, fed by ``store``."""

    def __init__(self, store: RoomStore) -> None:
        self.store = store
        self.channels: dict[str, Channel] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self._full: dict[str, tuple[int, bytes]] = {}
        #: conn -> room code, of the pages streaming from this process.
        self.conns: dict[str, str] = {}
        store.listen(self._heard)

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Serve from ``loop`` (the server's event loop)."""
        self.loop = loop

    def _heard(self, code: str, kind: str, payload: str) -> None:
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(self._post, code, kind, payload)

    def _post(self, code: str, kind: str, payload: str) -> None:
        channel = self.channels.get(code)
        if channel is not None:
            channel.post(kind, payload)

    def full(self, code: str) -> tuple[int, bytes] | None:
        """The whole view's frame (encoded once per version), or None."""
        view = self.store.view(code)
        if view is None:
            return None
        version, parts = view
        cached = self._full.get(code)
        if cached is None or cached[0] != version:
            cached = (version, frame("full", full_json(version, parts), version))
            self._full[code] = cached
        return cached

    async def _snapshot(self, code: str, send: Send, version: int) -> int:
        """Status, question and (unless the page shows it) the view; the
        version the page shows after."""
        info = self.store.info(code)
        channel = self.channels.get(code)
        if channel is not None and channel.state is None:
            channel.state = "closed" if info is None else info.state
        if info is None:
            await send(frame("status", status_json("closed")))
            return version
        await send(frame("status", status_json(info.state), info.version))
        await send(frame("question", question_json(info.question)))
        if info.version != version:
            full = self.full(code)
            if full is not None:
                await send(full[1])
                version = full[0]
        return version

    async def stream(
        self,
        code: str,
        conn: str,
        send: Send,
        gone: asyncio.Event,
        version: int = -1,
    ) -> None:
        """Write room ``code``'s frames to one page until ``gone`` is set (its
        connection ended) or the room closes; ``version``: the view the page
        shows already (its ``Last-Event-ID``)."""
        channel = self.channels.setdefault(code, Channel())
        channel.pages += 1
        self.conns[conn] = code
        try:
            seq = channel.seq
            version = await self._snapshot(code, send, version)
            while not gone.is_set() and channel.state != "closed":
                woken = channel.woken
                if channel.seq == seq:
                    waits = {
                        asyncio.ensure_future(woken.wait()),
                        asyncio.ensure_future(gone.wait()),
                    }
                    done, pending = await asyncio.wait(
                        waits,
                        timeout=KEEPALIVE_SECONDS,
                        return_when=asyncio.FIRST_COMPLETED,
                    )
                    for task in pending:
                        task.cancel()
                    if not done:
                        await send(b": k\n\n")
                        continue
                if gone.is_set():
                    return
                oldest = channel.frames[0][0] if channel.frames else channel.seq + 1
                if seq + 1 < oldest:  # fell behind the kept frames
                    seq = channel.seq
                    version = await self._snapshot(code, send, version)
                    continue
                for f_seq, kind, f_version, base, data in list(channel.frames):
                    if f_seq <= seq:
                        continue
                    seq = f_seq
                    if kind == "view":
                        if f_version <= version:
                            continue
                        if base != version:
                            full = self.full(code)
                            if full is None:
                                continue
                            data, f_version = full[1], full[0]
                        version = f_version
                    await send(data)
                    if kind == "status" and channel.state == "closed":
                        return
        finally:
            channel.pages -= 1
            self.conns.pop(conn, None)
            if channel.pages <= 0:
                self.channels.pop(code, None)
                self._full.pop(code, None)

    async def monitor(self, present: Callable[[str], bool]) -> None:
        """Forever, every :data:`MONITOR_SECONDS`: whether each room's lecturer
        is connected (``present(session)``), and each followed room's state."""
        seen: dict[str, bool] = {}
        refreshed = 0.0
        while True:
            await asyncio.sleep(MONITOR_SECONDS)
            with contextlib.suppress(Exception):  # one bad look must not end it
                self.look(present, seen)
                if time.monotonic() - refreshed > REFRESH_SECONDS:
                    refreshed = time.monotonic()
                    self.store.refresh(dict(self.conns))

    def look(self, present: Callable[[str], bool], seen: dict[str, bool]) -> None:
        """One look of :meth:`monitor` (``seen``: each owner's presence last
        told to the store, kept between looks)."""
        for code, owner, session in self.store.owned_here():
            here = bool(present(session))
            if seen.get(code) != here:
                seen[code] = here
                self.store.set_present(code, owner, here)
        self.store.beat()
        for code, channel in list(self.channels.items()):
            info = self.store.info(code)
            state = "closed" if info is None else info.state
            if state != channel.state:
                channel.post("status", status_json(state))
