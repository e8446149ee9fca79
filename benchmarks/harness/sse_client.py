"""A follower's page without a browser: one HTTP/1.1 connection reading the
room's server-sent events (``/room/CODE/events``), as ``follower.js``'s
EventSource does, with its own visitor cookie. Used by the lecture hall's
benchmark and tests: hundreds of them fit one event loop."""

from __future__ import annotations

import asyncio
import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Event", "Follower"]

_VERSION = re.compile(rb'^\{"v":(\d+)')


@dataclass
class Event:
    """One event as the follower read it."""

    kind: str
    data: bytes
    at: float
    version: int | None = None

    def json(self) -> Any:
        return json.loads(self.data)


@dataclass
class Follower:
    """A follower's connection: ``host``, ``port``, ``path`` (with its query),
    ``cookie`` (its visitor). ``events`` keeps the small events whole; views
    (``view``, ``full``) are kept as version and time only (``shown``) unless
    ``keep_views``."""

    host: str
    port: int
    path: str
    cookie: str
    keep_views: bool = False
    events: list[Event] = field(default_factory=list)
    #: (version, time) of each view shown, in order.
    shown: list[tuple[int, float]] = field(default_factory=list)
    version: int = -1
    received: int = 0
    status: int = 0
    closed: bool = False
    _writer: Any = None
    _task: asyncio.Task | None = None
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    async def open(self) -> None:
        """Connect and read until closed (in the background)."""
        reader, writer = await asyncio.open_connection(self.host, self.port)
        self._writer = writer
        writer.write(
            (
                f"GET {self.path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                "Accept: text/event-stream\r\n"
                f"Cookie: svmlab_visitor={self.cookie}\r\n\r\n"
            ).encode()
        )
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        self.received += len(head)
        self.status = int(head.split(b" ", 2)[1])
        self._task = asyncio.ensure_future(self._read(reader))

    async def _read(self, reader: asyncio.StreamReader) -> None:
        buffer = b""
        try:
            while True:
                size_line = await reader.readuntil(b"\r\n")
                size = int(size_line.strip(), 16)
                chunk = await reader.readexactly(size + 2)
                self.received += len(size_line) + size + 2
                if size == 0:
                    break
                buffer += chunk[:-2]
                while b"\n\n" in buffer:
                    block, buffer = buffer.split(b"\n\n", 1)
                    self._take(block)
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            pass
        finally:
            self.closed = True
            self._changed.set()

    def _take(self, block: bytes) -> None:
        kind, data = "message", b""
        for line in block.split(b"\n"):
            if line.startswith(b"event: "):
                kind = line[7:].decode()
            elif line.startswith(b"data: "):
                data = line[6:]
        if not data:
            return  # a comment (keep-alive) or a retry line
        now = time.perf_counter()
        if kind in ("view", "full"):
            version = int(_VERSION.match(data).group(1))
            if version > self.version:
                self.version = version
                self.shown.append((version, now))
            event = Event(kind, data if self.keep_views else b"", now, version)
        else:
            event = Event(kind, data, now)
        self.events.append(event)
        self._changed.set()

    def said(self, kind: str) -> list[Any]:
        """The decoded payloads of the events of ``kind`` so far."""
        return [e.json() for e in self.events if e.kind == kind]

    async def wait_for(self, check: Any, timeout: float = 20.0) -> None:
        """Until ``check(self)`` holds (each event looks again)."""
        deadline = time.perf_counter() + timeout
        while not check(self):
            left = deadline - time.perf_counter()
            if left <= 0 or self.closed:
                if check(self):
                    return
                raise TimeoutError(f"not seen in {timeout} s: {self.events[-3:]}")
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), left)
            except TimeoutError:
                continue

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            try:
                await self._writer.wait_closed()
            except (ConnectionError, OSError):
                pass
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)


def http(
    url: str,
    cookie: str | None = None,
    body: bytes | None = None,
    redirect: bool = True,
) -> tuple[int, dict[str, str], bytes]:
    """One plain request (GET, or POST with ``body``) with the visitor cookie:
    ``(status, headers, body)``; no proxy, and redirects followed only with
    ``redirect``."""
    import urllib.error
    import urllib.request

    class _Stay(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    handlers: list[Any] = [urllib.request.ProxyHandler({})]
    if not redirect:
        handlers.append(_Stay())
    opener = urllib.request.build_opener(*handlers)
    request = urllib.request.Request(url, data=body, method="POST" if body else "GET")
    if cookie:
        request.add_header("Cookie", f"svmlab_visitor={cookie}")
    if body is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with opener.open(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()
