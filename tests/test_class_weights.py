"""Class weights (a C per class) against scikit-learn's LIBSVM, between svmlab's
solvers, against the written-out weighted primal, and their plain errors."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn import svm as sk
from sklearn.utils.class_weight import compute_class_weight

from svmlab import SVC
from svmlab.errors import DataError, IncompatibleLossError, ParameterError
from svmlab.kernels import gamma_from_sigma, gram

TIGHT = 1e-10


def _imbalanced(n: int = 150, seed: int = 0):
    """Overlapping blobs with a 1:4 class ratio, and held-out points."""
    rng = np.random.default_rng(seed)
    n_pos = n // 5
    y = np.r_[np.ones(n_pos), -np.ones(n - n_pos)]
    X = rng.normal(size=(n, 2)) + 1.0 * y[:, None]
    Xt = rng.uniform(-3.0, 3.0, size=(300, 2))
    return X, y, Xt


@pytest.mark.parametrize(
    "class_weight", [{1.0: 4.0}, {-1.0: 0.5, 1.0: 3.0}, "balanced"], ids=str
)
@pytest.mark.parametrize("kernel", ["gaussian", "linear"])
def test_weighted_hinge_agrees_with_libsvm(class_weight, kernel):
    X, y, Xt = _imbalanced()
    sigma = 0.8
    ref_kernel = {"kernel": "rbf", "gamma": gamma_from_sigma(sigma)}
    if kernel == "linear":
        ref_kernel = {"kernel": "linear"}
    ref = sk.SVC(C=2.0, tol=TIGHT, class_weight=class_weight, **ref_kernel).fit(X, y)
    for solver in ("smo", "qp"):
        model = SVC(
            C=2.0,
            kernel=kernel,
            sigma=sigma,
            solver=solver,
            tol=TIGHT if solver == "smo" else 1e-8,
            class_weight=class_weight,
        ).fit(X, y)
        f, f_ref = model.decision_function(Xt), ref.decision_function(Xt)
        # LIBSVM's float32 kernel cache: agreement to about 1e-5 of f here.
        assert np.max(np.abs(f - f_ref)) <= 1e-5 * max(1.0, np.abs(f_ref).max())
        if kernel == "gaussian":  # a linear kernel in 2-D leaves alpha not unique
            np.testing.assert_array_equal(model.support_, ref.support_)  # its layout
        np.testing.assert_allclose(model.class_weight_, ref.class_weight_)
        # Bound SVs sit at C w_{y_i}: the box is per class.
        bound = model.sv_state_ == 2
        expected = 2.0 * model.class_weight_[(y[bound] > 0).astype(int)]
        np.testing.assert_allclose(model.alpha_[bound], expected)


def test_weights_move_the_boundary_into_the_majority():
    # The classic picture: unweighted, the small class (+1) is squeezed; weighted,
    # its errors cost more and fewer of its points are misclassified.
    X, y, _ = _imbalanced(seed=1)
    plain = SVC(C=1.0, kernel="linear").fit(X, y)
    fair = SVC(C=1.0, kernel="linear", class_weight="balanced").fit(X, y)
    minority = y > 0
    missed_plain = np.mean(plain.predict(X[minority]) != 1.0)
    missed_fair = np.mean(fair.predict(X[minority]) != 1.0)
    assert missed_fair < missed_plain
    balanced = compute_class_weight("balanced", classes=np.array([-1.0, 1.0]), y=y)
    np.testing.assert_allclose(fair.class_weight_, balanced)


def _weighted_primal(K, y, c, b, costs, squared):
    m = y * (K @ c + b)
    xi = np.maximum(0.0, 1.0 - m)
    loss = 0.5 * xi**2 if squared else xi
    return 0.5 * c @ K @ c + np.sum(costs * loss)


@pytest.mark.parametrize("bias", ["unregularized", "none", "regularized"])
def test_weighted_squared_hinge_every_solver_and_the_primal(bias):
    # Squared hinge: the dual on K + diag(1 / C_i). Every solver that takes
    # weights reaches the same optimum; the primal (smooth) by L-BFGS agrees.
    X, y, Xt = _imbalanced(80, seed=2)
    weights = {1.0: 3.0, -1.0: 0.7}
    fits = {}
    for solver in ("smo", "qp", "coordinate"):
        if solver == "coordinate" and bias == "unregularized":
            continue
        fits[solver] = SVC(
            C=1.5,
            sigma=0.9,
            loss="squared_hinge",
            bias=bias,
            solver=solver,
            tol=1e-9,
            class_weight=weights,
        ).fit(X, y)
    ref = fits["qp"]
    for model in fits.values():
        assert model.objective_ == pytest.approx(ref.objective_, rel=1e-7)
        np.testing.assert_allclose(
            model.decision_function(Xt), ref.decision_function(Xt), atol=1e-5
        )
    if bias == "unregularized":
        K = gram(X, sigma=0.9)
        costs = 1.5 * np.where(y > 0, 3.0, 0.7)

        def objective(v):
            return _weighted_primal(K, y, v[:-1], v[-1], costs, True)

        start = np.r_[ref.alpha_ * y, ref.intercept_[0]] + 0.01
        best = minimize(objective, start, method="L-BFGS-B", tol=1e-14)
        assert ref.objective_ == pytest.approx(best.fun, rel=1e-6)


@pytest.mark.parametrize("bias", ["none", "regularized"])
def test_weighted_hinge_coordinate_equals_qp(bias):
    X, y, Xt = _imbalanced(90, seed=3)
    kw = {"C": 3.0, "sigma": 0.7, "bias": bias, "class_weight": "balanced"}
    ref = SVC(solver="qp", **kw).fit(X, y)
    for solver in ("coordinate", "smo"):
        model = SVC(solver=solver, tol=1e-9, **kw).fit(X, y)
        assert model.objective_ == pytest.approx(ref.objective_, rel=1e-7)
        np.testing.assert_allclose(
            model.decision_function(Xt), ref.decision_function(Xt), atol=1e-5
        )


def test_class_weight_errors_are_one_sentence_each():
    X, y, _ = _imbalanced(40)
    with pytest.raises(DataError, match="names the class 3, which is not in"):
        SVC(class_weight={3: 2.0}).fit(X, y)
    with pytest.raises(ParameterError, match="weight of class 1 must be a positive"):
        SVC(class_weight={1: -2.0}).fit(X, y)
    with pytest.raises(ParameterError, match="weight of class 1 must be a positive"):
        SVC(class_weight={1: "a lot"}).fit(X, y)
    with pytest.raises(ParameterError, match="None, 'balanced' or a dict"):
        SVC(class_weight="auto").fit(X, y)
    with pytest.raises(IncompatibleLossError, match="class weights with the ramp"):
        SVC(loss="ramp", class_weight="balanced").fit(X, y)
    with pytest.raises(IncompatibleLossError, match=r"Solvers that can: qp, smo\."):
        SVC(loss="squared_hinge", solver="retargeted_ls", class_weight="balanced").fit(
            X, y
        )
    # Labels as text: the dict names them as they are.
    labels = np.where(y > 0, "rare", "common")
    model = SVC(class_weight={"rare": 4.0}).fit(X, labels)
    np.testing.assert_allclose(model.class_weight_, [1.0, 4.0])
    # No class weights: ones, and the same fit as before.
    plain = SVC().fit(X, y)
    np.testing.assert_array_equal(plain.class_weight_, [1.0, 1.0])
