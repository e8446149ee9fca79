"""Kernel views: the explicit degree-2 feature map, the lift's plane, the bump."""

from __future__ import annotations

import numpy as np
import pytest

from svmlab import SVC, datasets, kernels
from svmlab.errors import ParameterError
from svmlab.experiments.kernel_views import bump, gram_order, lift, poly2_features


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


def test_lift_figure_draws_the_classes_and_the_models_plane() -> None:
    """The 3-D figure: each class's lifted points where ``φ`` puts them, and the
    surface on the plane where the 2-D model's ``f`` is 0 (checked by the
    model's own decision function at the surface's points mapped back)."""
    import plotly.graph_objects as go

    from svmlab.figures import lift_figure

    X, y = datasets.make("two_circles", n_samples=80, random_state=1)
    model = SVC(kernel="polynomial", degree=2, coef0=0.0, C=1.0).fit(X, y)
    fig = lift_figure(lift(model, X, y), y, scale=1.5)
    go.Figure(fig.to_dict())  # validated
    points = {t.name: t for t in fig.data if t.type == "scatter3d"}
    assert list(points) == ["class +1", "class −1"]
    for name, sign in (("class +1", 1.0), ("class −1", -1.0)):
        P = X[y == sign]
        expected = np.column_stack([P[:, 0] ** 2, np.sqrt(2) * P[:, 0] * P[:, 1]])
        np.testing.assert_allclose(points[name].x, expected[:, 0], atol=1e-4)
        np.testing.assert_allclose(points[name].y, expected[:, 1], atol=1e-4)
        np.testing.assert_allclose(points[name].z, P[:, 1] ** 2, atol=1e-4)
        assert points[name].marker.size == 3.5 * 1.5
    (surface,) = [t for t in fig.data if t.type == "surface"]
    S = np.column_stack(
        [np.ravel(surface.x), np.ravel(surface.y), np.ravel(surface.z)]
    ).astype(float)
    S = S[np.all(np.isfinite(S), axis=1)]
    assert S.shape[0] > 50
    # The plane from the model alone: f(x) = w·φ(x) + b is linear in φ, so
    # (w, b) solve f at a few points by least squares.
    Z = np.random.default_rng(0).normal(size=(20, 2))
    A = np.column_stack([Z[:, 0] ** 2, np.sqrt(2) * Z[:, 0] * Z[:, 1], Z[:, 1] ** 2])
    wb = np.linalg.lstsq(
        np.column_stack([A, np.ones(20)]), model.decision_function(Z), rcond=None
    )
    w, b = wb[0][:3], wb[0][3]
    # On it, to the figure's rounding (4 decimals of each coordinate).
    assert np.abs(S @ w + b).max() < 1e-4 * np.abs(w).sum() + 1e-9
