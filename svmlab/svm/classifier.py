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
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.base import ClassifierMixin, clone
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
from svmlab.losses import LOSSES, Loss, make_loss
from svmlab.parameter_checks import check_max_iter, check_positive, is_number
from svmlab.solvers.base import (
    Budget,
    check_max_seconds,
    state_multipliers,
    sv_states,
)
from svmlab.svm.class_weights import WEIGHTED_LOSSES, class_weights, point_weights
from svmlab.svm.fit_checks import (
    check_gram,
    convergence_message,
    fit_notes,
    kernel_part,
)
from svmlab.svm.kernel_spec import (
    KernelSpec,
    kernel_spec,
    kernel_to_support,
    reads_points,
)
from svmlab.svm.libsvm_layout import PairwiseClassifier, PairwiseInput
from svmlab.svm.machine_solve import PairFit, intercept, solve_machine, solve_pairs
from svmlab.svm.parameters import (
    BinarySVMParameters,
    KernelSpellings,
    PairwiseParameters,
    parameters,
)
from svmlab.svm.sample_weights import check_sample_weight, kept_points
from svmlab.svm.validation import (
    check_init,
    check_labels,
    dense_points,
    fit_input,
    predict_input,
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
class SVC(
    PairwiseClassifier,
    ClassifierMixin,
    PairwiseParameters,
    KernelSpellings,
    BinarySVMParameters,
):
    """Support vector classifier with a choice of kernel, loss and solver.

    Two classes are one machine; more are one machine per pair of classes and
    a vote, as LIBSVM and scikit-learn's ``SVC`` (:mod:`svmlab.svm.libsvm_layout`).

    Parameters
    ----------
    C
        Cost of the loss term, > 0; ``math.inf`` is the hard margin (hinge only).
    kernel
        svmlab's ``"gaussian"`` (``exp(-||x - z||^2 / (2 sigma^2))``),
        ``"polynomial"`` (``(x'z + coef0)^degree``), ``"linear"`` or
        ``"sigmoid"`` (``tanh(scale x'z + coef0)``, not positive semidefinite in
        general); or scikit-learn's ``"rbf"`` (``exp(-gamma ||x - z||^2)``),
        ``"poly"`` (``(gamma x'z + coef0)^degree``), ``"sigmoid"`` (``tanh(gamma
        x'z + coef0)``), ``"precomputed"`` (X is the Gram matrix ``k(x_i,
        x_j)``; at prediction ``k(x, x_i)`` for every training point) or a
        callable ``k(X, Z) -> (n_X, n_Z)``. One spelling at a time
        (:mod:`svmlab.svm.kernel_spec`): gamma with svmlab's names or sigma with
        scikit-learn's is a ParameterError.
    sigma
        Gaussian width (Sugiyama's h); None is 1. scikit-learn's gamma is
        ``1 / (2 sigma^2)``.
    gamma
        scikit-learn's kernel coefficient for ``"rbf"``, ``"poly"`` and
        ``"sigmoid"``: a positive number, ``"scale"`` (``1 / (n_features
        X.var())``, the default with those names) or ``"auto"`` (``1 /
        n_features``).
    degree, coef0
        Polynomial degree p and offset a (coef0 is also the sigmoid's r); coef0
        None is 1 in svmlab's spelling, 0 in scikit-learn's.
    scale
        The sigmoid kernel's slope a in svmlab's spelling (None: 1).
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
        (or scikit-learn's -1) is the solver's own cap: for SMO LIBSVM's
        ``max(10^7, 100 n)``, which a converging problem never reaches;
        :data:`ITERATION_CAP` for the others.
    record_history
        Keep per-iteration snapshots for playback (``history_``; two classes).
    solver_options
        Extra keyword arguments for the solver (see each solver's docstring).
    random_state
        Seed for solvers that randomise and for the folds of
        ``probability=True``.
    max_seconds
        Time budget of the solver in seconds (None: unlimited; the Gram matrix
        is not counted; with more classes, of all pairs together). When it runs
        out the solver stops at its current feasible point, ``converged_`` is
        False and a ``ConvergenceWarning`` says so. Fits inside
        :func:`svmlab.cancel_when` can also be cancelled
        (:class:`svmlab.FitCancelled`, not caught here).
    class_weight
        None, ``"balanced"`` (scikit-learn's ``n / (k n_c)``) or a dict
        ``{label: weight}``: class c costs ``C w_c`` (LIBSVM's ``-wi``,
        :mod:`svmlab.svm.class_weights`). For the hinge and the squared hinge, with
        the solvers that take a C per point (smo, qp, coordinate).
    probability
        Also fit Platt's probabilities (``predict_proba``; LIBSVM's ``-b 1``:
        a 5-fold cross-validation per pair, :mod:`svmlab.svm.libsvm_layout`).
    decision_function_shape
        With more than two classes: ``"ovr"`` (n, k) scores or ``"ovo"`` (n,
        k(k-1)/2) pair values (scikit-learn's).
    break_ties
        With more than two classes and ``"ovr"``: predict the argmax of the
        scores, not the first of the most-voted classes.

    Attributes
    ----------
    alpha_ : ndarray (n_samples,)
        Coefficients: ``f(x) = sum_i alpha_i y_i k(x_i, x) + b`` (two classes).
    dual_coef_ : ndarray (1, n_SV), or (k - 1, n_SV)
        ``y_i alpha_i`` of the support vectors (scikit-learn's convention, the
        positive class ``classes_[1]``); with k classes LIBSVM's layout
        (:func:`svmlab.svm.libsvm_layout.assemble`). CSR for sparse X.
    support_, support_vectors_, n_support_
        Indices (grouped by class, as scikit-learn's), points (CSR for sparse
        X, none for a precomputed or callable kernel) and per-class counts of
        the support vectors.
    intercept_ : ndarray (1,), or (k(k-1)/2,)
        ``b`` (for the regularized bias, the implicit ``sum alpha_i y_i``); one
        per pair with k classes.
    coef_ : ndarray (1, d), or (k(k-1)/2, d)
        The primal weights, for ``kernel="linear"`` only (read-only).
    sv_state_ : ndarray of int (n_samples,)
        KKT state: 0 non-SV, 1 free SV (on the margin), 2 bound SV (alpha = C).
    margins_ : ndarray (n_samples,)
        Training margins ``m_i = y_i f(x_i)``.
    objective_, dual_objective_, duality_gap_, kkt_violation_
        The primal objective ``0.5 ||f||^2 + C sum loss(m_i)``, the dual value
        (hinge-type losses), their gap, and the KKT violation in margin units.
    n_iter_, converged_, fit_time_, solver_, history_, solution_
        Iterations (an int; with k classes one per pair, (k(k-1)/2,) as
        scikit-learn's), convergence flag, seconds for the whole
        fit, the concrete solver, per-iteration records, and the raw
        :class:`DualSolution` (two classes).
    fit_notes_ : tuple of str
        Plain sentences for the page when the fit's numbers cannot be fully
        trusted (a solver stopped by a looser rule of its own, e.g. Lee's rule
        in IRWLS, with the residual it left; rounding at a huge C, a failed KKT
        check at a large C); empty for an ordinary fit.
    stop_reason_ : str
        Why the solver stopped: ``"converged"`` (its KKT measure met ``tol``),
        ``"max_iter"``, ``"max_seconds"`` or ``"rule"`` (see
        :data:`svmlab.solvers.STOP_REASONS`).
    class_weight_ : ndarray (k,)
        The weight of each class of ``classes_`` (ones without class weights).
    pair_fits_ : list of PairFit
        With k > 2: each pair's solve (:class:`svmlab.svm.machine_solve.PairFit`:
        rows, coefficients, iterations, convergence), in the order (0,1), (0,2), ...
    probA_, probB_ : ndarray (k(k-1)/2,)
        Each pair's Platt sigmoid in LIBSVM's orientation (``probability=True``).
    kernel_spec_, fit_status_, shape_fit_
        The kernel as computed (:class:`svmlab.svm.kernel_spec.KernelSpec`,
        gamma resolved), 0 when every solve converged (else 1, LIBSVM's), and
        the training X's shape.

    ``support_`` holds every point with a nonzero alpha, so ``decision_function``
    on the training points reproduces ``margins_ / y`` to rounding at any C;
    ``sv_state_`` is the display state, with a threshold relative to
    ``min(C, max alpha)`` (:func:`svmlab.solvers.base.sv_states`). A
    ``sample_weight`` multiplies each point's C; points of weight 0 or less are
    left out of the solve (LIBSVM): their alpha is 0.
    """

    sigma: float | None = None
    coef0: float | None = None
    scale: float | None = None
    record_history: bool = False
    class_weight: dict | str | None = None

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.input_tags.sparse = self.kernel != "precomputed"
        return tags

    # -- validation ---------------------------------------------------------------

    def _check_params(self) -> Loss:
        return self._checked_params()[0]

    def _checked_params(self) -> tuple[Loss, KernelSpec]:
        """The loss and the kernel's spec (:func:`kernel_spec` without the
        training points: scikit-learn's ``gamma="scale"`` and ``"auto"`` are
        then a stand-in 1, resolved in ``fit``), every parameter checked."""
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
        spec = kernel_spec(self)
        if not isinstance(self.bias, str) or self.bias not in BIASES:
            raise UnknownNameError("bias mode", self.bias, BIASES)
        check_positive("tol", self.tol)
        check_max_iter(self.max_iter)
        check_max_seconds(self.max_seconds)
        self._check_pairwise_params()
        return loss, spec

    def _iteration_cap(self, name: str) -> int | None:
        """``max_iter``, or with None the solver's own scaled cap (SMO) or
        :data:`ITERATION_CAP` (None goes to :func:`svmlab.solvers.solve`)."""
        max_iter = check_max_iter(self.max_iter)
        if max_iter is not None:
            return max_iter
        return None if name in solvers.SCALED_CAP else ITERATION_CAP

    def _gram(self, X: Array, Z: Array | None = None) -> Array:
        """``k(X, Z)`` of this kernel, X the training points (they set
        scikit-learn's ``gamma="scale"``)."""
        spec = kernel_spec(self, X)
        if not spec.builtin:
            raise ParameterError(
                "A Gram matrix of points needs one of the built-in kernels; with "
                "kernel='precomputed' (or a function) X is the Gram matrix."
            )
        return spec.gram(X, Z)

    # -- fitting --------------------------------------------------------------------

    def fit(
        self,
        X: ArrayLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        init: ArrayLike | None = None,
        K: ArrayLike | None = None,
    ) -> SVC:
        """Fit on X (n, d), dense or sparse, and y (n,) with two labels or more.

        ``sample_weight`` (n,) multiplies each point's C (scikit-learn's; a
        point of weight 0 or less is left out of the solve, as LIBSVM does).

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
        matrix (a K handed in again unchanged is not checked again). ``init``
        and ``K`` are for two classes.
        """
        start = time.perf_counter()
        loss, spec = self._checked_params()
        X, y = fit_input(self, X, y)
        if reads_points(self):
            spec = kernel_spec(self, X)  # gamma "scale" or "auto" from X
        classes = check_labels(y)
        if classes.shape[0] < 2:
            raise DataError(
                f"Only one class ({_plain(classes[0])}) is present; an SVM needs "
                "points of two classes."
            )
        n = y.shape[0]
        codes = np.searchsorted(classes, y)
        weights = check_sample_weight(sample_weight, n)
        per_class = class_weights(self.class_weight, classes, y)
        if (per_class is not None or weights is not None) and (
            self.loss not in WEIGHTED_LOSSES
        ):
            what = "class weights" if per_class is not None else "sample weights"
            raise IncompatibleLossError(
                self.solver,
                f"{what} with the {self.loss} loss (a C per class or per point "
                "enters the hinge and squared-hinge duals only)",
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
        keep = kept_points(weights, n)
        if keep is not None and np.unique(codes[keep]).size < classes.shape[0]:
            raise DataError(
                "Invalid input - all samples with positive weights belong to the "
                "same class"
                if classes.shape[0] == 2
                else "Invalid input - a class has no sample of positive weight"
            )
        self.classes_ = classes
        self.class_weight_ = (
            np.ones(classes.shape[0]) if per_class is None else per_class
        )
        self.kernel_spec_ = spec
        self.shape_fit_ = X.shape if hasattr(X, "shape") else (n,)
        self._X_callable = X if callable(self.kernel) else None
        task = PairwiseInput(X, y, codes, weights, spec)
        if classes.shape[0] == 2:
            self._fit_binary(X, y, loss, spec, weights, keep, init, K)
        else:
            if init is not None or K is not None:
                raise ParameterError(
                    "init and K are for two classes; with more, each pair of classes "
                    "is its own fit (leave them out)."
                )
            self._fit_pairs(task, Budget(self.max_seconds))
            fits = self.pair_fits_
            self.solver_ = fits[0].solver_
            self.stop_reason_ = next(
                (f.stop_reason_ for f in fits if not f.converged_), "converged"
            )
            self.kkt_violation_ = max(f.kkt_violation_ for f in fits)
        self.fit_status_ = 0 if self.converged_ else 1
        self._finish_fit(task, start)
        return self

    def _pair_fits(self, task: PairwiseInput, budget: Budget) -> list[PairFit]:
        """Every pair solved directly on the input ``fit`` checked once
        (:func:`svmlab.svm.machine_solve.solve_pairs`); a precomputed or
        callable kernel's Gram matrix checked once for all pairs."""
        data, pair_spec = self._pair_inputs(task.X, task.spec)
        if not pair_spec.builtin:
            data = check_gram(data, task.codes.shape[0])
        loss = make_loss(self.loss, delta=_plain(self.delta))
        pairs = task.pair_rows()
        return solve_pairs(
            self, loss, data, pair_spec, task.codes, pairs, task.weights, budget
        )

    def _pair_estimator(self, spec: KernelSpec, pair: tuple[int, int]) -> SVC:
        """A binary SVC of this one's settings for the classes ``pair`` (for
        Platt's cross-validation): their class weights as a dict, the kernel's
        gamma resolved on all the data, a callable kernel as ``"precomputed"``
        (its Gram matrix computed once)."""
        i, j = pair
        params: dict[str, Any] = {
            "probability": False,
            "class_weight": {
                self.classes_[i]: float(self.class_weight_[i]),
                self.classes_[j]: float(self.class_weight_[j]),
            },
            "record_history": False,
        }
        if spec.kernel == "precomputed":
            params.update(kernel="precomputed", gamma=None)
        elif spec.gamma is not None:
            params["gamma"] = spec.gamma
        return clone(self).set_params(**params)

    def _fit_binary(
        self,
        X: Any,
        y: NDArray,
        loss: Loss,
        spec: KernelSpec,
        weights: Array | None,
        keep: NDArray[np.intp] | None,
        init: ArrayLike | None,
        K: ArrayLike | None,
    ) -> None:
        """One machine on two classes (``classes_[1]`` positive)."""
        n = y.shape[0]
        y_pm = np.where(y == self.classes_[1], 1.0, -1.0)
        if spec.builtin:
            points = dense_points(X)
        else:
            points = None
            K = X if spec.kernel == "precomputed" else spec.matrix(X, X)
        if K is not None:
            K = check_gram(K, n)
        init = check_init(init, n)
        per_point = point_weights(
            None if self.class_weight is None else self.class_weight_,
            self.classes_,
            y,
        )
        if weights is not None:
            per_point = weights if per_point is None else per_point * weights
        rows = np.arange(n) if keep is None else keep
        if keep is not None:
            points = None if points is None else points[keep]
            K = None if K is None else K[np.ix_(keep, keep)]
            init = None if init is None else init[keep]
            per_point = per_point[keep]
        problem, solution, name = solve_machine(
            self,
            loss,
            spec,
            y_pm[rows],
            points=points,
            K=K,
            weights=per_point,
            init=init,
            record_history=bool(self.record_history),
            max_seconds=check_max_seconds(self.max_seconds),
        )
        self._store(X, y_pm, problem, solution, name, keep)
        if not solution.converged:
            warnings.warn(
                convergence_message(name, solution, self.tol),
                ConvergenceWarning,
                stacklevel=3,
            )

    def _store(self, X, y_pm, problem, solution, name, keep) -> None:
        """The binary model: ``alpha_`` and the per-point states over all the
        training points (0 for those a weight left out), the support in
        scikit-learn's layout (grouped by class)."""
        n = y_pm.shape[0]
        spec = self.kernel_spec_
        alpha = solution.alpha
        if keep is not None:
            alpha = np.zeros(n)
            alpha[keep] = solution.alpha
        self.X_fit_ = dense_points(X) if spec.builtin else X
        self.y_fit_ = y_pm
        self._fit_rows = keep
        self.alpha_ = alpha
        self.solution_ = solution
        self.solver_ = name
        self.intercept_ = np.array([intercept(self, solution, problem.y)])
        states = sv_states(
            state_multipliers(problem, solution), problem.costs, self.loss
        )
        if keep is None:
            self.sv_state_ = states
        else:
            self.sv_state_ = np.zeros(n, dtype=states.dtype)
            self.sv_state_[keep] = states
        # Every nonzero alpha enters f: a threshold relative to C would drop the
        # whole solution at large C, where alpha is bounded by the data, not C.
        # Grouped by class, each in index order (scikit-learn's layout).
        support = np.flatnonzero(alpha)
        support = support[np.argsort(y_pm[support] > 0, kind="stable")]
        self.support_ = support
        self.n_support_ = np.array(
            [np.sum(y_pm[support] < 0), np.sum(y_pm[support] > 0)], dtype=np.int32
        )
        self._set_support_vectors(X, support, (alpha * y_pm)[support][None, :], spec)
        # The solver's own K (alpha y) (issue 29, item 4): no kernel product here.
        f = kernel_part(problem, solution) + solution.b
        if keep is None:
            self.margins_ = y_pm * f
        else:
            self.margins_ = y_pm * self._binary_f(X)
            self.margins_[keep] = problem.y * f
        self.objective_ = solution.objective
        self.dual_objective_ = solution.dual_objective
        self.duality_gap_ = solution.duality_gap()
        self.kkt_violation_ = solution.kkt
        self.n_iter_ = solution.n_iter
        self.converged_ = solution.converged
        self.history_ = solution.history
        # Sentences the page shows under the fit (other notes may be added).
        self.fit_notes_ = fit_notes(problem, solution, float(self.tol))
        self.stop_reason_ = solution.stop_reason

    def _binary_f(self, X: Any) -> Array:
        """f at the training points X of a binary fit, from the support."""
        K = kernel_to_support(
            self.kernel_spec_,
            self.X_fit_ if self.kernel_spec_.builtin else X,
            support=self.support_,
            support_vectors=self.X_fit_[self.support_]
            if self.kernel_spec_.builtin
            else None,
            X_fit=self._X_callable,
        )
        dual = self.dual_coef_
        dual = dual.toarray() if sp.issparse(dual) else dual
        return K @ dual[0] + self.intercept_[0]

    # -- prediction -----------------------------------------------------------------

    def history_decision_function(self, X: ArrayLike, index: int) -> Array:
        """``f`` at recorded snapshot ``index`` of ``history_`` (for playback)."""
        check_is_fitted(self)
        X = predict_input(self, X)
        alpha = np.asarray(self.history_.alpha[index], dtype=np.float64)
        rows = np.arange(alpha.size) if self._fit_rows is None else self._fit_rows
        coef = alpha * self.y_fit_[rows]
        keep = np.flatnonzero(coef)
        b = self.history_.intercept[index]
        if self.bias == "regularized":
            b += float(coef.sum())
        if keep.size == 0:
            return np.full(X.shape[0], b)
        spec = self.kernel_spec_
        K = kernel_to_support(
            spec,
            dense_points(X) if spec.builtin else X,
            support=rows[keep],
            support_vectors=self.X_fit_[rows[keep]] if spec.builtin else None,
            X_fit=self._X_callable,
        )
        return K @ coef[keep] + b
