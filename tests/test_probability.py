"""Platt scaling: A and B against a direct maximum-likelihood fit by SciPy on the
same decision values, the overflow-free forms, LIBSVM's internal
cross-validation, the meta-estimator's contract, and thresholds on f."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.svm
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.base import clone
from sklearn.metrics import roc_auc_score

from svmlab import SVC, NuSVC, PlattSVC, datasets
from svmlab.svm.probability import (
    cross_val_decision,
    roc,
    sigmoid_predict,
    sigmoid_train,
    threshold_report,
)
from tests.conftest import estimator_checks


def test_scikit_learn_estimator_checks():
    estimator_checks(PlattSVC())


def _direct_fit(f: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """The maximum-likelihood sigmoid by BFGS, written from Platt (1999): the
    cross-entropy against his targets (N+ + 1)/(N+ + 2) and 1/(N- + 2), with
    log(1 + exp) by numpy's logaddexp."""
    n_pos, n_neg = np.sum(y > 0), np.sum(y <= 0)
    t = np.where(y > 0, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))

    def nll(v):
        z = v[0] * f + v[1]  # p = 1 / (1 + exp(z)): -log p = log(1 + exp(z))
        return np.sum(t * np.logaddexp(0, z) + (1 - t) * np.logaddexp(0, -z))

    def grad(v):
        d = t - expit(-(v[0] * f + v[1]))  # d nll / dz = t - p
        return np.array([np.sum(d * f), np.sum(d)])

    best = minimize(nll, np.zeros(2), jac=grad, method="BFGS", tol=1e-12)
    return float(best.x[0]), float(best.x[1])


@pytest.mark.parametrize(
    ("data", "noise"), [("blobs", 1.5), ("moons", 0.3), ("two_circles", 0.1)]
)
def test_platt_a_and_b_equal_a_direct_maximum_likelihood_fit(data, noise):
    X, y = datasets.make(data, n_samples=200, noise=noise, random_state=1)
    f = cross_val_decision(SVC(C=2.0, sigma=0.6), X, y, random_state=0)
    fit = sigmoid_train(f, y, eps=1e-7)  # below, the Armijo test meets rounding
    A, B = _direct_fit(f, y)
    assert fit.converged
    assert fit.A < 0  # larger f, more likely +1
    assert fit.A == pytest.approx(A, rel=1e-6, abs=1e-8)
    assert fit.B == pytest.approx(B, rel=1e-6, abs=1e-8)
    # LIBSVM's own stopping rule (|gradient| < 1e-5) is close already.
    default = sigmoid_train(f, y)
    assert default.A == pytest.approx(A, rel=1e-3)


def test_separable_decision_values_keep_a_and_b_finite():
    # Platt's targets are never 0 or 1, so even perfectly separated values give
    # a finite sigmoid; huge |A f + B| must not overflow.
    f = np.r_[np.linspace(5, 50, 30), -np.linspace(5, 50, 30)]
    y = np.r_[np.ones(30), -np.ones(30)]
    fit = sigmoid_train(f, y)
    assert np.isfinite(fit.A) and np.isfinite(fit.B) and fit.A < 0
    p = sigmoid_predict(np.array([-1e6, -1e3, 0.0, 1e3, 1e6]), fit.A, fit.B)
    assert np.all(np.isfinite(p)) and np.all((p >= 0) & (p <= 1))
    np.testing.assert_allclose(p[[0, -1]], [0.0, 1.0], atol=1e-300)
    z = np.linspace(-700, 700, 41)
    np.testing.assert_allclose(sigmoid_predict(z, 1.0, 0.0), expit(-z), rtol=1e-14)


