"""The Multiclass page's experiment as a plain function: the three methods fitted
on the same data with the same kernel and C, and measured the same way.

:func:`compare` returns one :class:`MethodResult` per key of
:data:`svmlab.svm.multiclass.METHODS`: the fitted model (or the plain sentence of
its error: one method failing never hides the others), training and test
error, support vectors, fit time, and the share of the test points that the
reduction's own rule leaves open (one-vs-rest: no classifier or several claim
the point; one-vs-one: a tied vote), with the test error there.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.exceptions import ConvergenceWarning

from svmlab.errors import FitCancelled, SvmlabError
from svmlab.svm.multiclass import (
    METHODS,
    CrammerSingerSVC,
    OneVsOneSVC,
    OneVsRestSVC,
    ovo_ties,
    ovr_ambiguity,
)

__all__ = ["MethodResult", "MulticlassSettings", "compare", "make_model"]


@dataclass(frozen=True)
class MulticlassSettings:
    """The model settings every method shares (the binary ones: loss and bias
    of the reductions; Crammer-Singer has the hinge and its own bias)."""

    kernel: str = "gaussian"
    C: float = 1.0
    sigma: float = 1.0
    degree: int = 3
    coef0: float = 1.0
    loss: str = "hinge"
    delta: float = 0.1
    bias: str = "unregularized"
    cs_bias: str = "none"
    max_seconds: float | None = None
    #: ν for the reductions' binary fits (ν-SVC instead of C-SVC); None: C.
    nu: float | None = None


@dataclass(frozen=True)
class MethodResult:
    """One method on the data (``model`` None and ``error`` set if it failed)."""

    method: str
    model: Any = None
    error: str | None = None
    train_error: float = math.nan
    test_error: float = math.nan
    n_support: int = 0
    fit_time: float = math.nan
    converged: bool = True
    undecided_share: float = 0.0
    undecided_error: float = math.nan
    notes: tuple[str, ...] = ()


def make_model(method: str, settings: MulticlassSettings) -> Any:
    """The unfitted estimator of ``method`` (a key of ``METHODS``)."""
    kernel = {
        "kernel": settings.kernel,
        "C": settings.C,
        "sigma": settings.sigma,
        "degree": settings.degree,
        "coef0": settings.coef0,
        "max_seconds": settings.max_seconds,
    }
    binary = {
        "loss": settings.loss,
        "delta": settings.delta,
        "bias": settings.bias,
        "nu": settings.nu,
    }
    if method == "ovr":
        return OneVsRestSVC(**kernel, **binary)
    if method == "ovo":
        return OneVsOneSVC(**kernel, **binary)
    if method == "crammer_singer":
        return CrammerSingerSVC(**kernel, bias=settings.cs_bias)
    raise ValueError(f"unknown method {method!r}")


def undecided(model: Any, X: ArrayLike) -> np.ndarray:
    """Whether the reduction's own rule leaves each point open (n,)."""
    if isinstance(model, OneVsRestSVC):
        return ovr_ambiguity(model.binary_decisions(X)) != 1
    if isinstance(model, OneVsOneSVC):
        return ovo_ties(model.votes(X))
    return np.zeros(np.asarray(X).shape[0], dtype=bool)


def _one(method, settings, X, y, X_test, y_test) -> MethodResult:
    model = make_model(method, settings)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X, y)
    except FitCancelled:
        raise
    except SvmlabError as error:
        return MethodResult(method, error=str(error))
    wrong = model.predict(X_test) != y_test
    open_ = undecided(model, X_test)
    return MethodResult(
        method=method,
        model=model,
        train_error=float(np.mean(model.predict(X) != y)),
        test_error=float(np.mean(wrong)),
        n_support=int(model.support_.shape[0]),
        fit_time=float(model.fit_time_),
        converged=bool(model.converged_),
        undecided_share=float(np.mean(open_)),
        undecided_error=float(np.mean(wrong[open_])) if open_.any() else math.nan,
        notes=tuple(model.fit_notes_),
    )


def compare(
    X: ArrayLike,
    y: ArrayLike,
    X_test: ArrayLike,
    y_test: ArrayLike,
    settings: MulticlassSettings,
) -> dict[str, MethodResult]:
    """Every method of ``METHODS`` on ``(X, y)``, measured on ``(X_test, y_test)``."""
    X = np.asarray(X, dtype=np.float64)
    X_test = np.asarray(X_test, dtype=np.float64)
    y, y_test = np.asarray(y), np.asarray(y_test)
    return {m: _one(m, settings, X, y, X_test, y_test) for m in METHODS}
