"""Iteratively retargeted least squares (Sugiyama 27.6.2-27.6.3): the squared
hinge against the exact QP, the squared ramp's monotone descent, the book's
MATLAB variant and the spiral of Fig. 27.16."""

from __future__ import annotations

import math

import numpy as np
import pytest

from svmlab import SVC
from svmlab.datasets import make_spiral
from svmlab.errors import IncompatibleLossError, ParameterError, ProblemError
from svmlab.kernels import gram
from svmlab.losses import Hinge, SquaredHinge, SquaredRamp
from svmlab.solvers import Problem, qp, retargeted_ls
from svmlab.solvers.base import primal_objective
from tests.conftest import random_problem, warns_when_stopped_early
from tests.conftest import relative_difference as _rel

KERNELS = {
    "gaussian": {"kernel": "gaussian", "sigma": 0.8},
    "polynomial": {"kernel": "polynomial", "degree": 3, "coef0": 1.0},
    "linear": {"kernel": "linear"},
}


def _stationarity(problem, sol):
    """``max |alpha + C l'(m)| / C``: 0 exactly at a fixed point."""
    m = problem.y * (problem.K @ (sol.alpha * problem.y) + sol.b)
    return np.abs(sol.alpha + problem.C * problem.loss.derivative(m)).max() / problem.C


# -- the retargeting rule -----------------------------------------------------------


def test_retarget_values():
    m = np.array([-2.0, -0.5, 0.0, 0.3, 1.0, 1.5])
    np.testing.assert_array_equal(
        retargeted_ls.retarget("squared_hinge", m), [1, 1, 1, 1, 1, 1.5]
    )
    np.testing.assert_array_equal(
        retargeted_ls.retarget("squared_ramp", m), [-2, -0.5, 1, 1, 1, 1.5]
    )


@pytest.mark.parametrize("loss", [SquaredHinge(), SquaredRamp()])
def test_retargeting_is_a_majorizer_touching_at_the_current_margin(loss):
    # q(m) = 0.5 (v - m)^2 + c with c fixed by q(m0) = l(m0) lies above l.
    grid = np.linspace(-4.0, 4.0, 4001)
    for m0 in [-2.0, -0.3, 0.0, 0.2, 0.7, 0.999, 1.0, 1.4, 3.0]:
        v = retargeted_ls.retarget(loss.name, np.array([m0]))[0]
        c = float(loss.value(m0)) - 0.5 * (v - m0) ** 2
        q = 0.5 * (v - grid) ** 2 + c
        assert np.all(q >= loss.value(grid) - 1e-12), m0
        # Tangent: the slopes agree at m0 (right derivative at the kinks).
        assert -(v - m0) == pytest.approx(float(loss.derivative(m0)), abs=1e-12)


# -- squared hinge: the QP's answer ---------------------------------------------------


@pytest.mark.parametrize("fit_intercept", [False, True], ids=["nobias", "bias"])
@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("seed", range(4))
def test_squared_hinge_equals_qp(seed, kernel, fit_intercept):
    C = [0.1, 1.0, 10.0, 3.0][seed]
    # The cubic kernel on the blobs (|x|^2 up to ~15, K up to ~4000) makes the
    # MM rate 1 - O(1 / (C K)): tens of thousands of steps (see the module
    # docstring). The XOR cloud keeps K moderate.
    kind = "xor" if seed % 2 or kernel == "polynomial" else "blobs"
    X, y = random_problem(seed, n=60, kind=kind)
    problem = Problem(gram(X, **KERNELS[kernel]), y, SquaredHinge(), C, fit_intercept)
    ref = qp.solve(problem)
    sol = retargeted_ls.solve(problem, tol=1e-6, max_iter=50_000)
    assert sol.converged
    assert sol.objective == pytest.approx(ref.objective, rel=1e-4)
    f, f_ref = problem.K @ (sol.alpha * y) + sol.b, problem.K @ (ref.alpha * y) + ref.b
    assert _rel(f, f_ref) < 1e-3
    assert sol.kkt_violation() < 1e-6
    assert sol.alpha.min() >= -1e-9 * C
    if fit_intercept:
        assert abs(sol.alpha @ y) < 1e-9 * max(1.0, sol.alpha.sum())
    else:
        assert sol.b == 0.0


