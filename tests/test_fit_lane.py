"""The fit lane (issue 21): long fits take turns, short ones never wait, a fit
queued for the lane still stops when superseded, and its wait is not charged to
its time budget. Threads are synchronised with events, never with sleeps that
a slow machine could outrun."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from sklearn.svm import SVC as LibSVC

from svmlab import SVC, FitCancelled, ParameterError, cancel_when
from svmlab.datasets import make_two_circles
from svmlab.solvers.base import Budget
from svmlab.solvers.lane import FitLane, lane_turn, long_fits_through, wait_for_lane


def _noop() -> None:
    return None


def _hold(lane: FitLane, held: threading.Event, release: threading.Event) -> None:
    """Take the lane's slot in this thread (a long fit of another session)."""
    with long_fits_through(lane):
        wait_for_lane(0.0, 1.0, _noop)
        held.set()
        release.wait(30)


@contextmanager
def _held(lane: FitLane) -> Iterator[threading.Event]:
    """The lane's slot held by another thread for the block (or until the
    yielded event is set)."""
    held, release = threading.Event(), threading.Event()
    thread = threading.Thread(target=_hold, args=(lane, held, release))
    thread.start()
    assert held.wait(30)
    try:
        yield release
    finally:
        release.set()
        thread.join(30)


def test_two_long_fits_take_turns_and_answer_as_without_the_lane():
    X, y = make_two_circles(300, noise=0.1, random_state=0)
    lane = FitLane(slots=1, after_seconds=0.0)  # every fit is "long"
    models = [SVC(C=50.0, sigma=0.3, tol=1e-6) for _ in range(3)]

    def fit(model: SVC) -> None:
        with long_fits_through(lane):
            model.fit(X, y)

    threads = [threading.Thread(target=fit, args=(m,)) for m in models]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert lane.entered == 3 and lane.peak == 1
    assert lane.running == 0 and lane.waiting == 0
    reference = LibSVC(C=50.0, gamma=1 / (2 * 0.3**2), tol=1e-6).fit(X, y)
    for model in models:
        assert model.converged_
        np.testing.assert_allclose(
            model.decision_function(X), reference.decision_function(X), atol=1e-4
        )


def test_short_fits_never_enter_the_lane():
    lane = FitLane(slots=1, after_seconds=3600.0)
    with _held(FitLane(slots=1, after_seconds=0.0)):  # another lane
        X, y = make_two_circles(60, noise=0.1, random_state=1)
        with long_fits_through(lane):
            SVC(C=1.0, sigma=0.5).fit(X, y)
    assert lane.entered == 0


def test_a_fit_superseded_while_it_waits_stops_without_running():
    lane = FitLane(slots=1, after_seconds=0.0)
    X, y = make_two_circles(100, noise=0.1, random_state=2)
    with _held(lane):
        # Superseded as soon as it is queued (as a student's next move would).
        with cancel_when(lambda: lane.waiting > 0), long_fits_through(lane):
            with pytest.raises(FitCancelled):
                SVC(C=1.0, sigma=0.5).fit(X, y)
        assert lane.waiting == 0 and lane.entered == 1  # only the holder ran


def test_the_wait_is_not_charged_to_the_budget():
    lane = FitLane(slots=1, after_seconds=0.0)
    with _held(lane) as release:
        threading.Timer(0.3, release.set).start()  # the other fit ends in 0.3 s
        with long_fits_through(lane):
            budget = Budget(0.1)  # waits ~0.3 s for the lane at its first check
            assert lane.entered == 2
            assert not budget.expired
            assert budget.remaining() > 0.05
    assert lane.running == 0


def test_nested_blocks_share_one_claim():
    lane = FitLane(slots=1, after_seconds=0.0)
    X, y = make_two_circles(80, noise=0.1, random_state=3)
    with long_fits_through(lane):
        SVC(C=1.0, sigma=0.5).fit(X, y)
        with long_fits_through(lane):  # would deadlock with a claim of its own
            SVC(C=2.0, sigma=0.5).fit(X, y)
    assert lane.entered == 1 and lane.running == 0


@pytest.mark.parametrize(("slots", "after"), [(0, 0.1), (1, -1.0), (1, float("nan"))])
def test_a_lane_refuses_nonsense(slots, after):
    with pytest.raises(ParameterError):
        FitLane(slots=slots, after_seconds=after)


def test_every_compiled_loop_releases_the_interpreter_lock():
    """A long fit in one session's thread must leave the interpreter to the
    others (numba's ``nogil``): every compiled function of the engine has it."""
    import importlib
    import pkgutil

    from numba.core.registry import CPUDispatcher

    import svmlab

    found = []
    for info in pkgutil.walk_packages(svmlab.__path__, "svmlab."):
        if ".ui" in info.name:
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.__module__ == info.name:
                found.append((info.name, name, value.targetoptions.get("nogil")))
    assert len(found) >= 20
    assert [f for f in found if not f[2]] == []


def test_long_work_holds_the_lane_and_gives_way_between_its_steps():
    """``lane_turn``: work known to be long (a GIF's frames, an experiment)
    holds the lane from its start, its fits share the claim, and at each
    ``give_way`` a fit waiting for the lane goes first."""
    X, y = make_two_circles(60, noise=0.1, random_state=0)
    lane = FitLane(slots=1, after_seconds=0.0)
    order: list[str] = []
    waiting = threading.Event()

    def other() -> None:
        with long_fits_through(lane):
            waiting.set()
            SVC(C=10.0, sigma=0.5).fit(X, y)  # waits for the lane at its start
            order.append("other")  # before the slot goes back

    with lane_turn(lane) as give_way:
        assert lane.running == 1 and lane.entered == 1
        with long_fits_through(lane):  # a fit of the work: the same claim
            SVC(C=10.0, sigma=0.5).fit(X, y)
        assert lane.entered == 1
        thread = threading.Thread(target=other)
        thread.start()
        assert waiting.wait(30)
        while lane.waiting == 0:  # until the other fit queues for the slot
            waiting.wait(0.01)
        order.append("step 1")
        give_way()  # the other fit runs now, the work after it
        order.append("step 2")
        assert lane.running == 1
    thread.join(30)
    assert order == ["step 1", "other", "step 2"]
    assert lane.running == 0 and lane.entered == 3 and lane.peak == 1
    # Nobody waiting: give_way keeps the slot (no round trip).
    with lane_turn(lane) as give_way:
        give_way()
        assert lane.entered == 4
    with lane_turn(None) as give_way:  # no lane: nothing held
        give_way()
