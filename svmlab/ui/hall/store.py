"""The rooms of a lecture hall: who owns each, what its followers see, its
status, who follows it, and its question with the answers (issue 45).

:class:`RoomStore` is the interface the lecturer's session, the routes and
the broadcast use; :class:`MemoryStore` keeps it in this process (the default)
and :class:`svmlab.ui.hall.redis_store.RedisStore` in a Redis server shared by
several processes. Both say the same things to their listeners
(:meth:`RoomStore.listen`): ``(code, kind, payload)`` with ``kind`` one of

- ``"view"``: a new version of the view, as a delta
  (:func:`~svmlab.ui.hall.view.delta_json`: the parts that changed since the
  version before);
- ``"status"``: ``{"state": "live" | "paused" | "gone" | "closed"}``;
- ``"question"``: the room's question as followers see it, or ``null``.

Only the owner (the holder of the random token :meth:`~RoomStore.open`
returned) publishes, pauses, closes, asks and reveals. Followers never extend
a room's life: it ends :data:`~svmlab.ui.hall.limits.ROOM_SECONDS` after the
owner's last action, or :data:`~svmlab.ui.hall.limits.GONE_SECONDS` after the
owner's page went away.

No Streamlit, no Starlette: plain data under one lock.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from svmlab.ui.hall import codes, limits
from svmlab.ui.hall.limits import Refusal, WindowCounter
from svmlab.ui.hall.view import delta_json

__all__ = [
    "STATES",
    "Answer",
    "Counts",
    "Listener",
    "MemoryStore",
    "RoomInfo",
    "RoomStore",
]

#: A room's states as followers are told them.
STATES = ("live", "paused", "gone", "closed")
#: Closed codes remembered (a reconnecting page is told "closed", not counted).
CLOSED_KEPT = 1000
#: Roles of a page attached to a room.
ROLES = ("follow", "branched")

Listener = Callable[[str, str, str], None]


@dataclass(frozen=True)
class RoomInfo:
    """What a follower's page needs of a room at once."""

    code: str
    version: int
    state: str
    #: The question as followers see it (None: no question).
    question: dict[str, Any] | None


@dataclass(frozen=True)
class Counts:
    """Pages attached to a room now."""

    following: int
    branched: int


@dataclass(frozen=True)
class Answer:
    """One visitor's current answer to the room's question."""

    visitor: str
    name: str
    value: Any


def status_json(state: str) -> str:
    return json.dumps({"state": state})


def question_json(question: dict[str, Any] | None) -> str:
    return json.dumps(question, separators=(",", ":"))