@pytest.mark.parametrize("fit_intercept", [False, True], ids=["nobias", "bias"])
@pytest.mark.parametrize("C", [1.0, 10.0])
def test_unpolished_iteration_converges_to_the_qp_answer(C, fit_intercept):
    # The plain MM iteration, no finishing solve: at a tight tol it is there too.
    # It stops by its stationarity rule; points beyond the margin keep alphas of
    # the size of the last step, which the box-dual KKT check counts, so it is
    # "converged" only where that check passes too (C = 1), else "rule".
    X, y = random_problem(2, n=60, outliers=3)
    problem = Problem(gram(X, sigma=0.8), y, SquaredHinge(), C, fit_intercept)
    ref = qp.solve(problem)
    sol = retargeted_ls.solve(problem, tol=1e-7, max_iter=50_000, polish=False)
    assert sol.stop_reason in ("converged", "rule") and not sol.extras["polished"]
    assert sol.converged == (sol.kkt <= 1e-7)
    assert sol.objective == pytest.approx(ref.objective, rel=1e-8)
    f, f_ref = problem.K @ (sol.alpha * y) + sol.b, problem.K @ (ref.alpha * y) + ref.b
    assert _rel(f, f_ref) < 1e-4
    assert sol.extras["stationarity"] < 1e-5
    assert sol.b == pytest.approx(ref.b, abs=1e-4)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_qp_optimum_is_a_fixed_point(fit_intercept):
    # One retarget-and-solve step from the QP's squared-hinge optimum returns it.
    X, y = random_problem(7, n=70)
    K = gram(X, sigma=1.2)
    problem = Problem(K, y, SquaredHinge(), 5.0, fit_intercept)
    ref = qp.solve(problem)
    sol = retargeted_ls.solve(
        problem, tol=0.0, max_iter=1, init=ref.alpha, polish=False
    )
    np.testing.assert_allclose(sol.alpha, ref.alpha, atol=1e-7 * ref.alpha.max())
    assert sol.b == pytest.approx(ref.b, abs=1e-7)
    assert sol.extras["last_step"] < 1e-7 * np.linalg.norm(ref.alpha)


@pytest.mark.parametrize("C", [0.5, 2.0, 1e6])
def test_far_apart_points_have_closed_form(C):
    # K = I: (1 + 1/C) theta = y at v = 1, so alpha_i = C / (C + 1) < 1 = margin
    # cap, which keeps v = 1: the first LS fit is the answer.
    X = np.array([[0.0, 0.0], [100.0, 0.0], [0.0, 100.0]])
    y = np.array([1.0, -1.0, 1.0])
    K = gram(X, sigma=1.0)
    sol = retargeted_ls.solve(Problem(K, y, SquaredHinge(), C, False), tol=1e-12)
    np.testing.assert_allclose(sol.alpha, C / (C + 1.0), rtol=1e-12)
    assert sol.n_iter == 1
    assert sol.kkt_violation() < 1e-12


# -- squared ramp: monotone descent from any start -------------------------------------


@pytest.mark.parametrize("fit_intercept", [False, True], ids=["nobias", "bias"])
@pytest.mark.parametrize(
    ("seed", "kernel"),
    [(0, "gaussian"), (1, "gaussian"), (2, "gaussian"), (3, "linear"), (4, "gaussian")],
)
def test_squared_ramp_descends_from_the_squared_hinge_solution(
    seed, kernel, fit_intercept
):
    X, y = random_problem(seed, n=80, outliers=5, kind="blobs" if seed % 2 else "xor")
    K = gram(
        X, **({"kernel": "gaussian", "sigma": 1.0} if kernel == "gaussian" else {})
    )
    C = [1.0, 10.0][seed % 2]
    hinge = qp.solve(Problem(K, y, SquaredHinge(), C, fit_intercept))
    problem = Problem(K, y, SquaredRamp(), C, fit_intercept)
    start = primal_objective(problem, hinge.alpha, hinge.b)
    sol = retargeted_ls.solve(
        problem, tol=1e-6, max_iter=20_000, init=hinge.alpha, record_history=True
    )
    objective = np.asarray(sol.history.objective)
    assert objective[0] == pytest.approx(start, rel=1e-9)
    assert np.all(np.diff(objective) <= 1e-10 * start)
    assert sol.objective <= objective[-1] + 1e-10 * start
    assert sol.objective < start - 1e-3 * start  # the outliers stop pulling
    assert sol.converged
    # A stationary point of the squared-ramp primal.
    assert sol.kkt_violation() < 1e-6
    assert sol.alpha.min() >= -1e-9 * C
    if fit_intercept:
        assert abs(sol.alpha @ y) < 1e-9 * max(1.0, sol.alpha.sum())


