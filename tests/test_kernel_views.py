"""Kernel views: the explicit degree-2 feature map, the lift's plane, the bump."""

from __future__ import annotations

import numpy as np
import pytest

from svmlab import SVC, datasets, kernels
from svmlab.errors import ParameterError
from svmlab.kernel_views import bump, gram_order, lift, poly2_features


def test_feature_map_reproduces_the_kernel() -> None:
    rng = np.random.default_rng(0)
    X, Z = rng.normal(size=(7, 2)), rng.normal(size=(5, 2))
    K = kernels.gram(X, Z, kernel="polynomial", degree=2, coef0=0.0)
    np.testing.assert_allclose(
        poly2_features(X) @ poly2_features(Z).T, K, rtol=1e-12, atol=1e-14
    )


@pytest.mark.parametrize(
    ("dataset", "bias"), [("two_circles", "unregularized"), ("moons", "regularized")]
)
def test_plane_separates_exactly_the_points_the_2d_model_gets_right(
    dataset: str, bias: str
) -> None:
    X, y = datasets.make(dataset, n_samples=120, noise=0.1, random_state=2)
    model = SVC(kernel="polynomial", degree=2, coef0=0.0, C=1.0, bias=bias)
    model.fit(X, y)
    lifted = lift(model, X, y)
    # The plane in 3-D is the 2-D boundary: same side, point for point.
    np.testing.assert_allclose(
        lifted.Phi @ lifted.w + lifted.b, model.decision_function(X), atol=1e-9
    )
    correct = model.predict(X) == y
    assert 0 < correct.sum() < y.size  # some points on each side of the question
    np.testing.assert_array_equal(lifted.side == y, correct)


def test_lift_refuses_other_kernels_and_bump_is_one_term_of_f() -> None:
    X, y = datasets.make_two_circles(40, random_state=1)
    model = SVC(kernel="gaussian", sigma=0.4, C=10.0).fit(X, y)
    with pytest.raises(ParameterError):
        lift(model, X, y)
    grid = np.array([[0.0, 0.0], [0.3, -0.2], [1.0, 1.0]])
    total = sum(bump(model, X, y, i, grid) for i in range(y.size))
    np.testing.assert_allclose(
        total + model.intercept_[0], model.decision_function(grid), atol=1e-9
    )


def test_gram_order() -> None:
    y = np.array([-1.0, 1.0, -1.0, 1.0])
    alpha = np.array([0.5, 0.1, 0.9, 0.3])
    assert gram_order(y, alpha, "class").tolist() == [3, 1, 2, 0]
    assert gram_order(y, alpha, "alpha").tolist() == [2, 0, 3, 1]
