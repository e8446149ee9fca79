"""What one visitor, one room and one server may take, and the sentence each
cap says when it is reached (issue 45: a room is hostile).

A *visitor* is a browser, named by the random ``svmlab_visitor`` cookie the
app's server sets (:mod:`svmlab.ui.hall.routes`), not by its address: a hall
behind one NAT address is hundreds of visitors. A script that drops its cookie
is a new visitor each time, which is why every per-visitor cap has a cap for
the room or the server above it.

:class:`Refusal` carries the sentence; the follower's page and the lecturer's
popover show it as it is. :class:`WindowCounter` counts events in a sliding
window (attempts, answers) for the in-process store.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

__all__ = [
    "ANSWER_CHANGES",
    "GONE_SECONDS",
    "MAX_FOLLOWERS",
    "MAX_ROOMS",
    "NAME_CHARS",
    "PAGES_PER_VISITOR",
    "ROOMS_PER_VISITOR",
    "ROOM_SECONDS",
    "WRONG_CODES_PER_SERVER",
    "WRONG_CODES_PER_VISITOR",
    "Refusal",
    "WindowCounter",
    "sentence",
]

#: Rooms open on the server (on every process sharing one Redis, together).
MAX_ROOMS = 50
#: Rooms one visitor (one lecturer's browser) may hold open.
ROOMS_PER_VISITOR = 2
#: Pages following (or branched off) one room at once.
MAX_FOLLOWERS = 1000
#: Pages one visitor may have following rooms at once (tabs of one browser).
PAGES_PER_VISITOR = 6
#: Wrong codes one visitor may type in :data:`WRONG_WINDOW_SECONDS`.
WRONG_CODES_PER_VISITOR = 10
WRONG_WINDOW_SECONDS = 600.0
#: Wrong codes the whole server takes in :data:`SERVER_WINDOW_SECONDS`.
WRONG_CODES_PER_SERVER = 200
SERVER_WINDOW_SECONDS = 60.0
#: Times one visitor may answer (or change an answer to) one question.
ANSWER_CHANGES = 10
#: The longest name a follower may give (characters, after cleaning).
NAME_CHARS = 24
#: A room lives this long after its owner's last action (publish, pause, a
#: question); followers never extend it.
ROOM_SECONDS = 3 * 3600.0
#: A room whose lecturer's page has been gone this long closes.
GONE_SECONDS = 600.0

#: Each cap's sentence, its numbers read when it is said.
_SENTENCES = {
    "rooms": "The server holds {MAX_ROOMS} rooms already: close one, or wait "
    "until one expires.",
    "my_rooms": "You have {ROOMS_PER_VISITOR} rooms open already: close one of "
    "them first.",
    "full": "This room is full: {MAX_FOLLOWERS} pages follow it already.",
    "my_pages": "This browser follows rooms in {PAGES_PER_VISITOR} pages "
    "already: close one of them to open another.",
    "wrong": "No open room has that code. Check it on the projector, or open the link.",
    "my_wrong": "This browser typed {WRONG_CODES_PER_VISITOR} wrong codes in "
    "ten minutes: wait a few minutes, or open the link on the projector.",
    "server_wrong": "This server has seen too many wrong room codes in the last "
    "minute: wait a minute, or open the link on the projector.",
    "answers": "You changed your answer {ANSWER_CHANGES} times: your last "
    "answer stands.",
    "no_question": "This question is closed: your answer was not counted.",
    "closed": "This room is closed.",
}


def sentence(reason: str) -> str:
    """The sentence a cap or a refusal says (``reason``: its short name)."""
    return _SENTENCES[reason].format(**globals())


class Refusal(Exception):
    """A visitor asked for more than a cap allows; ``reason`` names the cap and
    ``str(refusal)`` is the sentence shown."""

    def __init__(self, reason: str) -> None:
        super().__init__(sentence(reason))
        self.reason = reason


class WindowCounter:
    """Events per key in a sliding window of ``seconds`` (thread-safe); at
    most ``keys`` keys are kept (the oldest go first), so a flood of new
    visitors cannot grow it without bound."""

    def __init__(
        self,
        seconds: float,
        keys: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.seconds = seconds
        self.keys = keys
        self._clock = clock
        self._events: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def count(self, key: str) -> int:
        """Events of ``key`` within the window now."""
        with self._lock:
            return len(self._trim(key))

    def add(self, key: str) -> int:
        """Count one event of ``key``; the events within the window after it."""
        with self._lock:
            events = self._trim(key)
            events.append(self._clock())
            self._events[key] = events
            while len(self._events) > self.keys:
                self._events.pop(next(iter(self._events)))
            return len(events)

    def _trim(self, key: str) -> deque[float]:
        events = self._events.pop(key, deque())
        floor = self._clock() - self.seconds
        while events and events[0] <= floor:
            events.popleft()
        if events:
            self._events[key] = events  # re-inserted: the newest key is last
        return events
