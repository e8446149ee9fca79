"""Compiled loops run in time-boxed chunks, so that a budget and a cancel
request are honoured while numba runs.

The loop ``loop(*args, it, stop_at)`` runs iterations ``it .. stop_at`` and
returns ``(it, converged)``; its state is its array arguments, so a chunk
resumes exactly where the last stopped and the answer does not depend on the
chunking. Between chunks Python checks the :class:`~svmlab.solvers.base.Budget`
(``max_seconds`` and the ``cancel_when`` predicate); the chunk length adapts to
the measured speed so that a check comes about every ``CHUNK_SECONDS``.
"""

from __future__ import annotations

import time
from typing import Any

from svmlab.solvers.base import Budget

__all__ = ["CHUNK_SECONDS", "FIRST_CHUNK", "run_chunked"]

#: Target seconds of one compiled chunk between two budget / cancel checks.
CHUNK_SECONDS = 0.02
#: Iterations of the first chunk (then adapted to ``CHUNK_SECONDS``).
FIRST_CHUNK = 2000


def run_chunked(
    loop: Any,
    args: tuple,
    it: int,
    max_iter: int,
    budget: Budget,
    *,
    snapshot: Any = None,
) -> tuple[int, bool, bool]:
    """Run a compiled loop ``loop(*args, it, stop_at)`` in chunks of about
    ``CHUNK_SECONDS``, checking ``budget`` between chunks.

    ``snapshot`` (optional) is ``(next_stop, record)``: ``next_stop(it)`` is the
    next iteration to return at and ``record(it)`` is called there. Returns
    ``(it, converged, out_of_time)``; the loop's state (its array arguments)
    is updated in place.
    """
    chunk = FIRST_CHUNK
    converged = False
    while it < max_iter:
        target = snapshot[0](it) if snapshot is not None else max_iter
        stop_at = min(max_iter, it + chunk, target)
        began = time.perf_counter()
        new_it, converged = loop(*args, it, stop_at)
        spent = time.perf_counter() - began
        done, it = new_it - it, new_it
        if converged:
            break
        if snapshot is not None and it in (target, max_iter):
            snapshot[1](it)
        if budget.check():
            return it, False, True
        if done >= 100 and spent > 0.0:
            # Aim at CHUNK_SECONDS per chunk, growing at most 8-fold at a time.
            chunk = max(100, int(min(8 * chunk, CHUNK_SECONDS * done / spent)))
    return it, converged, False
