"""svmlab.svm.multiclass and svmlab.solvers.crammer_singer against independent
references: scikit-learn's LIBSVM (one-vs-one), scikit-learn's OneVsRestClassifier,
LIBLINEAR's Crammer-Singer (linear kernel) and the primal written out and solved
by scipy's SLSQP (any kernel)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC as SklearnSVC
from sklearn.svm import LinearSVC

from svmlab import SVC
from svmlab.errors import DataError, ParameterError, UnknownNameError
from svmlab.kernels import gamma_from_sigma, gram
from svmlab.solvers import crammer_singer
from svmlab.solvers.crammer_singer import CSDual
from svmlab.svm.multiclass import (
    CrammerSingerSVC,
    OneVsOneSVC,
    OneVsRestSVC,
    ovo_ties,
    ovr_ambiguity,
)
from tests.conftest import estimator_checks


@pytest.fixture(scope="module")
def four_blobs():
    X, y = make_blobs(300, centers=4, cluster_std=2.0, random_state=0)
    return X[:200], y[:200], X[200:], y[200:]


# -- one-vs-one against LIBSVM ----------------------------------------------------


def test_one_vs_one_hinge_agrees_with_scikit_learn(four_blobs):
    X, y, X_test, _ = four_blobs
    ours = OneVsOneSVC(C=1.0, sigma=2.0, tol=1e-8, decision_function_shape="ovo")
    ours.fit(X, y)
    theirs = SklearnSVC(
        C=1.0, gamma=gamma_from_sigma(2.0), tol=1e-8, decision_function_shape="ovo"
    ).fit(X, y)
    np.testing.assert_array_equal(ours.predict(X_test), theirs.predict(X_test))
    np.testing.assert_allclose(
        ours.decision_function(X_test), theirs.decision_function(X_test), atol=1e-5
    )
    ours.set_params(decision_function_shape="ovr")
    theirs.set_params(decision_function_shape="ovr")
    np.testing.assert_allclose(
        ours.decision_function(X_test), theirs.decision_function(X_test), atol=1e-5
    )
    # The same support vectors (LIBSVM counts a point once over all pairs).
    np.testing.assert_array_equal(ours.support_, np.sort(theirs.support_))


def test_one_vs_one_votes_j_where_the_pair_decision_is_exactly_zero():
    """LIBSVM's ``svm_predict_values``: for the pair (i, j), ``if (dec_value > 0)
    ++vote[i]; else ++vote[j];`` so f_ij = 0 votes j. With no bias and a narrow
    Gaussian, every f_ij underflows to exactly 0 far from the data: the votes
    are 0, 1, 2 (pairs (0, 1) -> 1, (0, 2) -> 2, (1, 2) -> 2) and class 2 wins.
    A ``>= 0`` in the vote gives 2, 1, 0 and class 0 (issue 27, item 17)."""
    X, y = make_blobs(45, centers=3, cluster_std=0.5, random_state=1)
    ours = OneVsOneSVC(C=1.0, sigma=0.5, bias="none", tol=1e-6).fit(X, y)
    far = np.array([[1e3, 1e3], [-1e3, 5e2]])
    np.testing.assert_array_equal(ours.pairwise_decision_function(far), 0.0)
    np.testing.assert_array_equal(ours.votes(far), [[0, 1, 2], [0, 1, 2]])
    np.testing.assert_array_equal(ours.predict(far), [2, 2])
    # Off the tie the sign decides as before: the training points (f != 0).
    f = ours.pairwise_decision_function(X)
    assert np.all(f != 0.0)
    expected = np.zeros((X.shape[0], 3), dtype=np.int64)
    for column, (i, j) in enumerate(ours.pairs_):
        expected[:, i] += f[:, column] > 0
        expected[:, j] += f[:, column] <= 0
    np.testing.assert_array_equal(ours.votes(X), expected)


def test_one_vs_one_tied_votes_follow_libsvm():
    """Three pairwise lines that do not meet leave a triangle of 1-1-1 votes;
    there LIBSVM (scikit-learn's predict) takes the first class."""
    X, y = make_blobs(
        60, centers=3, cluster_std=1.0, center_box=(-4, 4), random_state=2
    )
    X[y == 0] *= [2.5, 0.4]  # one class stretched: the pairwise lines miss
    ours = OneVsOneSVC(C=10.0, kernel="linear", tol=1e-8).fit(X, y)
    theirs = SklearnSVC(C=10.0, kernel="linear", tol=1e-8).fit(X, y)
    g = np.linspace(-8, 8, 81)
    grid = np.column_stack([a.ravel() for a in np.meshgrid(g, g)])
    tied = ovo_ties(ours.votes(grid))
    # Away from the boundaries (LIBSVM's float32 cache moves them a hair).
    sure = np.abs(ours.pairwise_decision_function(grid)).min(axis=1) > 1e-2
    assert (tied & sure).sum() > 500
    np.testing.assert_array_equal(ours.predict(grid[sure]), theirs.predict(grid[sure]))
    votes = ours.votes(grid[tied])
    assert np.all(votes == 1)
    assert np.all(ours.predict(grid[tied]) == ours.classes_[0])
    # break_ties: the argmax of the ovr-shaped values, as scikit-learn's.
    ours.set_params(break_ties=True)
    theirs.set_params(break_ties=True)
    np.testing.assert_array_equal(ours.predict(grid[sure]), theirs.predict(grid[sure]))
    assert len(set(ours.predict(grid[tied & sure]))) > 1


# -- one-vs-rest against scikit-learn's wrapper ---------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {"C": 1.0, "sigma": 2.0},
        {"C": 3.0, "loss": "squared_hinge", "bias": "none", "kernel": "linear"},
    ],
)
def test_one_vs_rest_agrees_with_scikit_learns_wrapper(four_blobs, params):
    X, y, X_test, _ = four_blobs
    ours = OneVsRestSVC(tol=1e-6, **params).fit(X, y)
    theirs = OneVsRestClassifier(SVC(tol=1e-6, **params)).fit(X, y)
    np.testing.assert_array_equal(ours.predict(X_test), theirs.predict(X_test))
    np.testing.assert_allclose(
        ours.decision_function(X_test), theirs.decision_function(X_test), atol=1e-9
    )
    assert [m.loss for m in ours.estimators_] == [params.get("loss", "hinge")] * 4


