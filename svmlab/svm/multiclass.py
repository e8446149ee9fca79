"""Multiclass support vector classification: one-vs-rest, one-vs-one (LIBSVM's
voting) and Crammer-Singer's direct multiclass SVM.

``OneVsRestSVC`` and ``OneVsOneSVC`` reduce the problem to binary ones solved by
:class:`svmlab.SVC` (any loss, solver and bias: their parameters are passed
through); ``CrammerSingerSVC`` solves the direct dual
(:mod:`svmlab.solvers.crammer_singer`). All three follow scikit-learn's estimator
contract: labels of any type, ``classes_`` sorted, ``decision_function`` of
shape (n,) for two classes (positive means ``classes_[1]``) and (n, k) for more,
whose argmax is ``predict`` (one documented exception: tied votes of
``OneVsOneSVC``, as in scikit-learn).

:func:`ovr_ambiguity` and :func:`ovo_ties` find the points where the reductions'
own rules do not decide (no classifier or several claim the point; a tied vote),
which the Multiclass page draws.
"""

from __future__ import annotations

import dataclasses
import math
import time
import warnings
from itertools import combinations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from svmlab.array_types import Array
from svmlab.errors import DataError, ParameterError, UnknownNameError, plain_value
from svmlab.kernels import check_kernel_params, gram, kernel_settings
from svmlab.parameter_checks import check_max_iter, check_positive, is_number
from svmlab.solvers import crammer_singer
from svmlab.solvers.base import Budget, check_max_seconds
from svmlab.solvers.crammer_singer_linear import solve_linear
from svmlab.svm.classifier import SVC, _plain
from svmlab.svm.fit_checks import warn_unconverged_parts
from svmlab.svm.nu_svm import NuSVC
from svmlab.svm.parameters import (
    BinarySVMParameters,
    KernelCParameters,
    field_names,
    parameters,
)
from svmlab.svm.validation import check_labels, validate

__all__ = [
    "CS_BIASES",
    "CS_SOLVERS",
    "METHODS",
    "CrammerSingerSVC",
    "OneVsOneSVC",
    "OneVsRestSVC",
    "ovo_ties",
    "ovr_ambiguity",
]


#: The multiclass methods (the page's order and names).
METHODS: dict[str, str] = {
    "ovr": "One-vs-rest",
    "ovo": "One-vs-one",
    "crammer_singer": "Crammer-Singer",
}
#: Crammer-Singer's bias modes.
CS_BIASES: dict[str, str] = {
    "none": "no bias (Sugiyama's dual)",
    "regularized": "a regularized bias per class (kernel + 1)",
}
#: Crammer-Singer's solvers.
CS_SOLVERS: dict[str, str] = {
    "auto": "with the linear kernel the sequential dual method on w (linear); "
    f"else the exact QP up to {crammer_singer.QP_MAX_VARIABLES} variables (n k), "
    "blocks above",
    "qp": "CVXOPT's interior point on all n k variables, polished by blocks",
    "blocks": "one point's block of k variables at a time (closed form), "
    "exact QP chunks where those stall",
    "linear": "the linear kernel only: the blocks' method on the weights w "
    "(LIBLINEAR's -s 4)",
}


#: Sweeps of the linear kernel's method before a run still short of tol hands
#: over to the kernel path's blocks (LIBLINEAR's own default cap is 1,000).
LINEAR_SWEEPS = 1000
#: The largest n for that handover (its Gram matrix: 5,000 points, 200 MB).
LINEAR_HANDOVER_MAX_N = 5000


def _check_data(estimator: BaseEstimator, X: ArrayLike, y: ArrayLike):
    """Validated ``(X, y)``, with ``classes_`` set; plain sentences otherwise."""
    X, y = validate(estimator, X, y)
    classes = check_labels(y)
    if classes.shape[0] < 2:
        raise DataError(
            f"Only one class ({_plain(classes[0])}) is present; a classifier needs "
            "points of at least two classes."
        )
    estimator.classes_ = classes
    return X, y


