"""``svmlab.SVC``: kernel + loss + solver behind scikit-learn's estimator contract.

Parameters are stored verbatim in ``__init__``; all validation happens in ``fit``
(STYLE rule 9), so ``clone``, ``GridSearchCV`` and pipelines work unchanged.
"""

from __future__ import annotations

import math
import time
import warnings

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from svmlab import solvers
from svmlab.array_types import Array
from svmlab.errors import (
    DataError,
    IncompatibleLossError,
    ParameterError,
    UnknownNameError,
    plain_value,
)
from svmlab.kernels import (
    PSD_KERNELS,
    KernelRows,
    check_kernel_params,
    gram,
    kernel_settings,
)
from svmlab.kernels.psd import check_bounded_dual
from svmlab.losses import LOSSES, Loss, make_loss
from svmlab.parameter_checks import check_max_iter, check_positive, is_number
from svmlab.solvers.base import Problem, check_max_seconds, sv_states
from svmlab.svm.class_weights import WEIGHTED_LOSSES, class_weights, point_weights
from svmlab.svm.fit_checks import (
    check_finite_solution,
    check_gram,
    convergence_message,
    kernel_part,
    numerical_notes,
)
from svmlab.svm.parameters import BinarySVMParameters, parameters
from svmlab.svm.validation import (
    check_binary_labels,
    check_init,
    validate,
)

__all__ = ["BIASES", "SVC", "SV_STATES"]


#: bias mode -> description (the UI lists these).
BIASES: dict[str, str] = {
    "unregularized": "unregularized b (Σ αᵢyᵢ = 0)",
    "regularized": "regularized b (kernel + 1, Rifkin)",
    "none": "no bias (Lee; Sugiyama's spiral code)",
}

#: KKT state codes of ``SVC.sv_state_``.
SV_STATES: dict[int, str] = {0: "non-SV", 1: "free SV", 2: "bound SV"}


def _plain(value: object) -> object:
    """NumPy scalars as Python ones, so that a later ``!r`` prints ``-1.0``."""
    return value.item() if isinstance(value, np.generic) else value


#: ``max_iter=None``: the cap of every solver whose cap does not scale with n.
ITERATION_CAP = 100_000


#: The smallest C per class (C w_c) a fit takes: float64's smallest normal.
TINY_C = float(np.finfo(np.float64).tiny)


