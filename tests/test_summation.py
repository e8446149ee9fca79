"""The compiled passes that replace NumPy formulas in SMO's closing step (issue
48) give NumPy's numbers to the bit: NumPy's pairwise summation order
(svmlab.compiled.summation) against ``np.sum`` itself; the compiled intercept
(svmlab.solvers.base.box_intercept) against the NumPy formula
``intercept_from_gradient``; and the KKT number SMO hands its result against
``kkt_violation`` recomputed from the result's own ``K (alpha y)``."""

from __future__ import annotations

import numpy as np
import pytest

from svmlab import SVC
from svmlab.compiled.summation import numpy_sum
from svmlab.kernels import gram
from svmlab.losses import make_loss
from svmlab.solvers.base import (
    Problem,
    box_intercept,
    intercept_from_gradient,
    kkt_violation,
)


def _same(x: float, y: float) -> bool:
    """Equal to the bit: the same number and the same sign of zero."""
    return x == y and np.signbit(x) == np.signbit(y)


# Lengths on both sides of NumPy's thresholds: 8 (the running sums), 128
# (a block) and the splits above it (at half, rounded down to a multiple of 8).
LENGTHS = [0, 1, 7, 8, 9, 15, 16, 127, 128, 129, 136, 255, 256, 257, 1000, 4099]


@pytest.mark.parametrize("n", LENGTHS)
def test_numpy_sum_is_np_sum_to_the_bit(n):
    rng = np.random.default_rng(n)
    for trial in range(60):
        # Magnitudes over 16 decades, so the order of the additions shows.
        a = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)
        if trial % 5 == 0:
            a[rng.random(n) < 0.5] = -0.0
        if trial % 7 == 0:
            a = np.full(n, -0.0)  # NumPy's sum of -0.0 is 0.0 (its identity)
        # Only the first n entries count.
        padded = np.concatenate([a, rng.standard_normal(3)])
        assert _same(numpy_sum(padded, n), float(np.sum(a)))


def test_numpy_sum_is_not_a_left_to_right_sum():
    """The reference would not see a plain loop: on these numbers the two
    orders differ, and numpy_sum takes NumPy's."""
    a = np.array([1.0, 1e16, -1e16] * 50)
    plain = 0.0
    for v in a:
        plain += v
    assert plain != float(np.sum(a))
    assert numpy_sum(a, a.size) == float(np.sum(a))


def _bounded_case(rng: np.random.Generator, n: int):
    y = rng.choice([-1.0, 1.0], n)
    U = rng.choice([0.5, 1.0, 7.0], n) * rng.uniform(0.5, 2.0, n)
    if rng.random() < 0.2:
        U[rng.random(n) < 0.3] = 0.0  # at both bounds at once
    if rng.random() < 0.2:
        U[:] = np.inf  # the squared hinge: no upper bound
    draw = rng.random(n)
    a = rng.uniform(0.0, 1.0, n) * np.where(np.isinf(U), 3.0, U)
    a[draw < 0.35] = 0.0
    a = np.where(draw > 0.7, U, a)
    if rng.random() < 0.3:  # no free point: LIBSVM's middle of the interval
        a = np.where(draw < 0.5, 0.0, U)
    a = np.where(np.isinf(a), 0.0, a)
    G = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 3, n)
    return y, a, G, U


def test_box_intercept_is_the_numpy_formula_to_the_bit():
    rng = np.random.default_rng(48)
    for trial in range(3000):
        n = int(rng.integers(1, 400 if trial % 10 == 0 else 40))
        y, a, G, U = _bounded_case(rng, n)
        expected = intercept_from_gradient(y, a, G, U, eps=0.0)
        assert _same(box_intercept(y, a, G, U), expected), (trial, n)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("bias", ["unregularized", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_smo_hands_on_the_kkt_check_of_its_result(loss, bias, weighted):
    """SMO computes the KKT number in its closing pass; it is what
    kkt_violation gives afresh on the returned alpha and K (alpha y), and the
    intercept is LIBSVM's rule on the returned gradient."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(70, 3))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=70) > 0, 1.0, -1.0)
    w = rng.uniform(0.2, 2.0, 70) if weighted else None
    model = SVC(C=2.0, sigma=1.5, loss=loss, bias=bias).fit(X, y, sample_weight=w)
    solution = model.solution_
    problem = Problem(
        K=gram(X, kernel="gaussian", sigma=1.5),
        y=y,
        loss=make_loss(loss),
        C=2.0,
        fit_intercept=bias == "unregularized",
        weights=w,
    )
    again = kkt_violation(problem, solution.alpha, solution.b, Kc=solution.kernel_part)
    assert solution.kkt == again
    assert solution.converged == (again <= model.tol)
    assert solution.extras["solver"] == "smo"