def _check_X(estimator: BaseEstimator, X: ArrayLike) -> Array:
    check_is_fitted(estimator)
    return validate(estimator, X, reset=False)


def _remaining(budget: Budget) -> float | None:
    return budget.remaining()


@parameters
class _Reduction(ClassifierMixin, BinarySVMParameters):
    """What one-vs-rest and one-vs-one share: the binary SVC they train (its
    parameters, and ``nu`` for a :class:`svmlab.NuSVC` instead)."""

    nu: float | None = None

    def _binary(self, budget: Budget) -> SVC | NuSVC:
        """The binary machine: :class:`svmlab.SVC` with the reduction's
        parameters, or, with ``nu`` set, :class:`svmlab.NuSVC` (the hinge with
        an unregularized bias, as LIBSVM's ``-s 1``; loss, bias, solver and C
        then do not apply)."""
        if self.nu is not None:
            return NuSVC(
                nu=self.nu,
                **kernel_settings(self),
                tol=self.tol,
                max_iter=self.max_iter,
                max_seconds=_remaining(budget),
            )
        names = field_names(BinarySVMParameters)
        params = {name: getattr(self, name) for name in names}
        return SVC(**{**params, "max_seconds": _remaining(budget)})

    def _fit_all(
        self, X: Array, tasks: list[tuple[Array, Array]], start: float
    ) -> None:
        """Fit one binary SVC per ``(rows, labels)`` (``estimators_``, ``rows_``)
        and sum them up; one warning for all that did not converge."""
        check_max_seconds(self.max_seconds)
        budget = Budget(self.max_seconds)
        models = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            for rows, labels in tasks:
                models.append(self._binary(budget).fit(X[rows], labels))
        warn_unconverged_parts(models, caught, "binary fits")
        self.rows_ = [rows for rows, _ in tasks]
        self.n_train_ = X.shape[0]
        self.estimators_ = models
        self._summarise(start)

    def _summarise(self, start: float) -> None:
        self.fit_time_ = time.perf_counter() - start
        self.converged_ = all(m.converged_ for m in self.estimators_)
        self.n_iter_ = int(sum(int(m.n_iter_) for m in self.estimators_))
        support = np.zeros(self.n_train_, dtype=bool)
        for model, rows in zip(self.estimators_, self.rows_, strict=True):
            support[rows[model.support_]] = True
        self.support_ = np.flatnonzero(support)
        self.fit_notes_ = tuple(
            note for model in self.estimators_ for note in model.fit_notes_
        )


@parameters
class OneVsRestSVC(_Reduction):
    """One binary :class:`svmlab.SVC` per class against all the others.

    Parameters are :class:`svmlab.SVC`'s, passed to every binary fit;
    ``max_seconds`` is the budget of all of them together. With two classes one
    SVC is fitted on the labels as they are.

    The scores ``f_c(x)`` of the k classifiers are the ``decision_function``
    (n, k); ``predict`` is their argmax (the first class on an exact tie). A
    point no classifier claims (every ``f_c < 0``) or several claim is
    *ambiguous* (:func:`ovr_ambiguity`): the argmax resolves it.

    Attributes
    ----------
    classes_, estimators_ (one SVC per class; one for two classes), rows_ (the
    training rows of each), support_ (a support vector of any classifier),
    fit_time_, converged_, n_iter_ (summed), fit_notes_.
    """

    def fit(self, X: ArrayLike, y: ArrayLike) -> OneVsRestSVC:
        start = time.perf_counter()
        X, y = _check_data(self, X, y)
        every = np.arange(X.shape[0])
        if self.classes_.shape[0] == 2:
            tasks = [(every, y)]
        else:
            tasks = [(every, np.where(y == c, 1.0, -1.0)) for c in self.classes_]
        self._fit_all(X, tasks, start)
        return self

    def binary_decisions(self, X: ArrayLike) -> Array:
        """Each class's own score ``f_c(x)`` (n, k); with two classes the one
        classifier's ``-f`` and ``f``."""
        X = _check_X(self, X)
        if len(self.estimators_) == 1:
            f = self.estimators_[0].decision_function(X)
            return np.column_stack([-f, f])
        return np.column_stack([m.decision_function(X) for m in self.estimators_])

    def decision_function(self, X: ArrayLike) -> Array:
        """(n,) for two classes, else (n, k): the classifiers' scores."""
        scores = self.binary_decisions(X)
        return scores[:, 1] if len(self.estimators_) == 1 else scores

    def predict(self, X: ArrayLike) -> NDArray:
        best = np.argmax(self.binary_decisions(X), axis=1)
        return self.classes_[best]


