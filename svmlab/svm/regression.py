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
from typing import Any

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
from svmlab.svm.kernel_machine import KernelMachine, MachineInput
from svmlab.svm.parameters import parameters

__all__ = [
    "REGRESSION_LOSSES",
    "SVR",
    "TUBE_STATES",
    "EpsilonSVR",
    "NuSVR",
    "tube_states",
]


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
    """One plain sentence for targets an SVR cannot learn from. (Targets that
    all agree are fine: the fit is that constant, as scikit-learn's.)"""
    if y.shape[0] < 2:
        raise DataError(
            "An SVR needs at least 2 points to fit a function; got "
            f"{counted(y.shape[0], 'sample')}."
        )


class _SVR(RegressorMixin, KernelMachine):
    """The fitted state both regressors share."""

    def _fit_solution(
        self, X: Any, y: Array, solution: FamilySolution, start, data: MachineInput
    ):
        self._store(X, solution, start, data)
        coef = data.full(solution.coef)
        self.alpha_ = coef
        f = self._raw_decision(X)
        self.residuals_ = y - f
        a = np.abs(coef)
        upper = np.abs(data.full(solution.upper[: solution.coef.shape[0]]))
        squared = getattr(self, "loss", "epsilon_insensitive") != "epsilon_insensitive"
        state = np.where(a > 0.0, 1, 0).astype(np.int8)
        if squared:
            state[a > 0.0] = 2  # no bound: every SV is outside the tube
        else:
            state[(a > 0.0) & (a >= upper)] = 2
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
    support_, support_vectors_, n_support_ : ndarray
        Indices and points with ``α_i != α*_i`` (CSR for sparse X; none for a
        precomputed or callable kernel), and their number (shape (1,)).
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
    coef_ : ndarray (1, d)
        The primal weights, for ``kernel="linear"`` only (read-only).
    n_iter_, converged_, stop_reason_, kkt_violation_, objective_, fit_time_,
    solution_, fit_status_
        The solver's report (:class:`svmlab.solvers.family.FamilySolution`;
        ``fit_status_`` 0 when it converged, 1 when not, LIBSVM's).
    kernel_spec_, shape_fit_
        The kernel as computed (:class:`svmlab.svm.kernel_spec.KernelSpec`)
        and the training X's shape.
"""

_COMMON_PARAMETERS = """
    kernel, sigma, gamma, degree, coef0, scale
        As :class:`svmlab.SVC`: svmlab's ``"gaussian"`` ``exp(-||x - z||^2 / 2
        sigma^2)`` (scikit-learn's gamma is ``1 / (2 sigma^2)``),
        ``"polynomial"`` ``(x'z + coef0)^degree``, ``"linear"``, ``"sigmoid"``
        ``tanh(scale x'z + coef0)``, or scikit-learn's ``"rbf"``, ``"poly"``,
        ``"sigmoid"`` with gamma, ``"precomputed"`` or a callable.
    tol, max_iter, shrinking, cache_mb, cache_precision, max_seconds
        As :class:`svmlab.NuSVC`.
"""

# ε-SVR's own two, shared by SVR (scikit-learn's name for the same machine).
_EPSILON_PARAMETERS = """    epsilon
        Half-width of the tube, >= 0: residuals smaller than it cost nothing.
    loss
        ``"epsilon_insensitive"`` or ``"squared_epsilon_insensitive"``.
"""


@parameters
class EpsilonSVR(_SVR):
    __doc__ = (
        """ε-support vector regression (LIBSVM's ``-s 3``).

    Parameters
    ----------
    C
        Cost of the loss, > 0 (``math.inf``: the hard tube, for the
        ε-insensitive loss; with a linear kernel and more points than features
        it may not exist, and the solver then stops at max_iter).
"""
        + _EPSILON_PARAMETERS
        + _COMMON_PARAMETERS
        + _SVR_ATTRIBUTES
    )

    C: float = 1.0
    epsilon: float = 0.1
    loss: str = "epsilon_insensitive"

    def fit(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> EpsilonSVR:
        """Fit on X (n, d), dense or sparse, and real targets y (n,);
        ``sample_weight`` multiplies each point's C."""
        start = time.perf_counter()
        C = self.C
        if not (is_number(C) and C > 0):
            raise ParameterError(f"C must be a positive number; got {plain_value(C)}.")
        C = float(C)
        if math.isinf(C) and self.loss != "epsilon_insensitive":
            raise ParameterError(
                "C = inf (the hard tube) is only defined for the ε-insensitive loss."
            )
        eps = self.epsilon
        if not (is_number(eps) and math.isfinite(eps) and eps >= 0):
            raise ParameterError(
                "epsilon must be a number >= 0 (the half-width of the tube in "
                f"which residuals cost nothing); got {plain_value(eps)}."
            )
        if not isinstance(self.loss, str) or self.loss not in REGRESSION_LOSSES:
            raise UnknownNameError("regression loss", self.loss, REGRESSION_LOSSES)
        options = self._check_common()
        X, y, data = self._input(X, y, sample_weight, y_numeric=True)
        y = np.asarray(y, dtype=np.float64)
        _check_targets(y)
        squared = self.loss == "squared_epsilon_insensitive"
        if squared and self.kernel_spec_.kernel not in PSD_KERNELS:
            check_bounded_dual(
                data.K if data.K is not None else data.kernel.full(),
                C,
                loss="squared ε-insensitive loss",
                boxed="ε-insensitive loss",
                weights=data.weights,
            )
        t = y if data.rows is None else y[data.rows]
        solution = solve_epsilon_svr(
            t,
            C,
            float(eps),
            data.solver_kernel(),
            squared=squared,
            weights=data.weights,
            **options,
        )
        self._fit_solution(X, y, solution, start, data)
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

    def fit(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> NuSVR:
        """Fit on X (n, d), dense or sparse, and real targets y (n,);
        ``sample_weight`` multiplies each point's C."""
        start = time.perf_counter()
        nu = check_nu(self.nu)
        C = check_positive("C", self.C)
        options = self._check_common()
        X, y, data = self._input(X, y, sample_weight, y_numeric=True)
        y = np.asarray(y, dtype=np.float64)
        _check_targets(y)
        t = y if data.rows is None else y[data.rows]
        solution = solve_nu_svr(
            t, C, nu, data.solver_kernel(), weights=data.weights, **options
        )
        self.epsilon_ = -float(solution.r)
        self._fit_solution(X, y, solution, start, data)
        return self


@parameters
class SVR(EpsilonSVR):
    __doc__ = (
        """ε-support vector regression under scikit-learn's name: the same
    machine as :class:`EpsilonSVR` (LIBSVM's ``-s 3``), so that code written for
    ``sklearn.svm.SVR`` runs unchanged.

    Parameters
    ----------
    C
        Cost of the loss, > 0 (``math.inf``: the hard tube).
"""
        + _EPSILON_PARAMETERS
        + _COMMON_PARAMETERS
        + _SVR_ATTRIBUTES
    )
