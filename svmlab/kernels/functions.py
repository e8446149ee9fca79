"""Kernels: pure functions that return Gram matrices, and the Gaussian conventions.

The engine uses one Gaussian convention, Sugiyama's (ch. 27.4)::

    k(x, z) = exp(-||x - z||^2 / (2 sigma^2))

and converts at the edges: scikit-learn writes ``exp(-gamma ||x - z||^2)``, so
``gamma = 1 / (2 sigma^2)``; Lee (2006) writes ``exp(-||x - z||^2 / sigma_L^2)``, so
Lee's ``sigma_L^2 = 2 sigma^2`` (docs/corrections.md, "Kernels and their
parameterizations").
Solvers consume ``K``, never ``X`` (STYLE rule 5), so they never know which kernel
made it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit
from sklearn.metrics.pairwise import euclidean_distances

from svmlab.array_types import Array
from svmlab.compiled.arguments import read_only
from svmlab.errors import DataError, ParameterError, UnknownNameError, plain_value
from svmlab.parameter_checks import is_number

__all__ = [
    "DIRECT_MAX_DIM",
    "KERNELS",
    "KERNEL_PARAMETERS",
    "KERNEL_USES",
    "PSD_KERNELS",
    "TITLES",
    "check_kernel_params",
    "gamma_from_sigma",
    "gaussian",
    "gram",
    "kernel_settings",
    "lee_sigma2_from_sigma",
    "linear",
    "polynomial",
    "sigma_from_gamma",
    "sigma_from_lee_sigma2",
    "sigmoid",
]


#: The largest float64, about 1.8e308.
FLOAT_MAX = float(np.finfo(np.float64).max)
#: The smallest sigma whose gamma = 1 / (2 sigma^2) is a float (about 5.3e-155).
SIGMA_MIN_FOR_GAMMA = math.sqrt(0.5 / FLOAT_MAX)


def gamma_from_sigma(sigma: float) -> float:
    """scikit-learn's ``gamma`` for svmlab's sigma: ``gamma = 1 / (2 sigma^2)``.

    Computed as ``(0.5 / sigma) / sigma`` so that ``sigma^2`` never underflows to
    0 (``sigma = 1e-200`` used to divide by zero). A sigma below about 5.3e-155
    has no float gamma (it would exceed 1.8e308): a :class:`ParameterError` says
    so. A huge sigma gives a gamma that underflows towards 0, which is right to
    rounding (the kernel is 1 everywhere).
    """
    _check_sigma(sigma)
    gamma = 0.5 / float(sigma) / float(sigma)
    if not math.isfinite(gamma):
        raise ParameterError(
            f"sigma = {plain_value(sigma)} is too small to write as scikit-learn's "
            "gamma = 1/(2σ²), which would exceed the largest float (about "
            f"1.8e308); use a sigma of at least {SIGMA_MIN_FOR_GAMMA:.2g}."
        )
    return gamma


def sigma_from_gamma(gamma: float) -> float:
    """svmlab's sigma for scikit-learn's ``gamma``: ``sigma = sqrt(1 / (2 gamma))``.

    Computed as ``sqrt(0.5) / sqrt(gamma)`` (no overflow of ``1 / gamma``).
    """
    if not (is_number(gamma) and math.isfinite(gamma) and gamma > 0):
        raise ParameterError(
            f"gamma must be a positive finite number; got {plain_value(gamma)} "
            "(gamma = 0 would be an infinitely wide kernel)."
        )
    return math.sqrt(0.5) / math.sqrt(float(gamma))


def lee_sigma2_from_sigma(sigma: float) -> float:
    """Lee (2006) section 4 kernel width: ``exp(-d^2 / sigma_L^2)``, so
    ``sigma_L^2 = 2 sigma^2``."""
    return 2.0 * sigma * sigma


def sigma_from_lee_sigma2(sigma2: float) -> float:
    """svmlab's sigma for Lee's ``sigma_L^2``: ``sigma = sqrt(sigma_L^2 / 2)``.

    Lee's chosen (C, sigma_L^2) = (500, 0.7) is sigma = 0.5916.
    """
    return math.sqrt(sigma2 / 2.0)


def _inner(X: Array, Z: Array) -> Array:
    """``X Z'``, or a DataError if the features are too large for floating point."""
    with np.errstate(over="ignore", invalid="ignore"):
        G = X @ Z.T
    if not np.all(np.isfinite(G)):
        raise DataError(
            "The features are too large: the inner products x'z overflow the "
            "largest float (about 1.8e308). Scale the data first (for example "
            "to mean 0 and variance 1)."
        )
    return G


