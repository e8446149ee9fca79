"""Exact leave-one-out and k-fold CV on the entropy dual: warm-started refits
(from the full solution, on the full Gram matrix) against cold refits of every
point, for the modified hinge in every bias mode (the Model selection page
offers "none" and "regularized"; "unregularized" is where a left-out
multiplier has to be redistributed)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold

from svmlab import SVC
from svmlab.datasets import make_two_circles
from svmlab.experiments import selection
from svmlab.kernels import gram
from svmlab.solvers import entropy_refit
from svmlab.solvers.entropy_refit import Refitter
from tests.conftest import cold_margins

BIASES = ("none", "regularized", "unregularized")


@pytest.fixture(scope="module")
def circles():
    X, y = make_two_circles(40, random_state=4)
    return X, y


def estimator(bias: str, delta: float = 1e-4, C: float = 10.0, **kw) -> SVC:
    return SVC(
        C=C,
        sigma=0.6,
        loss="modified_hinge",
        delta=delta,
        bias=bias,
        tol=kw.pop("tol", 1e-9),
        **kw,
    )


def check_warm_loo_equals_cold(est: SVC, X, y) -> None:
    result = selection.loo_cv_score(est, X, y)
    cold = cold_margins(est, X, y)
    np.testing.assert_allclose(result.margins, cold, atol=1e-6)
    assert result.error == selection.misclassification(cold)
    assert result.converged


@pytest.mark.parametrize("bias", BIASES)
@pytest.mark.parametrize(("delta", "C"), [(1e-4, 10.0), (0.1, 100.0), (1e-4, 1.0)])
def test_warm_loo_equals_cold_refits_of_every_point(circles, bias, delta, C):
    X, y = circles
    est = estimator(bias, delta=delta, C=C)
    assert SVC(**est.get_params()).fit(X, y).solver_ == "entropy_dual"
    check_warm_loo_equals_cold(est, X, y)


def test_dropping_the_redistributed_multiplier_is_caught(circles, monkeypatch):
    """The planted bug: leave the left-out point's multiplier out of y'a = 0's
    bookkeeping (no redistribution). The pair steps keep y'a where the start
    put it, so each refit solves another problem, and the comparison with cold
    refits fails."""
    X, y = circles
    est = estimator("unregularized")
    original = entropy_refit.remove_points

    def no_redistribution(*args):
        return original(*args[:-1], False)

    monkeypatch.setattr(entropy_refit, "remove_points", no_redistribution)
    with pytest.raises(AssertionError):
        check_warm_loo_equals_cold(est, X, y)


@pytest.mark.parametrize("bias", BIASES)
def test_seeded_folds_equal_cold_folds(circles, bias):
    X, y = circles
    est = estimator(bias, delta=0.01)
    result = selection.kfold_cv_score(est, X, y, n_splits=4, random_state=1)
    folds = StratifiedKFold(4, shuffle=True, random_state=1).split(X, y)
    margins = cold_margins(est, X, y, folds)
    np.testing.assert_allclose(result.margins, margins, atol=1e-6)
    assert result.n_fits == 5  # the full fit that seeds the folds, and 4 folds
    assert result.converged


def test_hinge_folds_are_seeded_too_and_equal_cold_folds(circles):
    X, y = circles
    est = SVC(C=5.0, sigma=0.6, loss="hinge", solver="smo", tol=1e-10)
    result = selection.kfold_cv_score(est, X, y, n_splits=4, random_state=2)
    folds = StratifiedKFold(4, shuffle=True, random_state=2).split(X, y)
    margins = cold_margins(est, X, y, folds)
    np.testing.assert_allclose(result.margins, margins, atol=1e-6)


@pytest.mark.parametrize("pair", [False, True])
def test_warm_refits_take_fewer_steps_than_cold_ones(pair):
    X, y = make_two_circles(80, random_state=0)
    y = y.astype(float)
    K = gram(X, sigma=0.5)
    est = SVC(
        C=50.0,
        sigma=0.5,
        loss="modified_hinge",
        delta=1e-4,
        bias="unregularized" if pair else "none",
        tol=1e-6,
    ).fit(X, y)
    refitter = Refitter(
        K, y, 50.0, 1e-4, 1e-6, pair, est.alpha_, la=est.solution_.extras["log_alpha"]
    )
    state = refitter.state

    def work(warm: bool, i: int) -> tuple[float, bool, int]:
        # Coordinate steps, and a Newton iteration counted as n of them.
        before = state.newton_steps
        f, ok = refitter.refit(np.array([i]), warm=warm)
        return f[0], ok, state.it + 80 * (state.newton_steps - before)

    warm = cold = 0
    for i in range(0, 80, 8):
        f_warm, ok_warm, w = work(True, i)
        f_cold, ok_cold, c = work(False, i)
        warm, cold = warm + w, cold + c
        assert ok_warm and ok_cold
        assert f_warm == pytest.approx(f_cold, abs=1e-4)
    assert warm < cold / 3


def test_lee_experiment_exact_column_is_converged_exact_loo(circles):
    """The Lee experiment's ``irwls_loo`` column is exact leave-one-out: fits
    and refits meet the KKT measure (the entropy dual), not Lee's rule."""
    from svmlab.experiments import lee2006

    X, y = circles
    exact = lee2006.exact_loo_estimator(C=10.0, lee_sigma2=0.7)
    assert exact.solver == "entropy_dual" and exact.bias == "none"
    result = selection.loo_cv_score(exact, X, y)
    assert result.converged
    np.testing.assert_allclose(result.margins, cold_margins(exact, X, y), atol=1e-6)
