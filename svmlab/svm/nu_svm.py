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
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import ClassifierMixin, OutlierMixin, clone

from svmlab.array_types import Array
from svmlab.errors import DataError, InfeasibleNuError, ProblemError
from svmlab.parameter_checks import check_nu
from svmlab.solvers.base import Budget
from svmlab.solvers.family import solve_nu_svc, solve_one_class
from svmlab.svm.kernel_machine import KernelMachine, MachineInput
from svmlab.svm.kernel_spec import KernelSpec
from svmlab.svm.libsvm_layout import PairwiseClassifier, PairwiseInput, class_pairs
from svmlab.svm.parameters import PairwiseParameters, parameters
from svmlab.svm.validation import check_labels

__all__ = ["NuSVC", "OneClassSVM", "equivalent_gap", "max_feasible_nu"]


def max_feasible_nu(y: ArrayLike, sample_weight: ArrayLike | None = None) -> float:
    """The largest feasible ν of ν-SVC for these labels: ``2 min(n+, n-) / n``.

    The dual needs ``sum α_i = ν n`` split equally between the classes with
    ``α_i <= 1``, so each class must hold ``ν n / 2`` (Chang & Lin 2001,
    Theorem 1; LIBSVM's ``svm_check_parameter``). With more classes every pair
    must allow it: the smallest ``2 min(n_i, n_j) / (n_i + n_j)``; with sample
    weights the counts are the classes' summed weights (scikit-learn's LIBSVM).
    """
    y = np.asarray(y)
    labels, codes = np.unique(y, return_inverse=True)
    w = np.ones(y.shape[0]) if sample_weight is None else np.asarray(sample_weight)
    counts = np.bincount(codes.ravel(), weights=w, minlength=labels.shape[0])
    if counts.shape[0] < 2:
        return 0.0
    best = np.inf
    for i, j in class_pairs(counts.shape[0]):
        total = counts[i] + counts[j]
        best = min(best, 2.0 * min(counts[i], counts[j]) / total if total > 0 else 0.0)
    return float(best)


#: f's accuracy in margin units (``tol / r``) above which a fit gets a note.
ACCURACY_NOTE = 0.1
#: The equivalent C-SVC's relative duality gap above which a fit gets a note.
GAP_NOTE = 1e-3


def equivalent_gap(
    coef: Array, margins: Array, alpha: Array, upper: Array, r: float, raw: Array
) -> float:
    """The relative duality gap ``(P - D) / P`` of the C-SVC that ν-SVC's f is
    (``C_i = U_i / r``, ``alpha / r`` its multipliers): ``P = 1/2 |w|^2 + sum
    C_i max(0, 1 - y_i f_i)``, ``D = sum alpha_i / r - 1/2 |w|^2`` with ``|w|^2
    = coef' (f - b)`` (``raw``, f without its intercept, at the kept points).

    Why (issue 44, item 3): the solver's KKT gap bounds the gradient, not the
    distance to the optimum, and dividing by r amplifies what is left; on
    ill-conditioned problems f was 20-50 times further off than ``tol / r``
    (nu = 0.25, tol 1e-6: tol / r = 0.086, f off by 3 margins) without a
    word. The duality gap is measured at the answer, whatever the solver did:
    about 1e-4 or less where f is good to 0.02 margins, 6e-3 to 0.7 where it
    was off by 0.6 to 17 margins."""
    w2 = float(coef @ raw)
    P = 0.5 * w2 + float(np.sum(upper / r * np.maximum(0.0, 1.0 - margins)))
    D = float(alpha.sum()) / r - 0.5 * w2
    return (P - D) / P if P > 0.0 else 0.0


def _accuracy_notes(nu: float, r: float, tol: float, gap: float) -> tuple[str, ...]:
    """A sentence when ``tol / r`` (f's accuracy, in margins, if the problem
    is well conditioned) exceeds :data:`ACCURACY_NOTE` or the equivalent
    C-SVC's relative duality gap ``gap`` exceeds :data:`GAP_NOTE`, else none."""
    if tol / r <= ACCURACY_NOTE and not gap > GAP_NOTE:
        return ()
    return (
        f"With nu = {nu:g} the margin r is only {r:.2g} (the equivalent C is "
        f"{1.0 / r:.3g}), so the solver's tol = {tol:g} leaves f accurate only to "
        f"about {tol / r:.2g} margins at best; as the C-SVC with that C the fit "
        f"is {gap:.2g} of its objective from optimal (its duality gap), so f may "
        "be off by more. This nu is near the smallest fraction of margin errors "
        "the kernel allows on these data; raise nu or lower tol.",
    )


def _nu_property(margins: Array, at_upper: NDArray[np.bool_], coef: Array) -> tuple:
    """``(fraction of margin errors, fraction of SVs)``: a margin error is a
    point at its upper bound whose margin is below 1 (ξ_i > 0)."""
    n = margins.shape[0]
    errors = int(np.sum(at_upper & (margins < 1.0)))
    return errors / n, int(np.count_nonzero(coef)) / n


