"""Platt's sigmoid as LIBSVM fits it, and its multiclass coupling.

Platt (1999) turns the decision value into a probability by a sigmoid,

    P(y = +1 | f) = 1 / (1 + exp(A f + B)),

fitted by maximum likelihood on decision values that the model did not train on
(:func:`cross_val_decision`, LIBSVM's 5 folds) by Lin, Lin & Weng (2007)'s
Newton method (:func:`sigmoid_train`; :mod:`svmlab.svm.probability` says more).
With k classes each pair's probabilities are coupled into one distribution
(:func:`pairwise_coupling`, Wu, Lin & Weng 2004, LIBSVM's ``-b 1``).

Split from :mod:`svmlab.svm.probability` so that the estimators' own
``probability=True`` (:mod:`svmlab.svm.libsvm_layout`) and :class:`PlattSVC`,
whose default classifier is :class:`svmlab.SVC`, import it without a circle.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, clone
from sklearn.utils.multiclass import unique_labels

from svmlab.array_types import Array

__all__ = [
    "MIN_PAIR_PROBABILITY",
    "PlattFit",
    "coupled_probabilities",
    "cross_val_decision",
    "pairwise_coupling",
    "sigmoid_predict",
    "sigmoid_train",
]


@dataclass(frozen=True)
class PlattFit:
    """Platt's sigmoid: ``P(y = +1 | f) = 1 / (1 + exp(A f + B))``."""

    A: float
    B: float
    n_iter: int
    converged: bool


def _log1p_exp(z: Array) -> Array:
    """``log(1 + exp(z))`` without overflow: ``z + log(1 + exp(-z))`` for z >= 0."""
    return np.where(z >= 0.0, z + np.log1p(np.exp(-np.abs(z))), np.log1p(np.exp(z)))


def _targets(y: Array) -> Array:
    """Platt's regularised targets: ``(N+ + 1) / (N+ + 2)`` for the positive
    points and ``1 / (N- + 2)`` for the negative ones."""
    n_pos = float(np.sum(y > 0))
    n_neg = float(y.shape[0] - n_pos)
    return np.where(y > 0, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))


def _objective(f: Array, t: Array, A: float, B: float) -> float:
    """The negative log-likelihood ``sum t z + log(1 + exp(-z))`` with ``z = A f
    + B``, in the form that never overflows (Lin, Lin & Weng 2007, eq. 5)."""
    z = f * A + B
    return float(
        np.sum(
            np.where(z >= 0.0, t * z + _log1p_exp(-z), (t - 1.0) * z + _log1p_exp(z))
        )
    )


def sigmoid_train(
    f: ArrayLike,
    y: ArrayLike,
    *,
    max_iter: int = 100,
    min_step: float = 1e-10,
    eps: float = 1e-5,
) -> PlattFit:
    """Fit A and B by Lin, Lin & Weng (2007)'s Newton method (LIBSVM's
    ``sigmoid_train``).

    Parameters
    ----------
    f
        Decision values, shape (n,), on points the model did not train on.
    y
        Labels, shape (n,): > 0 for the positive class.
    max_iter, min_step, eps
        LIBSVM's limits: 100 Newton steps, a smallest line-search step of
        1e-10, and the stop when both gradient components are below ``eps``.

    Returns
    -------
    PlattFit
        ``A``, ``B``, Newton steps taken and whether the gradient met ``eps``.
    """
    f = np.asarray(f, dtype=np.float64).ravel()
    y = np.asarray(y).ravel()
    t = _targets(y)
    n_pos = float(np.sum(y > 0))
    n_neg = float(y.shape[0] - n_pos)
    A, B = 0.0, math.log((n_neg + 1.0) / (n_pos + 1.0))
    fval = _objective(f, t, A, B)
    sigma = 1e-12  # keeps the Hessian strictly positive definite
    converged = False
    it = 0
    for it in range(max_iter):  # noqa: B007 - the count is reported
        z = f * A + B
        # p = P(y = +1) = 1 / (1 + exp(z)), q = 1 - p, each without overflow.
        e = np.exp(-np.abs(z))
        p = np.where(z >= 0.0, e / (1.0 + e), 1.0 / (1.0 + e))
        q = np.where(z >= 0.0, 1.0 / (1.0 + e), e / (1.0 + e))
        d2 = p * q
        h11 = sigma + float(np.sum(f * f * d2))
        h22 = sigma + float(np.sum(d2))
        h21 = float(np.sum(f * d2))
        d1 = t - p
        g1 = float(np.sum(f * d1))
        g2 = float(np.sum(d1))
        if abs(g1) < eps and abs(g2) < eps:
            converged = True
            break
        det = h11 * h22 - h21 * h21
        dA = -(h22 * g1 - h21 * g2) / det
        dB = -(-h21 * g1 + h11 * g2) / det
        gd = g1 * dA + g2 * dB
        step = 1.0
        while step >= min_step:
            newA, newB = A + step * dA, B + step * dB
            newf = _objective(f, t, newA, newB)
            if newf < fval + 1e-4 * step * gd:  # sufficient decrease (Armijo)
                A, B, fval = newA, newB, newf
                break
            step /= 2.0
        if step < min_step:
            break  # LIBSVM: "Line search fails in two-class probability estimates"
    return PlattFit(float(A), float(B), int(it), converged)


