"""ν-SVC and the one-class SVM: the machines whose parameter ν is a fraction.

**ν-SVC** (Schölkopf, Smola, Williamson & Bartlett 2000) trades C for
ν in (0, 1]:

    min 0.5 ||w||^2 - ν ρ + (1/n) sum ξ_i,  y_i (w'φ(x_i) + b) >= ρ - ξ_i,

and ν is an upper bound on the fraction of margin errors (ξ_i > 0) and a lower
bound on the fraction of support vectors (their Proposition 5). Its dual keeps
``sum α_i = ν`` besides ``y'α = 0``, so LIBSVM solves it with ``Solver_NU``
(:func:`svmlab.solvers.family.solve_nu_svc`); the model is divided by the
margin ``r`` so that its margins are at ±1, and it is then the C-SVC with
``C = 1/r`` (Chang & Lin 2001). ν is feasible only up to
``2 min(n+, n-) / n``.

**The one-class SVM** (Schölkopf, Platt, Shawe-Taylor, Smola & Williamson 2001)
separates the data from the origin in feature space:

    min 0.5 ||w||^2 + (1/(ν n)) sum ξ_i - ρ,  w'φ(x_i) >= ρ - ξ_i,

with ``f(x) = sum α_i k(x_i, x) - ρ >= 0`` on the data's side; at most a
fraction ν of the training points lies outside (f < 0) and at least ν are
support vectors. LIBSVM scales α to ``0 <= α_i <= 1``, ``sum α_i = ν n``, as
scikit-learn reports it.
"""

from __future__ import annotations

import time

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import ClassifierMixin, OutlierMixin
from sklearn.utils.validation import check_is_fitted

from svmlab.array_types import Array
from svmlab.errors import InfeasibleNuError, ProblemError
from svmlab.kernels import PSD_KERNELS
from svmlab.parameter_checks import check_nu
from svmlab.solvers.family import solve_nu_svc, solve_one_class
from svmlab.svm.kernel_machine import KernelMachine
from svmlab.svm.parameters import parameters
from svmlab.svm.validation import check_binary_labels, validate

__all__ = ["NuSVC", "OneClassSVM", "max_feasible_nu"]


def max_feasible_nu(y: ArrayLike) -> float:
    """The largest feasible ν of ν-SVC for these labels: ``2 min(n+, n-) / n``.

    The dual needs ``sum α_i = ν n`` split equally between the classes with
    ``α_i <= 1``, so each class must hold ``ν n / 2`` (Chang & Lin 2001,
    Theorem 1; LIBSVM's ``svm_check_parameter``).
    """
    _, counts = np.unique(np.asarray(y), return_counts=True)
    if counts.shape[0] < 2:
        return 0.0
    return 2.0 * float(counts.min()) / float(counts.sum())


#: f's accuracy in margin units (``tol / r``) above which a fit gets a note.
ACCURACY_NOTE = 0.1


def _accuracy_notes(nu: float, r: float, tol: float) -> tuple[str, ...]:
    """A sentence when ``tol / r`` (f's accuracy, in margins) exceeds
    :data:`ACCURACY_NOTE`, else none."""
    if tol / r <= ACCURACY_NOTE:
        return ()
    return (
        f"With nu = {nu:g} the margin r is only {r:.2g} (the equivalent C is "
        f"{1.0 / r:.3g}), so the solver's tol = {tol:g} leaves f accurate only to "
        f"about {tol / r:.2g} margins. This nu is near the smallest fraction of "
        "margin errors the kernel allows on these data; raise nu or lower tol.",
    )


def _nu_property(margins: Array, at_upper: NDArray[np.bool_], coef: Array) -> tuple:
    """``(fraction of margin errors, fraction of SVs)``: a margin error is a
    point at its upper bound whose margin is below 1 (ξ_i > 0)."""
    n = margins.shape[0]
    errors = int(np.sum(at_upper & (margins < 1.0)))
    return errors / n, int(np.count_nonzero(coef)) / n