def test_reductions_take_any_labels_and_stay_consistent(four_blobs):
    X, y, X_test, _ = four_blobs
    names = np.array(["ant", "bee", "cat", "dog"])[y]
    for model in (OneVsRestSVC(), OneVsOneSVC(), CrammerSingerSVC()):
        model.fit(X, names)
        assert list(model.classes_) == ["ant", "bee", "cat", "dog"]
        d = model.decision_function(X_test)
        assert d.shape == (100, 4)
        pred = model.predict(X_test)
        if isinstance(model, OneVsOneSVC):
            pred = pred[~ovo_ties(model.votes(X_test))]
            d = d[~ovo_ties(model.votes(X_test))]
        np.testing.assert_array_equal(model.classes_[d.argmax(axis=1)], pred)


def test_two_classes_give_one_decision_column(four_blobs):
    X, y, X_test, _ = four_blobs
    keep = y < 2
    for model in (OneVsRestSVC(), OneVsOneSVC(), CrammerSingerSVC()):
        model.fit(X[keep], np.where(y[keep] == 1, "b", "a"))
        d = model.decision_function(X_test)
        assert d.shape == (100,)
        np.testing.assert_array_equal(model.predict(X_test) == "b", d > 0)


def test_ovr_ambiguity_counts_claims():
    scores = np.array([[1.0, -1.0, -1.0], [-1.0, -2.0, -0.5], [0.5, 0.2, -1.0]])
    np.testing.assert_array_equal(ovr_ambiguity(scores), [1, 0, 2])
    np.testing.assert_array_equal(
        ovo_ties(np.array([[2, 0, 1], [1, 1, 1], [1, 1, 0]])), [False, True, True]
    )


# -- Crammer-Singer -----------------------------------------------------------------


def _primal_by_slsqp(K, codes, k, C):
    """The primal in the kernel expansion f_m = K theta_m, written out and solved
    by a generic solver: min 1/2 sum_m theta_m' K theta_m + C sum xi_i with
    f_{y_i}(x_i) - f_m(x_i) >= 1 - xi_i (m != y_i), xi >= 0."""
    n = K.shape[0]
    rows = [(i, m) for i in range(n) for m in range(k) if m != codes[i]]

    def split(v):
        return v[: n * k].reshape(n, k), v[n * k :]

    def objective(v):
        theta, xi = split(v)
        return 0.5 * np.sum(theta * (K @ theta)) + C * xi.sum()

    def gradient(v):
        theta, _ = split(v)
        return np.concatenate([(K @ theta).ravel(), np.full(n, C)])

    def margins(v):
        theta, xi = split(v)
        F = K @ theta
        return np.array([F[i, codes[i]] - F[i, m] - 1 + xi[i] for i, m in rows])

    def margins_jac(v):
        J = np.zeros((len(rows), n * k + n))
        for r, (i, m) in enumerate(rows):
            J[r, codes[i] : n * k : k] += K[i]
            J[r, m : n * k : k] -= K[i]
            J[r, n * k + i] = 1.0
        return J

    v0 = np.concatenate([np.zeros(n * k), np.full(n, 1.0)])
    result = minimize(
        objective,
        v0,
        jac=gradient,
        method="SLSQP",
        bounds=[(None, None)] * (n * k) + [(0, None)] * n,
        constraints=[{"type": "ineq", "fun": margins, "jac": margins_jac}],
        options={"ftol": 1e-12, "maxiter": 500},
    )
    assert result.success, result.message
    return result.fun