def test_cross_validation_is_libsvm_s_folds_each_unseen_by_its_model():
    X, y = datasets.make_blobs(60, noise=1.5, random_state=2)
    model = SVC(C=1.0)
    f = cross_val_decision(model, X, y, folds=5, random_state=7)
    np.testing.assert_array_equal(f, cross_val_decision(model, X, y, random_state=7))
    order = np.random.default_rng(7).permutation(60)
    test = order[12:24]  # the second of five blocks
    train = np.r_[order[:12], order[24:]]
    by_hand = clone(model).fit(X[train], y[train]).decision_function(X[test])
    np.testing.assert_allclose(f[test], by_hand, rtol=1e-12, atol=1e-12)
    # A training part with one class gives its block that class's sign: with
    # one positive point left out, the rest are all -1.
    y_one = np.where(np.arange(60) == 0, 1.0, -1.0)
    f_one = cross_val_decision(model, X, y_one, folds=60, random_state=0)
    assert f_one[0] == -1.0


def test_platt_svc_probabilities_are_a_monotone_squash_of_f():
    X, y = datasets.make_moons(150, noise=0.3, random_state=3)
    Xt, yt = datasets.make_moons(300, noise=0.3, random_state=4)
    model = PlattSVC(SVC(C=3.0, sigma=0.5), random_state=0).fit(X, y)
    proba = model.predict_proba(Xt)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    f = model.estimator_.decision_function(Xt)
    order = np.argsort(f)
    assert np.all(np.diff(proba[order, 1]) >= -1e-15)
    # p = 1/2 at f = -B/A; the prediction is the more probable class.
    assert np.all((proba[:, 1] > 0.5) == (f > -model.B_ / model.A_))
    assert np.mean(model.predict(Xt) == yt) > 0.8
    # Roughly calibrated: the mean probability of the +1 class matches its rate.
    assert np.mean(proba[:, 1]) == pytest.approx(np.mean(yt > 0), abs=0.08)
    # Any svmlab binary classifier works, with labels as text and class weights.
    labels = np.where(y > 0, "rare", "common")
    weighted = PlattSVC(SVC(class_weight={"rare": 3.0}), random_state=0)
    assert weighted.fit(X, labels).predict(Xt[:5]).dtype.kind == "U"
    assert PlattSVC(NuSVC(nu=0.4), random_state=0).fit(X, y).A_ < 0


@pytest.mark.parametrize("folds", [3, 7])
def test_platt_svc_uses_the_folds_it_is_given(folds):
    # Its cross-validated values are those of that many folds (a fit once used
    # 2 whatever ``folds`` said). The reference (issue 44, item 12: it was
    # cross_val_decision itself): LIBSVM's folds written out (one shuffle,
    # contiguous blocks k n / folds) and scikit-learn's SVC fitted on each.
    X, y = datasets.make_moons(60, noise=0.3, random_state=3)
    base = SVC(C=3.0, sigma=0.5, tol=1e-9)
    model = PlattSVC(base, folds=folds, random_state=1).fit(X, y)
    n = len(y)
    order = np.random.default_rng(1).permutation(n)
    expected = np.empty(n)
    for k in range(folds):
        test = order[k * n // folds : (k + 1) * n // folds]
        train = np.setdiff1d(order, test)
        reference = sklearn.svm.SVC(C=3.0, gamma=2.0, tol=1e-9).fit(X[train], y[train])
        expected[test] = reference.decision_function(X[test])
    np.testing.assert_allclose(model.cv_decision_, expected, atol=1e-5)


def test_thresholds_on_f_give_the_roc_points_without_refitting():
    X, y = datasets.make_blobs(120, noise=1.8, random_state=5)
    f = SVC(C=1.0).fit(X, y).decision_function(X)
    fpr, tpr, thresholds, auc = roc(f, y)
    assert auc == pytest.approx(roc_auc_score(y > 0, f))
    for k in (1, len(thresholds) // 2, len(thresholds) - 1):
        report = threshold_report(f, y, thresholds[k])
        assert (report.fpr, report.tpr) == pytest.approx((fpr[k], tpr[k]))
    at_zero = threshold_report(f, y, 0.0)
    assert at_zero.tp + at_zero.fn == np.sum(y > 0)
    assert at_zero.error == pytest.approx(np.mean((f >= 0) != (y > 0)))
    everything = threshold_report(f, y, -np.inf)
    assert (everything.tpr, everything.fpr) == (1.0, 1.0)
