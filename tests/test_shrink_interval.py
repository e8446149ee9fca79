"""The shrinking interval above 5,000 variables (issue 48): LIBSVM's counter up
to 5,000 points, then shrinking rounds held at LIBSVM's sweep at 5,000 points.

References that do not share the code: LIBSVM's ``min(l, 1000)`` (svm.cpp,
``Solver::Solve``) written out, the iteration count at which a round must fall,
and scikit-learn's SVC (its own LIBSVM) for the answers of the large fits."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import SVC as LibSVC

from svmlab import SVC, datasets
from svmlab.kernels import KernelRows, gamma_from_sigma
from svmlab.solvers.base import Budget
from svmlab.solvers.shrinking import BoxSMO, shrink_interval
from tests.conftest import relative_difference as _rel


def _rings(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Two circles with the band 0.5 <= r <= 0.75 left out: a gap of 0.25
    between the classes, few support vectors (the solvers benchmark's
    "well separated rings")."""
    X, y = datasets.make_two_circles(3 * n, random_state=0)
    r = np.hypot(X[:, 0], X[:, 1])
    keep = (r < 0.5) | (r > 0.75)
    return X[keep][:n], y[keep][:n]


@pytest.fixture(scope="module")
def rings():
    return _rings(20_000)


def test_up_to_5000_points_the_interval_is_libsvms_counter():
    # LIBSVM 3.37, Solver::Solve: counter = min(l, 1000).
    for n in [*range(1, 1200), 2000, 3333, 4999, 5000]:
        assert shrink_interval(n) == min(n, 1000), n


def test_above_5000_points_the_sweeps_between_rounds_stay_at_5000_points():
    # Between two rounds at most about 5,000 points x 1000 iterations swept,
    # as LIBSVM's counter at n = 5,000; never more often than every 100.
    for n in (5001, 6000, 10_000, 20_000, 33_333, 49_999):
        k = shrink_interval(n)
        assert k * n <= 5_000_000 < (k + 1) * n, n
    assert shrink_interval(20_000) == 250
    assert shrink_interval(50_000) == shrink_interval(10**6) == 100


def test_a_large_run_shrinks_at_the_interval(rings):
    X, y = rings
    n = y.shape[0]
    state = BoxSMO(y, -np.ones(n), 3.0, 0.0, True, kernel=KernelRows(X, sigma=0.5))
    # Capped before convergence (the fit takes about 1,000 iterations): with
    # rounds after iterations 250 and 500, two rounds by iteration 600; LIBSVM's
    # counter would have none yet, and every iteration would sweep all n.
    it, converged, _ = state.run(1e-3, 600, Budget())
    assert (it, converged) == (600, False)
    stats = state.stats
    assert stats["shrink_rounds"] == 2
    # 250 iterations over all n, then the few points left (24 SVs at the end).
    assert 250 * n <= stats["points_swept"] < 260 * n
    assert stats["active"] < n // 10


@pytest.mark.parametrize(
    ("n", "C"), [(20_000, 3.0), (8_000, 10.0)], ids=["rings", "noisy"]
)
def test_large_fits_agree_with_scikit_learn(n, C):
    # Shrinking early is only a guess: the final check on every point must
    # still hold, so the decision function is scikit-learn's to its tolerance.
    if n == 20_000:
        X, y = _rings(n)
    else:  # two circles with the coin-flip band: thousands of bound SVs
        X, y = datasets.make_two_circles(n, random_state=0)
    ours = SVC(C=C, sigma=0.5, tol=1e-6).fit(X, y)
    lib = LibSVC(C=C, gamma=gamma_from_sigma(0.5), tol=1e-6).fit(X, y)
    assert ours.solution_.extras["shrink_rounds"] > 1  # the new interval ran
    assert _rel(ours.decision_function(X), lib.decision_function(X)) < 1e-4