@pytest.mark.parametrize("seed", range(3))
def test_squared_ramp_objective_never_increases_from_the_ls_start(seed):
    X, y = random_problem(seed + 10, n=70, outliers=4)
    problem = Problem(gram(X, sigma=0.7), y, SquaredRamp(), 5.0, bool(seed % 2))
    sol = retargeted_ls.solve(problem, tol=1e-6, max_iter=5000, record_history=True)
    objective = np.asarray(sol.history.objective)
    assert len(objective) >= 3
    assert np.all(np.diff(objective) <= 1e-10 * objective[0])
    assert objective[-1] < objective[0]


def test_ramp_ignores_far_outliers_that_the_squared_hinge_follows():
    # Sugiyama Fig. 27.17: class-+1 outliers deep in class -1's region.
    X, y = random_problem(1, n=80, outliers=5, kind="blobs")
    K = gram(X, kernel="linear")
    C = 1.0
    hinge = qp.solve(Problem(K, y, SquaredHinge(), C, True))
    ramp = retargeted_ls.solve(
        Problem(K, y, SquaredRamp(), C, True), tol=1e-6, max_iter=50_000
    )
    clean = slice(5, None)
    f_h = K @ (hinge.alpha * y) + hinge.b
    f_r = K @ (ramp.alpha * y) + ramp.b
    acc_h = np.mean(np.sign(f_h[clean]) == y[clean])
    acc_r = np.mean(np.sign(f_r[clean]) == y[clean])
    assert acc_r >= acc_h
    assert np.all(ramp.alpha[:5] < 1e-9)  # the outliers (m < 0) carry no weight
    assert np.all(y[:5] * f_r[:5] < 0)


# -- the book's MATLAB listing and Fig. 27.16 ---------------------------------------


@pytest.mark.parametrize("variant", ["rkhs", "sugiyama_matlab"])
def test_spiral_of_figure_27_16_is_separated(variant):
    X, y = make_spiral(200, random_state=0)
    K = gram(X, sigma=1.0)  # hh = 2 * 1^2
    problem = Problem(K, y, SquaredHinge(), 1.0, False)  # l = 1, no bias
    sol = retargeted_ls.solve(problem, variant=variant)
    # The listing's variant minimises another objective: its own step rule ends
    # it, with the svmlab KKT residual above tol (issue 14, item 7).
    expected = "converged" if variant == "rkhs" else "rule"
    assert sol.stop_reason == expected
    accuracy = np.mean(np.sign(K @ (sol.alpha * y)) == y)
    assert accuracy >= 0.97


def _matlab_variant(X, y, sigma: float, C: float, fit_intercept: bool, tol: float):
    """The book's variant on a Gaussian kernel: the problem, its solution, and
    l'(m) with the gradient in theta of the variant's own objective
    0.5 ||theta||^2 + C sum l(m), theta + C K (y l'(m)): 0 where it is stationary."""
    problem = Problem(gram(X, sigma=sigma), y, SquaredHinge(), C, fit_intercept)
    sol = retargeted_ls.solve(problem, tol=tol, variant="sugiyama_matlab")
    theta = sol.alpha * y
    d = problem.loss.derivative(y * (problem.K @ theta + sol.b))
    return problem, sol, theta + C * problem.K @ (y * d), d


