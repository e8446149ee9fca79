"""Choosing C and sigma: approximate leave-one-out against exact cross-validation.

One result type, :class:`CriterionResult`, for every criterion in :data:`CRITERIA`:

- ``"lee"``: Lee (2006) eq. (11), corrected (docs/corrections.md, "Lee (2006)"
  items 3 and 5): the leverage is ``d_i = [K (W K + I/C)^{-1} W]_ii`` (printed
  ``- I/C``) and the residual is that of the working response the weights go
  with::

      ACV = 1/n sum_i h(r_i) - 1/n sum_i (z_i - yhat_i) * dh/dyhat_i * d_i / (1 - d_i)
          = 1/n sum_i h(r_i) + 1/n sum_i rho_i * (-h'(r_i)) * d_i / (1 - d_i)

  with ``r_i = y_i yhat_i`` the fitted margins, ``dh/dyhat_i = y_i h'(r_i)``,
  ``W = diag(w)`` the guarded IRWLS weights ``w_i = -h'(r_i) / rho_i``,
  ``rho_i = max(1 - r_i, delta)`` (item 3; in ``[0, 1/delta]``, so
  ``0 <= d_i < 1``; the weights of the IRWLS step taken at the fit, not at its
  last iterate) and ``z_i = y_i t_i``, ``t_i = r_i + rho_i``, the guarded working
  response, so ``z_i - yhat_i = y_i rho_i``. Lee's unguarded form has ``z = y``
  and the residual ``(y_i - yhat_i) = y_i (1 - r_i)`` (printed ``y_i - y_i
  yhat_i``); with the guarded weights that residual changes sign for ``r_i > 1``
  and the value can go below zero, which no mean of a non-negative loss can.
  It is a first-order Taylor expansion of ``h`` around the fitted margin along
  the leave-one-out output of the linear smoother ``yhat = S z``,
  ``yhat^(-i) = yhat_i - d_i (z_i - yhat_i) / (1 - d_i)``, i.e. the margin
  ``r_i - d_i rho_i / (1 - d_i)`` of ``"plugin"``. Every point adds
  ``rho_i (-h'(r_i)) d_i / (1 - d_i) >= 0``, so the value is at least the
  training loss mean; ``h`` is convex, so it is at most the plug-in value.
- ``"plugin"``: ``h`` evaluated *at* the predicted leave-one-out output instead of
  linearised around the fit (the same working response ``z_i = y_i t_i``), so
  the leave-one-out margin is ``r_i - d_i rho_i / (1 - d_i)``. For the weighted
  ridge problem that IRWLS solves at its fixed point this is *exact* leave-one-out
  (the hat-matrix identity); the only approximation is holding W fixed.
- ``"alo"``: approximate leave-one-out by one Newton step from the full solution
  (Rad & Maleki 2020; for the kernel form with no bias)::

      f^(-i) = f_i + y_i h'(r_i) G_ii / (1 - h''(r_i) G_ii),
      G = K (V K + I/C)^{-1},  V = diag(h''(r))

  It uses the loss's curvature rather than the IRWLS weights; on the straight part
  of the modified hinge (``h'' = 0``) it removes the point's coefficient ``C y_i``
  and lets the rest respond through ``G`` (Wang et al. 2018's rule for the hinge's
  bound support vectors).
- ``"span"``: the span rule (Vapnik & Chapelle 2000; Opper & Winther 2000):
  leave ``i`` out holding every other point's state (non-SV, on the tail of
  ``h_delta``, bound SV) fixed, so ``y_i f^(-i)(x_i) = r_i - alpha_i S_i^2`` with
  ``S_i^2`` a Schur complement (:func:`span_squared`). It is the ALO step with
  the curvature read from the multipliers instead of the margins, which is what
  makes it stable where ALO is erratic under Lee's loose stop rule.
- ``"loo"``: exact leave-one-out (Lee eq. (10) with the estimator's own loss): n
  refits, each warm-started from the full solution and reusing its Gram matrix;
  for the hinge only the support vectors are refitted (removing a non-support
  vector leaves the solution unchanged; docs/corrections.md item 6).
- ``"kfold"``: stratified k-fold cross-validation (scikit-learn's splits).

The approximations are derived for Lee's model, ``f = K c`` with no unregularized
bias (Lee's model has none; docs/corrections.md item 9): they accept ``bias="none"`` and
``bias="regularized"`` (the kernel ``k + 1``) and refuse ``"unregularized"``.

The misclassification of held-out margins counts a tie ``m = 0`` as 1/2 (Lee's
rate ``(1/2n) sum (1 - sign(y yhat))``; docs/corrections.md item 8).
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.stats
from numpy.typing import ArrayLike, NDArray
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold

from svmlab.array_types import Array
from svmlab.errors import DataError, IncompatibleLossError, ParameterError, plain_value
from svmlab.losses import Loss, make_loss
from svmlab.solvers.base import Budget
from svmlab.solvers.entropy_refit import Refitter
from svmlab.solvers.irwls import irwls_weights
from svmlab.svm.classifier import SVC
from svmlab.svm.validation import check_points

__all__ = [
    "CRITERIA",
    "Criterion",
    "CriterionResult",
    "FullFit",
    "acv_score",
    "approximate_loo",
    "approximation_from_fit",
    "check_approximable",
    "check_data",
    "evaluate",
    "fit_quietly",
    "kfold_cv_score",
    "kfold_from_fit",
    "leverage",
    "loo_cv_score",
    "loo_from_fit",
    "misclassification",
    "span_squared",
]


@dataclass(frozen=True)
class Criterion:
    """One row of the criterion table (the page lists these)."""

    name: str
    title: str
    approximate: bool
    seed_section: str

    @property
    def short_title(self) -> str:
        """The title without its parenthesis ("Plug-in ACV"): where a table's
        column must stay narrow (the page's summary at 1280 px, issue 46)."""
        return self.title.partition(" (")[0]


#: name -> criterion; the order is the order the page shows them in.
CRITERIA: dict[str, Criterion] = {
    "lee": Criterion(
        "lee",
        "Lee's ACV (eq. 11, corrected)",
        True,
        "Lee (2006) eq. (11), corrected (Notes on the sources)",
    ),
    "plugin": Criterion(
        "plugin",
        "Plug-in ACV (h at the predicted LOO output)",
        True,
        "Notes on the sources, Lee (2006) item 5",
    ),
    "alo": Criterion(
        "alo",
        "ALO (one Newton step)",
        True,
        "Rad & Maleki (2020); Notes on the sources, Lee (2006) item 5",
    ),
    "span": Criterion(
        "span",
        "Span rule (support-vector sets held fixed)",
        True,
        "Vapnik & Chapelle (2000); Opper & Winther (2000)",
    ),
    "loo": Criterion("loo", "Exact leave-one-out", False, "Lee (2006) eq. (10)"),
    "kfold": Criterion("kfold", "5-fold cross-validation", False, "Rifkin (2007)"),
}

APPROXIMATIONS = tuple(name for name, c in CRITERIA.items() if c.approximate)


@dataclass(frozen=True)
class CriterionResult:
    """What one criterion says about one (C, sigma).

    ``score`` is the mean of the estimator's loss at the held-out margins (the
    quantity to minimise), ``error`` their misclassification (ties count 1/2),
    ``margins`` the held-out margins ``y_i f^(-i)(x_i)`` (exact for ``"loo"``,
    approximated for the approximations, per fold for ``"kfold"``), ``seconds``
    the wall time including the full fit(s), ``n_fits`` the fits it took and
    ``converged`` whether every one of them stopped by its own rule (its
    tolerance, or Lee's rule for IRWLS), not by an iteration or time limit.
    """

    criterion: str
    score: float
    error: float
    margins: Array
    seconds: float
    n_fits: int
    converged: bool


def misclassification(margins: ArrayLike) -> float:
    """Lee (2006) section 4: ``(1/2n) sum (1 - sign(m_i))``; a tie counts 1/2."""
    m = np.asarray(margins, dtype=np.float64)
    return float(np.mean(0.5 * (1.0 - np.sign(m))))


def _scored(
    criterion: str,
    loss: Loss,
    margins: Array,
    start: float,
    n_fits: int,
    converged: bool,
    score: float | None = None,
) -> CriterionResult:
    """A criterion's result from its held-out ``margins``: the score the mean
    of ``loss`` at them unless given (Lee's corrected eq. 11 is not), their
    misclassification, and the seconds since ``start``."""
    if score is None:
        score = float(np.mean(loss.value(margins)))
    return CriterionResult(
        criterion=criterion,
        score=score,
        error=misclassification(margins),
        margins=margins,
        seconds=time.perf_counter() - start,
        n_fits=n_fits,
        converged=converged,
    )


def check_data(X: ArrayLike, y: ArrayLike) -> tuple[Array, NDArray]:
    """``(X, y)`` checked as ``SVC.fit`` checks them
    (:func:`svmlab.svm.validation.check_points`: the same :class:`DataError`
    sentences for NaN, text, shapes and labels that mix text and numbers), then
    what every criterion needs: two classes, at least 3 points and 2 of each.
    """
    X, y, classes = check_points(X, y)
    counts = np.array([np.count_nonzero(y == c) for c in classes])
    if classes.size != 2:
        raise DataError(
            f"Model selection needs points of exactly two classes; got {classes.size}."
        )
    if X.shape[0] < 3 or counts.min() < 2:
        raise DataError(
            "Leave-one-out needs at least 3 points and 2 of each class; got "
            f"{X.shape[0]} points with class counts {counts.tolist()}."
        )
    return X, y


def fit_quietly(
    estimator: SVC,
    X: Array,
    y: NDArray,
    *,
    K: Array | None = None,
    init: Array | None = None,
) -> SVC:
    """Fit a clone; a ConvergenceWarning is recorded in ``converged_``, not shown."""
    model = clone(estimator)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y, init=init, K=K)
    return model


