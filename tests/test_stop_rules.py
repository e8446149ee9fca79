"""Honest stop rules (issue 14, item 7): ``converged`` means that the solver's
optimality measure, the KKT violation it reports (``DualSolution.kkt``), meets
``tol``; a solver that stops by a looser rule on purpose says so in
``stop_reason == "rule"`` and a plain sentence in ``extras["stop_note"]``, which
the estimator collects into ``fit_notes_``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from svmlab import SVC, datasets, solvers
from svmlab.kernels import gram
from svmlab.losses import make_loss
from svmlab.solvers import Problem, cccp, irwls, qp, retargeted_ls
from svmlab.solvers.base import kkt_violation
from tests.conftest import random_problem

REASONS = {"converged", "max_iter", "max_seconds", "rule"}

#: (solver, loss, options); each runs with and without an unregularized bias
#: where the solver has that mode.
CASES = [
    ("smo", "hinge", {}),
    ("smo", "squared_hinge", {}),
    ("coordinate", "hinge", {}),
    ("coordinate", "squared_hinge", {"order": "greedy"}),
    ("qp", "hinge", {}),
    ("irwls", "modified_hinge", {}),
    ("irwls", "modified_hinge", {"stop": "kkt"}),
    ("retargeted_ls", "squared_hinge", {}),
    ("retargeted_ls", "squared_hinge", {"polish": False}),
    ("retargeted_ls", "squared_hinge", {"variant": "sugiyama_matlab"}),
    ("retargeted_ls", "squared_ramp", {}),
    ("cccp", "ramp", {"inner": "qp"}),
    ("cccp", "ramp", {"inner": "smo"}),
    ("cccp", "squared_ramp", {"inner": "qp"}),
    ("cccp", "squared_ramp", {"inner": "smo"}),
]


def _data():
    """Three small data sets of different shape, with a kernel width each."""
    spiral = datasets.make("spiral", n_samples=120, random_state=0)[:2]
    circles = datasets.make("two_circles", n_samples=120, random_state=1)[:2]
    outliers = random_problem(2, n=120, outliers=6, kind="blobs")
    return [(spiral, 0.5), (circles, 1.0), (outliers, 0.8)]


def _stationarity(problem: Problem, alpha, b) -> float:
    """``max_i |alpha_i + C l'(m_i)| / C`` (and ``|y'alpha| / C`` with a bias),
    written out here from the loss's derivative."""
    y, C = problem.y, problem.C
    m = y * (problem.K @ (alpha * y) + b)
    worst = float(np.max(np.abs(alpha + C * problem.loss.derivative(m)))) / C
    if problem.fit_intercept:
        worst = max(worst, abs(float(alpha @ y)) / C)
    return worst


def _check_contract(problem: Problem, sol, tol: float) -> None:
    assert sol.stop_reason in REASONS
    # SMO and the entropy dual score their result from their own gradient
    # (issue 29: no kernel product after the loop): equal to rounding.
    assert sol.kkt == pytest.approx(
        kkt_violation(problem, sol.alpha, sol.b), rel=1e-9, abs=1e-13
    )
    assert sol.converged == (sol.kkt <= tol), (sol.stop_reason, sol.kkt, tol)
    assert (sol.stop_reason == "converged") == sol.converged
    note = sol.extras.get("stop_note")
    if sol.stop_reason == "rule":
        assert note and f"{sol.kkt:.1e}" in note and "above tol" in note
    else:
        assert note is None


@pytest.mark.parametrize(
    ("solver", "loss", "options"),
    CASES,
    ids=[
        f"{s}-{loss}-{'-'.join(map(str, o.values())) or 'default'}"
        for s, loss, o in CASES
    ],
)
def test_converged_means_the_kkt_measure_meets_tol(solver, loss, options):
    spec = solvers.SOLVERS[solver]
    biases = [
        b
        for b in (True, False)
        if (spec.with_intercept if b else spec.without_intercept)
    ]
    seen = set()
    for (X, y), sigma in _data():
        K = gram(X, sigma=sigma)
        for C in (1.0, 100.0):
            for fit_intercept in biases:
                problem = Problem(K, y, make_loss(loss, delta=0.1), C, fit_intercept)
                for tol in (1e-3, 1e-1):
                    sol = solvers.solve(
                        problem, method=solver, tol=tol, max_iter=2000, **options
                    )
                    _check_contract(problem, sol, tol)
                    seen.add(sol.stop_reason)
    assert "converged" in seen or solver == "retargeted_ls"


# -- IRWLS: Lee's rule ---------------------------------------------------------------