def test_matlab_variant_minimises_its_own_different_objective():
    X, y = make_spiral(200, random_state=0)
    problem, book, grad, _ = _matlab_variant(X, y, 1.0, 1.0, False, tol=1e-8)
    K, C = problem.K, problem.C
    rkhs = retargeted_ls.solve(problem, tol=1e-8)
    theta = book.alpha * y
    assert np.abs(grad).max() < 1e-6 * max(1.0, np.abs(theta).max())
    assert not book.extras["polished"]

    def own(t):
        return 0.5 * t @ t + C * problem.loss.value(y * (K @ t)).sum()

    assert book.extras["variant_objective"] == pytest.approx(own(theta), rel=1e-12)
    assert own(theta) < own(rkhs.alpha * y)
    # ...which is not the svmlab primal: there the RKHS form is better, clearly.
    assert book.objective > rkhs.objective * (1 + 1e-3)
    assert rkhs.objective == pytest.approx(qp.solve(problem).objective, rel=1e-8)


def _listing(K, y, lam, t, max_o=1000, threshold=0.001):
    """Fig. 27.15, line for line (K symmetric, so k' = k):

    A=inv(k'*k+l*eye(n))*k';
    for o=1:1000
      z=(k*t).*y; w=z+max(0,1-z); t0=A*(w.*y);
      if norm(t-t0)<0.001, break, end
      t=t0;
    end
    """
    n = K.shape[0]
    A = np.linalg.solve(K.T @ K + lam * np.eye(n), K.T)  # the listing's l
    o = 0
    while o < max_o:
        o += 1
        z = (K @ t) * y
        w = z + np.maximum(0.0, 1.0 - z)
        t0 = A @ (w * y)
        if np.linalg.norm(t - t0) < threshold:
            break
        t = t0
    return t, o


@pytest.mark.parametrize("C", [1.0, 0.05])
def test_matlab_variant_follows_the_listing_from_its_random_start(C):
    """Issue 27, item 18: the listing's absolute stop test, the previous t kept,
    and its random start t = rand(n, 1) passed in (as alpha = t * y, negative
    for y = -1; it used to be clipped to 0). At C = 0.05 theta is small, where
    a test relative to ||theta|| and an absolute one stop at different steps."""
    X, y = make_spiral(200, random_state=0)
    K = gram(X, sigma=1.0)  # hh = 2 * 1^2
    t_start = np.random.default_rng(7).random(200)
    t, o = _listing(K, y, 1.0 / C, t_start.copy())
    problem = Problem(K, y, SquaredHinge(), C, False)
    sol = retargeted_ls.solve(problem, variant="sugiyama_matlab", init=t_start * y)
    assert sol.n_iter == o < 1000
    np.testing.assert_allclose(sol.alpha * y, t, rtol=1e-8, atol=1e-10)
    # The same start drawn by the solver (start="random", the listing's rand).
    again = retargeted_ls.solve(
        problem, variant="sugiyama_matlab", start="random", random_state=7
    )
    np.testing.assert_array_equal(again.alpha, sol.alpha)


def test_matlab_variant_keeps_the_previous_iterate():
    X, y = make_spiral(200, random_state=0)
    K = gram(X, sigma=1.0)
    problem = Problem(K, y, SquaredHinge(), 1.0, False)
    sol = retargeted_ls.solve(problem, variant="sugiyama_matlab")
    one_less = retargeted_ls.solve(
        problem, variant="sugiyama_matlab", max_iter=sol.n_iter - 1
    )
    # Stopped at step n by the step test: theta is step n - 1's.
    np.testing.assert_array_equal(sol.alpha, one_less.alpha)
    assert sol.extras["last_step"] < 1e-3


def test_start_must_be_named():
    X, y = make_spiral(40, random_state=0)
    problem = Problem(gram(X, sigma=1.0), y, SquaredHinge(), 1.0, False)
    with pytest.raises(ParameterError, match="start must be one of"):
        retargeted_ls.solve(problem, start="zeros")


def test_matlab_variant_with_bias_is_stationary():
    X, y = random_problem(3, n=60)
    _, _, grad, d = _matlab_variant(X, y, 0.8, 2.0, True, tol=1e-9)
    assert np.abs(grad).max() < 1e-6
    assert abs(float(y @ d)) < 1e-6  # d/db


# -- warm start, history, errors, the estimator ------------------------------------


