"""The regularisation path: one model per value of C (or σ), warm-started.

:func:`regularization_path` fits :class:`svmlab.SVC` at every value of a log grid
of C or σ, each fit started from the previous value's α (``init``; SMO seeds it
by ``C_new / C_old``), and records per value the margin width in feature space,
the free and bound support vector counts, the training and test errors and the
objective, with the fitted models themselves: a page scrubbing along the path
draws a stored model and never fits.

The margin width is ``2 / ‖w‖`` with ``w = Σ αᵢ yᵢ φ(xᵢ)``, so
``‖w‖² = (α ∘ y)ᵀ K (α ∘ y)`` (``K`` the kernel's Gram matrix, without the
``+ 1`` of a regularized bias). This holds for every loss: ``f(x) = Σ αᵢ yᵢ
k(xᵢ, x) + b`` is the model of every solver.

Pure: no streamlit, no plotly.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from svmlab import kernels
from svmlab.array_types import Array
from svmlab.errors import ParameterError
from svmlab.svm.classifier import SVC

__all__ = [
    "PATH_PARAMS",
    "PathResult",
    "TubePath",
    "log_values",
    "margin_width",
    "regularization_path",
    "tube_path",
]

#: What a path can sweep.
PATH_PARAMS = ("C", "sigma")
_KERNEL_KEYS = ("kernel", "sigma", "degree", "coef0")


@dataclass(frozen=True)
class PathResult:
    """One path: per swept value, the numbers and the fitted model.

    Arrays have one entry per value in ``values``; entries the time budget left
    out are NaN (``complete`` is then False) and ``models`` is shorter.
    """

    param: str
    values: Array
    margin_width: Array
    n_free: Array
    n_bound: Array
    train_error: Array
    test_error: Array
    objective: Array
    fit_time: Array
    models: tuple[SVC, ...] = field(repr=False)
    warm: bool = True
    elapsed: float = 0.0

    @property
    def complete(self) -> bool:
        """Whether every value was fitted."""
        return len(self.models) == self.values.size

    def nearest(self, value: float) -> int:
        """Index of the fitted value closest to ``value`` on a log scale."""
        fitted = self.values[: len(self.models)]
        return int(np.argmin(np.abs(np.log(fitted) - math.log(value))))


def log_values(low: float, high: float, count: int) -> Array:
    """``count`` log-spaced values from ``low`` to ``high`` (both included)."""
    if not (0 < low < high) or count < 2:
        raise ParameterError(
            f"A path needs 0 < low < high and at least 2 values; got {low:g}, "
            f"{high:g} and {count}."
        )
    return np.logspace(math.log10(low), math.log10(high), int(count))


def margin_width(model: SVC, K: ArrayLike, y: ArrayLike) -> float:
    """``2 / ‖w‖`` in feature space, ``‖w‖² = (α ∘ y)ᵀ K (α ∘ y)``; ∞ when w = 0.

    ``K`` is the kernel's Gram matrix of the training points ``y`` was fitted on
    (no bias shift).
    """
    signs = np.where(np.asarray(y) == model.classes_[1], 1.0, -1.0)
    coef = np.asarray(model.alpha_) * signs
    w2 = float(coef @ np.asarray(K) @ coef)
    return 2.0 / math.sqrt(w2) if w2 > 0 else math.inf


def regularization_path(
    X: ArrayLike,
    y: ArrayLike,
    *,
    param: str,
    values: Sequence[float] | Array,
    params: dict[str, Any],
    X_test: ArrayLike | None = None,
    y_test: ArrayLike | None = None,
    warm: bool = True,
    progress: Callable[[int, int], None] | None = None,
    max_seconds: float | None = None,
    on_partial: Callable[[PathResult], None] | None = None,
) -> PathResult:
    """Fit ``SVC(**params, param=value)`` for each value, in order.

    Parameters
    ----------
    X, y
        Training points (n, 2) and labels (n,).
    param
        ``"C"`` or ``"sigma"`` (the kernel must then be Gaussian).
    values
        The swept values, in the order they are fitted (ascending C warm-starts
        best: each α is scaled up from a sparser solution).
    params
        The other keyword arguments of :class:`svmlab.SVC`.
    X_test, y_test
        Optional test points for the test error (NaN without them).
    warm
        Start each fit from the previous value's α (cold: every fit from zero).
    progress
        Called as ``progress(done, total)`` after each fit.
    on_partial
        Given the path as far as it is fitted after each fit but the last
        (``complete`` False: the values not fitted yet are NaN).
    max_seconds
        Stop starting new fits after this many seconds (a fit already started
        finishes); the values left out are NaN.
    """
    if param not in PATH_PARAMS:
        raise ParameterError(f"A path sweeps one of {PATH_PARAMS}; got {param!r}.")
    if param == "sigma" and params.get("kernel") != "gaussian":
        raise ParameterError("A σ path needs the Gaussian kernel.")
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    values = np.asarray(values, dtype=np.float64)
    n_values = values.size
    out = {
        name: np.full(n_values, np.nan)
        for name in (
            "margin_width",
            "n_free",
            "n_bound",
            "train_error",
            "test_error",
            "objective",
            "fit_time",
        )
    }
    kernel_args = {k: v for k, v in params.items() if k in _KERNEL_KEYS}
    K = kernels.gram(X, X, **kernel_args) if param == "C" else None
    models: list[SVC] = []
    start = time.perf_counter()

    def result(arrays: dict[str, Array]) -> PathResult:
        """The path as far as ``models`` reaches, with these measure arrays."""
        return PathResult(
            param=param,
            values=values,
            models=tuple(models),
            warm=warm,
            elapsed=time.perf_counter() - start,
            **arrays,
        )

    init = None
    for i, value in enumerate(values):
        if max_seconds is not None and time.perf_counter() - start > max_seconds:
            break
        model = SVC(**{**params, param: float(value)})
        if param == "sigma":
            K = kernels.gram(X, X, **{**kernel_args, "sigma": float(value)})
        tic = time.perf_counter()  # the estimator adds the regularized bias's 1
        model.fit(X, y, init=init if warm else None, K=K)
        out["fit_time"][i] = time.perf_counter() - tic
        init = model.alpha_
        out["margin_width"][i] = margin_width(model, K, y)
        out["n_free"][i] = np.sum(model.sv_state_ == 1)
        out["n_bound"][i] = np.sum(model.sv_state_ == 2)
        out["train_error"][i] = np.mean(model.predict(X) != y)
        if X_test is not None and y_test is not None and len(y_test):
            out["test_error"][i] = np.mean(model.predict(X_test) != np.asarray(y_test))
        out["objective"][i] = model.objective_
        models.append(model)
        if progress is not None:
            progress(i + 1, n_values)
        if on_partial is not None and i + 1 < n_values:
            on_partial(result({name: array.copy() for name, array in out.items()}))
    return result(out)


@dataclass(frozen=True)
class TubePath:
    """ε-SVR along ε: per value, the fraction of support vectors and of points
    outside the tube, and the test RMSE; ``models`` may be shorter than
    ``epsilons`` when the time budget ran out (``complete`` is then False)."""

    epsilons: Array
    support_fraction: Array
    outside_fraction: Array
    test_rmse: Array
    models: tuple[Any, ...] = field(repr=False)
    elapsed: float = 0.0

    @property
    def complete(self) -> bool:
        return len(self.models) == self.epsilons.size


def tube_path(
    X: ArrayLike,
    t: ArrayLike,
    epsilons: Sequence[float],
    *,
    params: dict[str, Any],
    X_test: ArrayLike | None = None,
    t_test: ArrayLike | None = None,
    max_seconds: float | None = None,
) -> TubePath:
    """:class:`svmlab.EpsilonSVR` (``params``: C, kernel, σ, ...) at every ε of
    ``epsilons``: the support vectors thin out as the tube widens (the sparsity
    the ε-insensitive loss buys). Values the budget did not reach are NaN."""
    from svmlab.svm.regression import EpsilonSVR

    values = np.asarray([float(e) for e in epsilons], dtype=np.float64)
    if values.size < 2 or not np.all(np.isfinite(values)) or np.any(values < 0):
        raise ParameterError(
            "An ε path needs at least two finite values of ε >= 0; got "
            f"{values.size} value(s)."
        )
    n = values.size
    out = {k: np.full(n, np.nan) for k in ("support", "outside", "rmse")}
    models: list[Any] = []
    start = time.perf_counter()
    t_test_arr = None if t_test is None else np.asarray(t_test, dtype=np.float64)
    for i, eps in enumerate(values):
        if max_seconds is not None and time.perf_counter() - start > max_seconds:
            break
        model = EpsilonSVR(**{**params, "epsilon": float(eps)}).fit(X, t)
        models.append(model)
        out["support"][i] = model.support_fraction_
        out["outside"][i] = model.outside_fraction_
        if X_test is not None and t_test_arr is not None and t_test_arr.size:
            err = model.predict(X_test) - t_test_arr
            out["rmse"][i] = float(np.sqrt(np.mean(err**2)))
    return TubePath(
        epsilons=values,
        support_fraction=out["support"],
        outside_fraction=out["outside"],
        test_rmse=out["rmse"],
        models=tuple(models),
        elapsed=time.perf_counter() - start,
    )