class RoomStore(ABC):
    """What every store does (see the module's docstring)."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []

    def listen(self, listener: Listener) -> None:
        """Call ``listener(code, kind, payload)`` on every change followers see."""
        self._listeners.append(listener)

    def _tell(self, code: str, kind: str, payload: str) -> None:
        for listener in list(self._listeners):
            listener(code, kind, payload)

    # -- the owner ------------------------------------------------------------

    @abstractmethod
    def open(self, visitor: str, session: str) -> tuple[str, str]:
        """A new room for ``visitor``'s page ``session``: ``(code, owner
        token)``; :class:`Refusal` past a cap (rooms on the server, rooms of
        this visitor)."""

    @abstractmethod
    def publish(self, code: str, owner: str, parts: dict[str, str]) -> int | None:
        """The owner's view (part name -> JSON text); the version followers
        see now, None when ``owner`` does not own ``code``. Parts equal to the
        last ones are not sent again; while paused, the view is kept for the
        resume and followers keep the one they have."""

    @abstractmethod
    def set_paused(self, code: str, owner: str, paused: bool) -> bool:
        """Pause or resume (the owner only); a resume sends what was missed."""

    @abstractmethod
    def set_present(self, code: str, owner: str, present: bool) -> bool:
        """Whether the owner's page is connected (the server's monitor says)."""

    @abstractmethod
    def close(self, code: str, owner: str) -> bool:
        """Close the room (the owner only)."""

    @abstractmethod
    def ask(self, code: str, owner: str, question: dict[str, Any]) -> str | None:
        """Put ``question`` (its public fields) to the room; its id."""

    @abstractmethod
    def reveal(self, code: str, owner: str, reveal: dict[str, Any]) -> bool:
        """Close the question's answers and show ``reveal`` (the true value and
        the room's answers) to every follower."""

    @abstractmethod
    def end_question(self, code: str, owner: str) -> bool:
        """Take the question away."""

    @abstractmethod
    def answers(self, code: str) -> list[Answer]:
        """The current question's answers, one per visitor."""

    @abstractmethod
    def owner_of(self, code: str, owner: str) -> bool:
        """Whether ``owner`` is ``code``'s owner token (and the room open)."""

    # -- followers ------------------------------------------------------------

    @abstractmethod
    def info(self, code: str) -> RoomInfo | None:
        """The open room ``code``, or None."""

    @abstractmethod
    def view(self, code: str) -> tuple[int, dict[str, str]] | None:
        """The version and parts followers see now."""

    @abstractmethod
    def find(self, visitor: str, typed: object) -> RoomInfo:
        """The open room a visitor typed or linked; :class:`Refusal` for a
        wrong code (counted against the visitor and the server) or once the
        visitor or the server typed too many wrong codes."""

    @abstractmethod
    def attach(self, code: str, conn: str, visitor: str, role: str) -> None:
        """A page (``conn``) of ``visitor`` follows ``code`` (``role``
        "follow" or "branched"); :class:`Refusal` past a cap."""

    @abstractmethod
    def detach(self, code: str, conn: str) -> None:
        """The page ``conn`` left (its connection ended)."""

    @abstractmethod
    def counts(self, code: str) -> Counts:
        """Pages following and branched off now."""

    @abstractmethod
    def answer(
        self, code: str, visitor: str, question: str, value: Any, name: str = ""
    ) -> None:
        """``visitor``'s answer to ``question`` (its id; an answer replaces the
        visitor's last); :class:`Refusal` when the question is closed or the
        visitor changed it too often. ``value`` is already checked."""

    def refresh(self, conns: dict[str, str]) -> None:
        """Keep the pages ``conns`` (conn -> room code) of this process
        counted (a shared store forgets pages whose process stopped); nothing
        to do in one process."""
        return None

    def owned_here(self) -> list[tuple[str, str, str]]:
        """``(code, owner token, page session)`` of the rooms opened in this
        process (the monitor watches their owners' pages)."""
        return []

    def beat(self) -> None:
        """The monitor's twice-a-second word that this process's lecturers'
        pages are still there (a shared store tells the other processes)."""
        return None

    @abstractmethod
    def clear(self) -> None:
        """Forget every room (tests)."""


@dataclass
class _Room:
    code: str
    owner: str
    visitor: str
    session: str
    acted: float
    parts: dict[str, str] = field(default_factory=dict)
    version: int = 0
    #: While paused: the owner's latest parts, shown at the resume.
    pending: dict[str, str] | None = None
    paused: bool = False
    gone_since: float | None = None
    conns: dict[str, tuple[str, str]] = field(default_factory=dict)
    question: dict[str, Any] | None = None
    answers: dict[str, Any] = field(default_factory=dict)
    changes: dict[str, int] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)

    @property
    def state(self) -> str:
        if self.gone_since is not None:
            return "gone"
        return "paused" if self.paused else "live"

    def info(self) -> RoomInfo:
        return RoomInfo(self.code, self.version, self.state, self.question)