@parameters
class SVC(ClassifierMixin, BinarySVMParameters):
    """Binary support vector classifier with a choice of kernel, loss and solver.

    Parameters
    ----------
    C
        Cost of the loss term, > 0; ``math.inf`` is the hard margin (hinge only).
    kernel
        ``"gaussian"`` (``exp(-||x - z||^2 / (2 sigma^2))``), ``"polynomial"``
        (``(x'z + coef0)^degree``), ``"linear"`` or ``"sigmoid"``
        (``tanh(scale x'z + coef0)``, not positive semidefinite in general).
    sigma
        Gaussian width (Sugiyama's h); scikit-learn's gamma is ``1 / (2 sigma^2)``.
    degree, coef0
        Polynomial kernel degree p and offset a (coef0 is also the sigmoid's r).
    scale
        The sigmoid kernel's slope a (scikit-learn's gamma for ``"sigmoid"``).
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
        The solver's stopping tolerance and iteration cap. ``max_iter=None``
        is the solver's own cap: for SMO LIBSVM's ``max(10^7, 100 n)``, which a
        converging problem never reaches; :data:`ITERATION_CAP` for the others.
    record_history
        Keep per-iteration snapshots for playback (``history_``).
    solver_options
        Extra keyword arguments for the solver (see each solver's docstring).
    random_state
        Seed for solvers that randomise (kept for the scikit-learn contract).
    max_seconds
        Time budget of the solver in seconds (None: unlimited; the Gram matrix
        is not counted). When it runs out the solver stops at its current
        feasible point, ``converged_`` is False and a ``ConvergenceWarning``
        says so. Fits inside :func:`svmlab.cancel_when` can also be cancelled
        (:class:`svmlab.FitCancelled`, not caught here).
    class_weight
        None, ``"balanced"`` (scikit-learn's ``n / (2 n_c)``) or a dict
        ``{label: weight}``: class c costs ``C w_c`` (LIBSVM's ``-wi``,
        :mod:`svmlab.svm.class_weights`). For the hinge and the squared hinge, with
        the solvers that take a C per point (smo, qp, coordinate).

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
    fit_notes_ : tuple of str
        Plain sentences for the page when the fit's numbers cannot be fully
        trusted (a solver stopped by a looser rule of its own, e.g. Lee's rule
        in IRWLS, with the residual it left; rounding at a huge C, a failed KKT
        check at a large C); empty for an ordinary fit.
    stop_reason_ : str
        Why the solver stopped: ``"converged"`` (its KKT measure met ``tol``),
        ``"max_iter"``, ``"max_seconds"`` or ``"rule"`` (see
        :data:`svmlab.solvers.STOP_REASONS`).
    class_weight_ : ndarray (2,)
        The weight of each class of ``classes_`` (ones without class weights).

    ``support_`` holds every point with a nonzero alpha, so ``decision_function``
    on the training points reproduces ``margins_ / y`` to rounding at any C;
    ``sv_state_`` is the display state, with a threshold relative to
    ``min(C, max alpha)`` (:func:`svmlab.solvers.base.sv_states`).
    """

    scale: float = 1.0
    record_history: bool = False
    class_weight: dict | str | None = None

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    # -- validation ---------------------------------------------------------------

    def _check_params(self) -> Loss:
        if not isinstance(self.loss, str) or self.loss not in LOSSES:
            raise UnknownNameError("loss", self.loss, LOSSES)
        # NumPy scalars become Python ones so that no message prints np.float64.
        loss = make_loss(self.loss, delta=_plain(self.delta))
        C = self.C
        if not is_number(C) or math.isnan(C) or C <= 0:
            raise ParameterError(f"C must be a positive number; got {plain_value(C)}.")
        if math.isinf(C) and self.loss != "hinge":
            raise ParameterError(
                "C = inf (the hard margin) is only defined for the hinge loss."
            )
        check_kernel_params(**kernel_settings(self))
        if not isinstance(self.bias, str) or self.bias not in BIASES:
            raise UnknownNameError("bias mode", self.bias, BIASES)
        check_positive("tol", self.tol)
        check_max_iter(self.max_iter)
        check_max_seconds(self.max_seconds)
        return loss

    def _iteration_cap(self, name: str) -> int | None:
        """``max_iter``, or with None the solver's own scaled cap (SMO) or
        :data:`ITERATION_CAP` (None goes to :func:`svmlab.solvers.solve`)."""
        if self.max_iter is not None:
            return int(self.max_iter)
        return None if name in solvers.SCALED_CAP else ITERATION_CAP

    def _gram(self, X: Array, Z: Array | None = None) -> Array:
        return gram(X, Z, **kernel_settings(self))

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
        It must hold one finite number per training point: a wrong length, NaN
        or infinity is a :class:`~svmlab.errors.ParameterError` (text a
        :class:`~svmlab.errors.DataError`), never a silent cold start.

        ``K`` is an optional precomputed Gram matrix of ``X`` with this
        estimator's kernel, shape (n, n): the plain kernel ``k(x_i, x_j)``, without
        the ``+ 1`` of ``bias="regularized"`` (the estimator adds it). Passing it
        skips the kernel computation (the Explore page caches ``K`` so that moving
        C does not recompute it). It is trusted to match ``X`` and the kernel
        parameters; its shape, finiteness and symmetry are checked, once per
        matrix (a K handed in again unchanged is not checked again).
        """
        start = time.perf_counter()
        loss = self._check_params()
        X, y = validate(self, X, y)
        self.classes_ = check_binary_labels(
            y,
            one="an SVM needs points of two classes.",
            more="svmlab.SVC separates two. For more, use svmlab.OneVsRestSVC, "
            "svmlab.OneVsOneSVC or svmlab.CrammerSingerSVC (the app's Multiclass "
            "page compares them).",
        )
        if X.shape[0] < 2:
            raise DataError(f"An SVM needs at least 2 points; got {X.shape[0]}.")
        y_pm = np.where(y == self.classes_[1], 1.0, -1.0)
        fit_intercept = self.bias == "unregularized"
        per_class = class_weights(self.class_weight, self.classes_, y)
        if per_class is not None and self.loss not in WEIGHTED_LOSSES:
            raise IncompatibleLossError(
                self.solver,
                f"class weights with the {self.loss} loss (a C per class enters "
                "the hinge and squared-hinge duals only)",
                [],
            )
        if per_class is not None and not float(self.C) * per_class.min() >= TINY_C:
            # A C per class that float64 rounds to 0 (or to a subnormal) drops
            # that class from the loss: a silent 50 % model (issue 44, item 6).
            raise ParameterError(
                f"C times the class weights must stay above {TINY_C:.1e} (float64's "
                f"smallest normal number); C = {plain_value(self.C)} and weights "
                f"{', '.join(plain_value(w) for w in per_class)} give "
                f"{float(self.C) * per_class.min():.3g}: that class would drop out "
                "of the loss."
            )
        weights = point_weights(per_class, self.classes_, y)
        self.class_weight_ = np.ones(2) if per_class is None else per_class
        name = solvers.resolve_solver(
            self.solver,
            self.loss,
            fit_intercept=fit_intercept,
            hard_margin=math.isinf(self.C),
            weighted=weights is not None,
        )
        # The regularized bias is the kernel K + 1 (Rifkin's slides).
        shift = 1.0 if self.bias == "regularized" else 0.0
        rows = None
        if K is None and name in solvers.ON_DEMAND:
            # SMO and the entropy dual compute and cache only the kernel rows
            # they visit (LIBSVM).
            rows = KernelRows(X, **kernel_settings(self), shift=shift)
        else:
            K = self._gram(X) if K is None else check_gram(K, X.shape[0])
            if shift:
                K = K + shift
        if self.loss == "squared_hinge" and self.kernel not in PSD_KERNELS:
            # No box on α: an indefinite K + I/C leaves the dual unbounded.
            check_bounded_dual(
                rows.full() if K is None else K,
                float(self.C),
                loss="squared hinge",
                boxed="hinge",
                weights=weights,
            )
        problem = Problem(
            K=K,
            y=y_pm,
            loss=loss,
            C=float(self.C),
            fit_intercept=fit_intercept,
            kernel=rows,
            weights=weights,
        )
        init = check_init(init, X.shape[0])
        solution = solvers.solve(
            problem,
            method=name,
            tol=float(self.tol),
            max_iter=self._iteration_cap(name),
            init=init,
            record_history=bool(self.record_history),
            max_seconds=check_max_seconds(self.max_seconds),
            **(self.solver_options or {}),
        )
        check_finite_solution(problem, solution, name)
        self._store(X, y_pm, problem, solution, name)
        self.fit_time_ = time.perf_counter() - start
        if not solution.converged:
            warnings.warn(
                convergence_message(name, solution, self.tol),
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
        self.sv_state_ = sv_states(alpha, problem.costs, self.loss)
        # Every nonzero alpha enters f: a threshold relative to C would drop the
        # whole solution at large C, where alpha is bounded by the data, not C.
        self.support_ = np.flatnonzero(alpha)
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = (alpha * y_pm)[self.support_][None, :]
        self.n_support_ = np.array(
            [np.sum(y_pm[self.support_] < 0), np.sum(y_pm[self.support_] > 0)],
            dtype=np.int32,
        )
        # The solver's own K (alpha y) (issue 29, item 4): no kernel product here.
        f = kernel_part(problem, solution) + solution.b
        self.margins_ = y_pm * f
        self.objective_ = solution.objective
        self.dual_objective_ = solution.dual_objective
        self.duality_gap_ = solution.duality_gap()
        self.kkt_violation_ = solution.kkt
        self.n_iter_ = solution.n_iter
        self.converged_ = solution.converged
        self.history_ = solution.history
        # Sentences the page shows under the fit (other notes may be added).
        self.fit_notes_ = numerical_notes(problem, solution, float(self.tol))
        self.stop_reason_ = solution.stop_reason
        if solution.extras.get("stop_note"):
            self.fit_notes_ = (solution.extras["stop_note"], *self.fit_notes_)

    # -- prediction -----------------------------------------------------------------

    def decision_function(self, X: ArrayLike) -> Array:
        """``f(x) = sum_{i in SV} alpha_i y_i k(x_i, x) + b``, shape (n,)."""
        check_is_fitted(self)
        X = validate(self, X, reset=False)
        if self.support_.size == 0:
            return np.full(X.shape[0], float(self.intercept_[0]))
        K = self._gram(X, self.support_vectors_)
        with np.errstate(over="ignore", invalid="ignore"):
            f = K @ self.dual_coef_[0] + self.intercept_[0]
        if not np.all(np.isfinite(f)):
            # Never a silent NaN: the kernel is finite (gram checks it), so the
            # sum of alpha_i y_i k(x_i, x) overflowed at these points.
            raise DataError(
                "f(x) overflows at some of these points: the kernel values there "
                "times the model's coefficients exceed the largest float. Scale "
                "the data, or refit with a smaller C."
            )
        return f

    def predict(self, X: ArrayLike) -> NDArray:
        """The class of ``sign f(x)`` (f = 0 goes to the first class)."""
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(int)]

    def history_decision_function(self, X: ArrayLike, index: int) -> Array:
        """``f`` at recorded snapshot ``index`` of ``history_`` (for playback)."""
        check_is_fitted(self)
        X = validate(self, X, reset=False)
        alpha = np.asarray(self.history_.alpha[index], dtype=np.float64)
        coef = alpha * self.y_fit_
        keep = np.flatnonzero(coef)
        b = self.history_.intercept[index]
        if self.bias == "regularized":
            b += float(coef.sum())
        if keep.size == 0:
            return np.full(X.shape[0], b)
        return self._gram(X, self.X_fit_[keep]) @ coef[keep] + b