@pytest.mark.parametrize("kernel", ["gaussian", "polynomial"])
def test_crammer_singer_objective_matches_the_primal(kernel):
    X, y = make_blobs(18, centers=3, cluster_std=1.5, random_state=1)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    model = CrammerSingerSVC(C=2.0, kernel=kernel, degree=2, solver="qp").fit(X, y)
    K = gram(X, kernel=kernel, degree=2)
    primal = _primal_by_slsqp(K, y, 3, 2.0)
    assert model.objective_ == pytest.approx(primal, rel=1e-6)
    assert crammer_singer.primal_objective(K, model.alpha_, y, 2.0) == pytest.approx(
        primal, rel=1e-6
    )


@pytest.mark.parametrize("bias", ["none", "regularized"])
def test_crammer_singer_linear_agrees_with_liblinear(four_blobs, bias):
    X, y, X_test, _ = four_blobs
    ours = CrammerSingerSVC(C=0.5, kernel="linear", bias=bias, tol=1e-8).fit(X, y)
    theirs = LinearSVC(
        C=0.5,
        multi_class="crammer_singer",
        fit_intercept=bias == "regularized",
        tol=1e-8,
        max_iter=100_000,
    ).fit(X, y)
    np.testing.assert_array_equal(ours.predict(X_test), theirs.predict(X_test))
    np.testing.assert_allclose(
        ours.decision_function(X_test), theirs.decision_function(X_test), atol=1e-6
    )


@pytest.mark.parametrize("solver", ["qp", "blocks"])
def test_crammer_singer_dual_constraints_and_kkt(four_blobs, solver):
    X, y, _, _ = four_blobs
    model = CrammerSingerSVC(C=1.0, sigma=2.0, solver=solver, tol=1e-6).fit(X, y)
    a = model.alpha_
    own = a[np.arange(len(y)), y]
    np.testing.assert_allclose(a.sum(axis=1), 0.0, atol=1e-12)
    assert np.all(own <= 1.0) and np.all(own >= -1e-12)  # = -(sum of the others)
    others = a.copy()
    others[np.arange(len(y)), y] = -np.inf
    assert np.all(others <= 0.0)
    # KKT, recomputed here: G = K alpha - e; max G <= min of G below the bound.
    G = gram(X, sigma=2.0) @ a
    G[np.arange(len(y)), y] -= 1.0
    below = a < np.where(np.eye(4)[y] > 0, 1.0, 0.0)
    low = np.where(below, G, np.inf).min(axis=1)
    assert np.max(G.max(axis=1) - low) <= 1e-6
    assert model.kkt_violation_ <= 1e-6 and model.converged_
    # Complementary slackness, exactly: beyond the margin, the block is zero.
    assert np.all(a[model.margins_ > 1.0 + 1e-5] == 0.0)
    assert np.all(np.abs(a[model.margins_ < 1.0 - 1e-5]).sum(axis=1) > 0.0)
    # The support vectors are the points with a nonzero block.
    assert set(model.support_) == set(np.flatnonzero(np.abs(a).sum(axis=1) > 0))


def test_crammer_singer_classifies_separable_data():
    X, y = make_blobs(60, centers=4, cluster_std=0.3, random_state=2)
    for kernel in ("linear", "gaussian"):
        model = CrammerSingerSVC(C=100.0, kernel=kernel).fit(X, y)
        np.testing.assert_array_equal(model.predict(X), y)
        assert model.margins_.min() >= 1.0 - 1e-3