def linear(X: Array, Z: Array) -> Array:
    """Linear kernel ``k(x, z) = x'z`` (Sugiyama eq. 27.1 model), shape (n_X, n_Z)."""
    return _inner(np.asarray(X, dtype=np.float64), np.asarray(Z, dtype=np.float64))


def polynomial(X: Array, Z: Array, *, degree: int = 3, coef0: float = 1.0) -> Array:
    """Polynomial kernel ``k(x, z) = (x'z + a)^p`` (Sugiyama ch. 27.4).

    Equals scikit-learn's ``poly`` with ``gamma = 1, coef0 = a, degree = p``.
    Where a value exceeds the largest float the kernel cannot be finite: a
    :class:`ParameterError` names the degree and the largest degree that works
    for these points, ``floor(log(1.8e308) / log(max |x'z + a|))``.
    """
    X = np.asarray(X, dtype=np.float64)
    Z = np.asarray(Z, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        base = _inner(X, Z) + coef0
    if not np.all(np.isfinite(base)):
        raise ParameterError(
            f"coef0 = {plain_value(coef0)} is too large: x'z + coef0 overflows "
            "the largest float (about 1.8e308). Use a coef0 of ordinary size "
            "(such as 0 or 1)."
        )
    with np.errstate(over="ignore", under="ignore"):
        K = base ** int(degree)
    if not np.all(np.isfinite(K)):
        top = float(np.abs(base).max())
        works = int(math.log(FLOAT_MAX) / math.log(top))
        raise ParameterError(
            f"degree = {int(degree)} is too large for these points: (x'z + "
            f"{plain_value(coef0)})^{int(degree)} exceeds the largest float "
            f"(about 1.8e308) because |x'z + coef0| reaches {top:.3g}. A degree "
            f"up to {works} works here, or scale the data."
        )
    return K


#: Largest dimension for which :func:`gaussian` uses the direct compiled loop;
#: above it, BLAS distances are faster (and used where their rounding is harmless).
DIRECT_MAX_DIM = 16
#: The largest polynomial degree accepted before looking at the data: beyond it
#: (x'z + a)^p is 0, 1 or overflows for any data, so it teaches nothing.
MAX_DEGREE = 1000


@njit(cache=True, nogil=True)
def _neg_half_scaled_sqdist(X, Z, sigma, same):  # pragma: no cover - compiled
    """``-0.5 sum_k ((X[i, k] - Z[j, k]) / sigma)^2`` coordinate by coordinate.

    Each difference is divided by sigma *before* squaring: ``1 / (2 sigma^2)``
    overflows for sigma below about 5e-155 (then ``0 * inf`` is NaN on the
    diagonal), while a scaled difference is 0, finite, or +-inf, whose square
    sends the kernel to exactly 0 -- the right limit. Summing the squared
    differences directly (rather than ``|x|^2 + |z|^2 - 2x'z``) has no
    cancellation, so the result is never positive and is exactly 0 on the
    diagonal when ``same`` (X is Z); the symmetric half is copied.
    """
    n, m, d = X.shape[0], Z.shape[0], X.shape[1]
    inv = 1.0 / sigma
    # A subnormal sigma has no finite reciprocal (and 0 * inf is NaN): divide.
    use_inv = np.isfinite(inv)
    D = np.empty((n, m))
    for i in range(n):
        start = i if same else 0
        for j in range(start, m):
            s = 0.0
            for k in range(d):
                t = X[i, k] - Z[j, k]
                t = t * inv if use_inv else t / sigma
                s += t * t
            D[i, j] = -0.5 * s
        if same:
            D[i, i] = 0.0
            for j in range(i):
                D[i, j] = D[j, i]
    return D


def _gaussian_blas(X: Array, Z: Array, sigma: float, same: bool) -> Array | None:
    """The Gaussian kernel from BLAS distances, or None where they are unsafe.

    ``||x - z||^2 = |x|^2 + |z|^2 - 2x'z`` has a rounding error of about
    ``eps d c^2`` (c the largest |coordinate|), which the kernel multiplies by
    ``1 / (2 sigma^2)``: with a small sigma that error is no longer small, and
    the exact loop is used instead. The points are scaled by a power of two
    near c first (exact), so their squares cannot overflow.
    """
    c = float(max(np.abs(X).max(initial=0.0), np.abs(Z).max(initial=0.0)))
    if c == 0.0:
        return np.ones((X.shape[0], Z.shape[0]))
    c = math.ldexp(1.0, math.frexp(c)[1] - 1)  # power of two in (c/2, c]: exact
    ratio = c / sigma
    if not ratio * ratio * X.shape[1] * np.finfo(np.float64).eps <= 1e-9:
        return None
    Xs = X / c
    Zs = Xs if same else Z / c
    D = euclidean_distances(Xs, Zs, squared=True)
    D *= -0.5 * ratio * ratio
    return np.exp(D, out=D)


def gaussian(X: Array, Z: Array, *, sigma: float = 1.0) -> Array:
    """Gaussian kernel ``k(x, z) = exp(-||x - z||^2 / (2 sigma^2))`` (Sugiyama 27.4).

    Computed as ``exp(-0.5 ||(x - z) / sigma||^2)``, which stays finite and right
    for every positive float sigma (1e-300 gives the identity for distinct
    points, 1e300 all ones). For ``d <= DIRECT_MAX_DIM`` a compiled loop sums the
    scaled squared differences directly (no cancellation; exactly symmetric
    with diagonal 1 when ``Z`` is ``X``); above it BLAS distances do the work
    where their rounding is harmless (see :func:`_gaussian_blas`).
    """
    same = Z is X
    X = np.asarray(X, dtype=np.float64)
    Z = X if same else np.asarray(Z, dtype=np.float64)
    _check_shapes(X, Z)
    sigma = float(sigma)
    if X.shape[1] > DIRECT_MAX_DIM:
        K = _gaussian_blas(X, Z, sigma, same)
        if K is not None:
            return K
    D = _neg_half_scaled_sqdist(
        read_only(np.ascontiguousarray(X)),
        read_only(np.ascontiguousarray(Z)),
        sigma,
        same,
    )
    return np.exp(D, out=D)


def sigmoid(X: Array, Z: Array, *, scale: float = 1.0, coef0: float = 0.0) -> Array:
    """Sigmoid kernel ``k(x, z) = tanh(a x'z + r)`` (Vapnik 1995; LIBSVM's
    ``-t 3``), shape (n_X, n_Z).

    ``a`` is ``scale``, ``r`` is ``coef0``; scikit-learn's ``sigmoid_kernel``
    writes the same with ``gamma = a``. It is not a Mercer kernel: its Gram
    matrix need not be positive semidefinite for any ``a > 0`` and ``r``
    (Lin & Lin 2003), which :func:`svmlab.kernels.psd.psd_note` says for the data
    at hand. ``tanh`` is bounded, so the values never overflow
    once ``x'z`` is finite.
    """
    X = np.asarray(X, dtype=np.float64)
    Z = np.asarray(Z, dtype=np.float64)
    G = _inner(X, Z)
    with np.errstate(over="ignore", invalid="ignore"):
        G *= float(scale)
        G += float(coef0)
    # a x'z overflows to +-inf only for huge a; tanh(+-inf) = +-1 is the limit.
    return np.tanh(G, out=G)


KERNELS: dict[str, Callable[..., Array]] = {
    "gaussian": gaussian,
    "polynomial": polynomial,
    "linear": linear,
    "sigmoid": sigmoid,
}

#: The kernels whose Gram matrix is positive semidefinite for any data (Mercer
#: kernels): every dual built on them is convex. The sigmoid is not one.
PSD_KERNELS: tuple[str, ...] = ("gaussian", "polynomial", "linear")

TITLES: dict[str, str] = {
    "gaussian": "Gaussian  exp(-‖x − z‖² / 2σ²)",
    "polynomial": "Polynomial  (x'z + a)^p",
    "linear": "Linear  x'z",
    "sigmoid": "Sigmoid  tanh(a x'z + r)",
}


def _check_sigma(sigma: object) -> None:
    if not (is_number(sigma) and math.isfinite(sigma) and sigma > 0):
        raise ParameterError(
            f"sigma must be a positive number; got {plain_value(sigma)}. Any "
            "positive float works (the kernel is then between 0 and 1)."
        )


def _check_shapes(X: Array, Z: Array) -> None:
    if X.ndim != 2 or Z.ndim != 2:
        raise DataError(
            "Kernel inputs must be tables with one row per point and one column "
            "per feature."
        )
    if X.shape[1] != Z.shape[1]:
        raise DataError(
            f"The points have {X.shape[1]} features but the points they are "
            f"compared with have {Z.shape[1]}; both must have the same features."
        )


#: The kernel parameters an estimator may hold beside ``kernel``.
KERNEL_PARAMETERS = ("sigma", "degree", "coef0", "scale")


#: The parameters each kernel reads; the others it neither checks nor uses.
KERNEL_USES: dict[str, tuple[str, ...]] = {
    "gaussian": ("sigma",),
    "polynomial": ("degree", "coef0"),
    "linear": (),
    "sigmoid": ("scale", "coef0"),
}


def kernel_settings(owner: object) -> dict[str, Any]:
    """``kernel`` and those of :data:`KERNEL_PARAMETERS` that ``owner`` (an
    estimator, a :class:`KernelRows`) holds and its kernel reads
    (:data:`KERNEL_USES`), as keywords for :func:`gram`, :class:`KernelRows`
    and :func:`check_kernel_params`. A parameter the kernel ignores is left
    out: it is not checked, so it must not be used either (issue 44, item 5:
    ``coef0=None`` with the Gaussian once failed in ``float()``)."""
    kernel = owner.kernel
    uses = KERNEL_USES.get(kernel, KERNEL_PARAMETERS) if isinstance(kernel, str) else ()
    out: dict[str, Any] = {"kernel": kernel}
    for name in uses:
        if hasattr(owner, name):
            out[name] = getattr(owner, name)
    return out


def check_kernel_params(
    kernel: str,
    *,
    sigma: float = 1.0,
    degree: int = 3,
    coef0: float = 1.0,
    scale: float = 1.0,
) -> None:
    """Raise a plain-sentence error for an unknown kernel or a bad parameter.

    What data-independent checks can tell; :func:`gram` also refuses a Gram
    matrix that would not be finite (a degree too high for the points, say).
    """
    if not isinstance(kernel, str) or kernel not in KERNELS:
        raise UnknownNameError("kernel", kernel, KERNELS)
    if kernel == "gaussian":
        _check_sigma(sigma)
    if kernel == "polynomial":
        if not (
            is_number(degree)
            and math.isfinite(degree)
            and int(degree) == degree
            and 1 <= degree <= MAX_DEGREE
        ):
            raise ParameterError(
                "degree must be a whole number of at least 1 (and at most "
                f"{MAX_DEGREE}); got {plain_value(degree)}."
            )
        if not (is_number(coef0) and math.isfinite(coef0) and coef0 >= 0):
            raise ParameterError(
                "coef0 (the a in (x'z + a)^p) must be a number >= 0; got "
                f"{plain_value(coef0)}."
            )
    if kernel == "sigmoid":
        if not (is_number(scale) and math.isfinite(scale) and scale > 0):
            raise ParameterError(
                "scale (the a in tanh(a x'z + r)) must be a positive number; got "
                f"{plain_value(scale)}."
            )
        if not (is_number(coef0) and math.isfinite(coef0)):
            raise ParameterError(
                "coef0 (the r in tanh(a x'z + r)) must be a finite number; got "
                f"{plain_value(coef0)}."
            )


def gram(
    X: Array,
    Z: Array | None = None,
    *,
    kernel: str = "gaussian",
    sigma: float = 1.0,
    degree: int = 3,
    coef0: float = 1.0,
    scale: float = 1.0,
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
        Polynomial degree p and offset a (``coef0`` is also the sigmoid's r).
    scale
        The sigmoid's slope a in ``tanh(a x'z + r)``.
    """
    check_kernel_params(kernel, sigma=sigma, degree=degree, coef0=coef0, scale=scale)
    same = Z is None or Z is X
    try:
        X = np.asarray(X, dtype=np.float64)
        Z = X if same else np.asarray(Z, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise DataError("Kernel inputs must be tables of numbers.") from error
    _check_shapes(X, Z)
    if kernel == "gaussian":
        return gaussian(X, Z, sigma=sigma)
    if kernel == "polynomial":
        return polynomial(X, Z, degree=int(degree), coef0=float(coef0))
    if kernel == "sigmoid":
        return sigmoid(X, Z, scale=float(scale), coef0=float(coef0))
    return linear(X, Z)