class MemoryStore(RoomStore):
    """The rooms of this process (thread-safe: every session's script thread
    and the server's event loop use it)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self._rooms: dict[str, _Room] = {}
        self._lock = threading.Lock()
        self._clock = clock
        self._wrong = WindowCounter(limits.WRONG_WINDOW_SECONDS, clock=clock)
        self._server_wrong = WindowCounter(limits.SERVER_WINDOW_SECONDS, clock=clock)
        self._pages: dict[str, set[str]] = {}  # visitor -> conns
        #: Codes closed lately (code -> when): a page that reconnects to one is
        #: told "closed", and its code is not counted as a wrong guess.
        self._closed: dict[str, float] = {}

    # -- bookkeeping (under the lock) ----------------------------------------------

    def _expire(self) -> list[str]:
        now = self._clock()
        gone = [
            code
            for code, r in self._rooms.items()
            if now - r.acted > limits.ROOM_SECONDS
            or (r.gone_since is not None and now - r.gone_since > limits.GONE_SECONDS)
        ]
        for code in gone:
            self._drop(code)
        return gone

    def _drop(self, code: str) -> None:
        room = self._rooms.pop(code)
        self._closed[code] = self._clock()
        while len(self._closed) > CLOSED_KEPT:
            self._closed.pop(next(iter(self._closed)))
        for conn, (visitor, _) in room.conns.items():
            self._pages.get(visitor, set()).discard(conn)

    def _owned(self, code: str, owner: str) -> _Room | None:
        self._expire()
        room = self._rooms.get(code)
        if room is None or not secrets.compare_digest(room.owner, str(owner)):
            return None
        return room

    def _acted_on(self, code: str, owner: str) -> _Room | None:
        """The owner's room with its idle clock restarted (what the owner does
        keeps a room open: ``limits.ROOM_SECONDS``), or None if not theirs."""
        room = self._owned(code, owner)
        if room is not None:
            room.acted = self._clock()
        return room

    # -- the owner -----------------------------------------------------------------

    def open(self, visitor: str, session: str) -> tuple[str, str]:
        with self._lock:
            self._expire()
            if len(self._rooms) >= limits.MAX_ROOMS:
                raise Refusal("rooms")
            mine = sum(r.visitor == visitor for r in self._rooms.values())
            if mine >= limits.ROOMS_PER_VISITOR:
                raise Refusal("my_rooms")
            code = codes.new_code()
            while code in self._rooms:
                code = codes.new_code()
            owner = secrets.token_urlsafe(24)
            self._rooms[code] = _Room(code, owner, visitor, session, self._clock())
            return code, owner

    def owner_of(self, code: str, owner: str) -> bool:
        with self._lock:
            return self._owned(code, owner) is not None

    def publish(self, code: str, owner: str, parts: dict[str, str]) -> int | None:
        with self._lock:
            room = self._acted_on(code, owner)
            if room is None:
                return None
            if room.paused:
                room.pending = dict(parts)
                return room.version
            message = self._advance(room, parts)
            version = room.version
        if message is not None:
            self._tell(code, "view", message)
        return version

    @staticmethod
    def _advance(room: _Room, parts: dict[str, str]) -> str | None:
        changed = {k: v for k, v in parts.items() if room.parts.get(k) != v}
        dropped = [k for k in room.parts if k not in parts]
        if not changed and not dropped:
            return None
        base = room.version
        room.version += 1
        room.parts = dict(parts)
        return delta_json(room.version, base, changed, dropped)

    def set_paused(self, code: str, owner: str, paused: bool) -> bool:
        with self._lock:
            room = self._acted_on(code, owner)
            if room is None:
                return False
            room.paused = bool(paused)
            message = None
            if not paused and room.pending is not None:
                message = self._advance(room, room.pending)
                room.pending = None
            state = room.state
        if message is not None:
            self._tell(code, "view", message)
        self._tell(code, "status", status_json(state))
        return True

    def set_present(self, code: str, owner: str, present: bool) -> bool:
        with self._lock:
            room = self._owned(code, owner)
            if room is None:
                return False
            before = room.state
            if present:
                room.gone_since = None
            elif room.gone_since is None:
                room.gone_since = self._clock()
            state = room.state
        if state != before:
            self._tell(code, "status", status_json(state))
        return True

    def close(self, code: str, owner: str) -> bool:
        with self._lock:
            if self._owned(code, owner) is None:
                return False
            self._drop(code)
        self._tell(code, "status", status_json("closed"))
        return True

    def ask(self, code: str, owner: str, question: dict[str, Any]) -> str | None:
        with self._lock:
            room = self._acted_on(code, owner)
            if room is None:
                return None
            qid = secrets.token_hex(6)
            room.question = {**question, "id": qid, "open": True, "reveal": None}
            room.answers.clear()
            room.changes.clear()
            public = question_json(room.question)
        self._tell(code, "question", public)
        return qid

    def reveal(self, code: str, owner: str, reveal: dict[str, Any]) -> bool:
        with self._lock:
            room = self._owned(code, owner)
            if room is None or room.question is None:
                return False
            room.acted = self._clock()
            room.question = {**room.question, "open": False, "reveal": reveal}
            public = question_json(room.question)
        self._tell(code, "question", public)
        return True

    def end_question(self, code: str, owner: str) -> bool:
        with self._lock:
            room = self._owned(code, owner)
            if room is None:
                return False
            room.question = None
            room.answers.clear()
        self._tell(code, "question", question_json(None))
        return True

    def answers(self, code: str) -> list[Answer]:
        with self._lock:
            room = self._rooms.get(code)
            if room is None:
                return []
            return [
                Answer(v, room.names.get(v, ""), value)
                for v, value in room.answers.items()
            ]

    def owned_here(self) -> list[tuple[str, str, str]]:
        with self._lock:
            return [(r.code, r.owner, r.session) for r in self._rooms.values()]

    # -- followers -----------------------------------------------------------------

    def info(self, code: str) -> RoomInfo | None:
        with self._lock:
            self._expire()
            room = self._rooms.get(code)
            return None if room is None else room.info()

    def view(self, code: str) -> tuple[int, dict[str, str]] | None:
        with self._lock:
            room = self._rooms.get(code)
            return None if room is None else (room.version, dict(room.parts))

    def find(self, visitor: str, typed: object) -> RoomInfo:
        if self._wrong.count(visitor) >= limits.WRONG_CODES_PER_VISITOR:
            raise Refusal("my_wrong")
        if self._server_wrong.count("") >= limits.WRONG_CODES_PER_SERVER:
            raise Refusal("server_wrong")
        code = codes.normalize(typed)
        info = self.info(code) if code else None
        if info is None and code in self._closed:
            raise Refusal("closed")
        if info is None:
            self._wrong.add(visitor)
            self._server_wrong.add("")
            raise Refusal("wrong")
        return info

    def attach(self, code: str, conn: str, visitor: str, role: str) -> None:
        with self._lock:
            room = self._rooms.get(code)
            if room is None:
                raise Refusal("closed")
            pages = self._pages.setdefault(visitor, set())
            if conn not in room.conns:
                if len(room.conns) >= limits.MAX_FOLLOWERS:
                    raise Refusal("full")
                if len(pages) >= limits.PAGES_PER_VISITOR:
                    raise Refusal("my_pages")
            room.conns[conn] = (visitor, role if role in ROLES else "follow")
            pages.add(conn)

    def detach(self, code: str, conn: str) -> None:
        with self._lock:
            room = self._rooms.get(code)
            if room is None:
                return
            visitor, _ = room.conns.pop(conn, ("", ""))
            pages = self._pages.get(visitor)
            if pages is not None:
                pages.discard(conn)
                if not pages:
                    del self._pages[visitor]

    def counts(self, code: str) -> Counts:
        with self._lock:
            room = self._rooms.get(code)
            if room is None:
                return Counts(0, 0)
            roles = [role for _, role in room.conns.values()]
            return Counts(roles.count("follow"), roles.count("branched"))

    def answer(
        self, code: str, visitor: str, question: str, value: Any, name: str = ""
    ) -> None:
        with self._lock:
            room = self._rooms.get(code)
            if room is None:
                raise Refusal("closed")
            q = room.question
            if q is None or q["id"] != question or not q["open"]:
                raise Refusal("no_question")
            if room.changes.get(visitor, 0) >= limits.ANSWER_CHANGES:
                raise Refusal("answers")
            if visitor not in room.answers and len(room.answers) >= (
                limits.MAX_FOLLOWERS
            ):
                raise Refusal("full")
            room.changes[visitor] = room.changes.get(visitor, 0) + 1
            room.answers[visitor] = value
            if name and (
                visitor in room.names or len(room.names) < 2 * (limits.MAX_FOLLOWERS)
            ):
                room.names[visitor] = name

    def clear(self) -> None:
        with self._lock:
            self._rooms.clear()
            self._pages.clear()
            self._closed.clear()
