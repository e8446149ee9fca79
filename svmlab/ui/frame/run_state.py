"""Whether the result of the current script run will still be seen.

A fit whose result nobody will see should stop (the engine's
:func:`svmlab.cancel_when`). Streamlit does not stop a script that is busy in a
long computation: it marks the run's request state and acts at the script's next
Streamlit call. :func:`superseded` reads that mark, so a fit polls it between its
compiled chunks:

- ``STOP``: the browser left (the session was disconnected), or a full rerun
  replaced this run (``runner.fastReruns``, Streamlit's default, stops the old run
  and starts a new one).
- ``RERUN`` of the whole app, or a rerun that Streamlit lets preempt this one
  (fragment-scoped), or a rerun of the very fragment this run is drawing (the user
  moved C again: this fit's picture would be replaced at once).

A rerun queued for *another* fragment (the playback's timer) leaves this run alone.
The request state is Streamlit's internal ``ScriptRequests._state`` (1.67); if it
is ever missing, the predicate says "still wanted" and fits simply run to their
time budget.
"""

from __future__ import annotations

from collections.abc import Callable

from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType
from streamlit.runtime.scriptrunner_utils.script_run_context import (
    get_script_run_ctx,
)

__all__ = ["superseded"]


def _never() -> bool:
    return False


def superseded() -> Callable[[], bool]:
    """A predicate, for the current script run, that turns True once its result
    will not be shown (see the module docstring)."""
    ctx = get_script_run_ctx()
    requests = getattr(ctx, "script_requests", None)
    if requests is None or not hasattr(requests, "_state"):
        return _never
    fragment = getattr(ctx, "current_fragment_id", None)

    def should_stop() -> bool:
        state = requests._state
        if state == ScriptRequestType.STOP:
            return True
        if state != ScriptRequestType.RERUN:
            return False
        data = requests._rerun_data
        queue = list(getattr(data, "fragment_id_queue", None) or ())
        if not queue or getattr(data, "is_fragment_scoped_rerun", False):
            return True  # a full rerun, or one Streamlit lets preempt this run
        return fragment is not None and fragment in queue

    return should_stop
