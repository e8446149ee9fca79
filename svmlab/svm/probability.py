"""Probabilities from an SVM: Platt scaling as LIBSVM fits it, and thresholds.

Platt (1999) turns the decision value into a probability by a sigmoid,

    P(y = +1 | f) = 1 / (1 + exp(A f + B)),

with A < 0 when f is informative, fitted by maximum likelihood on decision
values that the model did not train on (LIBSVM: a 5-fold cross-validation on
the training set, ``svm_binary_svc_probability``) against Platt's regularised
targets ``t+ = (N+ + 1) / (N+ + 2)`` and ``t- = 1 / (N- + 2)`` (no target is
0 or 1, so A and B stay finite even on separable data). The minimisation is
Lin, Lin & Weng (2007)'s Newton method with a backtracking line search and
``1e-12`` added to the Hessian's diagonal, and every ``log(1 + exp(.))``
written so that ``exp`` never overflows (their Algorithm 1; LIBSVM's
``sigmoid_train`` and ``sigmoid_predict``). Platt's own pseudo-code computes
``log(1 - p)`` and ``1 - p`` directly, which loses all digits at large
``|A f + B|``.

The probability is a monotone squash of f, so a threshold on p is a threshold
on f: :func:`threshold_report` and :func:`roc` score one without refitting.

References
----------
Platt (1999), Probabilistic outputs for support vector machines and comparisons
to regularized likelihood methods, Advances in Large Margin Classifiers.
Lin, Lin, Weng (2007), A note on Platt's probabilistic outputs for support
vector machines, Machine Learning 68. Chang, Lin (2011), LIBSVM, section 8.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, clone, is_classifier
from sklearn.metrics import roc_auc_score, roc_curve
from sklearn.utils.validation import check_is_fitted

from svmlab.array_types import Array
from svmlab.errors import DataError, ParameterError, plain_value
from svmlab.svm.platt import (
    MIN_PAIR_PROBABILITY,
    PlattFit,
    coupled_probabilities,
    cross_val_decision,
    pairwise_coupling,
    sigmoid_predict,
    sigmoid_train,
)
from svmlab.svm.validation import check_binary_labels, validate

__all__ = [
    "MIN_PAIR_PROBABILITY",
    "PlattFit",
    "PlattSVC",
    "ThresholdReport",
    "coupled_probabilities",
    "cross_val_decision",
    "pairwise_coupling",
    "roc",
    "sigmoid_predict",
    "sigmoid_train",
    "threshold_report",
]


class PlattSVC(ClassifierMixin, BaseEstimator):
    """An svmlab classifier with Platt's probabilities (LIBSVM's ``-b 1``).

    Parameters
    ----------
    estimator
        A binary svmlab classifier with ``decision_function`` (None:
        :class:`svmlab.SVC()`); its class weights, loss and solver are kept in
        every fold.
    folds
        Folds of the internal cross-validation (LIBSVM: 5).
    random_state
        Seed of the shuffle before the folds.

    Attributes
    ----------
    estimator_
        The classifier fitted on all the data; its ``decision_function`` is
        the f that the probabilities squash. (No ``decision_function`` here:
        scikit-learn expects its sign to be the prediction, which is
        ``p > 1/2``, that is ``f > -B/A``, not ``f > 0``.)
    A_, B_ : float
        Platt's sigmoid ``P(classes_[1] | f) = 1 / (1 + exp(A f + B))``.
    cv_decision_ : ndarray (n,)
        The cross-validated decision values A and B were fitted on.
    classes_, platt_
        The labels, and the :class:`PlattFit` (Newton steps, convergence).
    """

    def __init__(
        self,
        estimator: BaseEstimator | None = None,
        folds: int = 5,
        random_state: int | None = None,
    ) -> None:
        self.estimator = estimator
        self.folds = folds
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def fit(self, X: ArrayLike, y: ArrayLike) -> PlattSVC:
        """Fit the classifier on all of X, y and the sigmoid on its CV values."""
        k = self.folds
        if not (isinstance(k, int | np.integer) and not isinstance(k, bool) and k >= 2):
            raise ParameterError(
                f"folds must be a whole number of at least 2; got {plain_value(k)}."
            )
        seed = self.random_state
        whole = isinstance(seed, int | np.integer) and not isinstance(seed, bool)
        if seed is not None and not (whole and seed >= 0):
            raise ParameterError(
                "random_state must be None or a whole number >= 0 (the seed of the "
                f"shuffle before the folds); got {plain_value(seed)}."
            )
        # Imported here: svmlab.SVC's own probabilities use this module.
        from svmlab.svm.classifier import SVC

        base = SVC() if self.estimator is None else self.estimator
        if not (is_classifier(base) and hasattr(base, "decision_function")):
            raise ParameterError(
                "PlattSVC squashes a classifier's decision values: its estimator "
                "must be a binary classifier with decision_function, such as "
                f"svmlab.SVC(); got {type(base).__name__}."
            )
        X, y = validate(self, X, y)
        # (``k`` stays the number of folds: it once became the number of
        # classes here, so every fit used 2 folds whatever ``folds`` said.)
        self.classes_ = check_binary_labels(
            y,
            one="Platt's probabilities need points of two classes.",
            more="Platt's probabilities here are for two.",
        )
        if X.shape[0] < k:
            raise DataError(
                f"Platt's probabilities are fitted on {k}-fold cross-validated "
                f"decision values, so they need at least {k} points (one per "
                f"fold); got {X.shape[0]}."
            )
        self.estimator_ = clone(base).fit(X, y)
        self.cv_decision_ = cross_val_decision(
            base, X, y, folds=int(k), random_state=self.random_state
        )
        y_pm = np.where(y == self.classes_[1], 1.0, -1.0)
        self.platt_ = sigmoid_train(self.cv_decision_, y_pm)
        self.A_, self.B_ = self.platt_.A, self.platt_.B
        return self

    def predict(self, X: ArrayLike) -> NDArray:
        """The more probable class (``P(classes_[1]) > 0.5``), as LIBSVM's
        ``svm_predict_probability``; scikit-learn's ``SVC(probability=True)``
        predicts by the sign of f instead, which may disagree with its own
        probabilities near f = 0 (f = -B/A is where p = 1/2)."""
        p = self.predict_proba(X)[:, 1]
        return self.classes_[(p > 0.5).astype(int)]

    def predict_proba(self, X: ArrayLike) -> Array:
        """``[P(classes_[0] | x), P(classes_[1] | x)]``, shape (n, 2)."""
        check_is_fitted(self)
        f = self.estimator_.decision_function(X)
        p = sigmoid_predict(f, self.A_, self.B_)
        return np.column_stack([1.0 - p, p])

    def predict_log_proba(self, X: ArrayLike) -> Array:
        """The log of :meth:`predict_proba`."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


