"""Rooms that follow a lecturer (issue 33): one table per server process.

A lecturer's session opens a :class:`Room` (a four-letter code, shown big in
classroom mode) and is its only owner: the room holds the lecturer's page state
(an :class:`~svmlab.ui.explore.undo.Snapshot`: settings and edited points) and a
version that grows with each change the owner publishes. Students join by the
code; a follower's session is told of each new version (``notify``, which asks
that session for a rerun: :mod:`svmlab.ui.explore.follow_panel`) unless the
student branched off or the lecturer paused the room. Nobody but the owner can
publish, pause or close (the owner is named by a random token only the owner's
session holds).

The data the lecturer's state names but a link cannot carry (an uploaded CSV)
travel with it: ``publish(..., data=(payload, points))`` keeps the payload beside
the state when it holds at most :data:`MAX_DATA_POINTS` points, and followers
take it from the room (one data set a room: the state's own).

Bounded: at most :data:`MAX_ROOMS` rooms and :data:`MAX_FOLLOWERS` followers a
room, one data set of :data:`MAX_DATA_POINTS` points a room; a room untouched
for :data:`ROOM_SECONDS` expires, and a closed room tells nobody anything
again.

This module does not import streamlit: plain data under one lock.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "MAX_DATA_POINTS",
    "MAX_FOLLOWERS",
    "MAX_ROOMS",
    "ROOM_SECONDS",
    "Room",
    "Rooms",
]

MAX_ROOMS = 50
MAX_FOLLOWERS = 200
#: The most points of uploaded data a room carries (a CSV upload's own cap).
MAX_DATA_POINTS = 5000
#: A room nobody has touched (published to, joined, looked at) for this long
#: expires: three hours, longer than a lecture.
ROOM_SECONDS = 3 * 3600.0
#: Letters of a room code: no 0/O, 1/I/L, 5/S look-alikes.
_ALPHABET = "ABCDEFGHJKMNPQRTUVWXYZ2346789"


@dataclass
class Room:
    """One room: the lecturer's state, its version, and who follows."""

    code: str
    owner: str
    state: Any = None
    #: The data ``state`` names that no link carries (None: none, or too big).
    data: Any = None
    version: int = 0
    paused: bool = False
    closed: bool = False
    touched: float = field(default_factory=time.monotonic)
    #: follower session id -> branched off (True: not following now)
    followers: dict[str, bool] = field(default_factory=dict)

    @property
    def following(self) -> int:
        """How many followers follow now (not branched off)."""
        return sum(not b for b in self.followers.values())


class Rooms:
    """The server's rooms (thread-safe: every session's script thread uses it)."""

    def __init__(
        self,
        notify: Callable[[str, Any], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._rooms: dict[str, Room] = {}
        self._lock = threading.Lock()
        self._notify = notify or (lambda session, hint: None)
        self._clock = clock

    def _expire(self) -> None:
        now = self._clock()
        for code in [
            c for c, r in self._rooms.items() if now - r.touched > ROOM_SECONDS
        ]:
            self._rooms[code].closed = True
            del self._rooms[code]

    def open(self, state: Any) -> tuple[Room, str] | None:
        """A new room with ``state``; ``(room, owner token)``, None when the
        server holds :data:`MAX_ROOMS` rooms already."""
        with self._lock:
            self._expire()
            if len(self._rooms) >= MAX_ROOMS:
                return None
            code = "".join(secrets.choice(_ALPHABET) for _ in range(4))
            while code in self._rooms:
                code = "".join(secrets.choice(_ALPHABET) for _ in range(4))
            owner = secrets.token_hex(16)
            room = Room(code=code, owner=owner, state=state, touched=self._clock())
            self._rooms[code] = room
            return room, owner

    def get(self, code: str) -> Room | None:
        """The open room ``code`` (any case), else None."""
        with self._lock:
            self._expire()
            return self._rooms.get(str(code).strip().upper())

    def publish(
        self,
        code: str,
        owner: str,
        state: Any,
        hint: Any = None,
        data: tuple[Any, int] | None = None,
    ) -> list[str]:
        """The owner's new state; returns the sessions told of it (none when
        unchanged, paused, closed, or ``owner`` is not the owner). ``hint``
        goes with each notice (what kind of change it was); ``data``, ``(payload,
        points)``, the data the state names, kept when ``points`` is at most
        :data:`MAX_DATA_POINTS`."""
        with self._lock:
            room = self._rooms.get(code)
            if room is None or room.owner != owner:
                return []
            room.touched = self._clock()
            if state == room.state:
                return []
            room.state = state
            fits = data is not None and data[1] <= MAX_DATA_POINTS
            room.data = data[0] if fits else None
            room.version += 1
            if room.paused:
                return []
            told = [s for s, branched in room.followers.items() if not branched]
        for session in told:
            self._notify(session, hint)
        return told

    def set_paused(self, code: str, owner: str, paused: bool) -> bool:
        """Pause or resume the room (owner only); resuming tells the followers
        the state they missed. True if it was done."""
        with self._lock:
            room = self._rooms.get(code)
            if room is None or room.owner != owner:
                return False
            room.paused = bool(paused)
            room.touched = self._clock()
            told = [] if paused else [s for s, b in room.followers.items() if not b]
        for session in told:
            self._notify(session, None)
        return True

    def close(self, code: str, owner: str) -> bool:
        """Close the room (owner only): its followers hear nothing again."""
        with self._lock:
            room = self._rooms.get(code)
            if room is None or room.owner != owner:
                return False
            room.closed = True
            del self._rooms[code]
            return True

    def join(self, code: str, session: str, branched: bool = False) -> Room | None:
        """Follow ``code`` from ``session`` (or mark it branched off); the room,
        None when there is no such open room or it is full."""
        with self._lock:
            self._expire()
            room = self._rooms.get(str(code).strip().upper())
            if room is None:
                return None
            if session not in room.followers and len(room.followers) >= MAX_FOLLOWERS:
                return None
            room.followers[session] = bool(branched)
            room.touched = self._clock()
            return room

    def leave(self, code: str, session: str) -> None:
        with self._lock:
            room = self._rooms.get(code)
            if room is not None:
                room.followers.pop(session, None)

    def clear(self) -> None:
        """Forget every room (tests)."""
        with self._lock:
            for room in self._rooms.values():
                room.closed = True
            self._rooms.clear()
