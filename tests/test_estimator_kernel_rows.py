"""``svmlab.SVC`` with SMO and no Gram matrix handed in (issue 16): the fit works
from kernel rows on demand and never forms the n x n matrix; the answer equals
the one from a precomputed K and scikit-learn's; the iteration cap scales."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from sklearn.svm import SVC as LibSVC

import svmlab.svm.classifier as estimator_module
import svmlab.svm.kernel_spec as kernel_spec_module
from svmlab import SVC, datasets, solvers
from svmlab.errors import SvmlabError
from svmlab.kernels import KernelRows, gamma_from_sigma, gram
from svmlab.solvers import smo
from tests.conftest import relative_difference as _rel


@pytest.fixture(scope="module")
def circles():
    return datasets.make_two_circles(300, random_state=5)


@pytest.fixture()
def gram_calls(monkeypatch):
    """The shapes of every Gram matrix the estimator computes."""
    shapes: list[tuple[int, int]] = []

    def recording_gram(X, Z=None, **kwargs):
        K = gram(X, Z, **kwargs)
        shapes.append(K.shape)
        return K

    monkeypatch.setattr(kernel_spec_module, "gram", recording_gram)
    return shapes


@pytest.mark.parametrize("bias", ["unregularized", "regularized", "none"])
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_smo_fit_without_gram_equals_fit_with_it(circles, gram_calls, bias, loss):
    X, y = circles
    n = X.shape[0]
    kw = {"C": 20.0, "sigma": 0.5, "loss": loss, "bias": bias, "tol": 1e-8}
    lazy = SVC(solver="smo", **kw).fit(X, y)
    assert (n, n) not in gram_calls  # the fit never formed the full matrix
    dense = SVC(solver="smo", **kw).fit(X, y, K=gram(X, sigma=0.5))
    assert lazy.converged_ and dense.converged_
    assert np.abs(lazy.alpha_ - dense.alpha_).max() <= 1e-6 * 20.0
    f_lazy, f_dense = lazy.decision_function(X), dense.decision_function(X)
    assert np.abs(f_lazy - f_dense).max() <= 1e-6
    # The fitted margins come from the rows too: they must equal y f(x).
    np.testing.assert_allclose(
        lazy.margins_, np.where(y > 0, 1, -1) * f_lazy, atol=1e-9
    )


def test_other_solvers_still_get_the_gram_matrix(circles, gram_calls):
    X, y = circles
    SVC(solver="qp", C=5.0, sigma=0.5).fit(X, y)
    assert (X.shape[0], X.shape[0]) in gram_calls


def test_default_smo_fit_agrees_with_libsvm_to_1e6(circles):
    X, y = circles
    ours = SVC(C=10.0, sigma=0.5, tol=1e-8).fit(X, y)
    assert ours.solver_ == "smo"
    lib = LibSVC(C=10.0, gamma=gamma_from_sigma(0.5), tol=1e-8).fit(X, y)
    assert _rel(ours.decision_function(X), lib.decision_function(X)) < 1e-6


def test_max_iter_none_is_smos_scaled_cap_and_a_number_is_kept(circles, monkeypatch):
    X, y = circles
    seen: list[object] = []
    real = smo.SPEC.solve

    def recording(problem, **kwargs):
        seen.append(kwargs["max_iter"])
        return real(problem, **kwargs)

    spec = dataclasses.replace(smo.SPEC, solve=recording)
    monkeypatch.setitem(solvers.SOLVERS, "smo", spec)
    SVC(solver="smo", C=1.0, sigma=0.5).fit(X, y)
    SVC(solver="smo", C=1.0, sigma=0.5, max_iter=500).fit(X, y)
    assert seen == [None, 500]  # None: smo.max_iterations(n), 10^7 here
    capped = SVC(solver="qp", C=1.0, sigma=0.5)
    assert capped._iteration_cap("qp") == estimator_module.ITERATION_CAP


@pytest.mark.parametrize(
    ("X", "params"),
    [
        ([[1e200, 1.0], [-1e200, 2.0], [1.0, 1e200]], {"kernel": "linear"}),
        ([[1e200, 1.0], [-1e200, 2.0], [1.0, 1e200]], {"kernel": "polynomial"}),
        ([[1.0, 2.0], [3.0, 4.0]], {"kernel": "polynomial", "coef0": 1e308}),
        ([[-2.0, 4.0], [1.0, 0.5]], {"kernel": "polynomial", "degree": 234}),
    ],
    ids=["linear_overflow", "poly_overflow", "poly_coef0", "poly_degree"],
)
def test_kernel_rows_refuse_what_gram_refuses_with_its_sentence(X, params):
    X = np.array(X)
    with pytest.raises(SvmlabError) as from_gram:
        gram(X, **params)
    with pytest.raises(type(from_gram.value)) as from_rows:
        KernelRows(X, **params)
    assert str(from_rows.value) == str(from_gram.value)


def test_reads_points_says_when_the_spec_depends_on_the_data():
    """SVC.fit builds the kernel's spec once where it does not depend on X
    (issue 48): reads_points is True exactly where kernel_spec without the
    points and with them differ, over both spellings and every kernel."""
    from itertools import product
    from types import SimpleNamespace

    from svmlab.svm.kernel_spec import kernel_spec, reads_points

    X = np.random.default_rng(0).normal(size=(20, 3)) * 3.0
    kernels = ["rbf", "poly", "linear", "sigmoid", "gaussian", "polynomial"]
    seen = set()
    for kernel, gamma, sigma, degree in product(
        [*kernels, "precomputed"], [None, "scale", "auto", 0.3], [None, 0.7], [3, 2]
    ):
        owner = SimpleNamespace(
            kernel=kernel, gamma=gamma, sigma=sigma, degree=degree, coef0=None,
            scale=None,
        )  # fmt: skip
        try:
            alone = kernel_spec(owner)
        except Exception:
            continue  # a mix of spellings: refused either way
        differs = alone != kernel_spec(owner, X)
        assert reads_points(owner) == differs, owner
        seen.add(differs)
    assert seen == {True, False}