# -- a threshold on f, without refitting ------------------------------------------


@dataclass(frozen=True)
class ThresholdReport:
    """The confusion matrix of ``f >= threshold`` against the labels.

    ``tp, fp, tn, fn`` count the points; ``tpr = tp / (tp + fn)`` (recall) and
    ``fpr = fp / (fp + tn)``: the point on the ROC curve.
    """

    threshold: float
    tp: int
    fp: int
    tn: int
    fn: int

    @property
    def tpr(self) -> float:
        return self.tp / max(1, self.tp + self.fn)

    @property
    def fpr(self) -> float:
        return self.fp / max(1, self.fp + self.tn)

    @property
    def error(self) -> float:
        return (self.fp + self.fn) / max(1, self.tp + self.fp + self.tn + self.fn)


def threshold_report(
    f: ArrayLike, y_pm: ArrayLike, threshold: float
) -> ThresholdReport:
    """The confusion matrix when points with ``f >= threshold`` are called +1.

    A threshold on the probability ``p`` is the threshold ``f = (log((1 - p) /
    p) - B) / A`` on f (the sigmoid is monotone), so one function serves both.
    """
    f = np.asarray(f, dtype=np.float64)
    pos = np.asarray(y_pm) > 0
    called = f >= threshold
    return ThresholdReport(
        float(threshold),
        int(np.sum(called & pos)),
        int(np.sum(called & ~pos)),
        int(np.sum(~called & ~pos)),
        int(np.sum(~called & pos)),
    )


def roc(f: ArrayLike, y_pm: ArrayLike) -> tuple[Array, Array, Array, float]:
    """``(fpr, tpr, thresholds, auc)`` of the scores f (scikit-learn's
    ``roc_curve`` and ``roc_auc_score``); thresholds in decreasing order."""
    pos = np.asarray(y_pm) > 0
    fpr, tpr, thresholds = roc_curve(pos, np.asarray(f, dtype=np.float64))
    return fpr, tpr, thresholds, float(roc_auc_score(pos, f))
