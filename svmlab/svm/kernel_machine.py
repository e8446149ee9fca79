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
import scipy.sparse as sp
from numpy.typing import ArrayLike
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from svmlab.array_types import Array
from svmlab.errors import DataError, ParameterError, counted, plain_value
from svmlab.kernels import KernelRows
from svmlab.parameter_checks import check_max_iter, check_positive
from svmlab.solvers.base import check_max_seconds
from svmlab.solvers.family import FamilySolution
from svmlab.solvers.row_cache import CACHE_MB
from svmlab.svm.kernel_spec import KernelSpec, kernel_spec, support_expansion
from svmlab.svm.libsvm_layout import read_only_coef
from svmlab.svm.parameters import KernelSpellings, parameters
from svmlab.svm.sample_weights import check_sample_weight, kept_points
from svmlab.svm.validation import (
    dense_points,
    fit_input,
    predict_input,
    sparse_layout,
)

__all__ = ["KernelMachine", "MachineInput"]


class MachineInput:
    """What a family machine's fit solves on: the kernel (rows on demand of
    the points, or a Gram matrix for a precomputed or callable kernel), the
    points a sample weight kept (``rows``; all when None) and their weights."""

    def __init__(self, machine: KernelMachine, X: Any, weights: Array | None):
        n = X.shape[0] if hasattr(X, "shape") else len(X)
        self.n = n
        self.spec = spec = machine.kernel_spec_
        self.rows = kept_points(weights, n)
        self.weights = None if weights is None else weights
        keep = slice(None) if self.rows is None else self.rows
        if self.weights is not None:
            self.weights = self.weights[keep]
        self.K: Array | None = None
        self.kernel: KernelRows | None = None
        if spec.builtin:
            points = dense_points(X)[keep]
            self.kernel = KernelRows(spec.points(points), **spec.settings())
        else:
            K = X if spec.kernel == "precomputed" else spec.matrix(X, X)
            K = np.asarray(K, dtype=np.float64)
            if K.shape != (n, n):
                raise DataError(
                    f"The kernel must give the square ({n}, {n}) Gram matrix of the "
                    f"training points; got {K.shape[0]}x{K.shape[1]}."
                )
            self.K = K if self.rows is None else K[np.ix_(self.rows, self.rows)]

    def solver_kernel(self) -> Array | KernelRows:
        """The kernel for :mod:`svmlab.solvers.family`: ``K``, else its rows."""
        return self.K if self.K is not None else self.kernel

    def full(self, values: Array) -> Array:
        """Per kept point ``values`` spread over all n training points (0 for
        those left out)."""
        if self.rows is None:
            return values
        out = np.zeros(self.n)
        out[self.rows] = values
        return out


@parameters
class KernelMachine(KernelSpellings):
    """The parameters and the fitted state every family machine shares.

    Subclasses are decorated with
    :data:`svmlab.svm.parameters.parameters`, declare their own
    parameters as fields and define ``fit``.
    """

    kernel: str = "gaussian"
    degree: int = 3
    tol: float = 1e-3
    max_iter: int | None = None
    shrinking: bool = True
    cache_mb: float = CACHE_MB
    cache_precision: str = "float64"
    max_seconds: float | None = None

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.input_tags.sparse = self.kernel != "precomputed"
        return tags

    # -- validation -----------------------------------------------------------------

    def _check_common(self) -> dict[str, Any]:
        """Kernel and solver parameters; returns the solver options."""
        kernel_spec(self)
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

    def _input(
        self, X: Any, y: Any = "no_validation", sample_weight: Any = None, **kw: Any
    ):
        """``(X, y, MachineInput)``: the data checked for the kernel, the kernel
        resolved (``kernel_spec_``), the weights' kept points."""
        out = fit_input(self, X, y, **kw)
        X, y = out if isinstance(out, tuple) else (out, None)
        n = X.shape[0] if hasattr(X, "shape") else len(X)
        self.kernel_spec_ = kernel_spec(self, X)
        self.shape_fit_ = X.shape if hasattr(X, "shape") else (n,)
        self._X_callable = X if callable(self.kernel) else None
        return X, y, MachineInput(self, X, check_sample_weight(sample_weight, n))

    @property
    def coef_(self) -> Any:
        """The primal weights ``w`` of a linear kernel (read-only), ``f(x) =
        w'x + intercept_``; an AttributeError for other kernels."""
        return read_only_coef(self)

    # -- the fitted model ----------------------------------------------------------

    def _store(
        self, X: Any, solution: FamilySolution, start: float, data: MachineInput
    ) -> None:
        """``support_``, ``dual_coef_``, ``intercept_`` and the solver's report
        from a family solution (coefficients of the points a weight left out
        are 0); warns when the solver stopped early."""
        coef = data.full(solution.coef)
        self.support_ = np.flatnonzero(coef)
        self._set_support(X, coef)
        self.intercept_ = np.array([-solution.rho])
        self.n_support_ = np.array([self.support_.size], dtype=np.int32)
        self.n_iter_ = solution.n_iter
        self.converged_ = solution.converged
        self.fit_status_ = 0 if solution.converged else 1
        self.stop_reason_ = solution.stop_reason
        self.kkt_violation_ = solution.gap
        self.objective_ = solution.objective
        self.solution_ = solution
        self.fit_time_ = time.perf_counter() - start
        if not solution.converged and solution.stop_reason == "rule":
            # The gradient's rounding exceeds tol (issue 44, item 6): the
            # solver's own sentence says why and with which value.
            warnings.warn(
                f"The solver stopped without meeting tol={self.tol}: "
                f"{solution.extras['stop_note']}",
                ConvergenceWarning,
                stacklevel=3,
            )
        elif not solution.converged:
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

    def _set_support(self, X: Any, coef: Array) -> None:
        """``support_vectors_`` and ``dual_coef_`` (1, n_SV) of the support in
        scikit-learn's kinds: CSR for a sparse X, no points (0, 0) for a
        precomputed or callable kernel."""
        dual = coef[self.support_][None, :]
        spec: KernelSpec = self.kernel_spec_
        if spec.precomputed:
            self.support_vectors_ = np.empty((0, 0))
            self.dual_coef_ = dual
        elif sp.issparse(X):
            self.support_vectors_ = sparse_layout(X, self.support_)
            kind = sp.csr_array if isinstance(X, sp.sparray) else sp.csr_matrix
            self.dual_coef_ = kind(dual)
        else:
            self.support_vectors_ = X[self.support_]
            self.dual_coef_ = dual

    def _raw_decision(self, X: ArrayLike) -> Array:
        """``sum_{i in SV} coef_i k(x_i, x) + intercept``, shape (n,)."""
        check_is_fitted(self)
        X = predict_input(self, X)
        b = float(self.intercept_[0])
        if self.support_.size == 0:
            n = X.shape[0] if hasattr(X, "shape") else len(X)
            return np.full(n, b)
        spec = self.kernel_spec_
        dual = self.dual_coef_
        dual = dual.toarray() if sp.issparse(dual) else dual
        with np.errstate(over="ignore", invalid="ignore"):
            f = (
                support_expansion(
                    spec,
                    dense_points(X) if spec.builtin else X,
                    dual[0],
                    support=self.support_,
                    support_vectors=self.support_vectors_,
                    X_fit=self._X_callable,
                )
                + b
            )
        if not np.all(np.isfinite(f)):
            raise DataError(
                "f(x) overflows at some of these points: the kernel values there "
                "times the model's coefficients exceed the largest float. Scale "
                "the data."
            )
        return f