def _finished(model: SVC) -> bool:
    """Whether a fit stopped by its own rule rather than being cut short.

    IRWLS run with Lee's rule (the mean squared change of alpha, the setting
    these criteria are studied in) reports ``converged_ = False`` with
    ``stop_reason_ = "rule"`` when the KKT residual is still above ``tol``;
    that is the rule asked for, so it counts as finished here. Only the
    iteration and time limits (``"max_iter"``, ``"max_seconds"``) do not.
    """
    reason = getattr(model, "stop_reason_", None)
    if reason is None:  # an estimator without stop reasons
        return bool(model.converged_)
    return reason in ("converged", "rule")


def _loss(estimator: SVC) -> Loss:
    return make_loss(estimator.loss, delta=estimator.delta)


def _effective_gram(model: SVC, K: Array | None) -> Array:
    """The Gram matrix of ``f = K_eff c`` (``k + 1`` for the regularized bias)."""
    if K is None:
        K = model._gram(model.X_fit_)
    return K + 1.0 if model.bias == "regularized" else K


def check_approximable(estimator: SVC) -> None:
    if estimator.loss != "modified_hinge":
        raise IncompatibleLossError(
            "the approximate leave-one-out criteria",
            f"the {estimator.loss} loss (they need Lee's modified hinge, by IRWLS)",
            ["modified_hinge"],
        )
    if estimator.bias == "unregularized":
        raise ParameterError(
            "The approximate leave-one-out criteria are derived for Lee's model "
            "without an unregularized bias; choose bias 'none' (Lee) or 'regularized'."
        )


