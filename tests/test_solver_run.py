"""The solvers' one signature as ``svmlab.solvers.run`` writes it: every
registered solver shows and takes the common keywords of ``SolveFunction``
(with its own ``max_iter`` default), hands the rest to its own options, and a
``Run`` keeps the history and scores the result against its ``tol``."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from svmlab.errors import ParameterError
from svmlab.kernels import gram
from svmlab.losses import Hinge
from svmlab.solvers import SOLVERS, Problem, coordinate
from svmlab.solvers.base import DualSolution, SolveFunction, kkt_violation
from svmlab.solvers.run import Run
from tests.conftest import random_problem

#: Each decorated solver's default cap, as its signature wrote it before the
#: common keywords were written once.
MAX_ITER = {
    "cccp": 100,
    "coordinate": 1000,
    "entropy_dual": None,
    "irwls": 500,
    "qp": 200,
    "retargeted_ls": 1000,
    "smo": None,
}
#: The common keywords' defaults every solver has had.
DEFAULTS = {"tol": 1e-3, "init": None, "record_history": False, "max_seconds": None}


def _problem() -> Problem:
    X, y = random_problem(3, n=30)
    return Problem(gram(X, kernel="gaussian", sigma=1.0), y, Hinge(), 1.0, False)


@pytest.mark.parametrize("name", sorted(SOLVERS))
def test_every_solver_shows_the_protocol_keywords(name: str) -> None:
    protocol = list(inspect.signature(SolveFunction.__call__).parameters.values())
    common = [p.name for p in protocol[2:] if p.kind is p.KEYWORD_ONLY]
    shown = inspect.signature(SOLVERS[name].solve).parameters
    names = list(shown)
    assert names[: 1 + len(common)] == ["problem", *common]
    assert all(shown[k].kind is inspect.Parameter.KEYWORD_ONLY for k in common)
    assert {k: shown[k].default for k in DEFAULTS} == DEFAULTS
    assert names[-1] == "options"


@pytest.mark.parametrize("name", sorted(MAX_ITER))
def test_each_solver_keeps_its_own_cap_and_options_after_the_common_ones(
    name: str,
) -> None:
    shown = inspect.signature(SOLVERS[name].solve).parameters
    assert shown["max_iter"].default == MAX_ITER[name]
    assert "run" not in shown
    assert SOLVERS[name].solve.__doc__ and SOLVERS[name].solve.__name__ == "solve"


def test_common_keywords_and_own_options_reach_the_solver() -> None:
    problem = _problem()
    one = coordinate.solve(problem, max_iter=1, order="greedy", tol=1e-12)
    assert one.n_iter == 1 and one.stop_reason == "max_iter"
    by_name = coordinate.solve(problem=problem, max_iter=1, order="greedy", tol=1e-12)
    np.testing.assert_array_equal(by_name.alpha, one.alpha)
    cyclic = coordinate.solve(problem, max_iter=1, order="cyclic", tol=1e-12)
    assert not np.array_equal(cyclic.alpha, one.alpha)
    with pytest.raises(ParameterError, match="order must be one of"):
        coordinate.solve(problem, order="sideways")
    with pytest.raises(ParameterError, match="Unknown option"):
        coordinate.solve(problem, shrinking=False)
    with pytest.raises(ParameterError, match="max_seconds must be a positive"):
        coordinate.solve(problem, max_seconds=-1.0)
    with pytest.raises(TypeError):
        coordinate.solve(problem, 1e-3)


def test_a_run_records_what_its_history_wants_and_scores_against_its_tol() -> None:
    problem = _problem()
    alpha = np.full(problem.n, 0.1)
    quiet = Run(record_history=False)
    quiet.record(0, problem, alpha, 0.0, objective=1.0)
    assert len(quiet.history) == 0
    run = Run(tol=10.0, record_history=True)
    run.history.stride = 2
    for it in range(5):
        run.record(it, problem, alpha * it, 0.0, objective=float(it))
    assert run.history.iteration == [0, 2, 4]
    assert run.history.objective == [0.0, 2.0, 4.0]
    assert run.history.kkt_violation[2] == pytest.approx(
        kkt_violation(problem, alpha * 4, 0.0)
    )
    assert np.all(np.diff(run.history.time) >= 0.0) and run.history.time[0] >= 0.0
    done = run.finish(problem, alpha, 0.0, n_iter=4, stop_reason="max_iter")
    direct = DualSolution.finish(problem, alpha, 0.0, n_iter=4, tol=10.0)
    assert done.history is run.history
    assert done.converged and direct.converged and done.stop_reason == "converged"
    assert done.kkt == direct.kkt and done.objective == direct.objective
    strict = Run(tol=1e-12).finish(problem, alpha, 0.0, n_iter=4, stop_reason=None)
    assert not strict.converged and strict.stop_reason == "max_iter"
