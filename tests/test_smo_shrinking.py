"""SMO with shrinking and on-demand kernel rows (issue 16), against independent
references: the unshrunk compiled loops (``smo._pair_loop``, ``smo._single_loop``:
separate code that sweeps every point on the full Gram matrix), the Gram matrix
itself, a from-scratch gradient, and scikit-learn's SVC."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.svm import SVC as LibSVC

from svmlab import datasets
from svmlab.kernels import KernelRows, gamma_from_sigma, gram
from svmlab.losses import Hinge, SquaredHinge
from svmlab.solvers import Problem, smo, solve
from svmlab.solvers.base import Budget
from svmlab.solvers.shrinking import BoxSMO
from tests.conftest import relative_difference as _rel

LOSSES = {"hinge": Hinge(), "squared_hinge": SquaredHinge()}


@pytest.fixture(scope="module")
def circles():
    # Two circles with the coin-flip band: many bound SVs at C = 100, so the
    # run shrinks, un-shrinks and rebuilds the gradient several times.
    return datasets.make_two_circles(300, random_state=3)


def _unshrunk(K, y, loss, C, fit_intercept, tol):
    """The reference: the pre-issue-16 loops, full sweeps on the dense K."""
    squared = loss == "squared_hinge"
    ridge = 1.0 / C if squared else 0.0
    upper = math.inf if squared else C
    a, G = np.zeros(y.shape[0]), -np.ones(y.shape[0])
    loop = smo._pair_loop if fit_intercept else smo._single_loop
    QD = np.diagonal(K) + ridge
    _, done = loop(np.ascontiguousarray(K), y, QD, a, G, upper, ridge, tol, 0, 10**8)
    assert done
    return a


@pytest.mark.parametrize("fit_intercept", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize("loss", list(LOSSES))
@pytest.mark.parametrize("C", [1.0, 100.0])
def test_shrinking_answer_equals_the_unshrunk_solvers(circles, loss, fit_intercept, C):
    X, y = circles
    K = gram(X, sigma=0.5)
    problem = Problem(K, y, LOSSES[loss], C, fit_intercept)
    ours = smo.solve(problem, tol=1e-9)
    ref = _unshrunk(K, y, loss, C, fit_intercept, 1e-9)
    assert ours.converged and ours.extras["shrinking"] is True
    assert ours.extras["shrink_rounds"] > 0  # the path under test did run
    scale = max(1.0, float(np.abs(ref).max()))
    assert np.abs(ours.alpha - ref).max() <= 1e-6 * scale
    f_ref = K @ (ref * y)
    assert _rel(K @ (ours.alpha * y), f_ref) < 1e-7


def test_shrinking_rebuilds_the_gradient_before_it_stops(circles):
    # C = 100 with the bias: points are shrunk at bounds, so the final check
    # needs the rebuilt gradient (LIBSVM's reconstruct_gradient).
    X, y = circles
    K = gram(X, sigma=0.5)
    sol = smo.solve(Problem(K, y, Hinge(), 100.0, True), tol=1e-9)
    assert sol.extras["reconstructions"] >= 1 and sol.extras["swaps"] > 0


@pytest.mark.parametrize("fit_intercept", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize("upper, ridge", [(100.0, 0.0), (math.inf, 0.01), (5.0, 0.2)])
def test_reconstructed_gradient_equals_the_one_from_the_gram_matrix(
    circles, fit_intercept, upper, ridge
):
    # Stop mid-run with points shrunk; the rebuilt gradient (G_bar + p + free
    # rows) must equal Q_d a + p computed from scratch. A general p as CCCP uses.
    X, y = circles
    K = gram(X, sigma=0.5)
    p = -1.0 - 0.3 * np.cos(np.arange(y.shape[0]))
    state = BoxSMO(y, p, upper, ridge, fit_intercept, K=K)
    stop, converged = 300, False
    while not converged and state.stats["active"] == y.shape[0]:
        stop += 1  # just after a shrinking round, before convergence
        _, converged, _ = state.run(1e-12, stop, Budget(None))
    assert not converged and state.stats["active"] < y.shape[0]  # points are out
    a = state.alpha()
    expected = y * (K @ (a * y)) + ridge * a + p
    np.testing.assert_allclose(state.gradient(), expected, rtol=0, atol=1e-9)
    state.unshrink()
    assert state.stats["active"] == y.shape[0]
    np.testing.assert_allclose(state.gradient(), expected, rtol=0, atol=1e-9)


@pytest.mark.parametrize("source", ["gram", "rows", "svr_gram"])
@pytest.mark.parametrize("ridge", [0.0, 0.3])
def test_warm_start_gradient_and_bound_part_equal_sums_from_scratch(
    circles, source, ridge
):
    # A warm start with alphas at the bound, free and zero: G = Q_d a + p and
    # G_bar = sum over a_i = U_i of U_i Q_d,i, whether K is read in place, rows
    # come on demand, or a K of size n serves 2n variables (the SVR dual).
    X, y0 = circles
    K = gram(X, sigma=0.5)
    if source == "svr_gram":
        y = np.r_[np.ones(y0.shape[0]), -np.ones(y0.shape[0])]
        Kfull = np.block([[K, K], [K, K]])
    else:
        y, Kfull = y0, K
    n = y.shape[0]
    upper = np.where(np.arange(n) % 7 == 0, 3.0, 2.0)
    a = np.where(np.arange(n) % 3 == 0, upper, 0.0)
    a[np.arange(n) % 3 == 1] = 0.5  # free
    p = -1.0 - 0.3 * np.sin(np.arange(n))
    given = {"K": K} if source != "rows" else {"kernel": KernelRows(X, sigma=0.5)}
    state = BoxSMO(y, p, upper, ridge, True, a=a, **given)
    Q = y[:, None] * Kfull * y[None, :] + ridge * np.eye(n)
    np.testing.assert_allclose(state.gradient(), Q @ a + p, rtol=0, atol=1e-11)
    bound = np.where(a == upper, upper, 0.0)
    G_bar = state._original(state.vec[3])
    np.testing.assert_allclose(G_bar, Q @ bound, rtol=0, atol=1e-11)


@pytest.mark.parametrize(
    "kernel, params",
    [
        ("gaussian", {"sigma": 0.4}),
        ("polynomial", {"degree": 3, "coef0": 1.0}),
        ("linear", {}),
        ("sigmoid", {"scale": 0.3, "coef0": -0.5}),
    ],
)
@pytest.mark.parametrize("shift", [0.0, 1.0])
def test_kernel_rows_equal_the_gram_matrix(kernel, params, shift):
    X, _ = datasets.make_two_circles(120, random_state=1)
    rows = KernelRows(X, kernel=kernel, shift=shift, **params)
    K = gram(X, kernel=kernel, **params) + shift
    np.testing.assert_allclose(rows.rows(np.arange(120)), K, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(rows.diagonal(), np.diagonal(K), rtol=1e-13)
    v = np.where(np.arange(120) % 4 == 0, np.sin(np.arange(120.0)), 0.0)
    np.testing.assert_allclose(rows.matvec(v), K @ v, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(rows.full(), K, rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("fit_intercept", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize("loss", list(LOSSES))
@pytest.mark.parametrize("cache_mb", [200.0, 0.05], ids=["all_rows", "tiny_cache"])
def test_on_demand_rows_give_the_gram_matrix_answer(
    circles, loss, fit_intercept, cache_mb
):
    # A tiny cache (about 20 rows) evicts and recomputes rows all the time and
    # truncates rows on swaps: the answer must not change.
    X, y = circles
    K = gram(X, sigma=0.5) + (0.0 if fit_intercept else 1.0)
    rows = KernelRows(X, sigma=0.5, shift=0.0 if fit_intercept else 1.0)
    dense = smo.solve(Problem(K, y, LOSSES[loss], 30.0, fit_intercept), tol=1e-9)
    lazy_problem = Problem(None, y, LOSSES[loss], 30.0, fit_intercept, kernel=rows)
    lazy = smo.solve(lazy_problem, tol=1e-9, cache_mb=cache_mb)
    if cache_mb < 1.0:
        assert lazy.extras["cache_rows"] < 30
    assert lazy.converged
    scale = max(1.0, float(np.abs(dense.alpha).max()))
    assert np.abs(lazy.alpha - dense.alpha).max() <= 1e-6 * scale
    assert lazy.b == pytest.approx(dense.b, abs=1e-6)
    # The lazy solution's self-check equals the one computed from K.
    assert lazy.objective == pytest.approx(dense.objective, rel=1e-9)
    assert lazy.kkt <= 1e-9


def test_float32_cache_still_solves_to_tolerance(circles):
    X, y = circles
    problem = Problem(None, y, Hinge(), 10.0, True, kernel=KernelRows(X, sigma=0.5))
    f32 = smo.solve(problem, tol=1e-6, cache_precision="float32")
    f64 = smo.solve(problem, tol=1e-6)
    assert f32.converged
    assert _rel(f32.alpha, f64.alpha) < 1e-4  # float32 kernel values: ~1e-7 each


def test_lazy_problem_matches_sklearn_to_1e6_in_f(circles):
    X, y = circles
    C, sigma = 10.0, 0.5
    problem = Problem(None, y, Hinge(), C, True, kernel=KernelRows(X, sigma=sigma))
    ours = smo.solve(problem, tol=1e-8)
    lib = LibSVC(C=C, gamma=gamma_from_sigma(sigma), tol=1e-8).fit(X, y)
    K = gram(X, sigma=sigma)
    f = K @ (ours.alpha * y) + ours.b
    assert _rel(f, lib.decision_function(X)) < 1e-6


def test_iteration_cap_scales_with_n_and_an_explicit_cap_is_kept(circles):
    X, y = circles
    K = gram(X, sigma=0.5)
    assert smo.max_iterations(300) == 10**7
    assert smo.max_iterations(200_000) == 2 * 10**7
    problem = Problem(K, y, Hinge(), 1e4, True)
    capped = smo.solve(problem, tol=1e-9, max_iter=50)
    assert capped.n_iter == 50 and capped.stop_reason == "max_iter"
    full = smo.solve(problem, tol=1e-9)  # default: no cut-off
    assert full.converged and full.n_iter > 50
    # Through the dispatcher too (its default no longer caps SMO at 10,000).
    assert solve(problem, method="smo", tol=1e-9).n_iter == full.n_iter


def test_warm_start_with_shrinking_equals_cold(circles):
    X, y = circles
    K = gram(X, sigma=0.5)
    first = smo.solve(Problem(K, y, Hinge(), 20.0, True), tol=1e-9)
    problem = Problem(K, y, Hinge(), 40.0, True)
    cold = smo.solve(problem, tol=1e-9)
    warm = smo.solve(problem, tol=1e-9, init=first.alpha)
    assert warm.converged and warm.n_iter < cold.n_iter
    assert np.abs(warm.alpha - cold.alpha).max() <= 1e-6 * 40.0


def test_other_solvers_get_the_full_matrix_from_a_lazy_problem(circles):
    X, y = circles
    rows = KernelRows(X, sigma=0.5)
    lazy = solve(Problem(None, y, Hinge(), 5.0, True, kernel=rows), method="qp")
    dense = solve(Problem(gram(X, sigma=0.5), y, Hinge(), 5.0, True), method="qp")
    np.testing.assert_allclose(lazy.alpha, dense.alpha, atol=1e-9)


def _libsvm_max_violator(y, a, G, U, act):
    """LIBSVM's ``Solver::select_working_set`` first scan, in plain Python: the
    last ``t`` of the largest ``-y_t G_t`` over ``I_up`` (``>=``)."""
    gmax, i = -math.inf, -1
    for t in range(act):
        up = a[t] < U[t] if y[t] > 0 else a[t] > 0
        if up and -y[t] * G[t] >= gmax:
            gmax, i = -y[t] * G[t], t
    return i, gmax


def test_max_violator_is_libsvm_scan_on_ties_across_classes():
    # max_violator is the better of nu_violators' two class candidates; on a tie
    # between the classes LIBSVM's one scan keeps the later index. Few distinct
    # values, so ties across (and within) the classes are common.
    from svmlab.solvers.working_set import max_violator

    rng = np.random.default_rng(0)
    ties = 0
    for _ in range(400):
        n = int(rng.integers(1, 12))
        y = rng.choice([-1.0, 1.0], n)
        U = np.ones(n)
        a = rng.choice([0.0, 0.5, 1.0], n)
        G = rng.choice([-1.0, 0.0, 1.0], n)
        act = int(rng.integers(0, n + 1))
        want = _libsvm_max_violator(y, a, G, U, act)
        i, gmax = max_violator(y, a, G, U, act)
        assert (i, gmax) == want
        v = -y[:act] * G[:act]
        up = np.where(y[:act] > 0, a[:act] < 1, a[:act] > 0)
        best = v[up] == want[1]
        ties += len(set(y[:act][up][best])) == 2
    assert ties > 50