@pytest.mark.parametrize("fit_intercept", [False, True], ids=["nobias", "bias"])
def test_warm_start_from_nearby_c(fit_intercept):
    X, y = random_problem(0, n=80)
    K = gram(X, sigma=0.8)
    first = retargeted_ls.solve(Problem(K, y, SquaredHinge(), 10.0, fit_intercept))
    near = Problem(K, y, SquaredHinge(), 12.0, fit_intercept)
    cold = retargeted_ls.solve(near, tol=1e-5, max_iter=10_000)
    warm = retargeted_ls.solve(near, tol=1e-5, max_iter=10_000, init=first.alpha)
    assert cold.converged and warm.converged
    assert warm.n_iter < cold.n_iter
    assert warm.objective == pytest.approx(cold.objective, rel=1e-8)


def test_history_is_bounded_and_thinned():
    X, y = random_problem(0, n=60)
    problem = Problem(gram(X, **KERNELS["polynomial"]), y, SquaredHinge(), 100.0, False)
    sol = retargeted_ls.solve(problem, tol=1e-5, max_iter=5000, record_history=True)
    h = sol.history
    assert sol.n_iter > h.max_snapshots
    assert len(h) <= h.max_snapshots and h.stride > 1
    assert h.iteration[0] == 0 and np.all(np.diff(h.iteration) > 0)
    assert np.all(np.diff(h.objective) <= 1e-10 * h.objective[0])  # MM descent
    assert h.kkt_violation[-1] < h.kkt_violation[0]
    i = len(h) // 2
    alpha = np.asarray(h.alpha[i], dtype=np.float64)
    assert h.objective[i] == pytest.approx(
        primal_objective(problem, alpha, h.intercept[i]), rel=1e-5
    )


def test_no_history_unless_asked():
    X, y = random_problem(0, n=30)
    sol = retargeted_ls.solve(Problem(gram(X), y, SquaredHinge(), 1.0, False))
    assert len(sol.history) == 0


def test_non_convergence_is_flagged_not_raised():
    X, y = random_problem(0, n=60)
    problem = Problem(gram(X, **KERNELS["polynomial"]), y, SquaredHinge(), 10.0, False)
    sol = retargeted_ls.solve(problem, tol=1e-9, max_iter=3)
    assert not sol.converged
    assert sol.n_iter == 3
    warns_when_stopped_early(
        X, y, "retargeted_ls", loss="squared_hinge", tol=1e-9, max_iter=3
    )


@pytest.mark.parametrize("bias", ["unregularized", "regularized", "none"])
@pytest.mark.parametrize("loss", ["squared_hinge", "squared_ramp"])
def test_through_svc(loss, bias):
    X, y = random_problem(6, n=60, outliers=3)
    model = SVC(
        C=2.0, loss=loss, solver="retargeted_ls", bias=bias, tol=1e-6, max_iter=20_000
    ).fit(X, y)
    assert model.solver_ == "retargeted_ls"
    assert model.kkt_violation_ < 1e-6
    if loss == "squared_hinge":
        ref = SVC(C=2.0, loss=loss, solver="qp", bias=bias).fit(X, y)
        assert model.objective_ == pytest.approx(ref.objective_, rel=1e-4)
        assert _rel(model.decision_function(X), ref.decision_function(X)) < 1e-3


def test_refusals():
    X, y = random_problem(0, n=30)
    K = gram(X)
    with pytest.raises(IncompatibleLossError, match="hinge") as info:
        SVC(loss="hinge", solver="retargeted_ls").fit(X, y)
    assert "qp" in info.value.valid and "retargeted_ls" not in info.value.valid
    with pytest.raises(IncompatibleLossError):
        retargeted_ls.solve(Problem(K, y, Hinge(), 1.0, False))
    problem = Problem(K, y, SquaredHinge(), 1.0, False)
    with pytest.raises(ParameterError, match="variant"):
        retargeted_ls.solve(problem, variant="matlab")
    with pytest.raises(ParameterError, match="Unknown option"):
        retargeted_ls.solve(problem, order="greedy")
    with pytest.raises(ProblemError, match="finite C"):
        retargeted_ls.solve(Problem(K, y, SquaredHinge(), math.inf, False))
    bad = K.copy()
    bad[0, 1] = np.nan
    with pytest.raises(ProblemError, match="positive definite"):
        retargeted_ls.solve(Problem(bad, y, SquaredHinge(), 1.0, False))
