"""``svmlab.SVC``: kernel + loss + solver behind scikit-learn's estimator contract.

Parameters are stored verbatim in ``__init__``; all validation happens in ``fit``
(STYLE rule 9), so ``clone``, ``GridSearchCV`` and pipelines work unchanged.
"""

from __future__ import annotations

import math
import time
import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets, unique_labels
from sklearn.utils.validation import check_is_fitted, validate_data

from svmlab import solvers
from svmlab.errors import DataError, ParameterError, UnknownNameError
from svmlab.kernels import check_kernel_params, gram
from svmlab.losses import LOSSES, Loss, make_loss
from svmlab.solvers.base import Problem, sv_states

__all__ = ["BIASES", "SVC", "SV_STATES"]

Array = NDArray[np.float64]

#: bias mode -> description (the UI lists these).
BIASES: dict[str, str] = {
    "unregularized": "unregularized b (Σ αᵢyᵢ = 0)",
    "regularized": "regularized b (kernel + 1, Rifkin)",
    "none": "no bias (Lee; Sugiyama's spiral code)",
}

#: KKT state codes of ``SVC.sv_state_``.
SV_STATES: dict[int, str] = {0: "non-SV", 1: "free SV", 2: "bound SV"}


def _plain_data_error(error: ValueError) -> DataError:
    text = str(error)
    if "NaN" in text or "infinity" in text or "inf" in text.split():
        return DataError(
            "The data contain NaN or infinite values; remove or fix those rows "
            f"before fitting. ({text})"
        )
    if "could not convert" in text:
        return DataError(f"The features must be numbers; some values are not. ({text})")
    return DataError(text)


