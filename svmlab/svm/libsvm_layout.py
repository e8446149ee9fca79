"""LIBSVM's classifiers with two classes or more, as scikit-learn lays them out.

:class:`svmlab.SVC` and :class:`svmlab.NuSVC` take any number of classes as
LIBSVM does (``svm.cpp``, ``svm_train``): one binary machine per pair of
classes ``(i, j)``, ``i < j`` in ``classes_`` order, trained on the points of
the two with class i as +1, and a vote. This module holds what both share:

- the fitted layout (:func:`assemble`): ``support_`` grouped by class (each
  class's support vectors in index order), ``n_support_`` per class,
  ``dual_coef_`` of shape (k - 1, n_SV) where pair (i, j)'s coefficients of
  class i's support vectors sit in row j - 1 and those of class j's in row i,
  ``intercept_`` one per pair (LIBSVM's ``-rho``);
- the decision values of every pair from one kernel evaluation against all
  support vectors (:func:`pair_values`, LIBSVM's ``svm_predict_values``), the
  votes (a tie goes to the class that comes first) and scikit-learn's
  ``decision_function_shape="ovr"`` (:func:`ovr_scores`: the votes plus the
  summed confidences squashed into (-1/3, 1/3), so they break ties without
  overturning a vote);
- the primal ``coef_`` of a linear kernel, one row per pair (:func:`primal_coef`);
- :class:`PairwiseClassifier`, the methods SVC and NuSVC share on top:
  ``decision_function``, ``predict`` (``break_ties``), ``predict_proba``
  (Platt per pair, LIBSVM's ``-b 1``, coupled by :func:`svmlab.svm.platt.
  pairwise_coupling`) and ``coef_``.

With two classes the layout is the binary one (one row, one intercept) in
scikit-learn's orientation: positive ``f`` means ``classes_[1]``, which is
LIBSVM's pair value with its sign flipped.

References
----------
Chang, Lin (2011), LIBSVM, section 7 (multiclass) and 8 (probabilities); Hsu,
Lin (2002), A comparison of methods for multiclass support vector machines,
IEEE Transactions on Neural Networks 13.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from numba import njit
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from svmlab.array_types import Array
from svmlab.compiled.arguments import read_only
from svmlab.errors import DataError, ParameterError, UnknownNameError
from svmlab.solvers.base import Budget
from svmlab.svm.fit_checks import warn_unconverged_parts
from svmlab.svm.kernel_spec import KernelSpec, kernel_to_support, support_expansion
from svmlab.svm.machine_solve import PairFit
from svmlab.svm.platt import (
    coupled_probabilities,
    cross_val_decision,
    sigmoid_train,
)
from svmlab.svm.validation import dense_points, predict_input, sparse_layout

__all__ = [
    "DECISION_SHAPES",
    "PairwiseClassifier",
    "PairwiseInput",
    "assemble",
    "class_pairs",
    "ovr_scores",
    "pair_values",
    "primal_coef",
    "read_only_coef",
    "votes",
]

#: scikit-learn's ``decision_function_shape`` values.
DECISION_SHAPES = {
    "ovr": "(n, k): the votes, ties broken by the summed confidences",
    "ovo": "(n, k(k-1)/2): every pair's decision value",
}
#: Folds of the cross-validation behind Platt's sigmoid (LIBSVM's).
PLATT_FOLDS = 5


def class_pairs(k: int) -> list[tuple[int, int]]:
    """The pairs ``(i, j)``, ``i < j``, in LIBSVM's order: (0,1), (0,2), ...,
    (1,2), ..."""
    return [(i, j) for i in range(k) for j in range(i + 1, k)]


def assemble(
    codes: NDArray[np.intp],
    k: int,
    pairs: list[tuple[NDArray[np.intp], Array, float]],
) -> tuple[NDArray[np.intp], NDArray[np.int32], Array, Array]:
    """``(support_, n_support_, dual_coef_, intercept_)`` of k(k-1)/2 pair
    models in LIBSVM's layout (``svm_train``'s "build output").

    ``codes`` is each training point's class index; each pair, in
    :func:`class_pairs` order, is ``(rows, coef, intercept)``: the training rows
    it was fitted on, their coefficients ``y alpha`` with class i as +1 (zero
    off the support), and its ``-rho``.
    """
    if len(pairs) != k * (k - 1) // 2:  # the compiled pass reads every pair
        raise ValueError(f"expected {k * (k - 1) // 2} pairs; got {len(pairs)}")
    sizes = np.array([rows.size for rows, _, _ in pairs], dtype=np.int64)
    rows = np.concatenate([r for r, _, _ in pairs]).astype(np.int64, copy=False)
    coef = np.concatenate([c for _, c, _ in pairs]).astype(np.float64, copy=False)
    # Read-only whatever the caller's (svmlab.compiled.arguments): one
    # compiled version.
    support, n_support, dual = _layout(
        read_only(np.ascontiguousarray(codes, dtype=np.int64)),
        k,
        read_only(sizes),
        read_only(rows),
        read_only(coef),
    )
    intercept = np.array([b for _, _, b in pairs], dtype=np.float64)
    return support.astype(np.intp, copy=False), n_support, dual, intercept


@njit(cache=True, nogil=True)
def _layout(codes, k, sizes, rows, coef):  # pragma: no cover
    """:func:`assemble`'s support, counts and ``dual_coef_`` in one compiled
    pass over every pair's ``(rows, coef)`` laid end to end (``sizes`` rows
    each, the pairs in :func:`class_pairs` order): pure index work, so the
    same numbers as LIBSVM's pair-by-pair loop (issue 48: the dozen NumPy
    calls of the vectorised form took 45 us of an iris fit). A point is a
    support vector where a pair gives it a nonzero coefficient; they are
    grouped by class, each group in index order (a counting sort); a support
    vector of class c in the pair (i, j) goes to row j - 1 of ``dual_coef_``
    when c = i, row i when c = j."""
    n = codes.shape[0]
    nonzero = np.zeros(n, dtype=np.bool_)
    for t in range(rows.shape[0]):
        if coef[t] != 0.0:
            nonzero[rows[t]] = True
    n_support = np.zeros(k, dtype=np.int32)
    for t in range(n):
        if nonzero[t]:
            n_support[codes[t]] += 1
    start = np.zeros(k + 1, dtype=np.int64)
    for c in range(k):
        start[c + 1] = start[c] + n_support[c]
    support = np.empty(start[k], dtype=np.int64)
    position = np.full(n, -1, dtype=np.int64)
    fill = start[:k].copy()
    for t in range(n):  # in index order: each class's group stays sorted
        if nonzero[t]:
            c = codes[t]
            support[fill[c]] = t
            position[t] = fill[c]
            fill[c] += 1
    dual = np.zeros((k - 1, support.shape[0]))
    t = 0
    p = 0
    for i in range(k):  # the pairs in class_pairs order
        for j in range(i + 1, k):
            for _ in range(sizes[p]):
                if coef[t] != 0.0:
                    r = rows[t]
                    dual[j - 1 if codes[r] == i else i, position[r]] = coef[t]
                t += 1
            p += 1
    return support, n_support, dual


def pair_values(
    K: Array, dual_coef: Array, intercept: Array, n_support: NDArray
) -> Array:
    """Every pair's decision value (m, k(k-1)/2) from ``K = k(x, sv)`` (m, n_SV):
    ``sum_{s in i} dual[j-1, s] K[:, s] + sum_{s in j} dual[i, s] K[:, s] +
    intercept[p]`` (LIBSVM's ``svm_predict_values``), positive for class i."""
    k = n_support.shape[0]
    start = np.concatenate([[0], np.cumsum(n_support)])
    out = np.empty((K.shape[0], k * (k - 1) // 2))
    for p, (i, j) in enumerate(class_pairs(k)):
        si = slice(start[i], start[i + 1])
        sj = slice(start[j], start[j + 1])
        out[:, p] = K[:, si] @ dual_coef[j - 1, si] + K[:, sj] @ dual_coef[i, sj]
        out[:, p] += intercept[p]
    return out


def votes(values: Array, k: int, *, zero_to_first: bool = False) -> NDArray[np.int64]:
    """Votes per class (m, k): pair (i, j) votes for i where its value is > 0,
    for j elsewhere (LIBSVM's ``predict``); with ``zero_to_first`` a value of
    exactly 0 votes for i (scikit-learn's ``_ovr_decision_function`` counts a
    vote for j only where the value is < 0)."""
    out = np.zeros((values.shape[0], k), dtype=np.int64)
    for p, (i, j) in enumerate(class_pairs(k)):
        first = values[:, p] >= 0 if zero_to_first else values[:, p] > 0
        out[first, i] += 1
        out[~first, j] += 1
    return out


def ovr_scores(values: Array, k: int) -> Array:
    """scikit-learn's ``decision_function_shape="ovr"`` (m, k): ``votes + s /
    (3 (|s| + 1))`` with ``s_i`` the sum of the pair values for i (minus those
    against it); the second term lies in (-1/3, 1/3), so it orders tied votes
    and never overturns one (``sklearn.utils.multiclass._ovr_decision_function``,
    whose votes give a pair value of exactly 0 to i: far from every support
    vector of a narrow kernel, where the values are the intercepts, its argmax
    may differ from LIBSVM's vote)."""
    confidence = np.zeros((values.shape[0], k))
    for p, (i, j) in enumerate(class_pairs(k)):
        confidence[:, i] += values[:, p]
        confidence[:, j] -= values[:, p]
    tally = votes(values, k, zero_to_first=True)
    return tally + confidence / (3.0 * (np.abs(confidence) + 1.0))


def primal_coef(dual_coef: Any, n_support: NDArray, support_vectors: Any) -> Any:
    """``w`` of each pair for a linear kernel, ``f(x) = w'x + b``: one row
    (the binary layout) or k(k-1)/2 (scikit-learn's ``_one_vs_one_coef``);
    sparse when the support vectors are."""
    if dual_coef.shape[0] == 1:
        return dual_coef @ support_vectors
    k = n_support.shape[0]
    start = np.concatenate([[0], np.cumsum(n_support)])
    dual = dual_coef.tocsr() if sp.issparse(dual_coef) else dual_coef
    rows = []
    for i, j in class_pairs(k):
        si = slice(start[i], start[i + 1])
        sj = slice(start[j], start[j + 1])
        rows.append(
            dual[[j - 1], si] @ support_vectors[si]
            + dual[[i], sj] @ support_vectors[sj]
        )
    return sp.vstack(rows).tocsr() if sp.issparse(rows[0]) else np.vstack(rows)


def _dense(a: Any) -> Array:
    return a.toarray() if sp.issparse(a) else np.asarray(a)


def _has_probability(estimator: Any) -> bool:
    """``predict_proba`` exists where ``probability=True`` (scikit-learn's rule)."""
    if not getattr(estimator, "probability", False):
        raise AttributeError(
            "predict_proba is not available when probability=False; refit with "
            "probability=True (or use svmlab.PlattSVC)."
        )
    return True


@dataclass(frozen=True)
class PairwiseInput:
    """A k-class fit's input as its pairs of classes take it, checked once in
    ``fit``: the points (or Gram matrix), the labels, their class codes
    ``0 .. k-1`` (in ``classes_`` order), the sample weights and the kernel."""

    X: Any
    y: NDArray
    codes: NDArray[np.intp]
    weights: Array | None
    spec: KernelSpec

    @property
    def k(self) -> int:
        """The number of classes."""
        return int(self.codes.max()) + 1

    def pair_rows(self) -> list[tuple[tuple[int, int], NDArray[np.intp]]]:
        """Each pair ``(i, j)`` in :func:`class_pairs` order with its training
        rows (LIBSVM's ``svm_train`` takes the two classes' points in order)."""
        return [
            ((i, j), np.flatnonzero((self.codes == i) | (self.codes == j)))
            for i, j in class_pairs(self.k)
        ]


class PairwiseClassifier:
    """What :class:`svmlab.SVC` and :class:`svmlab.NuSVC` share: k classes by
    one-vs-one (LIBSVM), scikit-learn's fitted layout, the decision function's
    two shapes, ``break_ties``, Platt's probabilities and ``coef_``.

    A subclass fits its binary machine itself and, for more classes, calls
    :meth:`_fit_pairs`, which fits every pair by :meth:`_pair_fits`: by
    default a :meth:`_pair_estimator` (a probability-free clone) fitted on each
    pair's points, or the subclass's own pair solves (:class:`svmlab.SVC`:
    :func:`svmlab.svm.machine_solve.solve_pairs`); both call
    :meth:`_fit_probability` when ``probability=True``.
    """

    def _pair_estimator(self, spec: KernelSpec, weights: tuple[Any, Any]) -> Any:
        raise NotImplementedError

    def _check_pairwise_params(self) -> None:
        """``decision_function_shape``, ``break_ties``, ``probability``."""
        shape = self.decision_function_shape
        if not isinstance(shape, str) or shape not in DECISION_SHAPES:
            raise UnknownNameError("decision_function_shape", shape, DECISION_SHAPES)
        for name in ("break_ties", "probability"):
            if not isinstance(getattr(self, name), bool | np.bool_):
                raise ParameterError(
                    f"{name} must be True or False; got {getattr(self, name)!r}."
                )

    # -- more than two classes ----------------------------------------------------

    def _pair_inputs(self, X: Any, spec: KernelSpec) -> tuple[Any, KernelSpec]:
        """What the pairs are fitted on: the dense points, or for a callable
        kernel its Gram matrix computed once (the pairs then take it as
        ``"precomputed"``)."""
        if callable(spec.kernel):
            K = spec.matrix(X, X)
            if K.shape != (K.shape[0], K.shape[0]):
                raise DataError(
                    "The kernel function must return the square matrix k(X, X) "
                    f"of the training points; it returned {K.shape[0]}x{K.shape[1]}."
                )
            return K, KernelSpec("precomputed", spelling=spec.spelling)
        return dense_points(X), spec

    def _pair_fits(self, task: PairwiseInput, budget: Budget) -> list[Any]:
        """Each pair's machine, in :func:`class_pairs` order: here a fitted
        binary estimator of :meth:`_pair_estimator` per pair, read into a
        :class:`~svmlab.svm.machine_solve.PairFit` (:class:`svmlab.SVC`
        solves its pairs directly instead)."""
        data, pair_spec = self._pair_inputs(task.X, task.spec)
        square = not pair_spec.builtin
        fits = []
        for (i, j), rows in task.pair_rows():
            part = data[np.ix_(rows, rows)] if square else data[rows]
            model = self._pair_estimator(pair_spec, (i, j))
            model.set_params(max_seconds=budget.remaining())
            w = None if task.weights is None else task.weights[rows]
            model.fit(part, task.y[rows], sample_weight=w)
            coef = np.zeros(rows.size)
            coef[model.support_] = -_dense(model.dual_coef_)[0]
            fits.append(
                PairFit(
                    rows=rows,
                    coef=coef,
                    intercept=-float(model.intercept_[0]),
                    n_iter_=int(model.n_iter_),
                    converged_=bool(model.converged_),
                    stop_reason_=model.stop_reason_,
                    kkt_violation_=float(model.kkt_violation_),
                    solver_=getattr(model, "solver_", None),
                    fit_notes_=tuple(model.fit_notes_),
                )
            )
        return fits

    def _fit_pairs(self, task: PairwiseInput, budget: Budget) -> None:
        """One binary machine per pair of classes (:meth:`_pair_fits`); the
        layout assembled."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            fits = self._pair_fits(task, budget)
        missed = warn_unconverged_parts(fits, caught, "pairs of classes")
        support, n_support, dual, intercept = assemble(
            task.codes, task.k, [(f.rows, f.coef, f.intercept) for f in fits]
        )
        self.pair_fits_ = fits
        self.support_, self.n_support_, self.intercept_ = support, n_support, intercept
        self._set_support_vectors(task.X, support, dual, task.spec)
        # One count per pair, as scikit-learn's (a binary fit keeps one int).
        self.n_iter_ = np.array([f.n_iter_ for f in fits], dtype=np.int32)
        self.converged_ = missed == 0
        self.fit_notes_ = tuple(note for f in fits for note in f.fit_notes_)

    def _set_support_vectors(
        self, X: Any, support: NDArray[np.intp], dual: Array, spec: KernelSpec
    ) -> None:
        """``support_vectors_`` and ``dual_coef_`` in scikit-learn's kinds: the
        points (CSR for a sparse X, X's own kind), none for a precomputed or
        callable kernel (shape (0, 0)), and ``dual_coef_`` CSR beside sparse
        support vectors."""
        if spec.precomputed:
            self.support_vectors_ = np.empty((0, 0))
            self.dual_coef_ = dual
        elif sp.issparse(X):
            self.support_vectors_ = sparse_layout(X, support)
            self.dual_coef_ = sparse_layout(
                sp.csr_array(dual)
                if isinstance(X, sp.sparray)
                else sp.csr_matrix(dual),
                slice(None),
            )
        else:
            self.support_vectors_ = X[support]
            self.dual_coef_ = dual

    def _finish_fit(self, task: PairwiseInput, start: float) -> None:
        """The end of every fit, two classes or more: Platt's ``probA_`` and
        ``probB_`` (empty unless ``probability=True``), then ``fit_time_``
        since ``start`` (``time.perf_counter``)."""
        self.probA_ = self.probB_ = np.empty(0)
        if self.probability:
            self._fit_probability(task)
        self.fit_time_ = time.perf_counter() - start

    # -- Platt's probabilities ------------------------------------------------------

    def _fit_probability(self, task: PairwiseInput) -> None:
        """``probA_``, ``probB_``: each pair's Platt sigmoid ``P(i | v) = 1 / (1
        + exp(A v + B))`` on its own cross-validated decision values v (5
        folds, LIBSVM's ``svm_binary_svc_probability``), in LIBSVM's
        orientation (v > 0 for class i)."""
        codes = task.codes
        data, pair_spec = self._pair_inputs(task.X, task.spec)
        square = not pair_spec.builtin
        rng = np.random.default_rng(self.random_state)
        A, B = [], []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            for (i, j), rows in task.pair_rows():
                w = None if task.weights is None else task.weights[rows]
                if w is not None:
                    rows, w = rows[w > 0], w[w > 0]
                part = data[np.ix_(rows, rows)] if square else data[rows]
                estimator = self._pair_estimator(pair_spec, (i, j))
                if square:  # the folds cut the pair's Gram matrix
                    estimator = _GramRows(estimator, part)
                    part = np.arange(rows.size, dtype=np.float64)[:, None]
                f = cross_val_decision(
                    estimator,
                    part,
                    task.y[rows],
                    folds=PLATT_FOLDS,
                    random_state=int(rng.integers(2**31 - 1)),
                    sample_weight=w,
                )
                # f > 0 means class j; Platt's fit is symmetric under v = -f
                # with the classes swapped: A stays, B changes sign.
                fit = sigmoid_train(f, np.where(codes[rows] == j, 1.0, -1.0))
                A.append(fit.A)
                B.append(-fit.B)
        self.probA_, self.probB_ = np.array(A), np.array(B)

    # -- prediction -------------------------------------------------------------------

    def _support_kernel(self, X: Any) -> Array:
        """``k(x, sv)`` (m, n_SV) of X against the support vectors."""
        spec = self.kernel_spec_
        return kernel_to_support(
            spec,
            X if spec.kernel == "precomputed" or not spec.builtin else dense_points(X),
            support=self.support_,
            support_vectors=self.support_vectors_,
            X_fit=getattr(self, "_X_callable", None),
        )

    def _pair_values(self, X: ArrayLike) -> Array:
        """Every pair's decision value (m, k(k-1)/2), positive for class i; for
        two classes LIBSVM's ``-f``."""
        check_is_fitted(self)
        X = predict_input(self, X)
        dual = _dense(self.dual_coef_)
        spec = self.kernel_spec_
        with np.errstate(over="ignore", invalid="ignore"):
            if self.classes_.shape[0] == 2:
                # sum_SV dual k(sv, x), on both cores for a large X (issue 48).
                f = support_expansion(
                    spec,
                    X
                    if spec.kernel == "precomputed" or not spec.builtin
                    else dense_points(X),
                    dual[0],
                    support=self.support_,
                    support_vectors=self.support_vectors_,
                    X_fit=getattr(self, "_X_callable", None),
                )
                values = -(f + self.intercept_[0])[:, None]
            else:
                K = self._support_kernel(X)
                values = pair_values(K, dual, self.intercept_, self.n_support_)
        if not np.all(np.isfinite(values)):
            raise DataError(
                "f(x) overflows at some of these points: the kernel values there "
                "times the model's coefficients exceed the largest float. Scale "
                "the data, or refit with a smaller C."
            )
        return values

    def decision_function(self, X: ArrayLike) -> Array:
        """Two classes: ``f(x) = sum_SV dual_coef k(sv, x) + b`` (n,), positive
        for ``classes_[1]``. More: every pair's value (n, k(k-1)/2) with
        ``decision_function_shape="ovo"``, scikit-learn's ``"ovr"`` scores (n,
        k) otherwise (:func:`ovr_scores`)."""
        values = self._pair_values(X)
        k = self.classes_.shape[0]
        if k == 2:
            return -values[:, 0]
        if self.decision_function_shape == "ovo":
            return values
        return ovr_scores(values, k)

    def predict(self, X: ArrayLike) -> NDArray:
        """Two classes: the class of ``sign f(x)`` (f = 0 goes to the first).
        More: the most votes, a tie to the class that comes first (LIBSVM), or
        with ``break_ties=True`` the argmax of the ``"ovr"`` scores."""
        check_is_fitted(self)
        k = self.classes_.shape[0]
        if self.break_ties and self.decision_function_shape == "ovo" and k > 2:
            raise ParameterError(
                "break_ties must be False when decision_function_shape is 'ovo': "
                "ties are broken by the 'ovr' scores."
            )
        values = self._pair_values(X)
        if k == 2:
            return self.classes_[(-values[:, 0] > 0).astype(int)]
        if self.break_ties:
            return self.classes_[np.argmax(ovr_scores(values, k), axis=1)]
        return self.classes_[np.argmax(votes(values, k), axis=1)]

    @available_if(_has_probability)
    def predict_proba(self, X: ArrayLike) -> Array:
        """P(class | x) (n, k), columns in ``classes_`` order: each pair's
        Platt sigmoid on its decision value, coupled (LIBSVM's ``-b 1``; Wu,
        Lin & Weng 2004). Fitted by cross-validation, so its argmax may
        disagree with ``predict`` near the boundaries."""
        check_is_fitted(self)
        if getattr(self, "probA_", np.empty(0)).size == 0:
            raise NotFittedError(
                "predict_proba is not available when fitted with probability=False; "
                "refit with probability=True."
            )
        values = self._pair_values(X)
        return coupled_probabilities(
            values, self.probA_, self.probB_, self.classes_.shape[0]
        )

    @available_if(_has_probability)
    def predict_log_proba(self, X: ArrayLike) -> Array:
        """The log of :meth:`predict_proba`."""
        return np.log(self.predict_proba(X))

    @property
    def coef_(self) -> Any:
        """The primal weights of a linear kernel (read-only), one row per pair
        (one for two classes): ``f(x) = coef_ x + intercept_``."""
        return read_only_coef(self)


def read_only_coef(model: Any) -> Any:
    """``coef_`` of a fitted linear kernel machine, not writeable; an
    AttributeError for other kernels (``hasattr(model, "coef_")`` is False)."""
    if getattr(model, "kernel", None) != "linear":
        raise AttributeError("coef_ is only available when using a linear kernel")
    check_is_fitted(model)
    n_support = getattr(model, "n_support_", np.array([0]))
    coef = primal_coef(model.dual_coef_, n_support, model.support_vectors_)
    if sp.issparse(coef):
        coef.data.flags.writeable = False
    else:
        coef = np.asarray(coef)
        coef.flags.writeable = False
    return coef


class _GramRows(BaseEstimator):
    """An estimator on a precomputed Gram matrix whose points are row numbers:
    fitted on rows r, it trains on ``gram[r, r]`` and scores rows t by
    ``gram[t, r]``, so that a cross-validation over points
    (:func:`svmlab.svm.platt.cross_val_decision`) can cut folds of a
    precomputed kernel."""

    def __init__(self, estimator: Any = None, gram: Any = None) -> None:
        self.estimator = estimator
        self.gram = gram

    def fit(self, index: Array, y: NDArray, sample_weight: Array | None = None):
        self.rows_ = index[:, 0].astype(np.intp)
        self.model_ = clone(self.estimator).fit(
            self.gram[np.ix_(self.rows_, self.rows_)], y, sample_weight=sample_weight
        )
        return self

    def decision_function(self, index: Array) -> Array:
        rows = index[:, 0].astype(np.intp)
        return self.model_.decision_function(self.gram[np.ix_(rows, self.rows_)])
