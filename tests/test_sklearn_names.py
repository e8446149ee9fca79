"""scikit-learn's names and values on svmlab's SVMs (issue 48, item 1), each
against scikit-learn's own estimator (LIBSVM) on the same data: kernel names,
gamma, callables and precomputed kernels, sample weights, sparse input, more
than two classes and the fitted attributes' layouts. scikit-learn's whole SVM
test suite with svmlab in its place is tests/test_sklearn_svm_suite.py (slow)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import svm as sk
from sklearn.datasets import load_iris, make_regression

import svmlab
from svmlab.errors import ParameterError

TIGHT = 1e-10


@pytest.fixture(scope="module")
def iris():
    data = load_iris()
    return data.data, data.target


def _close(a, b, atol: float = 1e-5) -> None:
    a = a.toarray() if sp.issparse(a) else np.asarray(a)
    b = b.toarray() if sp.issparse(b) else np.asarray(b)
    np.testing.assert_allclose(a, b, atol=atol * max(1.0, np.abs(b).max()))


@pytest.mark.parametrize(
    "params",
    [
        {"kernel": "rbf"},
        {"kernel": "rbf", "gamma": "auto"},
        {"kernel": "rbf", "gamma": 0.3},
        {"gamma": 0.3},  # the default kernel with gamma is scikit-learn's rbf
        {"kernel": "poly", "gamma": 0.5, "degree": 2, "coef0": 1.0},
        {"kernel": "sigmoid", "gamma": 0.05, "coef0": -0.5},
        {"kernel": "linear"},
    ],
    ids=str,
)
def test_kernel_names_and_gamma_are_scikit_learns(iris, params):
    X, y = iris
    ours = svmlab.SVC(C=3.0, tol=TIGHT, **params).fit(X, y)
    ref = sk.SVC(C=3.0, tol=TIGHT, **params).fit(X, y)
    # LIBSVM keeps its kernel cache in float32: about 1e-4 of f at these sizes.
    _close(ours.decision_function(X), ref.decision_function(X), atol=2e-4)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    np.testing.assert_array_equal(ours.support_, ref.support_)
    np.testing.assert_array_equal(ours.n_support_, ref.n_support_)
    assert ours.dual_coef_.shape == ref.dual_coef_.shape
    # A linear kernel in 4-D is near-degenerate on iris: alpha moves more than w.
    loose = 1e-3 if params.get("kernel") == "linear" else 1e-4
    _close(ours.dual_coef_, ref.dual_coef_, atol=loose)
    _close(ours.intercept_, ref.intercept_, atol=loose)
    if params.get("kernel") == "linear":  # w is unique; LIBSVM's is float32's
        _close(ours.coef_, ref.coef_, atol=1e-3)


def test_precomputed_and_callable_kernels_are_the_linear_one(iris):
    X, y = iris
    ref = sk.SVC(kernel="linear", tol=TIGHT).fit(X, y)
    pre = svmlab.SVC(kernel="precomputed", tol=TIGHT).fit(X @ X.T, y)
    call = svmlab.SVC(kernel=lambda a, b: a @ b.T, tol=TIGHT).fit(X, y)
    _close(pre.decision_function(X @ X.T), ref.decision_function(X))
    _close(call.decision_function(X), ref.decision_function(X))
    np.testing.assert_array_equal(pre.support_, ref.support_)
    assert pre.support_vectors_.size == 0  # no points for a precomputed kernel


def test_sample_weight_multiplies_c_and_zero_leaves_a_point_out(iris):
    X, y = iris
    w = np.random.default_rng(0).uniform(0.0, 3.0, y.size)
    w[::7] = 0.0
    for ours, ref in [(svmlab.SVC, sk.SVC), (svmlab.SVR, sk.SVR)]:
        target = y if ours is svmlab.SVC else X[:, 0]
        a = ours(kernel="rbf", tol=TIGHT).fit(X, target, sample_weight=w)
        b = ref(kernel="rbf", tol=TIGHT).fit(X, target, sample_weight=w)
        f = a.decision_function(X) if ours is svmlab.SVC else a.predict(X)
        g = b.decision_function(X) if ours is svmlab.SVC else b.predict(X)
        _close(f, g)
        assert not set(np.flatnonzero(w == 0)) & set(a.support_)


def test_sparse_input_gives_the_dense_fit_in_sparse_layouts(iris):
    X, y = iris
    dense = svmlab.SVC(kernel="linear", tol=TIGHT).fit(X, y)
    sparse = svmlab.SVC(kernel="linear", tol=TIGHT).fit(sp.csr_matrix(X), y)
    ref = sk.SVC(kernel="linear", tol=TIGHT).fit(sp.csr_matrix(X), y)
    _close(sparse.decision_function(sp.csr_matrix(X)), dense.decision_function(X))
    for name in ("support_vectors_", "dual_coef_", "coef_"):
        assert sp.issparse(getattr(sparse, name)) == sp.issparse(getattr(ref, name))


@pytest.mark.parametrize(
    ("ours", "ref"),
    [
        (svmlab.NuSVC(kernel="rbf", nu=0.3), sk.NuSVC(kernel="rbf", nu=0.3)),
        (svmlab.SVC(kernel="rbf", C=0.5), sk.SVC(kernel="rbf", C=0.5)),
    ],
    ids=["NuSVC", "SVC"],
)
def test_three_classes_in_libsvms_layout(iris, ours, ref):
    X, y = iris
    ours.set_params(tol=TIGHT).fit(X, y)
    ref.set_params(tol=TIGHT).fit(X, y)
    np.testing.assert_array_equal(ours.support_, ref.support_)
    np.testing.assert_array_equal(ours.n_support_, ref.n_support_)
    if isinstance(ours, svmlab.SVC):
        # (NuSVC's alphas here split freely between iris's duplicate points.)
        _close(ours.dual_coef_, ref.dual_coef_, atol=1e-4)
    assert ours.dual_coef_.shape == ref.dual_coef_.shape
    _close(ours.intercept_, ref.intercept_, atol=1e-4)
    _close(ours.support_vectors_, ref.support_vectors_)
    assert ours.fit_status_ == 0 and ours.shape_fit_ == X.shape
    for shape in ("ovo", "ovr"):
        ours.set_params(decision_function_shape=shape)
        ref.set_params(decision_function_shape=shape)
        _close(ours.decision_function(X), ref.decision_function(X), atol=1e-4)


def test_regressors_and_one_class_have_scikit_learns_attributes():
    X, t = make_regression(60, 3, noise=5.0, random_state=0)
    for ours, ref in [
        (svmlab.SVR(kernel="linear", C=10.0), sk.SVR(kernel="linear", C=10.0)),
        (svmlab.NuSVR(kernel="linear"), sk.NuSVR(kernel="linear")),
    ]:
        ours.set_params(tol=TIGHT).fit(X, t)
        ref.set_params(tol=TIGHT).fit(X, t)
        _close(ours.coef_, ref.coef_, atol=1e-4)
        np.testing.assert_array_equal(ours.n_support_, ref.n_support_)
    ours = svmlab.OneClassSVM(kernel="rbf", nu=0.2, tol=TIGHT).fit(X)
    ref = sk.OneClassSVM(kernel="rbf", nu=0.2, tol=TIGHT).fit(X)
    _close(ours.decision_function(X), ref.decision_function(X))
    np.testing.assert_array_equal(ours.n_support_, ref.n_support_)


def test_probability_is_platt_per_pair_as_libsvm(iris):
    """LIBSVM's folds are its own random ones, so the sigmoids agree loosely;
    the probabilities are each row's distribution and follow the classes."""
    X, y = iris
    ours = svmlab.SVC(kernel="rbf", probability=True, random_state=0).fit(X, y)
    ref = sk.SVC(kernel="rbf", probability=True, random_state=0).fit(X, y)
    p, q = ours.predict_proba(X), ref.predict_proba(X)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-12)
    assert np.abs(p - q).max() < 0.15
    assert np.mean(p.argmax(axis=1) == y) >= 0.95


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"kernel": "rbf", "sigma": 1.0}, "sigma is svmlab's spelling"),
        ({"kernel": "polynomial", "gamma": 0.5}, "kernel='poly'"),
        ({"gamma": 0.5, "sigma": 2.0}, "gamma and sigma are both given"),
        ({"kernel": "rbf", "gamma": -1.0}, "gamma must be a positive"),
    ],
)
def test_one_spelling_at_a_time(iris, params, words):
    X, y = iris
    with pytest.raises(ParameterError, match=words):
        svmlab.SVC(**params).fit(X, y)