def sigmoid_predict(f: ArrayLike, A: float, B: float) -> Array:
    """``P(y = +1 | f) = 1 / (1 + exp(A f + B))`` without overflow (LIBSVM's
    ``sigmoid_predict``: ``exp(-z) / (1 + exp(-z))`` for ``z >= 0``)."""
    z = np.asarray(f, dtype=np.float64) * A + B
    e = np.exp(-np.abs(z))
    return np.where(z >= 0.0, e / (1.0 + e), 1.0 / (1.0 + e))


def cross_val_decision(
    estimator: BaseEstimator,
    X: Array,
    y: Array,
    *,
    folds: int = 5,
    random_state: int | None = None,
    sample_weight: Array | None = None,
) -> Array:
    """Decision values from a ``folds``-fold cross-validation, as LIBSVM's
    ``svm_binary_svc_probability`` computes them.

    The points are shuffled once (``random_state``), cut into ``folds``
    contiguous blocks, and each block gets the decision values of a clone of
    ``estimator`` trained on the others (on the labels as given, so class
    weights keyed by label still apply; f > 0 means the larger label; the
    training part's ``sample_weight``, if any, too). A training part with one
    class only gives its block +1 or -1 (0 if empty), as LIBSVM does.
    """
    n = X.shape[0]
    positive = np.asarray(y) == unique_labels(y)[-1]
    order = np.random.default_rng(random_state).permutation(n)
    f = np.zeros(n)
    for k in range(folds):
        begin, end = k * n // folds, (k + 1) * n // folds
        test = order[begin:end]
        train = np.r_[order[:begin], order[end:]]
        if train.size == 0 or test.size == 0:
            continue
        if np.all(positive[train]) or not np.any(positive[train]):
            f[test] = 1.0 if positive[train[0]] else -1.0
            continue
        weights = (
            {} if sample_weight is None else {"sample_weight": sample_weight[train]}
        )
        model = clone(estimator).fit(X[train], y[train], **weights)
        f[test] = model.decision_function(X[test])
    return f


#: LIBSVM's bounds on each pairwise probability before the coupling.
MIN_PAIR_PROBABILITY = 1e-7


def pairwise_coupling(r: Array) -> Array:
    """Class probabilities from pairwise ones: Wu, Lin & Weng (2004)'s second
    method, as LIBSVM's ``multiclass_probability`` iterates it.

    ``r[:, i, j]`` is ``P(y = i | y in {i, j}, x)`` for each of m points (``r[:,
    j, i] = 1 - r[:, i, j]``), shape (m, k, k). The answer p (m, k) minimises
    ``sum_i sum_{j != i} (r_ji p_i - r_ij p_j)^2`` over the simplex: LIBSVM's
    fixed-point iteration on ``Q p = (p'Qp) 1`` from ``p = 1/k``, stopped when
    ``max_t |(Qp)_t - p'Qp| < 0.005 / k`` or after ``max(100, k)`` sweeps, each
    point on its own (a point that has stopped no longer moves).
    """
    r = np.asarray(r, dtype=np.float64)
    m, k, _ = r.shape
    Q = -r * np.transpose(r, (0, 2, 1))
    rows = np.arange(k)
    Q[:, rows, rows] = np.sum(r * r, axis=1) - r[:, rows, rows] ** 2
    p = np.full((m, k), 1.0 / k)
    eps = 0.005 / k
    active = np.ones(m, dtype=bool)
    for _ in range(max(100, k)):
        Qp = np.einsum("mtj,mj->mt", Q, p)
        pQp = np.sum(p * Qp, axis=1)
        active &= ~(np.max(np.abs(Qp - pQp[:, None]), axis=1) < eps)
        if not active.any():
            break
        for t in range(k):
            diff = np.where(active, (pQp - Qp[:, t]) / Q[:, t, t], 0.0)
            p[:, t] += diff
            scale = 1.0 + diff
            pQp = (pQp + diff * (diff * Q[:, t, t] + 2.0 * Qp[:, t])) / scale / scale
            Qp = (Qp + diff[:, None] * Q[:, t, :]) / scale[:, None]
            p /= scale[:, None]
    return p


def coupled_probabilities(pair_values: Array, A: Array, B: Array, k: int) -> Array:
    """P(class | x) (m, k) from the one-vs-one decision values (m, k(k-1)/2) in
    LIBSVM's orientation (pair (i, j) positive for i) and each pair's Platt
    sigmoid (LIBSVM's ``svm_predict_probability``): each pairwise probability
    clipped to ``[1e-7, 1 - 1e-7]``, then :func:`pairwise_coupling`."""
    m = pair_values.shape[0]
    r = np.zeros((m, k, k))
    column = 0
    for i in range(k):
        for j in range(i + 1, k):
            q = sigmoid_predict(pair_values[:, column], A[column], B[column])
            q = np.clip(q, MIN_PAIR_PROBABILITY, 1.0 - MIN_PAIR_PROBABILITY)
            r[:, i, j], r[:, j, i] = q, 1.0 - q
            column += 1
    return pairwise_coupling(r)
