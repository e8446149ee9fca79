"""Support vector regression: ε-SVR and ν-SVR, LIBSVM's ``-s 3`` and ``-s 4``.

**ε-SVR** (Vapnik 1995; Smola & Schölkopf 2004) fits ``f(x) = sum_i
(α_i - α*_i) k(x_i, x) + b`` with the ε-insensitive loss ``max(0, |t - f(x)|
- ε)``: residuals inside the tube ``|t - f| < ε`` cost nothing and their points
are not support vectors, points on the tube's edge have ``0 < |α - α*| < C``,
points outside it ``|α - α*| = C``. The dual has 2n variables, ``(α, α*)``,
solved as one box QP by LIBSVM's solver
(:func:`svmlab.solvers.family.solve_epsilon_svr`).

**ν-SVR** (Schölkopf, Smola, Williamson & Bartlett 2000) replaces ε by
ν in (0, 1] and finds the tube's width: ν bounds the fraction of points
outside the tube from above and the fraction of support vectors from below;
``epsilon_`` is the width found (LIBSVM's ``-r``,
:func:`svmlab.solvers.family.solve_nu_svr`).

The **squared ε-insensitive loss** ``(C/2) max(0, |t - f| - ε)^2``
(``loss="squared_epsilon_insensitive"``) has the same dual with ``1/C`` on its
diagonal and no upper bound: every point outside the tube is a support vector
with ``|α - α*| = C (|t - f| - ε)``.
"""

from __future__ import annotations

import math
import time

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import RegressorMixin

from svmlab.array_types import Array
from svmlab.errors import (
    DataError,
    ParameterError,
    UnknownNameError,
    counted,
    plain_value,
)
from svmlab.kernels import PSD_KERNELS
from svmlab.kernels.psd import check_bounded_dual
from svmlab.parameter_checks import check_nu, check_positive, is_number
from svmlab.solvers.family import FamilySolution, solve_epsilon_svr, solve_nu_svr
from svmlab.svm.kernel_machine import KernelMachine
from svmlab.svm.parameters import parameters
from svmlab.svm.validation import validate

__all__ = ["REGRESSION_LOSSES", "TUBE_STATES", "EpsilonSVR", "NuSVR", "tube_states"]


#: loss name -> description (the UI lists these).
REGRESSION_LOSSES: dict[str, str] = {
    "epsilon_insensitive": "ε-insensitive  max(0, |t − f| − ε)",
    "squared_epsilon_insensitive": "squared ε-insensitive  max(0, |t − f| − ε)²/2",
}

#: Codes of ``sv_state_`` and :func:`tube_states`.
TUBE_STATES: dict[int, str] = {
    0: "inside the tube",
    1: "on its edge",
    2: "outside",
}


def tube_states(residuals: ArrayLike, epsilon: float, *, atol: float) -> NDArray:
    """Where each residual ``t - f(x)`` lies: 0 inside the tube (``|r| < ε``),
    1 on its edge (``| |r| - ε | <= atol``), 2 outside (``|r| > ε``).

    The KKT conditions make this the multipliers' state (``sv_state_``): 0 for
    ``α = α* = 0``, 1 for ``0 < |α - α*| < C``, 2 for ``|α - α*| = C``, up to
    the solver's tolerance ``atol`` on the edge.
    """
    r = np.abs(np.asarray(residuals, dtype=np.float64))
    out = np.full(r.shape, 1, dtype=np.int8)
    out[r < epsilon - atol] = 0
    out[r > epsilon + atol] = 2
    return out


def _check_targets(y: Array) -> None:
    """One plain sentence for targets an SVR cannot learn from."""
    if y.shape[0] < 2:
        raise DataError(
            "An SVR needs at least 2 points to fit a function; got "
            f"{counted(y.shape[0], 'sample')}."
        )
    if np.all(y == y[0]):
        raise DataError(
            f"Every target equals {float(y[0]):g}: there is nothing to regress "
            "(the answer would be that constant). Use targets that vary."
        )


class _SVR(RegressorMixin, KernelMachine):
    """The fitted state both regressors share."""

    def _fit_solution(self, X: Array, y: Array, solution: FamilySolution, start):
        self._store(X, solution, start)
        self.alpha_ = solution.coef
        f = self._raw_decision(X)
        self.residuals_ = y - f
        C = float(self.C)
        a = np.abs(solution.coef)
        squared = getattr(self, "loss", "epsilon_insensitive") != "epsilon_insensitive"
        state = np.where(a > 0.0, 1, 0).astype(np.int8)
        if squared:
            state[a > 0.0] = 2  # no bound: every SV is outside the tube
        else:
            state[a >= C] = 2
        self.sv_state_ = state
        n = y.shape[0]
        self.outside_fraction_ = int(np.sum(state == 2)) / n
        self.support_fraction_ = self.support_.size / n

    def predict(self, X: ArrayLike) -> Array:
        """``f(x) = sum_i (α_i - α*_i) k(x_i, x) + b``, shape (n,)."""
        return self._raw_decision(X)


