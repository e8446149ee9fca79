"""The in-page log of stApp's script states that the benchmarks timing the app
(``ui_latency``, ``lecture_flow``) install with their own page records."""

from __future__ import annotations

#: The head of a MutationObserver's loop body, for a record ``r`` of a batch
#: seen at time ``t``: ``el`` is the record's element; a change of stApp's
#: ``data-test-script-state`` goes to ``L.states`` as ``[t, state]`` and the loop
#: moves on. The old value is logged too, so that a short `running` is never
#: missed when both changes land in one batch of records.
LOG_STATE_JS = r"""
      const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      if (!el) continue;
      if (r.type === 'attributes' && r.attributeName === 'data-test-script-state'
          && el.getAttribute('data-testid') === 'stApp') {
        if (r.oldValue) L.states.push([t, r.oldValue]);
        L.states.push([t, el.getAttribute('data-test-script-state')]);
        continue;
      }"""


def with_state_log(script: str) -> str:
    """``script`` with its ``__LOG_STATE__`` line replaced by LOG_STATE_JS."""
    assert script.count("__LOG_STATE__") == 1, "one __LOG_STATE__ line expected"
    return script.replace("\n      __LOG_STATE__", LOG_STATE_JS)
