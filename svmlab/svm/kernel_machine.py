"""What LIBSVM's other machines share as estimators: kernel parameters, solver
settings, the fitted model ``f(x) = sum_i coef_i k(x_i, x) - rho`` and the
checks that give one plain sentence each.

:class:`svmlab.NuSVC`, :class:`svmlab.OneClassSVM`, :class:`svmlab.EpsilonSVR`
and :class:`svmlab.NuSVR` derive from :class:`KernelMachine`; each ``fit``
validates its data (scikit-learn's ``validate_data``, errors rewritten by
:func:`svmlab.svm.validation.plain_data_error`), builds its QP with a function of
:mod:`svmlab.solvers.family` and hands the answer to :meth:`KernelMachine._store`.
Parameters are stored verbatim in ``__init__`` (STYLE rule 9): the shared ones
are declared once, as fields of :class:`KernelMachine`, and each machine adds
its own the same way (:mod:`svmlab.svm.parameters`).
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from svmlab.array_types import Array
from svmlab.errors import DataError, ParameterError, counted, plain_value
from svmlab.kernels import KernelRows, check_kernel_params, kernel_settings
from svmlab.kernels.expansion import kernel_expansion
from svmlab.parameter_checks import check_max_iter, check_positive
from svmlab.solvers.base import check_max_seconds
from svmlab.solvers.family import FamilySolution
from svmlab.solvers.row_cache import CACHE_MB
from svmlab.svm.parameters import parameters
from svmlab.svm.validation import validate

__all__ = ["KernelMachine"]


@parameters
class KernelMachine(BaseEstimator):
    """The parameters and the fitted state every family machine shares.

    Subclasses are decorated with
    :data:`svmlab.svm.parameters.parameters`, declare their own
    parameters as fields and define ``fit``.
    """

    kernel: str = "gaussian"
    sigma: float = 1.0
    degree: int = 3
    coef0: float = 1.0
    scale: float = 1.0
    tol: float = 1e-3
    max_iter: int | None = None
    shrinking: bool = True
    cache_mb: float = CACHE_MB
    cache_precision: str = "float64"
    max_seconds: float | None = None

    # -- validation -----------------------------------------------------------------

    def _check_common(self) -> dict[str, Any]:
        """Kernel and solver parameters; returns the solver options."""
        check_kernel_params(**kernel_settings(self))
        check_positive("tol", self.tol)
        max_iter = check_max_iter(self.max_iter)
        cache_mb = check_positive("cache_mb", self.cache_mb, " of megabytes")
        if self.cache_precision not in ("float64", "float32"):
            raise ParameterError(
                "cache_precision must be 'float64' or 'float32' (LIBSVM's); got "
                f"{plain_value(self.cache_precision)}."
            )
        return {
            "tol": float(self.tol),
            "max_iter": max_iter,
            "max_seconds": check_max_seconds(self.max_seconds),
            "shrinking": bool(self.shrinking),
            "cache_mb": cache_mb,
            "cache_precision": self.cache_precision,
        }

    def _rows(self, X: Array) -> KernelRows:
        """The training Gram matrix as rows on demand (LIBSVM's kernel cache)."""
        return KernelRows(X, **kernel_settings(self))

    # -- the fitted model ----------------------------------------------------------

    def _store(self, X: Array, solution: FamilySolution, start: float) -> None:
        """``support_``, ``dual_coef_``, ``intercept_`` and the solver's report
        from a family solution; warns when the solver stopped early."""
        coef = solution.coef
        self.support_ = np.flatnonzero(coef)
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = coef[self.support_][None, :]
        self.intercept_ = np.array([-solution.rho])
        self.n_iter_ = solution.n_iter
        self.converged_ = solution.converged
        self.stop_reason_ = solution.stop_reason
        self.kkt_violation_ = solution.gap
        self.objective_ = solution.objective
        self.solution_ = solution
        self.fit_time_ = time.perf_counter() - start
        if not solution.converged:
            why = (
                f"after {solution.fit_time:.1f} s, its time budget"
                if solution.stop_reason == "max_seconds"
                else f"after {counted(solution.n_iter, 'iteration')} (max_iter)"
            )
            warnings.warn(
                f"The solver stopped {why}, without meeting tol={self.tol} (KKT "
                f"violation {solution.gap:.2e}). Raise the limit or tol.",
                ConvergenceWarning,
                stacklevel=3,
            )

    def _raw_decision(self, X: ArrayLike) -> Array:
        """``sum_{i in SV} coef_i k(x_i, x) + intercept``, shape (n,)."""
        check_is_fitted(self)
        X = validate(self, X, reset=False)
        b = float(self.intercept_[0])
        if self.support_.size == 0:
            return np.full(X.shape[0], b)
        with np.errstate(over="ignore", invalid="ignore"):
            # gram(X, SV) @ coef, on every core for a large X (issue 48).
            f = kernel_expansion(
                X, self.support_vectors_, self.dual_coef_[0], **kernel_settings(self)
            )
            f = f + b
        if not np.all(np.isfinite(f)):
            raise DataError(
                "f(x) overflows at some of these points: the kernel values there "
                "times the model's coefficients exceed the largest float. Scale "
                "the data."
            )
        return f