def leverage(K: Array, w: Array, C: float) -> Array:
    """``d_i = [K (W K + I/C)^{-1} W]_ii`` (Lee 2006 eq. (11), corrected sign).

    Computed in the symmetric form: with ``s = sqrt(w)``,
    ``K (W K + I/C)^{-1} W = K S (S K S + I/C)^{-1} S``, whose diagonal equals that
    of ``P = C S K S (C S K S + I)^{-1}``, a symmetric matrix with eigenvalues in
    [0, 1); so ``0 <= d_i < 1`` and ``d_i = 0`` where ``w_i = 0``.
    """
    s = np.sqrt(np.maximum(w, 0.0))
    A = C * (s[:, None] * K * s[None, :])
    M = A.copy()
    M[np.diag_indices_from(M)] += 1.0
    factor = scipy.linalg.cho_factor(M, check_finite=False)
    # P = A M^{-1} = I - M^{-1}: the diagonal of M^{-1} needs one solve.
    inverse = scipy.linalg.cho_solve(factor, np.eye(K.shape[0]), check_finite=False)
    return np.clip(1.0 - np.diag(inverse), 0.0, 1.0 - 1e-12)


def newton_gain(K: Array, v: Array, C: float) -> Array:
    """``G_ii`` of ``G = K (V K + I/C)^{-1}`` (the ALO step; module docstring).

    ``(V K + I/C)`` is not symmetric, but ``G' = (K V + I/C)^{-1} K`` is its
    transpose; one LU solve gives every diagonal entry.
    """
    n = K.shape[0]
    A = v[None, :] * K  # K V
    A[np.diag_indices(n)] += 1.0 / C
    return np.diag(scipy.linalg.solve(A, K, check_finite=False)).copy()