@parameters
class OneVsOneSVC(_Reduction):
    """One binary :class:`svmlab.SVC` per pair of classes, and a vote (LIBSVM).

    For the pair ``(i, j)``, ``i < j`` in ``classes_`` order, the classifier is
    trained on the points of the two classes with class i as +1, so
    ``f_ij(x) > 0`` votes for i and ``f_ij(x) <= 0`` for j (LIBSVM's
    ``svm_predict_values``). ``predict`` takes the most votes; a tie goes to the
    class that comes first (LIBSVM), or, with ``break_ties=True``, to the
    argmax of the ``"ovr"`` decision function below.

    ``decision_function_shape``: ``"ovo"`` gives the pairwise values ``f_ij``
    (n, k(k-1)/2) in the order (0,1), (0,2), ..., (1,2), ... (scikit-learn's);
    ``"ovr"`` (default) gives scikit-learn's transformed votes
    ``votes + s / (3 (|s| + 1))``, with ``s`` the summed confidences, whose
    argmax is ``predict`` except where votes tie and ``break_ties`` is False
    (the same documented exception as scikit-learn's ``SVC``). Two classes give
    one classifier and ``decision_function`` (n,) ``= -f_01`` (positive means
    ``classes_[1]``).

    Parameters are :class:`svmlab.SVC`'s (passed to every pair) and the two above;
    ``nu`` (in (0, 1]) makes every pair a :class:`svmlab.NuSVC` instead (LIBSVM's
    ``-s 1`` with several classes; scikit-learn's ``NuSVC``).

    The fit is one :class:`svmlab.SVC` (or :class:`svmlab.NuSVC`) on all the
    classes, kept as ``model_``: it checks the input once and solves each pair
    on its rows (:mod:`svmlab.svm.machine_solve`), in LIBSVM's layout
    (``model_.dual_coef_``, ``model_.intercept_``). Attributes: classes_,
    pairs_, rows_ (each pair's training rows), support_ (a support vector of
    any pair, sorted), n_iter_ (summed), converged_, fit_notes_, fit_time_.
    """

    decision_function_shape: str = "ovr"
    break_ties: bool = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # The machine's input: SVC's (sparse X, or a precomputed Gram matrix).
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.input_tags.sparse = self.kernel != "precomputed"
        return tags

    def fit(self, X: ArrayLike, y: ArrayLike) -> OneVsOneSVC:
        """One :class:`svmlab.SVC` (or :class:`svmlab.NuSVC`) on all the
        classes, which is LIBSVM's one-vs-one: the input checked once, one
        solve per pair on its rows (:mod:`svmlab.svm.machine_solve`), no
        binary estimator built per pair (issue 48)."""
        if self.decision_function_shape not in ("ovr", "ovo"):
            raise UnknownNameError(
                "decision function shape", self.decision_function_shape, ("ovr", "ovo")
            )
        start = time.perf_counter()
        check_max_seconds(self.max_seconds)
        model = self._binary(Budget(self.max_seconds))
        model.fit(X, y)
        self.model_ = model
        self.classes_ = model.classes_
        self.n_features_in_ = model.n_features_in_
        if hasattr(model, "feature_names_in_"):
            self.feature_names_in_ = model.feature_names_in_
        k = self.classes_.shape[0]
        self.pairs_ = list(combinations(range(k), 2))
        n = model.shape_fit_[0]
        self.n_train_ = n
        self.rows_ = [np.arange(n)] if k == 2 else [f.rows for f in model.pair_fits_]
        self.support_ = np.sort(model.support_)
        self.n_iter_ = int(np.sum(model.n_iter_))
        self.converged_ = bool(model.converged_)
        self.fit_notes_ = tuple(model.fit_notes_)
        self.fit_time_ = time.perf_counter() - start
        return self

    def pairwise_decision_function(self, X: ArrayLike) -> Array:
        """``f_ij(x)`` (n, k(k-1)/2); positive votes for i."""
        check_is_fitted(self)
        return self.model_._pair_values(X)

    def votes(self, X: ArrayLike) -> NDArray[np.int64]:
        """Votes per class (n, k)."""
        return _votes(
            self.pairwise_decision_function(X), self.pairs_, len(self.classes_)
        )

    def _ovr_scores(self, pairwise: Array) -> Array:
        k = len(self.classes_)
        votes = _votes(pairwise, self.pairs_, k).astype(np.float64)
        confidence = np.zeros_like(votes)
        for column, (i, j) in enumerate(self.pairs_):
            confidence[:, i] += pairwise[:, column]
            confidence[:, j] -= pairwise[:, column]
        return votes + confidence / (3.0 * (np.abs(confidence) + 1.0))

    def decision_function(self, X: ArrayLike) -> Array:
        pairwise = self.pairwise_decision_function(X)
        if len(self.classes_) == 2:
            return -pairwise[:, 0]
        if self.decision_function_shape == "ovo":
            return pairwise
        return self._ovr_scores(pairwise)

    def predict(self, X: ArrayLike) -> NDArray:
        pairwise = self.pairwise_decision_function(X)
        k = len(self.classes_)
        if self.break_ties and k > 2:
            return self.classes_[np.argmax(self._ovr_scores(pairwise), axis=1)]
        # np.argmax keeps the first of tied maxima: LIBSVM's tie-break.
        return self.classes_[np.argmax(_votes(pairwise, self.pairs_, k), axis=1)]


