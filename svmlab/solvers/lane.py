"""One lane for long fits: short fits run at once, long ones take turns.

A server shared by a lecture room runs every session's script in a thread of
one process. Most fits take a few milliseconds; a few (n in the thousands, a
smooth loss, a huge C) take seconds. Left alone, ten students asking for slow
fits would keep both cores busy and every other student's slider would wait.
A :class:`FitLane` bounds that: a fit that has worked ``after_seconds`` (its
:class:`~svmlab.solvers.base.Budget` notices at its next check, between compiled
chunks) must hold one of the lane's ``slots`` to go on. With one slot, long
fits take turns on one core (their compiled loops release the interpreter lock)
and the other core stays with the short work of everybody else.

While it waits for a slot a fit still polls its ``cancel_when`` predicate, so a
fit superseded in the queue (the student moved C again) stops without having
run; its time budget does not run while it waits.

    lane = FitLane(slots=1, after_seconds=0.05)
    with long_fits_through(lane):
        model.fit(X, y)     # queues for the lane once past 50 ms of work

Pure Python (``threading``); no Streamlit.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from svmlab.errors import ParameterError

__all__ = ["FitLane", "in_lane", "lane_turn", "long_fits_through", "wait_for_lane"]

#: How often a fit waiting for the lane polls its cancel predicate, in seconds.
WAIT_POLL_SECONDS = 0.01
#: How long work that gives way waits for a waiting fit to take the slot
#: before it takes it back (the waiter may have been cancelled meanwhile).
GIVE_WAY_SECONDS = 1.0


class FitLane:
    """At most ``slots`` fits past ``after_seconds`` of work run at once.

    ``waiting`` and ``running`` count the fits queued and in the lane now;
    ``entered`` counts every fit that has entered and ``peak`` is the most that
    ran at once (for a benchmark's report, and the tests).
    """

    def __init__(self, slots: int = 1, after_seconds: float = 0.05) -> None:
        if not isinstance(slots, int) or slots < 1:
            raise ParameterError(f"A fit lane needs at least one slot; got {slots}.")
        if not after_seconds >= 0.0:
            raise ParameterError(
                "after_seconds must be zero or a positive number of seconds; "
                f"got {after_seconds}."
            )
        self.slots = slots
        self.after_seconds = float(after_seconds)
        self._semaphore = threading.BoundedSemaphore(slots)
        self._lock = threading.Lock()
        self.waiting = 0
        self.running = 0
        self.entered = 0
        self.peak = 0

    def _acquire(self, poll: Callable[[], None]) -> float:
        """Block until a slot is free, calling ``poll`` (which may raise) between
        tries; the seconds waited."""
        start = time.perf_counter()
        with self._lock:
            self.waiting += 1
        try:
            while not self._semaphore.acquire(timeout=WAIT_POLL_SECONDS):
                poll()
        finally:
            with self._lock:
                self.waiting -= 1
        with self._lock:
            self.running += 1
            self.entered += 1
            self.peak = max(self.peak, self.running)
        return time.perf_counter() - start

    def _release(self) -> None:
        with self._lock:
            self.running -= 1
        self._semaphore.release()


class _Ticket:
    """One ``long_fits_through`` block's claim on its lane (held at most once)."""

    def __init__(self, lane: FitLane) -> None:
        self.lane = lane
        self.held = False

    def enter(self, poll: Callable[[], None]) -> float:
        waited = self.lane._acquire(poll)
        self.held = True
        return waited

    def leave(self) -> None:
        if self.held:
            self.held = False
            self.lane._release()


_TICKET: ContextVar[_Ticket | None] = ContextVar("svmlab_fit_lane", default=None)


@contextmanager
def long_fits_through(lane: FitLane | None) -> Iterator[None]:
    """Fits inside the block that work longer than ``lane.after_seconds`` hold
    one of the lane's slots from then until the block ends. Blocks nest: an
    inner block inside an outer one shares the outer claim (never waits for a
    slot its own thread holds). ``lane=None`` changes nothing."""
    if lane is None or _TICKET.get() is not None:
        yield
        return
    ticket = _Ticket(lane)
    token = _TICKET.set(ticket)
    try:
        yield
    finally:
        _TICKET.reset(token)
        ticket.leave()


def in_lane() -> bool:
    """Whether this thread's fits run through a lane (inside
    :func:`long_fits_through` or :func:`lane_turn`): work that could take a
    second core (one-vs-one's pairs in two threads) then stays on one."""
    return _TICKET.get() is not None


def _no_poll() -> None:
    return None


@contextmanager
def lane_turn(
    lane: FitLane | None, poll: Callable[[], None] = _no_poll
) -> Iterator[Callable[[], None]]:
    """Hold one of the lane's slots for a block of work known to be long from
    its start (the frames of a GIF, an experiment of many fits): the block
    waits for a slot first (calling ``poll``, which may raise to cancel), and
    the fits inside share its claim. It yields ``give_way``, which the block
    calls between its steps: when another fit is waiting for the lane, the
    block lets it go first, then waits for its own turn again, so long work
    cut into steps never holds the lane for more than a step while others
    wait. ``lane=None`` holds nothing (``give_way`` does nothing)."""
    if lane is None:
        yield _no_poll
        return
    outer = _TICKET.get()
    ticket = outer if outer is not None else _Ticket(lane)
    token = _TICKET.set(ticket) if outer is None else None
    try:
        if not ticket.held:
            ticket.enter(poll)
        yield lambda: _give_way(ticket, poll)
    finally:
        if token is not None:
            _TICKET.reset(token)
            ticket.leave()


def _give_way(ticket: _Ticket, poll: Callable[[], None]) -> None:
    """Let a waiting fit take ``ticket``'s slot, then take one again."""
    lane = ticket.lane
    if not ticket.held or lane.waiting == 0:
        return
    ticket.leave()
    # A released semaphore goes to whichever thread asks first: wait until a
    # waiter has it (or none waits any more), so that this block does not
    # take it straight back.
    deadline = time.perf_counter() + GIVE_WAY_SECONDS
    while lane.waiting and lane.running < lane.slots:
        if time.perf_counter() > deadline:
            break
        poll()
        time.sleep(WAIT_POLL_SECONDS)
    ticket.enter(poll)


def wait_for_lane(started: float, now: float, poll: Callable[[], None]) -> float:
    """Called by a fit's budget at each check: once the fit (begun at
    ``started``) has worked past its lane's ``after_seconds``, wait for a slot.
    Returns the seconds waited (0 when there is no lane, the slot is held
    already, or the fit is still short); ``poll`` may raise to cancel."""
    ticket = _TICKET.get()
    if ticket is None or ticket.held or now - started < ticket.lane.after_seconds:
        return 0.0
    return ticket.enter(poll)
