"""Results that every visitor shares, computed once, with no element inside.

A function under ``st.cache_data`` or ``st.cache_resource`` that draws (a progress
bar, ``st.write``) has its elements recorded and *replayed* on a cache hit, and
the replay fails when an element belongs to an earlier run
(``CacheReplayClosureError``: the second visitor to compute a path saw a raw
``KeyError`` and lost everything below it). So the long computations that report
progress (the path, the sweeps, the scaling run) are not Streamlit-cached at all:
:class:`SharedResults` keeps their finished results in a bounded, process-wide
table, the page draws its progress bar outside, and a hit is just a lookup.

Two visitors asking for the same key at once compute it once: the second waits
for the first and is shown its progress as it goes, the partial result included
(``on_wait``). A result that ``keep`` refuses (cut off by a time budget, rows
missing) is handed to its own caller but never to anybody else: what a visitor
is shown as *the* answer never depends on another session's history. A
computation that raises stores nothing (a visitor who left stops the fits of
their run, :func:`svmlab.ui.frame.room.page_fits`: a visitor still waiting then
computes for themselves).

Partial results (issue 28: a button shows something within a second): a
computation may report, with its progress, the result of the part done so far.
It is held beside the progress of the running key only, drawn as such ("so
far"), and never stored as the finished result.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

__all__ = ["Progress", "SharedResults", "clear_all", "with_progress"]

T = TypeVar("T")

#: How often a waiting visitor looks at the running computation's progress.
POLL_SECONDS = 0.25
#: A partial result is redrawn at most this often (each draw costs the server
#: its figures and the browser their drawing, time the computation needs: at
#: 0.6 s the Model selection sweep's five heatmaps, redrawn five times, made the
#: whole sweep 0.8 s later on two loaded cores).
PARTIAL_EVERY_SECONDS = 1.0


@dataclass(frozen=True)
class Progress:
    """Where a running computation is: the fraction done, a sentence, and the
    result of the part done so far (None until there is one)."""

    fraction: float
    message: str
    partial: Any = None


def _always(_result: object) -> bool:
    return True


_instances: weakref.WeakSet[SharedResults] = weakref.WeakSet()


def clear_all() -> None:
    """Forget every stored result of every table (tests start from nothing)."""
    for table in list(_instances):
        table.clear()


class SharedResults(Generic[T]):
    """A bounded, thread-safe table of finished results, one per key.

    Parameters
    ----------
    max_entries
        The most results kept; the least recently used goes first.
    """

    def __init__(self, max_entries: int) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self.max_entries = max_entries
        self._done: OrderedDict[Hashable, T] = OrderedDict()
        self._running: dict[Hashable, threading.Lock] = {}
        self._progress: dict[Hashable, Progress] = {}
        self._lock = threading.Lock()
        _instances.add(self)

    def __len__(self) -> int:
        with self._lock:
            return len(self._done)

    def get(self, key: Hashable) -> T | None:
        """The stored result for ``key``, or None."""
        with self._lock:
            if key in self._done:
                self._done.move_to_end(key)
                return self._done[key]
        return None

    def clear(self) -> None:
        with self._lock:
            self._done.clear()

    def report(self, key: Hashable, progress: Progress) -> None:
        """Record how far the computation of ``key`` is (its caller does this
        from inside ``compute``); a waiting visitor reads it."""
        with self._lock:
            if key in self._running:
                self._progress[key] = progress

    def progress_of(self, key: Hashable) -> Progress | None:
        """The last progress reported by the running computation of ``key``."""
        with self._lock:
            return self._progress.get(key)

    def get_or_compute(
        self,
        key: Hashable,
        compute: Callable[[], T],
        *,
        keep: Callable[[T], bool] = _always,
        on_wait: Callable[[Progress | None], None] | None = None,
    ) -> T:
        """The stored result for ``key``, or ``compute()``'s (stored if ``keep``).

        While another thread computes the same key this call waits for it,
        calling ``on_wait`` with that computation's last :class:`Progress`
        (None before its first report) at once and every
        :data:`POLL_SECONDS`, then takes its result, or computes itself if that
        result was not kept or the computation failed.
        """
        hit = self.get(key)
        if hit is not None:
            return hit
        with self._lock:
            running = self._running.setdefault(key, threading.Lock())
        acquired = running.acquire(blocking=False)
        while not acquired:
            if on_wait is not None:
                # Drawing here also lets Streamlit stop a visitor who left.
                on_wait(self.progress_of(key))
            acquired = running.acquire(timeout=POLL_SECONDS)
        try:
            hit = self.get(key)
            if hit is not None:
                return hit
            with self._lock:
                # A waiter that takes over after a failure starts afresh (unless
                # a newcomer started meanwhile: both then compute, as before).
                if self._running.setdefault(key, running) is running:
                    self._progress.pop(key, None)
            try:
                result = compute()
            finally:
                with self._lock:
                    if self._running.get(key) is running:
                        del self._running[key]
                        self._progress.pop(key, None)
            if keep(result):
                with self._lock:
                    self._done[key] = result
                    self._done.move_to_end(key)
                    while len(self._done) > self.max_entries:
                        self._done.popitem(last=False)
            return result
        finally:
            running.release()


def with_progress(
    store: SharedResults[T],
    key: Hashable,
    compute: Callable[..., T],
    *,
    text: str,
    keep: Callable[[T], bool] = _always,
    draw_partial: Callable[[Any], None] | None = None,
) -> T:
    """``store``'s result for ``key``, computed with a progress bar if need be.

    ``compute(progress)`` does the work and calls ``progress(fraction, message)``
    or ``progress(fraction, message, partial)`` with the result of the part
    done so far; the bar is drawn here, outside any cache, and removed when the
    result is in. ``draw_partial(partial)`` draws a partial result (charts
    marked "so far", no widgets) in a slot under the bar, at once for the first
    and then at most every :data:`PARTIAL_EVERY_SECONDS`; the slot is emptied
    when the result is in (the page then draws the whole result). A visitor
    waiting for another's computation sees its bar and its partial result.
    """
    import streamlit as st  # the table above stays usable without a page

    slot = st.empty()
    partial_slot = st.empty()
    bar = None
    drawn: list[Any] = [None, -float("inf")]  # the partial last drawn, and when

    def show(fraction: float, message: str, partial: Any = None) -> None:
        nonlocal bar
        value = min(max(float(fraction), 0.0), 1.0)
        if bar is None:
            bar = slot.progress(value, text=message)
        else:
            bar.progress(value, text=message)
        now = time.perf_counter()
        if (
            draw_partial is not None
            and partial is not None
            and partial is not drawn[0]
            and now - drawn[1] >= PARTIAL_EVERY_SECONDS
        ):
            with partial_slot.container():
                draw_partial(partial)
            drawn[:] = [partial, time.perf_counter()]

    def progress(fraction: float, message: str, partial: Any = None) -> None:
        if partial is None:
            last = store.progress_of(key)
            partial = last.partial if last is not None else None
        store.report(key, Progress(float(fraction), message, partial))
        show(fraction, message, partial)

    def waiting(running: Progress | None) -> None:
        if running is None:
            show(0.0, "Another visitor started the same computation; waiting for it…")
        else:
            show(
                running.fraction,
                f"Another visitor started the same computation: {running.message}",
                running.partial,
            )

    try:
        show(0.0, text)
        return store.get_or_compute(
            key, lambda: compute(progress), keep=keep, on_wait=waiting
        )
    finally:
        slot.empty()
        partial_slot.empty()
