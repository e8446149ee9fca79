"""Issue 44, items 5, 6 and 12: inputs the fuzzing found reaching a traceback
(an untyped error) or a silent wrong model, each now a typed error with a
plain sentence; and the planted bugs the suite missed (zero class weights, the
sigmoid's bounded-dual check with class weights, a GIF's frame time)."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest
from PIL import Image

from svmlab import SVC, EpsilonSVR, NuSVC, NuSVR, OneClassSVM, PlattSVC
from svmlab.datasets import make_two_circles
from svmlab.errors import DataError, ParameterError, SvmlabError
from svmlab.experiments import robustness
from svmlab.experiments.selection import kfold_cv_score
from svmlab.figures import decision_spec, slides
from svmlab.kernels import gram

HUGE = 10**400  # a Python int float64 cannot hold


@pytest.fixture(scope="module")
def points():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    return X, np.where(X[:, 0] > 0, 1, -1), X[:, 0] + 0.1 * rng.normal(size=30)


def _reference_kernel(X, Z, kernel):
    """The kernels written out (not svmlab's gram): a parameter a kernel does
    not read must not change its Gram matrix."""
    if kernel == "linear":
        return X @ Z.T
    d2 = ((X[:, None, :] - Z[None, :, :]) ** 2).sum(axis=2)
    return np.exp(-d2 / 2.0)  # sigma = 1


@pytest.mark.parametrize(
    ("make", "target"),
    [
        (lambda: SVC(coef0=None), "y"),
        (lambda: SVC(kernel="linear", sigma="wide", degree=None), "y"),
        (lambda: NuSVR(kernel="linear", scale=None), "r"),
        (lambda: OneClassSVM(kernel="linear", sigma=0), None),
    ],
)
def test_a_parameter_the_kernel_does_not_read_is_neither_checked_nor_used(
    points, make, target
):
    # `SVC(coef0=None)` with the Gaussian once failed in float(), and the
    # linear one-class SVM divided by sigma = 0.
    X, y, r = points
    model = make()
    fitted = model.fit(X, {"y": y, "r": r, None: None}[target])
    Z = X[:5]
    expected = _reference_kernel(Z, fitted.support_vectors_, model.kernel)
    coef = getattr(fitted, "dual_coef_", None)
    if coef is not None and hasattr(fitted, "intercept_"):
        f = expected @ np.ravel(coef) + np.ravel(fitted.intercept_)[0]
        score = getattr(fitted, "decision_function", None) or fitted.predict
        np.testing.assert_allclose(score(Z), f, atol=1e-8)


@pytest.mark.parametrize(
    "make",
    [
        lambda: SVC(C=HUGE),
        lambda: NuSVC(nu=HUGE),
        lambda: SVC(kernel="polynomial", coef0=HUGE),
        lambda: SVC(class_weight={1: HUGE}),
    ],
)
def test_integers_beyond_float64_are_a_parameter_error(points, make):
    X, y, _ = points
    with pytest.raises(ParameterError, match=r"1e\+400"):
        make().fit(X, y)


@pytest.mark.parametrize("model", [EpsilonSVR(), NuSVR()])
def test_text_targets_of_a_regression_are_a_data_error(points, model):
    X, _, _ = points
    with pytest.raises(DataError, match="needs numbers as targets"):
        model.fit(X, np.array(["a", "b"] * 15))


def test_platt_refuses_a_regressor_a_negative_seed_and_too_few_points(points):
    X, y, _ = points
    with pytest.raises(ParameterError, match="binary classifier"):
        PlattSVC(EpsilonSVR()).fit(X, y)
    with pytest.raises(ParameterError, match="random_state"):
        PlattSVC(random_state=-1).fit(X, y)
    for n in (2, 3):
        # Once scikit-learn's "Found array with 0 sample(s)".
        with pytest.raises(DataError, match=f"at least 5 points .*got {n}") as error:
            PlattSVC().fit(X[:n], np.array([1, -1, 1])[:n])
        assert "sample(s)" not in str(error.value)


def test_kfold_with_fewer_than_two_splits_names_n_splits(points):
    X, y, _ = points
    for bad in (0, 1, -3, 2.5):
        # Once "0-fold cross-validation needs at least 0 points".
        with pytest.raises(ParameterError, match="n_splits"):
            kfold_cv_score(SVC(), X, y, n_splits=bad)


@pytest.fixture(scope="module")
def frames(points):
    X, y, _ = points
    model = SVC(kernel="linear").fit(X, y)
    spec = decision_spec(model, X, y, bounds=(-3.0, 3.0, -3.0, 3.0), resolution=20)
    return [(spec, "one"), (spec, "two")]


@pytest.mark.parametrize("size", [(0, 0), (-5, 100), (100, float("nan")), "big"])
def test_a_slide_size_outside_the_pixels_is_a_parameter_error(frames, size):
    spec = frames[0][0]
    with pytest.raises(ParameterError, match="size must be"):
        slides.slide(spec, "caption", size=size)
    with pytest.raises(ParameterError, match="size must be"):
        slides.animation(frames, "caption", size=size)


@pytest.mark.parametrize("seconds", [float("nan"), -1.0, 0.0, float("inf")])
def test_a_frame_time_that_is_not_a_duration_is_a_parameter_error(frames, seconds):
    with pytest.raises(ParameterError, match="seconds_per_frame"):
        slides.animation(frames, "caption", seconds_per_frame=seconds)


def test_every_gif_frame_lasts_the_seconds_asked(frames):
    # Item 12: a frame time 10x short went unnoticed. The reference: the GIF
    # as Pillow reads it back (milliseconds per frame).
    gif = slides.animation(frames, "caption", seconds_per_frame=0.7, size=(160, 90))
    with Image.open(io.BytesIO(gif)) as image:
        for k in range(image.n_frames):
            image.seek(k)
            assert image.info["duration"] == 700


def test_compare_losses_refuses_features_that_are_not_a_plane(points):
    X, y, _ = points
    settings = robustness.FitSettings()
    outliers = robustness.Outliers()
    with pytest.raises(DataError, match=r"shape \(n, 2\)"):
        robustness.compare_losses(X[:, 0], y, outliers, settings, X, y)


@pytest.mark.parametrize("weight", [0, 0.0, -1.0, 1e-320, 5e-324])
def test_a_class_weight_that_drops_a_class_is_refused(weight):
    # Items 6 and 12: a weight of 0 (planted as `>= 0`: no test failed), or one
    # so small that C w is 0 or subnormal in float64, dropped the class from
    # the loss and gave a silent 50 % model.
    X, y = make_two_circles(60, random_state=0)
    with pytest.raises(ParameterError, match="weight"):
        SVC(class_weight={1: weight}).fit(X, y)
    with pytest.raises(ParameterError, match="smallest normal"):
        SVC(C=1e-200, class_weight={1: 1e-200}).fit(X, y)


def _bounded(K, C, w):
    """The squared hinge's dual ``max 1'a - 0.5 a'(YKY + diag(1/(C w)))a`` over
    ``a >= 0`` has a maximum where ``K + diag(1/(C w))`` is PSD: NumPy's
    eigenvalues, not svmlab's."""
    return bool(np.linalg.eigvalsh(K + np.diag(1.0 / (C * w))).min() >= -1e-9)


def test_the_sigmoids_bounded_dual_check_divides_by_the_class_weights():
    # Item 12: the check multiplied by the weight instead of dividing and no
    # test noticed (none used weights != 1 with a non-PSD kernel). Weights
    # 0.1 lift the diagonal tenfold (bounded); weights 10 shrink it (not).
    X, y = make_two_circles(40, random_state=2)
    K = gram(X, kernel="sigmoid", scale=2.0, coef0=-1.0)
    lam = np.linalg.eigvalsh(K).min()
    assert lam < 0
    C = 2.0 / -lam  # 1/C = -lam/2: the plain dual is unbounded
    for w, ok in ((0.1, True), (10.0, False)):
        weights = np.full(len(y), w)
        assert _bounded(K, C, weights) is ok
        assert not _bounded(K, C, np.ones(len(y)))
        model = SVC(
            C=C,
            kernel="sigmoid",
            scale=2.0,
            coef0=-1.0,
            loss="squared_hinge",
            class_weight={1: w, -1: w},
        )
        if ok:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model.fit(X, y)
        else:
            with pytest.raises(ParameterError, match="nothing bounds the multipliers"):
                model.fit(X, y)


def test_every_refusal_above_is_an_svmlab_error():
    # The pages catch SvmlabError only: the types used above are its kind.
    assert issubclass(DataError, SvmlabError)
    assert issubclass(ParameterError, SvmlabError)


def test_nu_svc_without_a_margin_on_the_sigmoid_blames_the_kernel_not_nu():
    # Item 5: the "no margin" sentence told to raise nu when the indefinite
    # sigmoid kernel made r negative. The reference: NumPy's eigenvalues say
    # the kernel is indefinite on these points.
    X, y = make_two_circles(60, random_state=0)
    K = gram(X, kernel="sigmoid", scale=0.5, coef0=1.0)
    assert np.linalg.eigvalsh(K).min() < 0
    with pytest.raises(SvmlabError, match="not positive semidefinite") as error:
        NuSVC(kernel="sigmoid", scale=0.5, coef0=1.0, nu=0.5).fit(X, y)
    assert "larger nu" not in str(error.value)
