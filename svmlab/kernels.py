"""Kernels: pure functions that return Gram matrices, and the Gaussian conventions.

The engine uses one Gaussian convention, Sugiyama's (ch. 27.4)::

    k(x, z) = exp(-||x - z||^2 / (2 sigma^2))

and converts at the edges: scikit-learn writes ``exp(-gamma ||x - z||^2)``, so
``gamma = 1 / (2 sigma^2)``; Lee (2006) writes ``exp(-||x - z||^2 / sigma_L^2)``, so
Lee's ``sigma_L^2 = 2 sigma^2`` (MATH.md, "Kernels and their parameterizations").
Solvers consume ``K``, never ``X`` (STYLE rule 5), so they never know which kernel
made it.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numba import njit
from numpy.typing import NDArray
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

from svmlab.errors import ParameterError, UnknownNameError

__all__ = [
    "DIRECT_MAX_DIM",
    "KERNELS",
    "TITLES",
    "gamma_from_sigma",
    "gaussian",
    "gram",
    "lee_sigma2_from_sigma",
    "linear",
    "polynomial",
    "sigma_from_gamma",
    "sigma_from_lee_sigma2",
]

Array = NDArray[np.float64]


def gamma_from_sigma(sigma: float) -> float:
    """scikit-learn's ``gamma`` for svmlab's sigma: ``gamma = 1 / (2 sigma^2)``."""
    return 1.0 / (2.0 * sigma * sigma)


def sigma_from_gamma(gamma: float) -> float:
    """svmlab's sigma for scikit-learn's ``gamma``: ``sigma = sqrt(1 / (2 gamma))``."""
    return math.sqrt(1.0 / (2.0 * gamma))


def lee_sigma2_from_sigma(sigma: float) -> float:
    """Lee (2006) section 4 kernel width: ``exp(-d^2 / sigma_L^2)``, so
    ``sigma_L^2 = 2 sigma^2``."""
    return 2.0 * sigma * sigma


def sigma_from_lee_sigma2(sigma2: float) -> float:
    """svmlab's sigma for Lee's ``sigma_L^2``: ``sigma = sqrt(sigma_L^2 / 2)``.

    Lee's chosen (C, sigma_L^2) = (500, 0.7) is sigma = 0.5916.
    """
    return math.sqrt(sigma2 / 2.0)


def linear(X: Array, Z: Array) -> Array:
    """Linear kernel ``k(x, z) = x'z`` (Sugiyama eq. 27.1 model), shape (n_X, n_Z)."""
    return linear_kernel(X, Z)


def polynomial(X: Array, Z: Array, *, degree: int = 3, coef0: float = 1.0) -> Array:
    """Polynomial kernel ``k(x, z) = (x'z + a)^p`` (Sugiyama ch. 27.4).

    Equals scikit-learn's ``poly`` with ``gamma = 1, coef0 = a, degree = p``.
    """
    return polynomial_kernel(X, Z, degree=degree, gamma=1.0, coef0=coef0)


#: Largest dimension for which :func:`gaussian` uses the direct compiled loop;
#: above it, scikit-learn's BLAS-based ``rbf_kernel`` is faster.
DIRECT_MAX_DIM = 16


@njit(cache=True)
def _neg_scaled_sqdist(X, Z, gamma, same):  # pragma: no cover - compiled
    """``-gamma ||X[i] - Z[j]||^2`` summed coordinate by coordinate.

    Summing the squared differences directly (rather than ``|x|^2 + |z|^2 - 2x'z``)
    has no cancellation, so the result is never positive and is exactly 0 on the
    diagonal when ``same`` (X is Z); the symmetric half is copied, not recomputed.
    """
    n, m, d = X.shape[0], Z.shape[0], X.shape[1]
    D = np.empty((n, m))
    for i in range(n):
        start = i if same else 0
        for j in range(start, m):
            s = 0.0
            for k in range(d):
                t = X[i, k] - Z[j, k]
                s += t * t
            D[i, j] = -gamma * s
        if same:
            D[i, i] = 0.0
            for j in range(i):
                D[i, j] = D[j, i]
    return D


def gaussian(X: Array, Z: Array, *, sigma: float = 1.0) -> Array:
    """Gaussian kernel ``k(x, z) = exp(-||x - z||^2 / (2 sigma^2))`` (Sugiyama 27.4).

    For ``d <= DIRECT_MAX_DIM`` a compiled loop sums the squared differences
    directly (no cancellation; exactly symmetric with diagonal 1 when ``Z`` is
    ``X``); otherwise scikit-learn's ``rbf_kernel`` does the work (it clips the
    tiny negative squared distances that cancellation produces).
    """
    gamma = gamma_from_sigma(sigma)
    same = Z is X
    X = np.asarray(X, dtype=np.float64)
    Z = X if same else np.asarray(Z, dtype=np.float64)
    if (
        X.ndim != 2
        or Z.ndim != 2
        or X.shape[1] != Z.shape[1]
        or X.shape[1] > DIRECT_MAX_DIM
    ):
        return rbf_kernel(X, Z, gamma=gamma)
    D = _neg_scaled_sqdist(
        np.ascontiguousarray(X), np.ascontiguousarray(Z), gamma, same
    )
    return np.exp(D, out=D)


KERNELS: dict[str, Callable[..., Array]] = {
    "gaussian": gaussian,
    "polynomial": polynomial,
    "linear": linear,
}

TITLES: dict[str, str] = {
    "gaussian": "Gaussian  exp(-‖x − z‖² / 2σ²)",
    "polynomial": "Polynomial  (x'z + a)^p",
    "linear": "Linear  x'z",
}


def check_kernel_params(
    kernel: str, *, sigma: float = 1.0, degree: int = 3, coef0: float = 1.0
) -> None:
    """Raise a plain-sentence error for an unknown kernel or a bad parameter."""
    if kernel not in KERNELS:
        raise UnknownNameError("kernel", kernel, KERNELS)
    if kernel == "gaussian" and not (np.isfinite(sigma) and sigma > 0):
        raise ParameterError(f"sigma must be a positive number; got {sigma!r}.")
    if kernel == "polynomial":
        if int(degree) != degree or degree < 1:
            raise ParameterError(
                f"degree must be a whole number of at least 1; got {degree!r}."
            )
        if not np.isfinite(coef0) or coef0 < 0:
            raise ParameterError(
                f"coef0 (the a in (x'z + a)^p) must be a number >= 0; got {coef0!r}."
            )


def gram(
    X: Array,
    Z: Array | None = None,
    *,
    kernel: str = "gaussian",
    sigma: float = 1.0,
    degree: int = 3,
    coef0: float = 1.0,
) -> Array:
    """The Gram matrix ``K[i, j] = k(X[i], Z[j])``, shape (n_X, n_Z).

    Parameters
    ----------
    X, Z
        Points, shapes (n_X, d) and (n_Z, d); ``Z = X`` when omitted.
    kernel
        A key of :data:`KERNELS`.
    sigma
        Gaussian width (Sugiyama's h).
    degree, coef0
        Polynomial degree p and offset a.
    """
    check_kernel_params(kernel, sigma=sigma, degree=degree, coef0=coef0)
    Z = X if Z is None else Z
    if kernel == "gaussian":
        return gaussian(X, Z, sigma=sigma)
    if kernel == "polynomial":
        return polynomial(X, Z, degree=int(degree), coef0=coef0)
    return linear(X, Z)