def _votes(pairwise: Array, pairs: list[tuple[int, int]], k: int) -> NDArray:
    votes = np.zeros((pairwise.shape[0], k), dtype=np.int64)
    for column, (i, j) in enumerate(pairs):
        first = pairwise[:, column] > 0
        votes[first, i] += 1
        votes[~first, j] += 1
    return votes


def ovr_ambiguity(scores: Array) -> NDArray[np.int64]:
    """Per point, how many one-vs-rest classifiers claim it (``f_c > 0``), from
    :meth:`OneVsRestSVC.binary_decisions` (n, k): 1 is unambiguous, 0 (nobody)
    and 2 or more (several) are where the argmax of the scores decides."""
    return np.sum(np.asarray(scores) > 0, axis=1)


def ovo_ties(votes: NDArray) -> NDArray[np.bool_]:
    """Per point, whether the most votes are shared by two or more classes."""
    votes = np.asarray(votes)
    return np.sum(votes == votes.max(axis=1, keepdims=True), axis=1) > 1


@parameters
class CrammerSingerSVC(ClassifierMixin, KernelCParameters):
    """Crammer and Singer's multiclass SVM (Sugiyama 2015, section 27.5).

    Scores ``f_m(x) = sum_i alpha_{i,m} k(x_i, x)`` for every class m, from the
    dual in :mod:`svmlab.solvers.crammer_singer`; ``predict`` is their argmax (the first
    class on an exact tie). One problem couples all classes, so there is no
    vote to tie and no region that no class claims.

    Parameters
    ----------
    C
        Cost of the slacks, a positive finite number.
    kernel, sigma, degree, coef0
        As :class:`svmlab.SVC`.
    bias
        ``"none"`` (the dual as Sugiyama writes it) or ``"regularized"`` (the
        kernel plus 1: each class gets a bias, penalised with its weights; what
        LIBLINEAR's ``crammer_singer`` does with an intercept).
    solver
        ``"auto"``, ``"qp"`` or ``"blocks"`` (:data:`CS_SOLVERS`).
    tol
        Largest block KKT violation accepted, in margin units.
    max_iter
        Sweeps of the block method at most (None: 10,000).
    random_state
        Seed of the block method's sweep order.
    max_seconds
        Time budget; the block method stops at its current feasible point.

    Attributes
    ----------
    classes_, alpha_ (n, k), support_ (rows with a nonzero alpha),
    support_vectors_, dual_coef_ (k, n_SV), n_support_ (per class),
    objective_ (the dual value, equal to the primal at the optimum),
    kkt_violation_, converged_, stop_reason_, n_iter_, solver_, fit_time_,
    margins_ (n,) ``f_{y_i}(x_i) - max_{m != y_i} f_m(x_i)``, fit_notes_.
    """

    bias: str = "none"
    solver: str = "auto"
    tol: float = 1e-3
    max_iter: int | None = None
    random_state: int | None = 0
    max_seconds: float | None = None

    def _check_params(self) -> None:
        C = self.C
        if not is_number(C) or not math.isfinite(C) or C <= 0:
            raise ParameterError(
                "C must be a positive finite number for Crammer-Singer; got "
                f"{plain_value(C)}."
            )
        check_kernel_params(**kernel_settings(self))
        if not isinstance(self.bias, str) or self.bias not in CS_BIASES:
            raise UnknownNameError("Crammer-Singer bias mode", self.bias, CS_BIASES)
        if not isinstance(self.solver, str) or self.solver not in CS_SOLVERS:
            raise UnknownNameError("Crammer-Singer solver", self.solver, CS_SOLVERS)
        check_positive("tol", self.tol)
        check_max_iter(self.max_iter)
        check_max_seconds(self.max_seconds)

    def _gram(self, X: Array, Z: Array | None = None) -> Array:
        K = gram(X, Z, **kernel_settings(self))
        return K + 1.0 if self.bias == "regularized" else K

    def _linear_path(self) -> bool:
        """Whether the fit runs :func:`svmlab.solvers.crammer_singer_linear.
        solve_linear` (the linear kernel, solver ``"auto"`` or ``"linear"``)."""
        if self.solver == "linear" and self.kernel != "linear":
            raise ParameterError(
                "The Crammer-Singer solver 'linear' works on the weights w of the "
                f"linear kernel; with the {self.kernel} kernel use 'auto', 'qp' or "
                "'blocks'."
            )
        return self.kernel == "linear" and self.solver in ("auto", "linear")

    def _fit_linear(
        self, X: Array, codes: NDArray[np.int64], k: int, max_iter: int
    ) -> tuple[crammer_singer.CSSolution, Array]:
        """The linear kernel's fit: LIBLINEAR's sweeps on ``W`` (no Gram
        matrix; the scores are ``X W``), and where those crawl (still short of
        tol after :data:`LINEAR_SWEEPS`: unscaled data, a tight tol; LIBLINEAR
        took 23,592 sweeps on 200 unscaled blobs at tol 1e-8) the kernel
        path's blocks with their exact chunks from that point, while the Gram
        matrix is small enough to form (n <= :data:`LINEAR_HANDOVER_MAX_N`)."""
        Xw = self._with_bias_column(X)
        budget = Budget(self.max_seconds)
        sweeps = min(max_iter, LINEAR_SWEEPS)
        C, tol = float(self.C), float(self.tol)
        solution, W = solve_linear(
            Xw,
            codes,
            k,
            C,
            tol=tol,
            max_iter=sweeps,
            random_state=self.random_state,
            budget=budget,
        )
        if (
            solution.converged
            or solution.stop_reason != "max_iter"
            or max_iter <= sweeps
            or X.shape[0] > LINEAR_HANDOVER_MAX_N
        ):
            return solution, Xw @ W
        K = Xw @ Xw.T
        rest = crammer_singer.solve_blocks(
            crammer_singer.CSDual(K, codes, k, C),
            tol=tol,
            max_iter=max_iter - solution.n_iter,
            init=solution.alpha,
            random_state=self.random_state,
            budget=budget,
        )
        rest = dataclasses.replace(
            rest, n_iter=solution.n_iter + rest.n_iter, method="linear+blocks"
        )
        return rest, K @ rest.alpha

    def _with_bias_column(self, X: Array) -> Array:
        """``X``, with a column of ones for the regularized bias (``K + 1``)."""
        if self.bias != "regularized":
            return X
        return np.column_stack([X, np.ones(X.shape[0])])

    def fit(self, X: ArrayLike, y: ArrayLike) -> CrammerSingerSVC:
        start = time.perf_counter()
        self._check_params()
        X, y = _check_data(self, X, y)
        codes = np.searchsorted(self.classes_, y).astype(np.int64)
        k = self.classes_.shape[0]
        max_iter = check_max_iter(self.max_iter) or 10_000
        if self._linear_path():
            solution, F = self._fit_linear(X, codes, k, max_iter)
        else:
            K = self._gram(X)
            solution, _ = crammer_singer.solve(
                crammer_singer.CSDual(K, codes, k, float(self.C)),
                method=self.solver,
                tol=float(self.tol),
                max_iter=max_iter,
                random_state=self.random_state,
                max_seconds=self.max_seconds,
            )
            F = K @ solution.alpha
        alpha = solution.alpha
        self.alpha_ = alpha
        self.solution_ = solution
        self.solver_ = solution.method
        self.support_ = np.flatnonzero(np.any(alpha != 0.0, axis=1))
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = alpha[self.support_].T.copy()
        self.n_support_ = np.bincount(codes[self.support_], minlength=k).astype(
            np.int32
        )
        rows = np.arange(X.shape[0])
        own = F[rows, codes]
        F[rows, codes] = -np.inf
        self.margins_ = own - F.max(axis=1)
        self.objective_ = solution.objective
        self.kkt_violation_ = solution.kkt
        self.converged_ = solution.converged
        self.stop_reason_ = solution.stop_reason
        self.n_iter_ = solution.n_iter
        self.fit_notes_: tuple[str, ...] = ()
        if not solution.converged:
            note = (
                f"The Crammer-Singer fit stopped ({solution.stop_reason}) with a "
                f"KKT violation of {solution.kkt:.2g} margin units (tol "
                f"{float(self.tol):g}): its boundaries are approximate."
            )
            self.fit_notes_ = (note,)
            warnings.warn(note, ConvergenceWarning, stacklevel=2)
        self.fit_time_ = time.perf_counter() - start
        return self

    def scores(self, X: ArrayLike) -> Array:
        """Every class's score ``f_m(x)`` (n, k)."""
        X = _check_X(self, X)
        k = self.classes_.shape[0]
        if self.support_.size == 0:
            return np.zeros((X.shape[0], k))
        return self._gram(X, self.support_vectors_) @ self.dual_coef_.T

    def decision_function(self, X: ArrayLike) -> Array:
        """(n,) ``f_1 - f_0`` for two classes, else the scores (n, k)."""
        F = self.scores(X)
        return F[:, 1] - F[:, 0] if F.shape[1] == 2 else F

    def predict(self, X: ArrayLike) -> NDArray:
        best = np.argmax(self.scores(X), axis=1)
        return self.classes_[best]