def _circles(n=200, seed=0, sigma=0.5):
    X, y = datasets.make("two_circles", n_samples=n, random_state=seed)[:2]
    return y, gram(X, sigma=sigma)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_lees_rule_is_named_with_its_residual(fit_intercept):
    # Measured before: converged=True with a KKT residual of 0.28 (bias) / 0.32.
    y, K = _circles()
    problem = Problem(K, y, make_loss("modified_hinge", delta=0.1), 1.0, fit_intercept)
    sol = irwls.solve(problem, tol=1e-3)
    residual = _stationarity(problem, sol.alpha, sol.b)
    assert residual > 0.1
    assert sol.kkt == pytest.approx(residual, rel=1e-9)
    assert not sol.converged and sol.stop_reason == "rule"
    assert sol.extras["stop_note"] == (
        "IRWLS stopped by Lee's rule (mean squared change of alpha below 0.001); "
        f"the KKT residual is {residual:.1e}, above tol."
    )
    # The same iterate as the KKT rule takes on its way: the rule stops early.
    tight = irwls.solve(problem, tol=1e-9, stop="kkt")
    assert tight.converged and tight.stop_reason == "converged"
    assert "stop_note" not in tight.extras
    assert tight.n_iter > sol.n_iter


def test_estimator_collects_the_note_and_warns_with_it():
    X, y = datasets.make("two_circles", n_samples=200, random_state=0)[:2]
    model = SVC(loss="modified_hinge", solver="irwls", sigma=0.5, C=1.0)
    with pytest.warns(ConvergenceWarning) as caught:
        model.fit(X, y)
    note = model.solution_.extras["stop_note"]
    assert model.stop_reason_ == "rule" and not model.converged_
    assert note in model.fit_notes_
    assert any(note in str(w.message) for w in caught)
    assert any("without meeting tol=0.001" in str(w.message) for w in caught)


# -- CCCP: a local solution ----------------------------------------------------------


def test_cccp_stalled_by_an_inexact_inner_solve_is_not_converged():
    # Measured before: converged=True with a KKT residual of 0.98 (the last
    # step raised the objective and was rejected).
    y, K = _circles(sigma=1.0)
    problem = Problem(K, y, make_loss("ramp"), 10.0, False)
    sol = cccp.solve(problem, inner="smo", tol=0.1, inner_tol=0.1)
    assert sol.extras["stalled"] is not None
    residual = kkt_violation(problem, sol.alpha, sol.b)
    assert residual > 0.1
    assert not sol.converged and sol.stop_reason == "rule"
    assert "did not decrease" in sol.extras["stop_note"]
    assert f"{residual:.1e}" in sol.extras["stop_note"]


def test_cccp_fixed_point_meets_the_convex_subproblems_kkt_conditions():
    # The measure for the ramp is the KKT violation of the convex (hinge)
    # subproblem linearised at the returned point; at a CCCP fixed point with
    # the exact inner QP it is round-off, so the fit is converged.
    y, K = _circles(sigma=1.0)
    problem = Problem(K, y, make_loss("ramp"), 10.0, True)
    sol = cccp.solve(problem, inner="qp")
    assert sol.extras["flipped"] == 0
    assert sol.converged and sol.stop_reason == "converged" and sol.kkt < 1e-8


# -- retargeted least squares --------------------------------------------------------


def test_retargeted_ls_stop_test_is_scale_aware():
    # Measured before: max_iter (1000) reached, "without meeting tol=0.001"
    # although the KKT residual was 1e-13: the step test ||dtheta|| < tol is
    # absolute while theta grows with C.
    X, y = datasets.make("two_circles", n_samples=300, random_state=0)[:2]
    problem = Problem(gram(X, sigma=1.0), y, make_loss("squared_ramp"), 100.0, False)
    sol = retargeted_ls.solve(problem, tol=1e-3, max_iter=1000)
    assert sol.converged and sol.stop_reason == "converged"
    assert sol.n_iter < 1000
    assert _stationarity(problem, sol.alpha, sol.b) <= 1e-3


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_retargeted_ls_squared_hinge_converged_only_at_the_optimum(fit_intercept):
    # Measured before: converged=True with a KKT violation of 0.51 / 0.36 (the
    # final polish rejected, points beyond the margin with alpha > 0).
    X, y = datasets.make("moons", n_samples=300, random_state=0)[:2]
    K = gram(X, sigma=0.3)
    problem = Problem(K, y, make_loss("squared_hinge"), 10.0, fit_intercept)
    ref = qp.solve(problem)
    for tol, rel in ((1e-3, 1e-5), (1e-9, 1e-11)):
        sol = retargeted_ls.solve(problem, tol=tol, max_iter=100_000)
        assert sol.converged and sol.kkt <= tol
        assert sol.objective == pytest.approx(ref.objective, rel=rel)


def test_matlab_variant_says_it_minimises_another_objective():
    X, y = datasets.make("spiral", n_samples=200, random_state=0)[:2]
    problem = Problem(gram(X, sigma=1.0), y, make_loss("squared_hinge"), 1.0, False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sol = retargeted_ls.solve(problem, variant="sugiyama_matlab")
    assert not sol.converged and sol.stop_reason == "rule"
    assert "sugiyama_matlab" in sol.extras["stop_note"]
