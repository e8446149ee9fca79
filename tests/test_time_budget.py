"""Time budgets and cancellation (issue 14, item 6): every solver stops at its
current feasible iterate when ``max_seconds`` runs out, and raises
``FitCancelled`` when the ``cancel_when`` predicate says its result is no longer
wanted.

The problems below take from 1.1 s (CCCP with the exact QP inside) to well over
20 s without a budget (measured); with ``max_seconds=0.2`` they must come back
within a generous bound. The bound is a correctness bound (the solver stopped),
not a speed benchmark.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

import svmlab
from svmlab import SVC, FitCancelled, ParameterError, SvmlabError, cancel_when
from svmlab import solvers as registry
from svmlab.kernels import gram
from svmlab.losses import Hinge, ModifiedHinge, Ramp, SquaredHinge, SquaredRamp
from svmlab.solvers import Problem, cccp, coordinate, irwls, qp, retargeted_ls, smo
from tests.conftest import random_problem

BUDGET = 0.2
#: Generous: the exact QP's interior point (uninterruptible) takes ~1 s at
#: n = 1500 on this machine, an IRWLS iteration ~0.1 s.
SLACK = 3.0
#: Documented poll spacing of the cancel predicate (seconds).
POLL = 0.01

_GRAMS: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _data(n: int) -> tuple[np.ndarray, np.ndarray]:
    """A noisy XOR cloud and its Gaussian Gram matrix (sigma 0.5), cached."""
    if n not in _GRAMS:
        X, y = random_problem(0, n=n, kind="xor")
        _GRAMS[n] = (gram(X, sigma=0.5), y)
    return _GRAMS[n]


def _problem(n: int, loss, C: float, fit_intercept: bool) -> Problem:
    K, y = _data(n)
    return Problem(K, y, loss, C, fit_intercept)


#: name -> (problem factory, solve with keyword arguments). Each one runs for
#: many seconds without a budget: SMO and coordinate ascent at a tolerance no
#: iterate meets; IRWLS at C = 4.5e5 with the KKT rule at 1e-12 (round-off keeps
#: the residual above 1e-10); retargeted LS on the squared ramp at C = 1000
#: (208 s measured at n = 2000); CCCP with SMO inside at tol 1e-300, and with the
#: exact QP inside (1.1 s at n = 1000).
LONG: dict[str, tuple[Callable[[], Problem], Callable[..., object]]] = {
    "smo": (
        lambda: _problem(1500, Hinge(), 1e5, True),
        lambda p, **kw: smo.solve(p, tol=1e-300, max_iter=10**9, **kw),
    ),
    "smo_no_bias": (
        lambda: _problem(1500, SquaredHinge(), 1e5, False),
        lambda p, **kw: smo.solve(p, tol=1e-300, max_iter=10**9, **kw),
    ),
    "coordinate": (
        lambda: _problem(1500, Hinge(), 1e5, False),
        lambda p, **kw: coordinate.solve(p, tol=1e-300, max_iter=10**9, **kw),
    ),
    "coordinate_greedy": (
        lambda: _problem(1500, Hinge(), 1e5, False),
        lambda p, **kw: coordinate.solve(
            p, tol=1e-300, max_iter=10**9, order="greedy", **kw
        ),
    ),
    "irwls": (
        lambda: _problem(600, ModifiedHinge(1e-4), 4.5e5, True),
        lambda p, **kw: irwls.solve(p, tol=1e-12, stop="kkt", max_iter=10**6, **kw),
    ),
    "retargeted_ls": (
        lambda: _problem(1500, SquaredRamp(), 1000.0, True),
        lambda p, **kw: retargeted_ls.solve(p, tol=1e-300, max_iter=10**9, **kw),
    ),
    "cccp_smo": (
        lambda: _problem(1500, Ramp(), 1e5, True),
        lambda p, **kw: cccp.solve(p, inner="smo", tol=1e-300, **kw),
    ),
    "cccp_qp": (
        lambda: _problem(1000, Ramp(), 100.0, True),
        lambda p, **kw: cccp.solve(p, inner="qp", tol=1e-12, **kw),
    ),
}


def _assert_feasible(problem: Problem, sol) -> None:
    """The returned point is a point of the solver's feasible set, with finite
    numbers: the box for the box duals (``[-C, C]`` for CCCP's effective
    coefficients), ``sum alpha_i y_i = 0`` with an unregularized bias."""
    a, y, C = sol.alpha, problem.y, problem.C
    assert np.all(np.isfinite(a)) and math.isfinite(sol.b)
    assert math.isfinite(sol.objective) and math.isfinite(sol.kkt)
    name = problem.loss.name
    if name == "hinge":
        assert a.min() >= 0.0 and a.max() <= C
    elif name == "squared_hinge":
        assert a.min() >= 0.0
    elif name == "ramp":
        assert a.min() >= -C and a.max() <= C
    if problem.fit_intercept:
        assert abs(float(a @ y)) <= 1e-8 * max(1.0, float(np.abs(a).sum()))
    else:
        assert sol.b == 0.0


@pytest.mark.parametrize("name", list(LONG))
def test_budget_stops_every_iterative_solver_at_a_feasible_point(name):
    make, run = LONG[name]
    problem = make()
    start = time.perf_counter()
    sol = run(problem, max_seconds=BUDGET)
    elapsed = time.perf_counter() - start
    assert elapsed < BUDGET + SLACK
    assert sol.stop_reason == "max_seconds"
    assert not sol.converged
    _assert_feasible(problem, sol)


def test_exact_qp_checks_the_budget_after_the_interior_point():
    # CVXOPT cannot be interrupted; once it returns past the budget the
    # active-set polish is skipped and the interior-point answer comes back.
    problem = _problem(1000, Hinge(), 100.0, True)
    sol = qp.solve(problem, tol=1e-14, max_seconds=1e-3)
    assert sol.stop_reason == "max_seconds" and not sol.converged
    assert not sol.extras["polished"]
    a = sol.alpha
    assert a.min() >= 0.0 and a.max() <= problem.C
    assert abs(float(a @ problem.y)) < 1e-6 * problem.C
    # Within budget (none given) the same problem is polished and converged.
    full = qp.solve(problem)
    assert full.extras["polished"] and full.converged
    assert full.stop_reason == "converged"


def test_the_registry_passes_the_budget_on():
    problem = LONG["smo"][0]()
    sol = registry.solve(
        problem, method="smo", tol=1e-300, max_iter=10**9, max_seconds=BUDGET
    )
    assert sol.stop_reason == "max_seconds" and sol.extras["solver"] == "smo"


def test_a_short_fit_within_budget_is_unchanged():
    X, y = random_problem(1, n=80)
    problem = Problem(gram(X, sigma=1.0), y, Hinge(), 1.0, True)
    free = smo.solve(problem)
    budgeted = smo.solve(problem, max_seconds=60.0)
    assert budgeted.converged and budgeted.stop_reason == "converged"
    np.testing.assert_array_equal(budgeted.alpha, free.alpha)
    assert budgeted.n_iter == free.n_iter


@pytest.mark.parametrize("bad", [0, -1.0, math.nan, math.inf, "2", True])
def test_bad_budgets_are_plain_errors(bad):
    X, y = random_problem(0, n=30)
    problem = Problem(gram(X), y, Hinge(), 1.0, True)
    with pytest.raises(ParameterError, match="max_seconds"):
        smo.solve(problem, max_seconds=bad)
    with pytest.raises(ParameterError, match="max_seconds"):
        SVC(max_seconds=bad).fit(*random_problem(0, n=30))


# -- the estimator ----------------------------------------------------------------


def test_estimator_parameter_budget_and_warning():
    assert SVC().max_seconds is None
    model = SVC(C=1e5, sigma=0.5, solver="smo", tol=1e-300, max_iter=10**9)
    model.set_params(max_seconds=BUDGET)
    assert clone(model).get_params()["max_seconds"] == BUDGET
    X, y = random_problem(0, n=1500, kind="xor")
    with pytest.warns(ConvergenceWarning, match=r"stopped after \d+\.\d s, its time"):
        model.fit(X, y)
    assert model.stop_reason_ == "max_seconds" and not model.converged_


def test_estimator_names_max_iter_as_the_limit():
    X, y = random_problem(3, n=60)
    with pytest.warns(ConvergenceWarning, match=r"after 3 iterations \(max_iter\)"):
        model = SVC(solver="smo", max_iter=3, tol=1e-6).fit(X, y)
    assert model.stop_reason_ == "max_iter"
    done = SVC(solver="smo").fit(X, y)
    assert done.stop_reason_ == "converged" and done.fit_notes_ == ()


# -- cancellation -------------------------------------------------------------------


class Countdown:
    """A ``should_stop`` predicate that says True from call ``k + 1`` on."""

    def __init__(self, k: int) -> None:
        self.k, self.calls = k, 0

    def __call__(self) -> bool:
        self.calls += 1
        return self.calls > self.k


@pytest.mark.parametrize("name", list(LONG))
def test_cancel_stops_every_iterative_solver(name):
    make, run = LONG[name]
    problem = make()
    stop = Countdown(2)
    with cancel_when(stop), pytest.raises(FitCancelled):
        run(problem, max_seconds=30.0)  # the budget only guards against a hang
    assert stop.calls == 3


def test_cancel_stops_the_exact_qp_before_its_interior_point():
    stop = Countdown(0)
    with cancel_when(stop), pytest.raises(FitCancelled):
        qp.solve(_problem(1000, Hinge(), 100.0, True))
    assert stop.calls == 1


def test_estimator_does_not_catch_the_cancellation():
    X, y = random_problem(0, n=60)
    with cancel_when(lambda: True), pytest.raises(FitCancelled) as info:
        SVC(loss="modified_hinge").fit(X, y)
    assert isinstance(info.value, SvmlabError)
    assert str(info.value) == (
        "The fit was stopped because its result is no longer needed."
    )
    # Outside the block nothing is cancelled any more.
    assert SVC(solver="smo").fit(X, y).alpha_.shape == (60,)
    assert svmlab.cancel_when is registry.cancel_when


def test_an_outer_predicate_still_applies_inside_an_inner_one():
    X, y = random_problem(0, n=60)
    with cancel_when(lambda: True), cancel_when(lambda: False):
        with pytest.raises(FitCancelled):
            SVC(solver="smo").fit(X, y)


def test_the_predicate_is_polled_at_most_every_10_ms():
    # A correctness bound on the poll spacing: each poll is at least POLL after
    # the previous one on the same clock, whatever the load.
    make, run = LONG["smo"]
    problem = make()
    stop = Countdown(10**9)
    with cancel_when(stop):
        start = time.perf_counter()
        sol = run(problem, max_seconds=0.3)
        elapsed = time.perf_counter() - start
    assert sol.stop_reason == "max_seconds"
    assert 2 <= stop.calls <= 1 + elapsed / POLL