@parameters
class NuSVC(ClassifierMixin, KernelMachine):
    """Binary ν-support vector classifier (LIBSVM's ``-s 1``).

    Parameters
    ----------
    nu
        In (0, 1]: an upper bound on the fraction of margin errors and a lower
        bound on the fraction of support vectors; at most ``2 min(n+, n-)/n``.
    kernel, sigma, degree, coef0, scale
        As :class:`svmlab.SVC`: ``"gaussian"`` ``exp(-||x - z||^2 / 2 sigma^2)``
        (scikit-learn's gamma is ``1 / (2 sigma^2)``), ``"polynomial"``
        ``(x'z + coef0)^degree``, ``"linear"``, ``"sigmoid"``
        ``tanh(scale x'z + coef0)``.
    tol, max_iter, shrinking, max_seconds
        The solver's stopping tolerance (LIBSVM's ``-e``), iteration cap (None:
        LIBSVM's ``max(10^7, 100 n)``), shrinking and time budget in seconds
        (None: none).
    cache_mb, cache_precision
        The kernel cache's megabytes and precision: ``"float64"``, or
        ``"float32"`` as LIBSVM (whose answers it then reproduces; at large
        coefficients they differ from the exact ones by about 1e-4,
        docs/corrections.md "LIBSVM agreement").

    Attributes
    ----------
    classes_, support_, support_vectors_, n_support_
        The two labels (``classes_[1]`` is the positive one) and the support
        vectors, as scikit-learn's.
    dual_coef_ : ndarray (1, n_SV)
        ``y_i α_i / r``: f's coefficients with margins at ±1.
    intercept_ : ndarray (1,)
        b of ``f(x) = sum dual_coef k(sv, x) + b``.
    rho_ : float
        ν-SVC's margin variable ρ for ``sum α_i = ν``, ``α_i <= 1/n``
        (Schölkopf et al. 2000): ``r / n``.
    C_ : float
        ``1 / r``: the C-SVC with this C has the same f (LIBSVM prints it).
    margin_error_fraction_, support_fraction_ : float
        The fraction of training points with ξ_i > 0 (at the bound, margin
        below 1) and of support vectors: ``margin_error_fraction_ <= nu <=
        support_fraction_`` (the ν-property).
    margins_ : ndarray (n,)
        ``y_i f(x_i)`` of the training points.
    fit_notes_ : tuple of str
        A sentence when f cannot be trusted: the solver's ``tol`` is measured
        before the division by r, so f is accurate to about ``tol / r``
        margins, and r nears 0 when ν nears the smallest fraction of margin
        errors the kernel allows (C = 1/r then grows without bound).
    n_iter_, converged_, stop_reason_, kkt_violation_, objective_, fit_time_,
    solution_
        The solver's report (:class:`svmlab.solvers.family.FamilySolution`).
    """

    nu: float = 0.5

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def fit(self, X: ArrayLike, y: ArrayLike) -> NuSVC:
        """Fit on X (n, d) and y (n,) with two labels."""
        start = time.perf_counter()
        nu = check_nu(self.nu)
        options = self._check_common()
        X, y = validate(self, X, y)
        self.classes_ = check_binary_labels(
            y,
            one="ν-SVC needs points of two classes (svmlab.OneClassSVM takes one).",
            more="svmlab.NuSVC separates two.",
        )
        top = max_feasible_nu(y)
        if nu > top:
            raise InfeasibleNuError(
                f"nu = {nu:g} is infeasible for these labels: ν-SVC needs nu at "
                f"most 2 min(n+, n-)/n = {top:.3g} here, the share of the smaller "
                "class twice (LIBSVM: specified nu is infeasible). Use a smaller "
                "nu or balance the classes."
            )
        y_pm = np.where(y == self.classes_[1], 1.0, -1.0)
        try:
            solution = solve_nu_svc(y_pm, nu, kernel=self._rows(X), **options)
        except ProblemError as error:
            if self.kernel in PSD_KERNELS or "found no margin" not in str(error):
                raise
            # With an indefinite kernel r <= 0 is the kernel's doing, not ν's
            # (issue 44, item 5: the sentence blamed nu).
            raise ProblemError(
                "ν-SVC found no margin here: the sigmoid kernel's Gram matrix is "
                "not positive semidefinite on these points, so ν-SVC's margin r "
                "came out at or below 0 (not a too small nu). Use another scale "
                "or coef0, a positive semidefinite kernel (Gaussian, polynomial, "
                "linear), or the C-SVM."
            ) from error
        self._store(X, solution, start)
        self.n_support_ = np.array(
            [np.sum(y_pm[self.support_] < 0), np.sum(y_pm[self.support_] > 0)],
            dtype=np.int32,
        )
        r = float(solution.r)
        self.rho_ = r / X.shape[0]
        self.C_ = 1.0 / r
        self.margins_ = y_pm * self._raw_decision(X)
        self.fit_notes_ = _accuracy_notes(nu, r, float(self.tol))
        self.margin_error_fraction_, self.support_fraction_ = _nu_property(
            self.margins_, solution.alpha >= solution.upper, solution.coef
        )
        return self

    def decision_function(self, X: ArrayLike) -> Array:
        """``f(x) = sum_i y_i α_i k(x_i, x) / r + b``, margins at ±1; shape (n,)."""
        return self._raw_decision(X)

    def predict(self, X: ArrayLike) -> NDArray:
        """The class of ``sign f(x)`` (f = 0 goes to the first class)."""
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) > 0).astype(int)]