def test_block_decomposition_matches_the_qp_on_a_medium_problem():
    X, y = make_blobs(200, centers=4, cluster_std=2.5, random_state=5)
    K = gram(X, sigma=1.5)
    qp = crammer_singer.solve_qp(CSDual(K, y, 4, 2.0), tol=1e-8)
    blocks = crammer_singer.solve_blocks(CSDual(K, y, 4, 2.0), tol=1e-5)
    assert qp.method == "qp" and blocks.method == "blocks" and blocks.converged
    assert blocks.objective == pytest.approx(qp.objective, rel=1e-6)
    F = K @ qp.alpha
    np.testing.assert_allclose(K @ blocks.alpha, F, atol=1e-3)


def _unscaled_spiral_poly(n: int):
    """Issue 27, item 18: three spiral arms under the unscaled polynomial
    kernel (x'z + 1)^2, kernel values up to about 1e5: C K ~ 4e4, near the hard
    margin, where the block sweeps alone stalled."""
    from svmlab.datasets import multiclass

    X, y = multiclass.make_spiral(n, n_classes=3, random_state=3)
    return X, y, gram(X, kernel="polynomial", degree=2, coef0=1.0)


def test_block_decomposition_converges_on_an_unscaled_polynomial_kernel():
    X, y, K = _unscaled_spiral_poly(45)
    assert K.max() > 8e4
    qp = crammer_singer.solve_qp(CSDual(K, y, 3, 0.5), tol=1e-8)
    assert qp.converged
    # The defaults: tol 1e-3, at most 10,000 sweeps (the sweeps alone left a
    # KKT violation of 2.67 there, and 0.089 after 100,000).
    blocks = crammer_singer.solve_blocks(CSDual(K, y, 3, 0.5))
    assert blocks.converged and blocks.kkt <= 1e-3 and blocks.n_chunks >= 1
    assert blocks.objective == pytest.approx(qp.objective, rel=1e-9)
    np.testing.assert_allclose(K @ blocks.alpha, K @ qp.alpha, atol=1e-2)
    model = CrammerSingerSVC(
        C=0.5, kernel="polynomial", degree=2, coef0=1.0, solver="blocks"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model.fit(X, y)
    assert model.converged_ and not model.fit_notes_


def test_auto_blocks_converge_on_a_larger_unscaled_polynomial_problem():
    X, y, K = _unscaled_spiral_poly(330)  # 990 variables: "auto" takes blocks
    model = CrammerSingerSVC(C=0.5, kernel="polynomial", degree=2, coef0=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model.fit(X, y)
    assert model.solver_ == "blocks" and model.converged_
    assert model.solution_.n_chunks >= 1
    qp = crammer_singer.solve_qp(CSDual(K, y, 3, 0.5), tol=1e-3)
    assert model.objective_ == pytest.approx(qp.objective, rel=1e-8)
    assert crammer_singer.primal_objective(K, model.alpha_, y, 0.5) == pytest.approx(
        crammer_singer.primal_objective(K, qp.alpha, y, 0.5), rel=1e-4
    )
    np.testing.assert_allclose(K @ model.alpha_, K @ qp.alpha, atol=2e-2)


def test_well_scaled_problems_need_no_chunk():
    """A Gaussian kernel converges by sweeps alone, before the first chunk:
    the same sweeps, the same answer, as without chunks."""
    from svmlab.datasets import multiclass as multiclass

    X, y = multiclass.make_spiral(300, n_classes=3, random_state=0)
    K = gram(X, sigma=1.0)
    blocks = crammer_singer.solve_blocks(CSDual(K, y, 3, 10.0))
    alone = crammer_singer.solve_blocks(CSDual(K, y, 3, 10.0), chunks=False)
    assert blocks.converged and blocks.n_chunks == 0
    assert blocks.n_iter == alone.n_iter < crammer_singer.chunk_pace(300, 3)
    np.testing.assert_array_equal(blocks.alpha, alone.alpha)


def test_crammer_singer_auto_switches_to_blocks_and_budget_stops_it():
    X, y = make_blobs(400, centers=3, cluster_std=2.5, random_state=6)
    model = CrammerSingerSVC(C=10.0).fit(X, y)
    assert model.solver_ == "blocks"  # 1,200 variables
    with pytest.warns(ConvergenceWarning, match="KKT violation"):
        slow = CrammerSingerSVC(C=10.0, solver="blocks", tol=1e-9, max_iter=2)
        slow.fit(X, y)
    assert not slow.converged_ and slow.stop_reason_ == "max_iter"
    assert slow.fit_notes_


# -- the contract and bad input ------------------------------------------------------


@pytest.mark.parametrize(
    "estimator", [OneVsRestSVC(), OneVsOneSVC(), CrammerSingerSVC()], ids=type
)
def test_scikit_learn_estimator_checks(estimator):
    """Every check passes; only check_array_api_input is skipped (NumPy only)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        estimator_checks(estimator)


@pytest.mark.parametrize(
    ("model", "y", "error", "words"),
    [
        (CrammerSingerSVC(C=0.0), None, ParameterError, "C must be a positive finite"),
        (CrammerSingerSVC(C=np.inf), None, ParameterError, "positive finite"),
        (CrammerSingerSVC(solver="smo"), None, UnknownNameError, "solver"),
        (CrammerSingerSVC(bias="unregularized"), None, UnknownNameError, "bias"),
        (CrammerSingerSVC(kernel="rbf"), None, UnknownNameError, "kernel"),
        (OneVsRestSVC(loss="log"), None, UnknownNameError, "loss"),
        (OneVsOneSVC(C=-1.0), None, ParameterError, "C must be a positive"),
        (OneVsOneSVC(decision_function_shape="x"), None, UnknownNameError, "shape"),
        (OneVsRestSVC(), np.zeros(12), DataError, "Only one class"),
        (CrammerSingerSVC(), np.linspace(0, 1, 12), DataError, "continuous"),
    ],
)
def test_bad_input_gets_a_plain_typed_error(model, y, error, words):
    X = np.random.default_rng(0).normal(size=(12, 2))
    y = np.arange(12) % 3 if y is None else y
    with pytest.raises(error, match=words):
        model.fit(X, y)


def test_svc_on_three_classes_is_libsvms_one_vs_one():
    """SVC with more than two classes votes over its pairs as LIBSVM: the pair
    values, the ovr scores and the labels are scikit-learn's."""
    X, y = make_blobs(90, centers=3, cluster_std=2.0, random_state=0)
    for shape in ("ovo", "ovr"):
        ours = SVC(C=2.0, gamma=0.7, tol=1e-10, decision_function_shape=shape)
        ref = SklearnSVC(C=2.0, gamma=0.7, tol=1e-10, decision_function_shape=shape)
        ours.fit(X, y), ref.fit(X, y)
        np.testing.assert_allclose(
            ours.decision_function(X), ref.decision_function(X), atol=1e-5
        )
        np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
        np.testing.assert_array_equal(ours.n_support_, ref.n_support_)
        np.testing.assert_array_equal(ours.support_, ref.support_)


def test_block_method_converges_when_own_entries_sit_at_C():
    """Six spiral arms at a small width: many blocks have their own entry at C.
    A rounded C(1 - 1e-16) once read as "below the bound" and stalled the
    sweeps at a KKT violation of 0.18 (regression)."""
    from svmlab.datasets import multiclass as multiclass

    X, y = multiclass.make_spiral(150, n_classes=6, random_state=0)
    K = gram(X, sigma=0.5)
    qp = crammer_singer.solve_qp(CSDual(K, y, 6, 1.0), tol=1e-8)
    blocks = crammer_singer.solve_blocks(CSDual(K, y, 6, 1.0), tol=1e-4, max_iter=3000)
    assert blocks.converged and blocks.n_iter < 3000
    at_C = blocks.alpha[np.arange(150), y] == 1.0
    assert at_C.sum() > 10
    assert blocks.objective == pytest.approx(qp.objective, rel=1e-6)


def test_ovr_scores_and_votes_break_exact_ties_as_scikit_learn():
    """A very narrow kernel: far from the points every pair value is its
    intercept, 0 for one pair. scikit-learn's "ovr" scores count that 0 for
    the first class, LIBSVM's vote (predict) for the second: the two disagree
    there, and both are scikit-learn's."""
    X, y = make_blobs(random_state=42, n_samples=20, n_features=2)
    g = np.linspace(-10.0, 10.0, 40)
    grid = np.array(np.meshgrid(g, g)).reshape(2, -1).T
    for ties in (False, True):
        kw = {"kernel": "rbf", "gamma": 1e6, "break_ties": ties}
        ours, ref = SVC(**kw).fit(X, y), SklearnSVC(**kw).fit(X, y)
        np.testing.assert_allclose(
            ours.decision_function(grid), ref.decision_function(grid), atol=1e-9
        )
        np.testing.assert_array_equal(ours.predict(grid), ref.predict(grid))
    assert np.any(
        ours.predict(grid) != SVC(kernel="rbf", gamma=1e6).fit(X, y).predict(grid)
    )


def test_n_iter_is_one_count_per_pair():
    X, y = make_blobs(60, centers=4, random_state=1)
    assert SVC().fit(X, y).n_iter_.shape == (6,)
    assert isinstance(SVC().fit(X, y % 2).n_iter_, int)