def _check_gram(K: ArrayLike, n: int) -> Array:
    """A precomputed Gram matrix as float64 (n, n), or a DataError."""
    try:
        K = np.asarray(K, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise DataError(f"K must be a numeric (n, n) Gram matrix. ({error})") from error
    if K.shape != (n, n):
        raise DataError(
            f"K must be the ({n}, {n}) Gram matrix of the {n} training points; "
            f"got shape {K.shape}."
        )
    if not np.all(np.isfinite(K)):
        raise DataError("K contains NaN or infinite values; it must be finite.")
    return K


class SVC(ClassifierMixin, BaseEstimator):
    """Binary support vector classifier with a choice of kernel, loss and solver.

    Parameters
    ----------
    C
        Cost of the loss term, > 0; ``math.inf`` is the hard margin (hinge only).
    kernel
        ``"gaussian"`` (``exp(-||x - z||^2 / (2 sigma^2))``), ``"polynomial"``
        (``(x'z + coef0)^degree``) or ``"linear"``.
    sigma
        Gaussian width (Sugiyama's h); scikit-learn's gamma is ``1 / (2 sigma^2)``.
    degree, coef0
        Polynomial kernel degree p and offset a.
    loss
        ``"hinge"``, ``"squared_hinge"``, ``"ramp"``, ``"squared_ramp"`` or
        ``"modified_hinge"`` (Lee's h_delta, C^1 form).
    delta
        The modified hinge's delta (ignored by other losses).
    solver
        ``"auto"`` or a key of :data:`svmlab.solvers.SOLVERS`.
    bias
        ``"unregularized"`` (``sum alpha_i y_i = 0``), ``"regularized"``
        (kernel + 1) or ``"none"``.
    tol, max_iter
        The solver's stopping tolerance and iteration cap.
    record_history
        Keep per-iteration snapshots for playback (``history_``).
    solver_options
        Extra keyword arguments for the solver (see each solver's docstring).
    random_state
        Seed for solvers that randomise (kept for the scikit-learn contract).

    Attributes
    ----------
    alpha_ : ndarray (n_samples,)
        Coefficients: ``f(x) = sum_i alpha_i y_i k(x_i, x) + b``.
    dual_coef_ : ndarray (1, n_SV)
        ``y_i alpha_i`` of the support vectors (scikit-learn's convention).
    support_, support_vectors_, n_support_
        Indices, points and per-class counts of the support vectors.
    intercept_ : ndarray (1,)
        ``b`` (for the regularized bias, the implicit ``sum alpha_i y_i``).
    sv_state_ : ndarray of int (n_samples,)
        KKT state: 0 non-SV, 1 free SV (on the margin), 2 bound SV (alpha = C).
    margins_ : ndarray (n_samples,)
        Training margins ``m_i = y_i f(x_i)``.
    objective_, dual_objective_, duality_gap_, kkt_violation_
        The primal objective ``0.5 ||f||^2 + C sum loss(m_i)``, the dual value
        (hinge-type losses), their gap, and the KKT violation in margin units.
    n_iter_, converged_, fit_time_, solver_, history_, solution_
        Iterations, convergence flag, seconds for the whole fit, the concrete
        solver, per-iteration records, and the raw :class:`DualSolution`.
    """

    def __init__(
        self,
        C: float = 1.0,
        kernel: str = "gaussian",
        sigma: float = 1.0,
        degree: int = 3,
        coef0: float = 1.0,
        loss: str = "hinge",
        delta: float = 0.1,
        solver: str = "auto",
        bias: str = "unregularized",
        tol: float = 1e-3,
        max_iter: int = 100_000,
        record_history: bool = False,
        solver_options: dict[str, Any] | None = None,
        random_state: int | None = None,
    ) -> None:
        self.C = C
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.loss = loss
        self.delta = delta
        self.solver = solver
        self.bias = bias
        self.tol = tol
        self.max_iter = max_iter
        self.record_history = record_history
        self.solver_options = solver_options
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    # -- validation ---------------------------------------------------------------

    def _check_params(self) -> Loss:
        if self.loss not in LOSSES:
            raise UnknownNameError("loss", self.loss, LOSSES)
        loss = make_loss(self.loss, delta=self.delta)
        C = self.C
        if isinstance(C, bool) or not isinstance(C, int | float | np.number):
            raise ParameterError(f"C must be a positive number; got {C!r}.")
        if math.isnan(C) or C <= 0:
            raise ParameterError(f"C must be a positive number; got {C!r}.")
        if math.isinf(C) and self.loss != "hinge":
            raise ParameterError(
                "C = inf (the hard margin) is only defined for the hinge loss."
            )
        check_kernel_params(
            self.kernel, sigma=self.sigma, degree=self.degree, coef0=self.coef0
        )
        if self.bias not in BIASES:
            raise UnknownNameError("bias mode", self.bias, BIASES)
        if not (np.isfinite(self.tol) and self.tol > 0):
            raise ParameterError(f"tol must be a positive number; got {self.tol!r}.")
        if int(self.max_iter) != self.max_iter or self.max_iter < 1:
            raise ParameterError(
                f"max_iter must be a whole number of at least 1; got {self.max_iter!r}."
            )
        return loss

    def _gram(self, X: Array, Z: Array | None = None) -> Array:
        K = gram(
            X,
            Z,
            kernel=self.kernel,
            sigma=self.sigma,
            degree=self.degree,
            coef0=self.coef0,
        )
        return K

    # -- fitting --------------------------------------------------------------------

    def fit(
        self,
        X: ArrayLike,
        y: ArrayLike,
        init: ArrayLike | None = None,
        K: ArrayLike | None = None,
    ) -> SVC:
        """Fit on X (n, d) and y (n,) with two distinct labels.

        ``init`` is a previous ``alpha_`` (same n) used as a warm start by the
        solvers that can use one; it is clipped and repaired to be feasible.

        ``K`` is an optional precomputed Gram matrix of ``X`` with this
        estimator's kernel, shape (n, n): the plain kernel ``k(x_i, x_j)``, without
        the ``+ 1`` of ``bias="regularized"`` (the estimator adds it). Passing it
        skips the kernel computation (the Explore page caches ``K`` so that moving
        C does not recompute it). It is trusted to match ``X`` and the kernel
        parameters; only its shape and finiteness are checked.
        """
        start = time.perf_counter()
        loss = self._check_params()
        try:
            X, y = validate_data(self, X, y, dtype=np.float64)
        except ValueError as error:
            raise _plain_data_error(error) from error
        try:
            check_classification_targets(y)
        except ValueError as error:
            raise DataError(
                "The labels must be class names such as -1/1, 0/1 or text, not "
                f"continuous numbers like 0.5 or 2.5. ({error})"
            ) from error
        self.classes_ = unique_labels(y)
        if self.classes_.shape[0] < 2:
            raise DataError(
                f"Only one class ({self.classes_[0]!r}) is present; an SVM needs "
                "points of two classes."
            )
        if self.classes_.shape[0] > 2:
            raise DataError(
                f"Only binary classification is supported. y has "
                f"{self.classes_.shape[0]} classes; svmlab.SVC separates two "
                "(use the multiclass page or OneVsRestClassifier)."
            )
        if X.shape[0] < 2:
            raise DataError(f"An SVM needs at least 2 points; got {X.shape[0]}.")
        y_pm = np.where(y == self.classes_[1], 1.0, -1.0)
        fit_intercept = self.bias == "unregularized"
        name = solvers.resolve_solver(
            self.solver,
            self.loss,
            fit_intercept=fit_intercept,
            hard_margin=math.isinf(self.C),
        )
        if K is None:
            K = self._gram(X)
        else:
            K = _check_gram(K, X.shape[0])
        if self.bias == "regularized":
            K = K + 1.0
        problem = Problem(
            K=K, y=y_pm, loss=loss, C=float(self.C), fit_intercept=fit_intercept
        )
        solution = solvers.solve(
            problem,
            method=name,
            tol=float(self.tol),
            max_iter=int(self.max_iter),
            init=None if init is None else np.asarray(init, dtype=np.float64),
            record_history=bool(self.record_history),
            **(self.solver_options or {}),
        )
        self._store(X, y_pm, problem, solution, name)
        self.fit_time_ = time.perf_counter() - start
        if not solution.converged:
            warnings.warn(
                f"The {name} solver stopped after {solution.n_iter} iterations "
                f"without meeting tol={self.tol} (KKT violation "
                f"{solution.kkt:.2e}). Raise max_iter or tol.",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    def _store(self, X, y_pm, problem, solution, name) -> None:
        alpha = solution.alpha
        self.X_fit_ = X
        self.y_fit_ = y_pm
        self.alpha_ = alpha
        self.solution_ = solution
        self.solver_ = name
        b = solution.b + (float(alpha @ y_pm) if self.bias == "regularized" else 0.0)
        self.intercept_ = np.array([b])
        self.sv_state_ = sv_states(alpha, problem.C, self.loss)
        self.support_ = np.flatnonzero(self.sv_state_ > 0)
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = (alpha * y_pm)[self.support_][None, :]
        self.n_support_ = np.array(
            [np.sum(y_pm[self.support_] < 0), np.sum(y_pm[self.support_] > 0)],
            dtype=np.int32,
        )
        f = problem.K @ (alpha * y_pm) + solution.b
        self.margins_ = y_pm * f
        self.objective_ = solution.objective
        self.dual_objective_ = solution.dual_objective
        self.duality_gap_ = solution.duality_gap()
        self.kkt_violation_ = solution.kkt
        self.n_iter_ = solution.n_iter
        self.converged_ = solution.converged
        self.history_ = solution.history

    # -- prediction -----------------------------------------------------------------

    def decision_function(self, X: ArrayLike) -> Array:
        """``f(x) = sum_{i in SV} alpha_i y_i k(x_i, x) + b``, shape (n,)."""
        check_is_fitted(self)
        try:
            X = validate_data(self, X, dtype=np.float64, reset=False)
        except ValueError as error:
            raise _plain_data_error(error) from error
        if self.support_.size == 0:
            return np.full(X.shape[0], float(self.intercept_[0]))
        K = self._gram(X, self.support_vectors_)
        return K @ self.dual_coef_[0] + self.intercept_[0]

    def predict(self, X: ArrayLike) -> NDArray:
        """The class of ``sign f(x)`` (f = 0 goes to the first class)."""
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(int)]

    def history_decision_function(self, X: ArrayLike, index: int) -> Array:
        """``f`` at recorded snapshot ``index`` of ``history_`` (for playback)."""
        check_is_fitted(self)
        try:
            X = validate_data(self, X, dtype=np.float64, reset=False)
        except ValueError as error:
            raise _plain_data_error(error) from error
        alpha = np.asarray(self.history_.alpha[index], dtype=np.float64)
        coef = alpha * self.y_fit_
        keep = np.flatnonzero(coef)
        b = self.history_.intercept[index]
        if self.bias == "regularized":
            b += float(coef.sum())
        if keep.size == 0:
            return np.full(X.shape[0], b)
        return self._gram(X, self.X_fit_[keep]) @ coef[keep] + b