#: A multiplier within this fraction of C counts as bound: IRWLS leaves a point on
#: the straight part of h_delta a hair below C (we see 1 - alpha / C ~ 1e-8 at a
#: tight stop, far more at Lee's), and on the tail ``alpha / C = 1 - 1e-6`` is
#: ``r`` within ``1e-6 delta`` of the joint, where both readings agree.
BOUND_TOL = 1e-6

#: A multiplier below this fraction of C is treated as zero: such a point (on the
#: modified hinge, a margin above about ``1 + 27 delta``) moves the fit by less
#: than round-off, far below any solver tolerance.
NEGLIGIBLE_ALPHA = 1e-12


def span_squared(K: Array, alpha: Array, C: float, delta: float) -> Array:
    """``S_i^2`` of the span rule ``y_i f^(-i)(x_i) = r_i - alpha_i S_i^2``.

    Vapnik & Chapelle (2000), Opper & Winther (2000): leave ``i`` out and hold
    every other point's state fixed. Bound SVs (``alpha = C``, the straight part
    of ``h_delta``) stay at C. A point on the exponential tail of Lee's modified
    hinge, ``alpha_j = C exp((1 - delta - r_j) / delta)``, moves along it:
    ``d r_j = -(delta / alpha_j) d alpha_j``, which adds ``delta / alpha_j`` to
    the diagonal of its row of ``K`` (for the hinge, delta -> 0, it stays on the
    margin). With ``M`` the tail points and ``A = K_MM + diag(delta / alpha_M)``,
    ``S_i^2 = 1 / (A^{-1})_ii - delta / alpha_i`` for ``i`` in M (a Schur
    complement) and ``S_i^2 = K_ii - K_iM A^{-1} K_Mi`` otherwise.

    This is the Newton step (ALO) of the module docstring with the curvature read
    from the solver's multipliers instead of the margins: IRWLS stopped by Lee's
    rule leaves the margins only within its tolerance of the delta-wide tail, and
    ``h''`` of those margins swings by orders of magnitude; the multipliers are
    what the fit actually uses. Points with ``alpha_j < NEGLIGIBLE_ALPHA C`` count as
    non-SVs (a ridge of ``delta / alpha_j`` would only lose precision), and with
    ``alpha_j > (1 - BOUND_TOL) C`` as bound.
    """
    n = K.shape[0]
    tail = (alpha > NEGLIGIBLE_ALPHA * C) & (alpha < C * (1.0 - BOUND_TOL))
    diag = np.diag(K).copy()
    if not tail.any():
        return diag
    ridge = delta / alpha[tail]
    A = K[np.ix_(tail, tail)] + np.diag(ridge)
    factor = scipy.linalg.cho_factor(A, check_finite=False)
    A_inv = scipy.linalg.cho_solve(factor, np.eye(A.shape[0]), check_finite=False)
    out = np.empty(n)
    out[tail] = 1.0 / np.diag(A_inv) - ridge
    rest = ~tail
    K_mr = K[np.ix_(tail, rest)]
    solved = scipy.linalg.cho_solve(factor, K_mr, check_finite=False)
    out[rest] = diag[rest] - np.einsum("ij,ij->j", K_mr, solved)
    return np.maximum(out, 0.0)


