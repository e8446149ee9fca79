"""``svmlab.ui.frame.run_state.superseded``: when a fit's result will not be seen.

The predicate reads Streamlit's own request object, so these tests drive a real
``ScriptRequests`` the way ``AppSession`` does (a widget rerun, a fragment rerun,
a stop on disconnect) and check the answer against Streamlit's own preemption
rule (``on_scriptrunner_yield``), plus the one case where svmlab stops earlier: a
new rerun of the very fragment that is running.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from streamlit.runtime.scriptrunner_utils.script_requests import (
    RerunData,
    ScriptRequests,
)

from svmlab import SVC, cancel_when, datasets
from svmlab.errors import FitCancelled
from svmlab.ui.frame import run_state


def _predicate(monkeypatch, requests, fragment=None):
    ctx = SimpleNamespace(script_requests=requests, current_fragment_id=fragment)
    monkeypatch.setattr(run_state, "get_script_run_ctx", lambda: ctx)
    return run_state.superseded()


@pytest.mark.parametrize("fragment", [None, "playground"])
def test_nothing_pending_means_still_wanted(monkeypatch, fragment) -> None:
    assert not _predicate(monkeypatch, ScriptRequests(), fragment)()


@pytest.mark.parametrize("fragment", [None, "playground"])
def test_disconnect_or_fast_rerun_stops(monkeypatch, fragment) -> None:
    requests = ScriptRequests()
    should_stop = _predicate(monkeypatch, requests, fragment)
    requests.request_stop()  # AppSession: browser gone, or runner.fastReruns
    assert should_stop()


@pytest.mark.parametrize("fragment", [None, "playground"])
def test_a_full_rerun_stops(monkeypatch, fragment) -> None:
    requests = ScriptRequests()
    should_stop = _predicate(monkeypatch, requests, fragment)
    requests.request_rerun(RerunData(query_string="C=2"))
    assert should_stop()
    # Streamlit agrees: it would preempt this run at its next yield point.
    assert requests.on_scriptrunner_yield() is not None


def test_a_rerun_of_the_running_fragment_stops(monkeypatch) -> None:
    requests = ScriptRequests()
    should_stop = _predicate(monkeypatch, requests, "playground")
    requests.request_rerun(RerunData(fragment_id="playground"))
    assert should_stop()


def test_another_fragments_timer_leaves_the_run_alone(monkeypatch) -> None:
    """The playback fragment's timer must not cancel the main fit, in a full run
    or in the main fragment's run."""
    for fragment in (None, "playground"):
        requests = ScriptRequests()
        should_stop = _predicate(monkeypatch, requests, fragment)
        requests.request_rerun(RerunData(fragment_id="playback"))
        assert not should_stop()
        # Streamlit does not preempt for it either.
        assert requests.on_scriptrunner_yield() is None


def test_a_fragment_scoped_rerun_stops(monkeypatch) -> None:
    requests = ScriptRequests()
    should_stop = _predicate(monkeypatch, requests, None)
    requests.request_rerun(
        RerunData(fragment_id_queue=["playback"], is_fragment_scoped_rerun=True)
    )
    assert should_stop()
    assert requests.on_scriptrunner_yield() is not None


def test_outside_a_script_run_nothing_is_cancelled(monkeypatch) -> None:
    monkeypatch.setattr(run_state, "get_script_run_ctx", lambda: None)
    assert not run_state.superseded()()


def test_a_fit_stops_when_its_run_is_superseded(monkeypatch) -> None:
    """End to end: a slow fit inside ``cancel_when(superseded())`` raises
    FitCancelled once the session is stopped, instead of running to its end."""
    requests = ScriptRequests()
    should_stop = _predicate(monkeypatch, requests, None)
    polls = []

    def stop_after_a_few_polls() -> bool:
        polls.append(1)
        if len(polls) == 3:
            requests.request_stop()
        return should_stop()

    X, y = datasets.make("two_circles", n_samples=1500, noise=0.2, random_state=0)
    # The budget only bounds the test if cancelling were broken.
    model = SVC(C=1e5, sigma=0.1, tol=1e-12, max_iter=10**9, max_seconds=20.0)
    with pytest.raises(FitCancelled), cancel_when(stop_after_a_few_polls):
        model.fit(X, y)
    assert len(polls) >= 3
    assert not hasattr(model, "alpha_") or np.all(np.isfinite(model.alpha_))