@parameters
class NuSVC(PairwiseClassifier, ClassifierMixin, PairwiseParameters, KernelMachine):
    """ν-support vector classifier (LIBSVM's ``-s 1``); more than two classes
    by one-vs-one, as :class:`svmlab.SVC` (:mod:`svmlab.svm.libsvm_layout`).

    Parameters
    ----------
    nu
        In (0, 1]: an upper bound on the fraction of margin errors and a lower
        bound on the fraction of support vectors; at most ``2 min(n+, n-)/n``
        (for every pair of classes).
    kernel, sigma, gamma, degree, coef0, scale
        As :class:`svmlab.SVC`, in svmlab's spelling (``"gaussian"``
        ``exp(-||x - z||^2 / 2 sigma^2)``, ``"polynomial"`` ``(x'z +
        coef0)^degree``, ``"linear"``, ``"sigmoid"`` ``tanh(scale x'z +
        coef0)``) or scikit-learn's (``"rbf"``, ``"poly"``, ``"sigmoid"`` with
        gamma, ``"precomputed"``, a callable).
    tol, max_iter, shrinking, max_seconds
        The solver's stopping tolerance (LIBSVM's ``-e``), iteration cap (None:
        LIBSVM's ``max(10^7, 100 n)``), shrinking and time budget in seconds
        (None: none). Whatever the cap, a run whose gradient float64 cannot
        resolve to ``tol`` (kernel values spanning many orders of magnitude)
        stops at the next check, every 100,000 iterations, with
        ``stop_reason_ = "rule"`` and a ConvergenceWarning giving the rounding
        (:func:`svmlab.solvers.family.gradient_floor`).
    cache_mb, cache_precision
        The kernel cache's megabytes and precision: ``"float64"``, or
        ``"float32"`` as LIBSVM (whose answers it then reproduces; at large
        coefficients they differ from the exact ones by about 1e-4,
        docs/corrections.md "LIBSVM agreement").
    probability, decision_function_shape, break_ties, random_state
        As :class:`svmlab.SVC` (Platt's probabilities; the shape of the
        decision function and the ties with more than two classes; the seed of
        the probabilities' folds).

    Attributes
    ----------
    classes_, support_, support_vectors_, n_support_
        The labels (``classes_[1]`` is the positive one of two) and the support
        vectors, as scikit-learn's.
    dual_coef_ : ndarray (1, n_SV), or (k - 1, n_SV)
        ``y_i α_i / r``: f's coefficients with margins at ±1; with k classes
        LIBSVM's layout.
    intercept_ : ndarray (1,), or (k(k-1)/2,)
        b of ``f(x) = sum dual_coef k(sv, x) + b``.
    rho_ : float
        ν-SVC's margin variable ρ for ``sum α_i = ν``, ``α_i <= 1/n``
        (Schölkopf et al. 2000): ``r / n`` (two classes).
    C_ : float
        ``1 / r``: the C-SVC with this C has the same f (LIBSVM prints it).
    margin_error_fraction_, support_fraction_ : float
        The fraction of training points with ξ_i > 0 (at the bound, margin
        below 1) and of support vectors: ``margin_error_fraction_ <= nu <=
        support_fraction_`` (the ν-property; two classes).
    margins_ : ndarray (n,)
        ``y_i f(x_i)`` of the training points (two classes).
    fit_notes_ : tuple of str
        A sentence when f cannot be trusted: the solver's ``tol`` is measured
        before the division by r, so f is accurate to about ``tol / r``
        margins at best (said above 0.1), and less on ill-conditioned
        problems, which the equivalent C-SVC's relative duality gap shows
        (said above 1e-3, :func:`equivalent_gap`); r nears 0 when ν nears the
        smallest fraction of margin errors the kernel allows (C = 1/r then
        grows without bound). An answer with no margin (``|w|^2`` below
        1e-3 of ``r sum a``: :func:`svmlab.solvers.family.no_margin`) is
        refused with a ProblemError, whichever sign r came out with.
    n_iter_, converged_, stop_reason_, kkt_violation_, objective_, fit_time_,
    solution_
        The solver's report (:class:`svmlab.solvers.family.FamilySolution`;
        with k classes, ``n_iter_`` one per pair and ``pair_models_`` each pair's).
    class_weight_, fit_status_, shape_fit_, kernel_spec_, probA_, probB_
        As :class:`svmlab.SVC` (``class_weight_`` all ones: ν-SVC has no C).
    """

    nu: float = 0.5
    random_state: int | None = None

    def fit(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> NuSVC:
        """Fit on X (n, d), dense or sparse, and y (n,) with two labels or more;
        ``sample_weight`` bounds each point's α (LIBSVM's ``a_i <= w_i``)."""
        start = time.perf_counter()
        nu = check_nu(self.nu)
        options = self._check_common()
        self._check_pairwise_params()
        X, y, data = self._input(X, y, sample_weight)
        classes = check_labels(y)
        if classes.shape[0] < 2:
            only = (
                classes[0].item() if isinstance(classes[0], np.generic) else classes[0]
            )
            raise DataError(
                f"Only one class ({only}) is present; ν-SVC needs points of two "
                "classes (svmlab.OneClassSVM takes one)."
            )
        codes = np.searchsorted(classes, y)
        weights = None if data.weights is None else data.full(data.weights)
        top = max_feasible_nu(y, weights)
        if nu > top:
            raise InfeasibleNuError(
                f"nu = {nu:g} is infeasible for these labels: ν-SVC needs nu at "
                f"most 2 min(n+, n-)/n = {top:.3g} here (for every pair of classes), "
                "the share of the smaller class twice (LIBSVM: specified nu is "
                "infeasible). Use a smaller nu or balance the classes."
            )
        self.classes_ = classes
        self.class_weight_ = np.ones(classes.shape[0])
        task = PairwiseInput(X, y, codes, weights, self.kernel_spec_)
        if classes.shape[0] == 2:
            self._fit_binary(X, y, nu, data, options, start)
        else:
            self._fit_pairs(task, Budget(self.max_seconds))
            self.fit_status_ = 0 if self.converged_ else 1
        self._finish_fit(task, start)
        return self

    def _fit_binary(
        self, X: Any, y: NDArray, nu: float, data: MachineInput, options: dict, start
    ) -> None:
        y_pm = np.where(y == self.classes_[1], 1.0, -1.0)
        rows = np.arange(y.shape[0]) if data.rows is None else data.rows
        try:
            solution = solve_nu_svc(
                y_pm[rows], nu, data.solver_kernel(), weights=data.weights, **options
            )
        except ProblemError as error:
            if self.kernel_spec_.kernel != "sigmoid" or "found no margin" not in str(
                error
            ):
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
        self._store(X, solution, start, data)
        support = self.support_
        order = np.argsort(y_pm[support] > 0, kind="stable")
        self.support_ = support[order]
        self._set_support(X, data.full(solution.coef))
        self.n_support_ = np.array(
            [np.sum(y_pm[support] < 0), np.sum(y_pm[support] > 0)], dtype=np.int32
        )
        r = float(solution.r)
        self.rho_ = r / X.shape[0] if hasattr(X, "shape") else r / len(X)
        self.C_ = 1.0 / r
        self.margins_ = y_pm * self._raw_decision(X)
        at_upper = data.full((solution.alpha >= solution.upper).astype(float)) > 0
        kept = rows
        gap = equivalent_gap(
            solution.coef,
            self.margins_[kept],
            solution.alpha,
            solution.upper,
            r,
            self.margins_[kept] * y_pm[kept] - float(self.intercept_[0]),
        )
        self.fit_notes_ = _accuracy_notes(nu, r, float(self.tol), gap)
        self.margin_error_fraction_, self.support_fraction_ = _nu_property(
            self.margins_, at_upper, data.full(solution.coef)
        )

    def _pair_estimator(self, spec: KernelSpec, pair: tuple[int, int]) -> NuSVC:
        """A binary NuSVC of this one's settings (gamma resolved on all the
        data; a callable kernel as ``"precomputed"``)."""
        params: dict[str, Any] = {"probability": False}
        if spec.kernel == "precomputed":
            params.update(kernel="precomputed", gamma=None)
        elif spec.gamma is not None:
            params["gamma"] = spec.gamma
        return clone(self).set_params(**params)


@parameters
class OneClassSVM(OutlierMixin, KernelMachine):
    """The one-class SVM (LIBSVM's ``-s 2``): where the data are, without labels.

    Parameters
    ----------
    nu
        In (0, 1]: an upper bound on the fraction of training points outside
        the region (f < 0) and a lower bound on the fraction of support vectors.
    kernel, sigma, gamma, degree, coef0, scale, tol, max_iter, shrinking,
    cache_mb, cache_precision, max_seconds
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

    def fit(
        self, X: ArrayLike, y: object = None, sample_weight: ArrayLike | None = None
    ) -> OneClassSVM:
        """Fit on X (n, d), dense or sparse; ``y`` is ignored (the data are
        unlabelled); ``sample_weight`` bounds each point's α (``a_i <= w_i``,
        ``sum a = ν sum w``: scikit-learn's LIBSVM)."""
        start = time.perf_counter()
        nu = check_nu(self.nu)
        options = self._check_common()
        X, _, data = self._input(X, sample_weight=sample_weight)
        n = data.n
        kept = n if data.rows is None else data.rows.size
        solution = solve_one_class(
            nu, kept, data.solver_kernel(), weights=data.weights, **options
        )
        self._store(X, solution, start, data)
        self.rho_ = self.offset_ = float(solution.rho)
        self.scores_ = self._raw_decision(X)
        at_upper = data.full((solution.alpha >= solution.upper).astype(float)) > 0
        outside = at_upper & (self.scores_ < 0.0)
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
