"""Issue 48's cuts to a solve's Python overhead keep its numbers: the primal and
dual values held back until read, the per-variable bounds without
``broadcast_to``, SMO's one-pass finiteness check."""

from __future__ import annotations

import copy
import dataclasses
import math
import pickle

import numpy as np
import pytest

from svmlab import ProblemError
from svmlab.kernels import gram
from svmlab.losses import Hinge, SquaredHinge
from svmlab.solvers import Problem, smo
from svmlab.solvers.shrinking import per_variable
from tests.conftest import random_problem


def _closed_form(problem: Problem, alpha: np.ndarray, b: float) -> tuple[float, float]:
    """Primal ``0.5 c'Kc + sum C_i loss(y_i f_i)`` and dual ``1'a - 0.5 a'Q_d a``
    written out from K (``c = a y``; the squared hinge adds ``a'a / C``)."""
    K, y = problem.K, problem.y
    C = np.broadcast_to(np.asarray(problem.costs, dtype=float), y.shape)
    coef = alpha * y
    quad = float(coef @ K @ coef)
    xi = np.maximum(0.0, 1.0 - y * (K @ coef + b))
    if problem.loss.name == "squared_hinge":
        return 0.5 * quad + float(C @ (0.5 * xi**2)), float(
            alpha.sum() - 0.5 * (quad + alpha @ (alpha / C))
        )
    return 0.5 * quad + float(C @ xi), float(alpha.sum() - 0.5 * quad)


def _problem(loss, weights=None) -> Problem:
    X, y = random_problem(7, n=60)
    return Problem(gram(X, sigma=0.7), y, loss, 2.0, True, weights=weights)


@pytest.mark.parametrize("loss", [Hinge(), SquaredHinge()], ids=["hinge", "sq"])
@pytest.mark.parametrize("weighted", [False, True], ids=["C", "C_i"])
def test_objectives_read_late_are_the_closed_form(loss, weighted):
    weights = np.linspace(0.5, 1.5, 60) if weighted else None
    problem = _problem(loss, weights)
    sol = smo.solve(problem, tol=1e-6)
    primal, dual = _closed_form(problem, sol.alpha, sol.b)
    assert sol.objective == pytest.approx(primal, rel=1e-10)
    assert sol.dual_objective == pytest.approx(dual, rel=1e-10)
    # Near the optimum the two meet (weak duality, gap ~ tol).
    assert 0.0 <= sol.duality_gap() <= 1e-3 * abs(primal)


def test_pickled_copied_and_replaced_solutions_carry_their_values():
    problem = _problem(Hinge())
    primal, dual = _closed_form(problem, *_solved(problem))
    for make in (
        lambda s: pickle.loads(pickle.dumps(s)),
        copy.copy,
        copy.deepcopy,
        lambda s: dataclasses.replace(s, n_iter=s.n_iter),
    ):
        out = make(smo.solve(problem, tol=1e-6))
        # The problem (its n x n K) is not kept once the values are known.
        assert "_pending" not in out.__dict__
        assert out.objective == pytest.approx(primal, rel=1e-10)
        assert out.dual_objective == pytest.approx(dual, rel=1e-10)
    pickled = pickle.dumps(smo.solve(problem, tol=1e-6))
    assert len(pickled) < problem.K.nbytes  # the K did not travel with it


def test_a_value_written_keeps_the_other_one():
    problem = _problem(Hinge())
    _, dual = _closed_form(problem, *_solved(problem))
    sol = smo.solve(problem, tol=1e-6)
    sol.objective = 5.0
    assert sol.objective == 5.0
    assert sol.dual_objective == pytest.approx(dual, rel=1e-10)


def _solved(problem: Problem) -> tuple[np.ndarray, float]:
    sol = smo.solve(problem, tol=1e-6)
    return sol.alpha, sol.b


@pytest.mark.parametrize(
    "value", [2.5, np.float64(2.5), np.array(2.5), np.array([2.5]), np.arange(5.0)]
)
def test_per_variable_is_broadcast_to_copied(value):
    out = per_variable(value, 5)
    ref = np.array(np.broadcast_to(np.asarray(value, dtype=np.float64), (5,)))
    assert out.dtype == np.float64 and out.flags.writeable
    np.testing.assert_array_equal(out, ref)
    if isinstance(value, np.ndarray) and value.shape == (5,):
        out[0] = -1.0
        assert value[0] == 0.0  # a copy, never the caller's array


def test_per_variable_refuses_a_wrong_length():
    with pytest.raises(ValueError):
        per_variable(np.arange(3.0), 5)


def test_smo_refuses_a_kernel_that_makes_its_gradient_nan():
    X, y = random_problem(3, n=40)
    K = gram(X, sigma=1.0)
    # Point 0's kernel row is NaN off the diagonal: the first step's gradient
    # update spreads it into G_0.
    K[0, 1:] = K[1:, 0] = math.nan
    with pytest.raises(ProblemError, match="non-finite"):
        smo.solve(Problem(K, y, Hinge(), 1.0, True), tol=1e-3)


@pytest.mark.parametrize(
    "case",
    ["finite", "alpha_inf", "alpha_nan", "part_nan", "b_inf", "f_overflows", "big_ok"],
)
def test_the_quick_finiteness_test_never_passes_what_the_full_check_refuses(case):
    from types import SimpleNamespace

    from svmlab.svm.fit_checks import _surely_finite, check_finite_solution

    problem = _problem(Hinge())
    alpha, part, b = np.linspace(0.0, 2.0, 60), np.linspace(-3.0, 3.0, 60), 0.5
    if case == "alpha_inf":
        alpha[3] = math.inf
    elif case == "alpha_nan":
        alpha[3] = math.nan
    elif case == "part_nan":
        part[5] = math.nan
    elif case == "b_inf":
        b = math.inf
    elif case == "f_overflows":  # each finite, their sum not
        part[5], b = 1.5e308, 1.5e308
    elif case == "big_ok":
        part[5] = 1e300
    sol = SimpleNamespace(alpha=alpha, kernel_part=part, b=b)
    quick = _surely_finite(problem, sol)
    try:
        check_finite_solution(problem, sol, "smo")
        full = True
    except ProblemError:
        full = False
    assert quick == full == (case in ("finite", "big_ok"))