def _approximate_margins(
    method: str, model: SVC, K_eff: Array
) -> tuple[Array, Array | None]:
    """Leave-one-out margins ``y_i f^(-i)(x_i)`` predicted from one fit, and the
    leverage ``d`` for ``"lee"``/``"plugin"`` (None for ``"alo"``)."""
    loss = model._check_params()
    r = model.margins_
    C = float(model.C)
    if method in ("lee", "plugin"):
        w, t = irwls_weights(loss, r)
        d = leverage(K_eff, w, C)
        # yhat^(-i) = yhat_i - d_i (z_i - yhat_i) / (1 - d_i) with z_i = y_i t_i:
        # in margins, r_i - d_i rho_i / (1 - d_i) (rho_i = t_i - r_i).
        return r - d / (1.0 - d) * (t - r), d
    if method == "span":
        return r - model.alpha_ * span_squared(
            K_eff, model.alpha_, C, float(model.delta)
        ), None
    v = loss.second_derivative(r)
    g = newton_gain(K_eff, v, C)
    return r + loss.derivative(r) * g / (1.0 - v * g), None


def approximate_loo(
    estimator: SVC, X: ArrayLike, y: ArrayLike, method: str = "lee"
) -> CriterionResult:
    """Fit ``estimator`` (a clone) once and approximate leave-one-out by ``method``.

    ``method`` is ``"lee"``, ``"plugin"``, ``"alo"`` or ``"span"`` (module
    docstring). The score of ``"lee"`` is Lee's ACV value itself (the linearised
    loss); the others are the loss at their predicted leave-one-out margins.
    """
    if method not in APPROXIMATIONS:
        raise ParameterError(
            f"Unknown approximation {str(method)!r}. Choose one of: "
            f"{', '.join(APPROXIMATIONS)}."
        )
    check_approximable(estimator)
    X, y = check_data(X, y)
    start = time.perf_counter()
    model = fit_quietly(estimator, X, y)
    return approximation_from_fit(method, model, None, start)


def approximation_from_fit(
    method: str, model: SVC, K: Array | None, start: float
) -> CriterionResult:
    loss = _loss(model)
    K_eff = _effective_gram(model, K)
    margins, _ = _approximate_margins(method, model, K_eff)
    if method == "lee":
        r = model.margins_
        # eq. (11) with the guarded residual: (z_i - yhat_i) * dh/dyhat_i =
        # y_i rho_i * y_i h'(r_i) = rho_i h'(r_i), and r_i - margins_i is
        # rho_i d_i / (1 - d_i): each point adds -h'(r_i) (r_i - margins_i) >= 0.
        score = float(
            np.mean(loss.value(r)) - np.mean(loss.derivative(r) * (r - margins))
        )
    else:
        score = None
    return _scored(method, loss, margins, start, 1, _finished(model), score)


def acv_score(estimator: SVC, X: ArrayLike, y: ArrayLike, method: str = "lee") -> float:
    """The approximate leave-one-out value of ``h_delta`` (Lee 2006 eq. (11))."""
    return approximate_loo(estimator, X, y, method=method).score


def _points_that_matter(model: SVC) -> NDArray[np.intp]:
    """The points whose removal can change a convex fit: those with ``alpha > 0``.

    Leaving out a point whose multiplier is zero leaves the other points' KKT
    conditions satisfied, so the same solution is optimal without it
    (docs/corrections.md
    item 6, for the hinge; the same argument holds for every convex loss). For
    Lee's modified hinge every multiplier is positive in exact arithmetic, but
    those below ``NEGLIGIBLE_ALPHA * C`` change nothing a refit could see; on
    two circles (n = 100, Lee's grid) that is about four points in five.
    Non-convex losses (ramp) give each point a say.
    """
    if model.loss == "hinge":
        return np.asarray(model.support_)
    if model.loss not in ("squared_hinge", "modified_hinge"):
        return np.arange(model.alpha_.size)
    C = float(model.C)
    limit = NEGLIGIBLE_ALPHA * C if math.isfinite(C) else 0.0
    return np.flatnonzero(model.alpha_ > limit)