@parameters
class OneClassSVM(OutlierMixin, KernelMachine):
    """The one-class SVM (LIBSVM's ``-s 2``): where the data are, without labels.

    Parameters
    ----------
    nu
        In (0, 1]: an upper bound on the fraction of training points outside
        the region (f < 0) and a lower bound on the fraction of support vectors.
    kernel, sigma, degree, coef0, scale, tol, max_iter, shrinking, cache_mb,
    cache_precision, max_seconds
        As :class:`NuSVC`.

    Attributes
    ----------
    support_, support_vectors_, dual_coef_ : ndarray
        The support vectors and their ``α_i`` (``0 < α_i <= 1``, ``sum = ν n``).
    intercept_ : ndarray (1,)
        ``-ρ``.
    rho_, offset_ : float
        ρ, the hyperplane's offset: ``f(x) = score_samples(x) - offset_``
        (scikit-learn's ``offset_``).
    outlier_fraction_, support_fraction_ : float
        The fraction of training points outside (ξ_i > 0: at the bound with
        f < 0) and of support vectors: ``outlier_fraction_ <= nu <=
        support_fraction_``.
    scores_ : ndarray (n,)
        ``f(x_i)`` of the training points.
    n_iter_, converged_, stop_reason_, kkt_violation_, objective_, fit_time_,
    solution_
        As :class:`NuSVC`.
    """

    nu: float = 0.5

    def fit(self, X: ArrayLike, y: object = None) -> OneClassSVM:
        """Fit on X (n, d); ``y`` is ignored (the data are unlabelled)."""
        start = time.perf_counter()
        nu = check_nu(self.nu)
        options = self._check_common()
        X = validate(self, X)
        n = X.shape[0]
        solution = solve_one_class(nu, n, kernel=self._rows(X), **options)
        self._store(X, solution, start)
        self.rho_ = self.offset_ = float(solution.rho)
        self.scores_ = self._raw_decision(X)
        outside = (solution.alpha >= solution.upper) & (self.scores_ < 0.0)
        self.outlier_fraction_ = int(np.sum(outside)) / n
        self.support_fraction_ = self.support_.size / n
        return self

    def decision_function(self, X: ArrayLike) -> Array:
        """``f(x) = sum_i α_i k(x_i, x) - ρ``: >= 0 on the data's side."""
        return self._raw_decision(X)

    def score_samples(self, X: ArrayLike) -> Array:
        """``sum_i α_i k(x_i, x)`` (``decision_function + offset_``)."""
        return self._raw_decision(X) + self.offset_

    def predict(self, X: ArrayLike) -> NDArray[np.intp]:
        """+1 where ``f(x) > 0`` (the data's side), -1 elsewhere (LIBSVM's rule)."""
        return np.where(self.decision_function(X) > 0, 1, -1).astype(np.intp)
