"""svmlab.svm.fit_checks: what SVC.fit checks around a solve (issue 29, item 4: a
Gram matrix handed in is checked once per matrix, and the model's margins come
from the solver's own K (alpha y))."""

from __future__ import annotations

import numpy as np
import pytest

from svmlab import SVC
from svmlab.datasets import make_two_circles
from svmlab.errors import DataError
from svmlab.kernels import gram
from svmlab.svm import fit_checks


@pytest.fixture
def full_checks(monkeypatch) -> list[int]:
    """Every full (O(n^2)) check of a handed-in Gram matrix, recorded."""
    real = fit_checks._full_check
    calls: list[int] = []

    def counted(K):
        calls.append(id(K))
        return real(K)

    monkeypatch.setattr(fit_checks, "_full_check", counted)
    fit_checks._CHECKED_GRAMS.clear()
    return calls


def test_a_gram_matrix_is_checked_once_along_a_C_path(full_checks):
    X, y = make_two_circles(60, random_state=0)
    K = gram(X, sigma=0.5)
    alpha = None
    for C in (0.1, 1.0, 10.0, 100.0):
        model = SVC(C=C, sigma=0.5).fit(X, y, K=K, init=alpha)
        alpha = model.alpha_
    assert full_checks == [id(K)]
    # Another matrix (a copy) is checked on its own.
    SVC(C=1.0, sigma=0.5).fit(X, y, K=K.copy())
    assert len(full_checks) == 2


def test_a_matrix_edited_in_place_is_checked_again_and_refused(full_checks):
    X, y = make_two_circles(40, random_state=1)
    K = gram(X, sigma=0.5)
    SVC(sigma=0.5).fit(X, y, K=K)
    K[0, 1] += 0.5  # the first row is part of the fingerprint
    with pytest.raises(DataError, match="not symmetric"):
        SVC(sigma=0.5).fit(X, y, K=K)
    assert len(full_checks) == 2


def test_the_full_check_is_an_option(full_checks):
    X, _ = make_two_circles(30, random_state=2)
    K = gram(X, sigma=0.5)
    fit_checks.check_gram(K, 30)
    fit_checks.check_gram(K, 30)
    fit_checks.check_gram(K, 30, full=True)
    assert len(full_checks) == 2


@pytest.mark.parametrize(
    ("loss", "solver", "bias"),
    [
        ("hinge", "smo", "unregularized"),
        ("hinge", "smo", "regularized"),
        ("squared_hinge", "smo", "none"),
        ("modified_hinge", "entropy_dual", "unregularized"),
        ("modified_hinge", "entropy_dual", "none"),
    ],
)
def test_margins_from_the_solver_equal_a_fresh_kernel_product(loss, solver, bias):
    X, y = make_two_circles(80, random_state=3)
    model = SVC(C=10.0, sigma=0.5, loss=loss, solver=solver, bias=bias).fit(X, y)
    f = model.decision_function(X)
    np.testing.assert_allclose(model.margins_, model.y_fit_ * f, atol=1e-9)
    K = gram(X, sigma=0.5) + (1.0 if bias == "regularized" else 0.0)
    f_fresh = K @ (model.alpha_ * model.y_fit_) + model.solution_.b
    np.testing.assert_allclose(model.solution_.kernel_part + model.solution_.b,
                               f_fresh, atol=1e-9)  # fmt: skip


def _numpy_bound(diag, alpha) -> float:
    """numerical_notes' bound as the NumPy formula it was."""
    with np.errstate(over="ignore", invalid="ignore"):
        return float(np.abs(diag).max(initial=0.0)) * float(np.abs(alpha).sum())


def _numpy_finite(alpha, y, part, b) -> bool:
    """_surely_finite's test as the NumPy formula it was."""
    with np.errstate(over="ignore", invalid="ignore"):
        coef = float(np.abs(alpha).max(initial=0.0)) * float(np.abs(y).max(initial=0.0))
        f = float(np.abs(part).max(initial=0.0)) + abs(b)
    return bool(np.isfinite(coef) and np.isfinite(f))


def _special(rng: np.random.Generator, n: int) -> np.ndarray:
    """n numbers over 600 decades or (so that the order of a sum shows) over
    16, some NaN, infinite, -0.0 or huge."""
    decades = 300 if rng.random() < 0.3 else 8
    v = rng.standard_normal(n) * 10.0 ** rng.integers(-decades, decades, n)
    for value in (np.nan, np.inf, -np.inf, -0.0, 1e308):
        if rng.random() < 0.15 and n:
            v[rng.integers(n)] = value
    return v


def test_the_compiled_bounds_are_the_numpy_formulas():
    """The rounding bound of the notes (max |K_kk| sum |alpha|, NumPy's
    pairwise sum) and the finiteness test's maxima, compiled (issue 48), give
    the NumPy formulas' numbers on finite, huge, infinite and NaN entries."""
    rng = np.random.default_rng(48)
    for trial in range(3000):
        n = int(rng.integers(0, 300 if trial % 10 == 0 else 30))
        diag, alpha, y, part = (_special(rng, n) for _ in range(4))
        b = float(rng.choice([0.0, 1.5, np.inf, np.nan, -1e308]))
        got = fit_checks._max_abs_times_sum(diag, alpha)
        want = _numpy_bound(diag, alpha)
        assert got == want or (np.isnan(got) and np.isnan(want)), trial
        assert fit_checks._finite_bounds(alpha, y, part, b) == _numpy_finite(
            alpha, y, part, b
        ), trial