def _fast_refits(model: SVC) -> bool:
    """Whether the refits can run on the entropy dual's own state
    (:class:`svmlab.solvers.entropy_refit.Refitter`): the full fit was made
    by it."""
    return getattr(model, "solver_", None) == "entropy_dual"


def _refitter(model: SVC, estimator: SVC, K: Array) -> Refitter:
    """Leave-out refits of ``model``'s problem, warm-started from its solution,
    at the estimator's tol (redistributing left-out multipliers with the bias)."""
    return Refitter(
        _effective_gram(model, K),
        model.y_fit_,
        float(model.C),
        float(model.delta),
        float(estimator.tol),
        model.bias == "unregularized",
        model.alpha_,
        la=model.solution_.extras.get("log_alpha"),
    )


def _lee_rule(estimator: SVC) -> bool:
    """Whether ``estimator`` is IRWLS stopped by Lee's rule (the change of the
    multipliers), whose answer depends on where it starts: its refits and folds
    are not seeded from the full fit (a loose stop would carry the start into
    the held-out numbers)."""
    options = estimator.solver_options or {}
    return estimator.solver == "irwls" and options.get("stop", "change") == "change"


@dataclass(frozen=True)
class FullFit:
    """What the exact criteria start from: ``estimator``'s data (X, y) checked,
    its Gram matrix ``K``, the clock's ``start`` (the full fit's time is part of
    each criterion's) and the full fit ``model`` (None: nothing is seeded)."""

    estimator: SVC
    X: Array
    y: NDArray
    K: Array
    start: float
    model: SVC | None


def _full_fit(estimator: SVC, X: Array, y: NDArray, seeded: bool = True) -> FullFit:
    """The clock started, the Gram matrix, and the full fit when ``seeded``."""
    start = time.perf_counter()
    K = clone(estimator)._gram(X)
    model = fit_quietly(estimator, X, y, K=K) if seeded else None
    return FullFit(estimator, X, y, K, start, model)


def loo_from_fit(full: FullFit) -> CriterionResult:
    """Exact leave-one-out from the full fit ``full.model`` of (X, y) with Gram
    ``K``.

    With the entropy dual (the modified hinge's default solver) every refit
    runs on the full Gram matrix with the left-out point's multiplier fixed at
    0, warm-started from the full solution (its mass redistributed when
    ``y'a = 0`` needs it; :mod:`svmlab.solvers.entropy_refit`), to the
    estimator's tol by the modified hinge's KKT measure. Otherwise each refit
    is an :class:`SVC` fit of the other points, warm-started from the full
    solution.
    """
    model, estimator, X, y, K = full.model, full.estimator, full.X, full.y, full.K
    start = full.start
    n = X.shape[0]
    margins = model.margins_.copy()
    n_fits, converged = 1, _finished(model)
    refit = _points_that_matter(model)
    y_pm = model.y_fit_
    if _fast_refits(model):
        refitter = _refitter(model, estimator, K)
        budget = Budget()
        for i in refit:
            f_i, ok = refitter.refit(np.array([i]), budget=budget)
            margins[i] = y_pm[i] * float(f_i[0])
            converged = converged and ok
            budget.check()  # a superseded page run stops here
        n_fits += refit.size
        return _scored("loo", _loss(model), margins, start, n_fits, converged)
    keep = np.ones(n, dtype=bool)
    for i in refit:
        keep[i] = False
        sub = fit_quietly(
            estimator,
            X[keep],
            y[keep],
            K=K[np.ix_(keep, keep)],
            init=model.alpha_[keep],
        )
        keep[i] = True
        f_i = float(sub.decision_function(X[i : i + 1])[0])
        margins[i] = y_pm[i] * f_i
        n_fits += 1
        converged = converged and _finished(sub)
    return _scored("loo", _loss(model), margins, start, n_fits, converged)


