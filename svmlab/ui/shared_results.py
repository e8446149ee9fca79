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
for the first (``on_wait`` tells the page to say so). A result that ``keep``
refuses (cut off by a time budget, rows missing) is handed to its own caller but
never to anybody else: what a visitor is shown as *the* answer never depends on
another session's history. A computation that raises stores nothing.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["SharedResults", "clear_all", "with_progress"]

T = TypeVar("T")


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

    def get_or_compute(
        self,
        key: Hashable,
        compute: Callable[[], T],
        *,
        keep: Callable[[T], bool] = _always,
        on_wait: Callable[[], None] | None = None,
    ) -> T:
        """The stored result for ``key``, or ``compute()``'s (stored if ``keep``).

        While another thread computes the same key this call waits for it
        (calling ``on_wait`` once first) and then takes its result, or computes
        itself if that result was not kept or the computation failed.
        """
        hit = self.get(key)
        if hit is not None:
            return hit
        with self._lock:
            running = self._running.setdefault(key, threading.Lock())
        if running.locked() and on_wait is not None:
            on_wait()
        with running:
            hit = self.get(key)
            if hit is not None:
                return hit
            try:
                result = compute()
            finally:
                with self._lock:
                    if self._running.get(key) is running:
                        del self._running[key]
            if keep(result):
                with self._lock:
                    self._done[key] = result
                    self._done.move_to_end(key)
                    while len(self._done) > self.max_entries:
                        self._done.popitem(last=False)
            return result


def with_progress(
    store: SharedResults[T],
    key: Hashable,
    compute: Callable[[Callable[[float, str], None]], T],
    *,
    text: str,
    keep: Callable[[T], bool] = _always,
) -> T:
    """``store``'s result for ``key``, computed with a progress bar if need be.

    ``compute(progress)`` does the work and calls ``progress(fraction, message)``;
    the bar is drawn here, outside any cache, and removed when the result is in.
    """
    import streamlit as st  # the table above stays usable without a page

    slot = st.empty()
    bar = None

    def progress(fraction: float, message: str) -> None:
        nonlocal bar
        value = min(max(float(fraction), 0.0), 1.0)
        if bar is None:
            bar = slot.progress(value, text=message)
        else:
            bar.progress(value, text=message)

    def waiting() -> None:
        progress(0.0, "Another visitor started the same computation; waiting for it…")

    try:
        progress(0.0, text)
        return store.get_or_compute(
            key, lambda: compute(progress), keep=keep, on_wait=waiting
        )
    finally:
        slot.empty()