_SVR_ATTRIBUTES = """
    Attributes
    ----------
    support_, support_vectors_ : ndarray
        Indices and points with ``α_i != α*_i``.
    dual_coef_ : ndarray (1, n_SV)
        ``α_i - α*_i`` of the support vectors (scikit-learn's).
    alpha_ : ndarray (n,)
        ``α_i - α*_i`` of every training point.
    intercept_ : ndarray (1,)
        b (LIBSVM's ``-rho``).
    sv_state_ : ndarray of int (n,)
        0 inside the tube, 1 on its edge (``0 < |α - α*| < C``), 2 outside
        (``|α - α*| = C``; with the squared loss every SV): :data:`TUBE_STATES`.
    residuals_ : ndarray (n,)
        ``t_i - f(x_i)``.
    outside_fraction_, support_fraction_ : float
        The fraction of training points outside the tube (state 2) and of
        support vectors.
    n_iter_, converged_, stop_reason_, kkt_violation_, objective_, fit_time_,
    solution_
        The solver's report (:class:`svmlab.solvers.family.FamilySolution`).
"""

_COMMON_PARAMETERS = """
    kernel, sigma, degree, coef0, scale
        As :class:`svmlab.SVC`: ``"gaussian"`` ``exp(-||x - z||^2 / 2 sigma^2)``
        (scikit-learn's gamma is ``1 / (2 sigma^2)``), ``"polynomial"``
        ``(x'z + coef0)^degree``, ``"linear"``, ``"sigmoid"``
        ``tanh(scale x'z + coef0)``.
    tol, max_iter, shrinking, cache_mb, cache_precision, max_seconds
        As :class:`svmlab.NuSVC`.
"""


@parameters
class EpsilonSVR(_SVR):
    __doc__ = (
        """ε-support vector regression (LIBSVM's ``-s 3``).

    Parameters
    ----------
    C
        Cost of the loss, > 0.
    epsilon
        Half-width of the tube, >= 0: residuals smaller than it cost nothing.
    loss
        ``"epsilon_insensitive"`` or ``"squared_epsilon_insensitive"``.
"""
        + _COMMON_PARAMETERS
        + _SVR_ATTRIBUTES
    )

    C: float = 1.0
    epsilon: float = 0.1
    loss: str = "epsilon_insensitive"

    def fit(self, X: ArrayLike, y: ArrayLike) -> EpsilonSVR:
        """Fit on X (n, d) and real targets y (n,)."""
        start = time.perf_counter()
        C = check_positive("C", self.C)
        eps = self.epsilon
        if not (is_number(eps) and math.isfinite(eps) and eps >= 0):
            raise ParameterError(
                "epsilon must be a number >= 0 (the half-width of the tube in "
                f"which residuals cost nothing); got {plain_value(eps)}."
            )
        if not isinstance(self.loss, str) or self.loss not in REGRESSION_LOSSES:
            raise UnknownNameError("regression loss", self.loss, REGRESSION_LOSSES)
        options = self._check_common()
        X, y = validate(self, X, y, y_numeric=True)
        _check_targets(y)
        squared = self.loss == "squared_epsilon_insensitive"
        rows = self._rows(X)
        if squared and self.kernel not in PSD_KERNELS:
            check_bounded_dual(
                rows.full(),
                C,
                loss="squared ε-insensitive loss",
                boxed="ε-insensitive loss",
            )
        solution = solve_epsilon_svr(
            y, C, float(eps), kernel=rows, squared=squared, **options
        )
        self._fit_solution(X, y, solution, start)
        return self


@parameters
class NuSVR(_SVR):
    __doc__ = (
        """ν-support vector regression (LIBSVM's ``-s 4``): ν finds ε.

    Parameters
    ----------
    nu
        In (0, 1]: an upper bound on the fraction of points outside the tube
        and a lower bound on the fraction of support vectors.
    C
        Cost of the loss, > 0.
"""
        + _COMMON_PARAMETERS
        + _SVR_ATTRIBUTES
        + """    epsilon_ : float
        The tube's half-width that ν found (LIBSVM's ``-r``).
"""
    )

    nu: float = 0.5
    C: float = 1.0

    def fit(self, X: ArrayLike, y: ArrayLike) -> NuSVR:
        """Fit on X (n, d) and real targets y (n,)."""
        start = time.perf_counter()
        nu = check_nu(self.nu)
        C = check_positive("C", self.C)
        options = self._check_common()
        X, y = validate(self, X, y, y_numeric=True)
        _check_targets(y)
        solution = solve_nu_svr(y, C, nu, kernel=self._rows(X), **options)
        self.epsilon_ = -float(solution.r)
        self._fit_solution(X, y, solution, start)
        return self
