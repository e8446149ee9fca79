"""Robustness to outliers: the same data fitted with every loss, and measured.

Sugiyama (2015) §27.6.3 and Fig. 27.17: the hinge and squared hinge grow without
bound as the margin ``m = y f(x)`` falls, so a few far outliers, each paying
``C (1 - m)``, drag the boundary towards them; the ramp and squared ramp are
bounded (at most 1 and 1/2), so an outlier's pull stops once it is misclassified,
at the price of a non-convex objective whose minimum depends on the start.

This module builds the experiment and measures it; the Losses page draws it.

* :func:`add_outliers` puts ``count`` points of one class at a distance from the
  data's centre, on the side of the other class (where they are mislabelled for
  the clean boundary) or beyond their own.
* :func:`compare_losses` fits each loss on the data with the outliers and on the
  clean data (the outliers removed: the *clean-data boundary* of that loss), and
  reports per loss: error on a clean test set, how far the boundary moved (the
  angle of ``w`` for the linear kernel; for every kernel the share of predicted
  labels that changed where the clean data are and over the whole drawn plane),
  support vectors, and the outliers' total ``alpha``.
* :func:`sweep_outliers` repeats that over outlier distances (or counts) and data
  seeds: where each loss breaks.
* :func:`multistart` fits the ramp or squared ramp from several starts (the
  solver's default, the hinge solution, the clean-data solution, random points
  of the box) and compares their objectives: the non-convexity made visible.
* :func:`influence` is ``-loss'(m)``, the weight a point at margin ``m`` gets in
  the fit (for the hinge, ``alpha_i = C * influence(m_i)`` at the optimum).

Everything here is pure (no Streamlit) and deterministic for given seeds.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmlab.array_types import Array, Bounds
from svmlab.errors import (
    DataError,
    FitCancelled,
    ParameterError,
    SvmlabError,
    plain_value,
)
from svmlab.kernels import kernel_settings
from svmlab.losses import LOSSES, Loss
from svmlab.svm.classifier import SVC

__all__ = [
    "LOSS_ORDER",
    "SIDES",
    "SWEEP_AXES",
    "Comparison",
    "FitSettings",
    "LossResult",
    "Outliers",
    "StartResult",
    "SweepResult",
    "add_outliers",
    "best_start",
    "boundary_angle",
    "compare_losses",
    "influence",
    "label_change_share",
    "multistart",
    "outlier_direction",
    "plane_window",
    "signed",
    "sweep_outliers",
]


#: The panels' order: the two unbounded losses, the two bounded ones, Lee's.
LOSS_ORDER: tuple[str, ...] = (
    "hinge",
    "squared_hinge",
    "ramp",
    "squared_ramp",
    "modified_hinge",
)

#: Where the outliers sit, seen from the data's centre.
SIDES: dict[str, str] = {
    "other": "beyond the other class (on the wrong side)",
    "own": "beyond their own class (far, but on the right side)",
}

#: What a sweep varies.
SWEEP_AXES: dict[str, str] = {
    "distance": "outlier distance",
    "count": "number of outliers",
}

#: The outliers' spread, as a share of the classes' own spread (the generator's
#: outlier blobs use noise / 4 around a point).
JITTER = 0.25

#: Cells per side of the grid that measures the share of the plane that changed.
PLANE_RESOLUTION = 120


# -- the outliers ------------------------------------------------------------------


@dataclass(frozen=True)
class Outliers:
    """``count`` points of class ``label`` (+1 or -1 after :func:`signed`), at
    ``distance`` from the data's centre, on ``side`` (a key of :data:`SIDES`)."""

    count: int = 3
    distance: float = 6.0
    label: int = 1
    side: str = "other"

    def checked(self, n_clean: int) -> Outliers:
        """Self after validation; a typed error with a sentence otherwise."""
        count = self.count
        if isinstance(count, bool) or not isinstance(count, int | np.integer):
            raise ParameterError(
                f"The number of outliers must be a whole number; got "
                f"{plain_value(count)}."
            )
        if count < 0:
            raise ParameterError(
                f"The number of outliers cannot be negative; got {int(count)}."
            )
        if count > n_clean:
            raise ParameterError(
                f"{int(count)} outliers would outnumber the {n_clean} clean points: "
                f"they would no longer be outliers. Use at most {n_clean}."
            )
        distance = self.distance
        if isinstance(distance, bool) or not isinstance(distance, int | float):
            raise ParameterError(
                f"The outlier distance must be a number; got {plain_value(distance)}."
            )
        if not (math.isfinite(distance) and 0.0 <= distance <= 1e6):
            raise ParameterError(
                f"The outlier distance must be between 0 and 1e6; got {distance:g}."
            )
        if self.label not in (1, -1):
            raise ParameterError(
                f"The outliers' label must be +1 or -1; got {plain_value(self.label)}."
            )
        if self.side not in SIDES:
            raise ParameterError(
                f"The outliers' side must be one of {sorted(SIDES)}; got "
                f"{plain_value(self.side)}."
            )
        return self


