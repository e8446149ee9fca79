"""The hinge's and squared hinge's KKT measure, compiled in one pass (issue 48),
against the NumPy formulas it replaces (svmlab.solvers.base._box_violation and
_alpha_eps, still used for the ramp and wherever a NaN appears): the same
number to the bit, on random points in and outside the box, at the bounds,
with one C or a C per point, with and without the bias's equality."""

from __future__ import annotations

import numpy as np
import pytest

from svmlab.losses import make_loss
from svmlab.solvers import base
from svmlab.solvers.base import Problem, kkt_violation


def _numpy_kkt(problem: Problem, alpha, Kc, monkeypatch) -> float:
    with monkeypatch.context() as patch:
        patch.setattr(base, "_box_kkt_compiled", lambda *args, **kw: None)
        return kkt_violation(problem, alpha, 0.0, Kc=Kc)


def _random_case(rng: np.random.Generator, loss: str, intercept: bool):
    n = int(rng.integers(1, 40))
    y = rng.choice([-1.0, 1.0], n)
    C = float(rng.choice([0.5, 1.0, 10.0, 1e10]))
    w = None if rng.random() < 0.5 else rng.uniform(0.1, 3.0, n)
    costs = np.broadcast_to(C if w is None else C * w, (n,))
    draw = rng.random(n)
    alpha = rng.uniform(-0.1, 1.1, n) * costs
    alpha[draw < 0.3] = 0.0
    alpha = np.where(draw > 0.8, costs, alpha)  # exactly at C
    # Within the bounds' rounding allowance (1e-9 relative) of C and of 0.
    alpha = np.where((draw > 0.3) & (draw < 0.4), costs * (1.0 - 1e-12), alpha)
    alpha = np.where((draw > 0.4) & (draw < 0.5), costs * 1e-13, alpha)
    if rng.random() < 0.5:
        alpha = np.clip(alpha, 0.0, costs)
    problem = Problem(
        K=None, y=y, loss=make_loss(loss), C=C, fit_intercept=intercept, weights=w
    )
    return problem, np.ascontiguousarray(alpha), rng.normal(size=n)


@pytest.mark.parametrize("intercept", [True, False])
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_the_compiled_measure_is_the_numpy_formulas(loss, intercept, monkeypatch):
    rng = np.random.default_rng(48)
    for _ in range(400):
        problem, alpha, Kc = _random_case(rng, loss, intercept)
        expected = _numpy_kkt(problem, alpha, Kc, monkeypatch)
        assert base._box_kkt_compiled(problem, alpha, Kc, squared=loss != "hinge") == (
            expected
        )
        assert kkt_violation(problem, alpha, 0.0, Kc=Kc) == expected


def test_a_nan_is_left_to_the_numpy_formulas(monkeypatch):
    """A NaN coefficient is never read as optimal: the compiled pass declines
    and the NumPy reductions carry the NaN (so converged = kkt <= tol fails)."""
    rng = np.random.default_rng(1)
    problem, alpha, Kc = _random_case(rng, "hinge", True)
    alpha[0] = np.nan
    assert base._box_kkt_compiled(problem, alpha, Kc, squared=False) is None
    assert not kkt_violation(problem, alpha, 0.0, Kc=Kc) <= 1e-3