def loo_cv_score(estimator: SVC, X: ArrayLike, y: ArrayLike) -> CriterionResult:
    """Exact leave-one-out (Lee 2006 eq. (10) with the estimator's loss).

    Each refit is warm-started from the full solution and reuses the full Gram
    matrix without row and column i. Only points with a multiplier above
    ``NEGLIGIBLE_ALPHA * C`` are refitted for the convex losses (the others leave
    the solution as it is; :func:`_points_that_matter`).
    """
    X, y = check_data(X, y)
    return loo_from_fit(_full_fit(estimator, X, y))


def _check_splits(y: NDArray, n_splits: int) -> None:
    whole = isinstance(n_splits, int | np.integer) and not isinstance(n_splits, bool)
    if not (whole and n_splits >= 2):
        raise ParameterError(
            "n_splits (the number of folds) must be a whole number of at least 2; "
            f"got {plain_value(n_splits)}."
        )
    counts = np.unique(y, return_counts=True)[1]
    if not n_splits <= counts.min():
        raise DataError(
            f"{n_splits}-fold cross-validation needs at least {n_splits} points of "
            f"each class; the smaller class has {counts.min()}."
        )


def kfold_cv_score(
    estimator: SVC,
    X: ArrayLike,
    y: ArrayLike,
    n_splits: int = 5,
    random_state: int = 0,
) -> CriterionResult:
    """Stratified k-fold cross-validation: held-out margins of every fold.

    The folds are seeded from a full fit (:func:`kfold_from_fit`), except for
    IRWLS stopped by Lee's rule, whose folds are fitted from scratch (its loose
    stop would carry the start into the held-out margins).
    """
    X, y = check_data(X, y)
    _check_splits(y, n_splits)
    full = _full_fit(estimator, X, y, seeded=not _lee_rule(estimator))
    return kfold_from_fit(full, n_splits, random_state)


def kfold_from_fit(
    full: FullFit, n_splits: int = 5, random_state: int = 0
) -> CriterionResult:
    """Stratified k-fold cross-validation with every fold seeded from the full
    fit ``full.model`` (DeCoste & Wagstaff 2000): the fold's training points
    start at their full-solution multipliers (on the entropy dual: the full
    state with the fold left out, :mod:`svmlab.solvers.entropy_refit`;
    otherwise ``init`` of an :class:`SVC` fit), and every fold is solved to the
    estimator's tol, so the answer is a cold fold's to that tol. IRWLS stopped
    by Lee's rule, or a ``full`` without a model, gets cold folds
    (:func:`kfold_cv_score`)."""
    model, estimator, X, y, K = full.model, full.estimator, full.X, full.y, full.K
    _check_splits(y, n_splits)
    if _lee_rule(estimator):
        model = None
    margins = np.empty(X.shape[0])
    converged = True if model is None else _finished(model)
    n_fits = 0 if model is None else 1
    splits = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=random_state)
    loss = _loss(estimator)
    refitter = None
    if model is not None and _fast_refits(model):
        refitter = _refitter(model, estimator, K)
    for train, test in splits.split(X, y):
        if refitter is not None:
            f, ok = refitter.refit(test.astype(np.int64))
            margins[test] = model.y_fit_[test] * f
        else:
            init = None if model is None else model.alpha_[train]
            fold = fit_quietly(
                estimator, X[train], y[train], K=K[np.ix_(train, train)], init=init
            )
            y_pm = np.where(y[test] == fold.classes_[1], 1.0, -1.0)
            margins[test] = y_pm * fold.decision_function(X[test])
            ok = _finished(fold)
        converged = converged and ok
        n_fits += 1
    return _scored("kfold", loss, margins, full.start, n_fits, converged)


def evaluate(
    criterion: str, estimator: SVC, X: ArrayLike, y: ArrayLike
) -> CriterionResult:
    """Dispatch on :data:`CRITERIA`."""
    if criterion not in CRITERIA:
        raise ParameterError(
            f"Unknown criterion {str(criterion)!r}. Choose one of: "
            f"{', '.join(CRITERIA)}."
        )
    if criterion == "loo":
        return loo_cv_score(estimator, X, y)
    if criterion == "kfold":
        return kfold_cv_score(estimator, X, y)
    return approximate_loo(estimator, X, y, method=criterion)