def signed(y: ArrayLike) -> tuple[Array, NDArray]:
    """Labels as +-1 the way :class:`svmlab.SVC` maps them (the larger class
    label is +1), and the two class labels ``(negative, positive)``."""
    y = np.asarray(y)
    classes = np.unique(y)
    if classes.shape[0] != 2:
        raise DataError(
            f"The losses are compared on two classes; the data have {classes.shape[0]}."
        )
    return np.where(y == classes[1], 1.0, -1.0), classes


def outlier_direction(X: ArrayLike, y_pm: ArrayLike) -> tuple[Array, Array, float]:
    """``(centre, u, spread)``: the midpoint of the two class means, the unit
    vector from the +1 mean to the -1 mean, and the classes' pooled standard
    deviation (per coordinate, averaged).

    When the class means are closer than a quarter of the spread, as for two
    circles or XOR, there is
    no "other side": ``u`` is then the first axis, and "other" and "own" are just
    the two directions along it.
    """
    X = np.asarray(X, dtype=np.float64)
    y_pm = np.asarray(y_pm, dtype=np.float64)
    pos, neg = X[y_pm > 0], X[y_pm < 0]
    mean_pos, mean_neg = pos.mean(axis=0), neg.mean(axis=0)
    spread = float(np.sqrt(0.5 * (pos.var(axis=0).mean() + neg.var(axis=0).mean())))
    gap = mean_neg - mean_pos
    norm = float(np.linalg.norm(gap))
    if not (norm > 0.25 * max(spread, 1e-12)):
        u = np.zeros(X.shape[1])
        u[0] = 1.0
    else:
        u = gap / norm
    return 0.5 * (mean_pos + mean_neg), u, spread


def add_outliers(
    X: ArrayLike, y: ArrayLike, outliers: Outliers, random_state: int | None = 0
) -> tuple[Array, NDArray, NDArray[np.bool_]]:
    """The clean data with ``outliers.count`` points appended (the last rows).

    They carry the class ``outliers.label`` (+1: the larger of the two class
    labels) and sit around ``centre + distance * d``, where ``d`` points from the
    outliers' own class mean towards the other class (side "other": there the
    clean boundary calls them the other class) or away from it (side "own"), and
    ``centre``, ``d`` are from :func:`outlier_direction`. Their jitter is
    ``JITTER`` times the classes' spread, so they form a tight clump, as in
    Sugiyama's Fig. 27.17 and :func:`svmlab.datasets.make_outlier_blobs`.

    Returns ``(X_train, y_train, is_outlier)``; ``y_train`` uses the data's own
    labels.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    y_pm, classes = signed(y)
    spec = outliers.checked(X.shape[0])
    centre, u, spread = outlier_direction(X, y_pm)
    # u points from the +1 mean to the -1 mean: "other" for a +1 outlier.
    d = u * spec.label * (1.0 if spec.side == "other" else -1.0)
    rng = np.random.default_rng(random_state)
    jitter = JITTER * (spread if spread > 0 else 1.0)
    points = (
        centre + spec.distance * d + rng.normal(0.0, jitter, (spec.count, X.shape[1]))
    )
    label = classes[1] if spec.label > 0 else classes[0]
    X_train = np.vstack([X, points])
    y_train = np.concatenate([y, np.full(spec.count, label, dtype=y.dtype)])
    is_outlier = np.zeros(X_train.shape[0], dtype=bool)
    is_outlier[X.shape[0] :] = True
    return X_train, y_train, is_outlier


# -- fitting every loss -------------------------------------------------------------


@dataclass(frozen=True)
class FitSettings:
    """What every panel shares: the kernel, C, sigma (or the polynomial's
    parameters), the modified hinge's delta, the bias mode, tol and a time
    budget per fit (seconds)."""

    kernel: str = "linear"
    C: float = 1.0
    sigma: float = 1.0
    degree: int = 3
    coef0: float = 1.0
    delta: float = 0.1
    bias: str = "unregularized"
    tol: float = 1e-3
    max_seconds: float | None = 5.0

    def estimator(self, loss: str, **extra: object) -> SVC:
        """The :class:`svmlab.SVC` for one loss with these settings."""
        return SVC(
            C=self.C,
            **kernel_settings(self),
            loss=loss,
            delta=self.delta,
            bias=self.bias,
            tol=self.tol,
            max_seconds=self.max_seconds,
            # The modified hinge's default solver (the entropy dual) stops at
            # its KKT measure, as every other loss's does.
            **extra,
        )


def _fit(
    settings: FitSettings, loss: str, X: Array, y: NDArray, **fit_args: object
) -> SVC:
    # A fit that stops early is reported by its converged_ / stop_reason_ on
    # the page; the warning would only repeat it on the console.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return settings.estimator(loss).fit(X, y, **fit_args)


def boundary_angle(model: SVC, reference: SVC) -> float:
    """Angle in degrees between the weight vectors ``w = sum_i alpha_i y_i x_i``
    of two linear-kernel fits; NaN when either ``w`` is zero (a constant f)."""
    w, w_ref = _weights(model), _weights(reference)
    a, b = float(np.linalg.norm(w)), float(np.linalg.norm(w_ref))
    if not (a > 0.0 and b > 0.0):
        return math.nan
    # Kahan's form 2 atan2(|u - v|, |u + v|) of the unit vectors: acos of the
    # cosine loses half the digits near 0 (one ulp below 1 is 1.2e-6 degrees).
    u, v = w / a, w_ref / b
    return math.degrees(
        2.0 * math.atan2(float(np.linalg.norm(u - v)), float(np.linalg.norm(u + v)))
    )


def _weights(model: SVC) -> Array:
    if model.kernel != "linear":
        raise ParameterError("The angle of w is defined for the linear kernel only.")
    return (model.dual_coef_ @ model.support_vectors_).ravel()


def plane_window(X: ArrayLike, pad: float = 0.08) -> Bounds:
    """``(x0, x1, y0, y1)``: the box of the points widened by ``pad`` of its span
    on each side (the plot's window; at least 1 wide in each direction)."""
    X = np.asarray(X, dtype=np.float64)
    low, high = X[:, :2].min(axis=0), X[:, :2].max(axis=0)
    span = np.maximum(high - low, 1.0)
    low, high = low - pad * span, high + pad * span
    return float(low[0]), float(high[0]), float(low[1]), float(high[1])


def _plane_points(window: Bounds, resolution: int = PLANE_RESOLUTION) -> Array:
    x0, x1, y0, y1 = window
    xs = np.linspace(x0, x1, resolution)
    ys = np.linspace(y0, y1, resolution)
    gx, gy = np.meshgrid(xs, ys)
    return np.column_stack([gx.ravel(), gy.ravel()])


def label_change_share(model: SVC, reference: SVC, points: ArrayLike) -> float:
    """Share of ``points`` whose predicted label differs between two fits."""
    points = np.asarray(points, dtype=np.float64)
    return float(np.mean(model.predict(points) != reference.predict(points)))


@dataclass
class LossResult:
    """One loss on the data with outliers, beside its clean-data fit.

    ``error`` is a sentence when the fit failed (then the numbers are NaN and
    the models None)."""

    loss: str
    model: SVC | None = None
    clean_model: SVC | None = None
    test_error: float = math.nan
    clean_test_error: float = math.nan
    #: Degrees between w and the clean w (linear kernel only, else NaN).
    angle: float = math.nan
    #: Share of the clean test points whose predicted label changed.
    shift_data: float = math.nan
    #: Share of the plane's grid whose predicted label changed.
    shift_plane: float = math.nan
    n_support: int = 0
    #: Sum of the outliers' alpha, and the sum over every point.
    outlier_alpha: float = math.nan
    total_alpha: float = math.nan
    objective: float = math.nan
    converged: bool = False
    error: str | None = None

    @property
    def outlier_alpha_share(self) -> float:
        """The outliers' share of the total alpha (0 when nothing listens)."""
        if not self.total_alpha > 0:
            return math.nan
        return self.outlier_alpha / self.total_alpha


@dataclass
class Comparison:
    """Every loss fitted on the same data: :func:`compare_losses`."""

    X: Array
    y: NDArray
    is_outlier: NDArray[np.bool_]
    window: Bounds
    settings: FitSettings
    results: dict[str, LossResult] = field(default_factory=dict)


@dataclass(frozen=True)
class _Reference:
    """A loss's clean-data fit and its labels on the test set and the plane."""

    model: SVC
    on_test: NDArray
    on_plane: NDArray


def _reference(
    settings: FitSettings, loss: str, X: Array, y: NDArray, X_test: Array, plane: Array
) -> _Reference:
    model = _fit(settings, loss, X, y)
    return _Reference(model, model.predict(X_test), model.predict(plane))


def _evaluate(
    loss: str,
    model: SVC,
    clean: _Reference,
    is_outlier: NDArray[np.bool_],
    X_test: Array,
    y_test: NDArray,
    plane: Array,
) -> LossResult:
    alpha = np.abs(model.alpha_)
    on_test = model.predict(X_test)
    linear = model.kernel == "linear"
    return LossResult(
        loss=loss,
        model=model,
        clean_model=clean.model,
        test_error=float(np.mean(on_test != y_test)),
        clean_test_error=float(np.mean(clean.on_test != y_test)),
        angle=boundary_angle(model, clean.model) if linear else math.nan,
        shift_data=float(np.mean(on_test != clean.on_test)),
        shift_plane=float(np.mean(model.predict(plane) != clean.on_plane)),
        n_support=int(model.support_.shape[0]),
        outlier_alpha=float(alpha[is_outlier].sum()),
        total_alpha=float(alpha.sum()),
        objective=float(model.objective_),
        converged=bool(model.converged_),
    )


def _check_losses(losses: Sequence[str]) -> tuple[str, ...]:
    for name in losses:
        if name not in LOSSES:
            raise ParameterError(
                f"Unknown loss {plain_value(name)}; the losses are {list(LOSS_ORDER)}."
            )
    return tuple(losses)


def _plane_table(X: ArrayLike, name: str) -> Array:
    """``X`` as a float table of points in the plane (n, 2), or a DataError:
    the comparison draws and measures in the plane (issue 44, item 5: 1-D
    features failed in an index)."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        raise DataError(
            f"{name} must be a table of points in the plane, shape (n, 2); got "
            f"shape {X.shape}."
        )
    return X


def compare_losses(
    X_clean: ArrayLike,
    y_clean: ArrayLike,
    outliers: Outliers,
    settings: FitSettings,
    X_test: ArrayLike,
    y_test: ArrayLike,
    *,
    losses: Sequence[str] = LOSS_ORDER,
    window: Bounds | None = None,
    random_state: int | None = 0,
    _references: dict[str, _Reference | str] | None = None,
) -> Comparison:
    """Fit every loss on the clean data plus ``outliers`` and on the clean data
    alone; measure each (class docstring of :class:`LossResult`).

    ``X_test, y_test`` is a clean test set (no outliers): the error and the
    "where the data are" shift are measured on it. ``window`` is the plane over
    which the other shift is measured (default: the training points' box,
    outliers included, as drawn). A loss whose fit fails gets its sentence in
    ``error``; the others are still fitted. (``_references`` lets a sweep fit
    the clean data once per seed.)
    """
    losses = _check_losses(losses)
    X_clean = _plane_table(X_clean, "X_clean")
    y_clean = np.asarray(y_clean)
    X_train, y_train, is_outlier = add_outliers(
        X_clean, y_clean, outliers, random_state
    )
    X_test = _plane_table(X_test, "X_test")
    y_test = np.asarray(y_test)
    window = window or plane_window(X_train)
    plane = _plane_points(window)
    references = {} if _references is None else _references
    comparison = Comparison(X_train, y_train, is_outlier, window, settings)
    for loss in losses:
        try:
            if loss not in references:
                try:
                    references[loss] = _reference(
                        settings, loss, X_clean, y_clean, X_test, plane
                    )
                except FitCancelled:
                    raise
                except SvmlabError as error:
                    references[loss] = f"on the clean data: {error}"
            clean = references[loss]
            if isinstance(clean, str):
                comparison.results[loss] = LossResult(loss=loss, error=clean)
                continue
            model = _fit(settings, loss, X_train, y_train)
        except FitCancelled:
            raise
        except SvmlabError as error:
            comparison.results[loss] = LossResult(loss=loss, error=str(error))
            continue
        comparison.results[loss] = _evaluate(
            loss, model, clean, is_outlier, X_test, y_test, plane
        )
    return comparison


# -- where each loss breaks -------------------------------------------------------

#: A clean data set for a seed: ``(X, y, X_test, y_test)``.
CleanData = Callable[[int], tuple[Array, NDArray, Array, NDArray]]


@dataclass
class SweepResult:
    """Measurements over ``values`` x ``seeds`` x ``losses`` (axis order).

    Arrays have shape ``(len(values), len(seeds), len(losses))``; NaN where a
    fit failed or the measure does not apply (the angle off the linear kernel).
    """

    axis: str
    values: tuple[float, ...]
    seeds: tuple[int, ...]
    losses: tuple[str, ...]
    test_error: Array
    shift_data: Array
    shift_plane: Array
    angle: Array
    failures: list[str] = field(default_factory=list)

    def band(self, measure: str) -> tuple[Array, Array, Array]:
        """``(median, low, high)`` over the seeds, each ``(values, losses)``:
        the line and the band from the smallest to the largest seed."""
        data = getattr(self, measure)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
            return (
                np.nanmedian(data, axis=1),
                np.nanmin(data, axis=1),
                np.nanmax(data, axis=1),
            )


def sweep_outliers(
    clean_data: CleanData,
    outliers: Outliers,
    settings: FitSettings,
    *,
    axis: str = "distance",
    values: Sequence[float],
    seeds: Sequence[int] = (0, 1, 2, 3, 4),
    losses: Sequence[str] = LOSS_ORDER,
    on_progress: Callable[[int, int], None] | None = None,
    on_partial: Callable[[SweepResult], None] | None = None,
) -> SweepResult:
    """:func:`compare_losses` for each swept value and each data seed.

    ``axis`` is ``"distance"`` or ``"count"`` (the field of ``outliers`` that
    ``values`` replace). The plane measure uses one window per seed, the clean
    data's box widened to hold the farthest outliers of the sweep, so that the
    share is comparable along the sweep. ``on_progress(done, total)`` is called
    after every (value, seed); fits stop with :class:`svmlab.FitCancelled`
    inside :func:`svmlab.cancel_when`. ``on_partial`` is given the sweep as far
    as it is done after each (value, seed) but the last: its ``seeds`` are the
    seeds started (a median over one seed is not one over five) and the
    values not fitted yet are NaN.
    """
    if axis not in SWEEP_AXES:
        raise ParameterError(
            f"A sweep varies one of {sorted(SWEEP_AXES)}; got {plain_value(axis)}."
        )
    values = tuple(float(v) for v in values)
    if not values:
        raise ParameterError("A sweep needs at least one value.")
    seeds = tuple(int(s) for s in seeds)
    losses = _check_losses(losses)
    shape = (len(values), len(seeds), len(losses))
    measures = {
        k: np.full(shape, np.nan)
        for k in ("test_error", "shift_data", "shift_plane", "angle")
    }
    failures: list[str] = []
    total, done = len(values) * len(seeds), 0
    for s, seed in enumerate(seeds):
        X, y, X_test, y_test = clean_data(seed)
        farthest = _with(outliers, axis, max(values))
        X_far, _, _ = add_outliers(
            X, y, _with(farthest, "count", max(1, farthest.count)), seed
        )
        window = plane_window(X_far)
        references: dict[str, _Reference | str] = {}
        for v, value in enumerate(values):
            spec = _with(outliers, axis, value)
            comparison = compare_losses(
                X,
                y,
                spec,
                settings,
                X_test,
                y_test,
                losses=losses,
                window=window,
                random_state=seed,
                _references=references,
            )
            for k, loss in enumerate(losses):
                result = comparison.results[loss]
                if result.error:
                    failures.append(
                        f"{loss}, {SWEEP_AXES[axis]} {value:g}, seed {seed}: "
                        f"{result.error}"
                    )
                    continue
                for name, array in measures.items():
                    array[v, s, k] = getattr(result, name)
            done += 1
            if on_progress is not None:
                on_progress(done, total)
            if on_partial is not None and done < total:
                on_partial(
                    SweepResult(
                        axis,
                        values,
                        seeds[: s + 1],
                        losses,
                        failures=list(failures),
                        **{k: a[:, : s + 1].copy() for k, a in measures.items()},
                    )
                )
    return SweepResult(axis, values, seeds, losses, failures=failures, **measures)


def _with(outliers: Outliers, axis: str, value: float) -> Outliers:
    if axis == "count":
        return Outliers(round(value), outliers.distance, outliers.label, outliers.side)
    return Outliers(outliers.count, float(value), outliers.label, outliers.side)


# -- several starts of a non-convex loss -------------------------------------------


@dataclass
class StartResult:
    """One start of a non-convex fit and where it ended."""

    start: str
    objective: float
    test_error: float
    shift_data: float
    converged: bool
    n_iter: int
    default: bool = False
    model: SVC | None = None


def _count_of_starts(n_random: object) -> int:
    """``n_random`` as a whole number >= 0, or a ParameterError (2.5 used to
    reach ``range`` as a TypeError, and -1 gave no random start silently)."""
    if (
        isinstance(n_random, int | float | np.integer | np.floating)
        and not isinstance(n_random, bool | np.bool_)
        and math.isfinite(n_random)
        and int(n_random) == n_random
        and n_random >= 0
    ):
        return int(n_random)
    raise ParameterError(
        "n_random, the number of random starts, must be a whole number of at "
        f"least 0; got {plain_value(n_random)}."
    )


def multistart(
    X_clean: ArrayLike,
    y_clean: ArrayLike,
    outliers: Outliers,
    settings: FitSettings,
    X_test: ArrayLike,
    y_test: ArrayLike,
    *,
    loss: str = "ramp",
    n_random: int = 3,
    random_state: int | None = 0,
) -> list[StartResult]:
    """Fit the ramp or squared ramp on the data with outliers from several starts.

    Starts, each a warm start ``init`` of the loss's default solver:
    "default" (the solver's own start: for the ramp by CCCP, the hinge solution;
    for the squared ramp by retargeted least squares, the kernel ridge fit of the
    labels), "hinge solution" (the hinge fit's alpha; for the ramp the same
    point as the default, so it is not repeated), "clean-data solution" (the same
    loss fitted without the outliers, their alpha 0) and ``n_random`` points
    drawn uniformly from the box ``[0, C]``. The objective is the primal
    ``0.5 ||f||^2 + C sum loss(m_i)`` on the same data for every start, so the
    lowest is the best local minimum found. The shift is the share of the clean
    test points whose label differs from the clean-data fit's.
    """
    if loss not in ("ramp", "squared_ramp"):
        raise ParameterError(
            f"Several starts matter for the non-convex losses (ramp, squared_ramp); "
            f"got {plain_value(loss)}."
        )
    n_random = _count_of_starts(n_random)
    X_clean = np.asarray(X_clean, dtype=np.float64)
    y_clean = np.asarray(y_clean)
    X, y, is_outlier = add_outliers(X_clean, y_clean, outliers, random_state)
    X_test = np.asarray(X_test, dtype=np.float64)
    y_test = np.asarray(y_test)
    clean = _fit(settings, loss, X_clean, y_clean)
    own = "hinge solution" if loss == "ramp" else "ridge fit of the labels"
    starts: list[tuple[str, Array | None]] = [(f"default ({own})", None)]
    if loss != "ramp":
        hinge = _fit(settings, "hinge", X, y)
        starts.append(("hinge solution", hinge.alpha_))
    padded = np.zeros(X.shape[0])
    padded[~is_outlier] = np.abs(clean.alpha_)
    starts.append(("clean-data solution", padded))
    rng = np.random.default_rng(random_state)
    upper = settings.C if math.isfinite(settings.C) else 1.0
    for r in range(n_random):
        starts.append((f"random {r + 1}", rng.uniform(0.0, upper, X.shape[0])))
    results = []
    for name, init in starts:
        model = _fit(settings, loss, X, y, init=init)
        results.append(
            StartResult(
                start=name,
                objective=float(model.objective_),
                test_error=float(np.mean(model.predict(X_test) != y_test)),
                shift_data=label_change_share(model, clean, X_test),
                converged=bool(model.converged_),
                n_iter=int(model.n_iter_),
                default=name.startswith("default"),
                model=model,
            )
        )
    return results


def best_start(results: Sequence[StartResult], rtol: float = 1e-6) -> StartResult:
    """The start that reached the lowest objective; among starts within ``rtol``
    of it (the same minimum, to the solvers' accuracy), the first listed, so
    the default start wins a tie."""
    lowest = min(r.objective for r in results)
    slack = rtol * max(abs(lowest), 1.0)
    return next(r for r in results if r.objective <= lowest + slack)


# -- influence ----------------------------------------------------------------------


def influence(loss: Loss, m: ArrayLike) -> Array:
    """``-loss'(m)``: the weight a point at margin ``m`` gets in the fit.

    At a stationary point of ``0.5 ||f||^2 + C sum loss(m_i)``,
    ``f = C sum_i influence(m_i) y_i k(x_i, .)`` (+ b): ``alpha_i = C
    influence(m_i)`` (a subgradient at the hinge's kink). Unbounded losses keep
    a weight of at least 1 however wrong a point is; the ramp's falls to 0 below
    ``m = 0``, the squared ramp's as well (Sugiyama §27.6.3).
    """
    return -np.asarray(loss.derivative(m), dtype=np.float64)
