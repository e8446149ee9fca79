"""The kernel an estimator names, in svmlab's spelling or scikit-learn's, as the
engine computes it.

Two spellings name the same kernels. svmlab's (Sugiyama's): ``"gaussian"``
``exp(-||x - z||^2 / (2 sigma^2))`` with ``sigma``, ``"polynomial"`` ``(x'z +
coef0)^degree``, ``"sigmoid"`` ``tanh(scale x'z + coef0)``, coef0 1 by default.
scikit-learn's: ``"rbf"`` ``exp(-gamma ||x - z||^2)``, ``"poly"`` ``(gamma x'z +
coef0)^degree``, ``"sigmoid"`` ``tanh(gamma x'z + coef0)``, ``"precomputed"``
(X is the Gram matrix) or a callable ``k(X, Z)``, with ``gamma`` a number,
``"scale"`` (``1 / (d Var(X))``, the default) or ``"auto"`` (``1 / d``) and
coef0 0 by default. ``"linear"`` is both.

An estimator uses one spelling at a time (issue 48): ``gamma`` beside
``sigma`` or ``scale``, ``gamma`` with ``"polynomial"``, or ``sigma``/``scale``
with ``"rbf"``, ``"poly"``, ``"precomputed"`` or a callable is a
:class:`svmlab.errors.ParameterError` that names both. Which spelling a kernel
name takes when nothing else says: ``"gaussian"`` and ``"polynomial"`` are
svmlab's, every other name scikit-learn's; ``"sigmoid"`` with ``scale`` (or
``sigma``, which it ignores) is svmlab's; the default kernel ``"gaussian"``
given a ``gamma`` is scikit-learn's rbf (``SVC(gamma=0.1)``, as scikit-learn
users write it).

:func:`kernel_spec` resolves an estimator's parameters, once per fit, into a
:class:`KernelSpec` in the engine's own terms: the Gaussian's ``sigma =
sqrt(1 / (2 gamma))`` (docs/corrections.md, "Kernels and their
parameterizations"), the sigmoid's ``scale = gamma``, and scikit-learn's
polynomial as svmlab's on the points times ``sqrt(gamma)`` (``(gamma x'z + a)^p
= ((sqrt(gamma) x)'(sqrt(gamma) z) + a)^p``), so that the compiled kernel rows
(:mod:`svmlab.kernels.rows`) serve both spellings unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from svmlab.array_types import Array
from svmlab.errors import DataError, ParameterError, UnknownNameError, plain_value
from svmlab.kernels import (
    KERNEL_PARAMETERS,
    KERNEL_USES,
    KERNELS,
    check_kernel_params,
    gram,
    sigma_from_gamma,
)
from svmlab.kernels.expansion import kernel_expansion
from svmlab.parameter_checks import is_number

__all__ = [
    "KERNEL_NAMES",
    "SCIKIT_LEARN_KERNELS",
    "SVMLAB_KERNELS",
    "KernelSpec",
    "gamma_value",
    "kernel_spec",
    "kernel_to_support",
    "support_expansion",
]

#: Kernel names only svmlab's spelling uses.
SVMLAB_KERNELS = ("gaussian", "polynomial")
#: Kernel names only scikit-learn's spelling uses (besides a callable).
SCIKIT_LEARN_KERNELS = ("rbf", "poly", "precomputed")
#: Every kernel name an estimator accepts.
KERNEL_NAMES = (*SVMLAB_KERNELS, *SCIKIT_LEARN_KERNELS, "linear", "sigmoid")
#: scikit-learn's names of the engine's kernels.
_ENGINE_NAME = {"rbf": "gaussian", "poly": "polynomial"}
#: Defaults of coef0 by spelling: Sugiyama's (x'z + 1)^p, scikit-learn's 0.
_COEF0 = {"svmlab": 1.0, "scikit-learn": 0.0}


@dataclass(frozen=True)
class KernelSpec:
    """A kernel as the engine computes it, whichever spelling named it.

    Attributes
    ----------
    kernel
        A key of :data:`svmlab.kernels.KERNELS`, ``"precomputed"`` or a
        callable ``k(X, Z) -> (n_X, n_Z)``.
    sigma, degree, coef0, scale
        The engine's parameters (:func:`svmlab.kernels.gram`).
    slope
        scikit-learn's ``gamma`` of the polynomial: the points are multiplied
        by ``sqrt(slope)`` before svmlab's ``(x'z + coef0)^degree``.
    gamma
        scikit-learn's ``gamma`` as resolved (``"scale"`` and ``"auto"`` made
        numbers), or None where the kernel was named in svmlab's spelling.
    spelling
        ``"svmlab"`` or ``"scikit-learn"``.
    """

    kernel: str | Callable[..., Any]
    sigma: float = 1.0
    degree: int = 3
    coef0: float = 1.0
    scale: float = 1.0
    slope: float = 1.0
    gamma: float | None = None
    spelling: str = "svmlab"

    @property
    def builtin(self) -> bool:
        """One of the engine's own kernels (not precomputed, not a callable)."""
        return isinstance(self.kernel, str) and self.kernel in KERNELS

    @property
    def precomputed(self) -> bool:
        """X is a Gram matrix (``"precomputed"``) or one is computed from X by
        a callable: no points to keep, only kernel values."""
        return not self.builtin

    def settings(self) -> dict[str, Any]:
        """Keywords of :func:`svmlab.kernels.gram` and
        :class:`svmlab.kernels.KernelRows` (built-in kernels only)."""
        return {
            "kernel": self.kernel,
            "sigma": self.sigma,
            "degree": self.degree,
            "coef0": self.coef0,
            "scale": self.scale,
        }

    def points(self, X: Array) -> Array:
        """The points the engine's kernel takes: X, or ``sqrt(gamma) X`` for
        scikit-learn's polynomial."""
        if self.kernel == "polynomial" and self.slope != 1.0:
            return X * math.sqrt(self.slope)
        return X

    def gram(self, X: Array, Z: Array | None = None) -> Array:
        """``k(X_i, Z_j)`` (Z = X when None) of a built-in kernel."""
        P = self.points(X)
        return gram(P, P if Z is None else self.points(Z), **self.settings())

    def matrix(self, X: Any, Z: Any) -> Array:
        """A callable kernel's ``k(X, Z)`` as a finite float array, or a
        DataError in a plain sentence."""
        K = self.kernel(X, Z)
        if sp.issparse(K):
            K = K.toarray()
        try:
            K = np.asarray(K, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise DataError(
                "The kernel function must return a table of numbers, k(X, Z) of "
                "shape (len(X), len(Z))."
            ) from error
        if K.ndim != 2 or not np.all(np.isfinite(K)):
            raise DataError(
                "The kernel function must return a finite table k(X, Z) of shape "
                "(len(X), len(Z)); it returned "
                + (f"{K.ndim} dimensions." if K.ndim != 2 else "NaN or infinity.")
            )
        return K


def _given(value: object) -> bool:
    return value is not None


def _spelling(owner: Any) -> str:
    """``"svmlab"`` or ``"scikit-learn"``, or a ParameterError for a mix."""
    kernel = owner.kernel
    gamma = getattr(owner, "gamma", None)
    ours = [n for n in ("sigma", "scale") if _given(getattr(owner, n, None))]
    if _given(gamma) and ours:
        raise ParameterError(
            f"gamma and {' and '.join(ours)} are both given: they are two spellings "
            "of the kernel's width (scikit-learn's gamma = 1/(2σ²) for the Gaussian, "
            "the sigmoid's slope). Give one: gamma with kernel 'rbf', 'poly' or "
            "'sigmoid', or sigma with 'gaussian' (scale with 'sigmoid')."
        )
    if callable(kernel) or kernel in SCIKIT_LEARN_KERNELS:
        if ours:
            name = "a kernel function" if callable(kernel) else f"kernel={kernel!r}"
            raise ParameterError(
                f"{' and '.join(ours)} is svmlab's spelling, {name} is "
                "scikit-learn's: give gamma with it (a number, 'scale' or 'auto'), "
                "or use kernel='gaussian' with sigma."
            )
        return "scikit-learn"
    if kernel == "gaussian" and _given(gamma):
        return "scikit-learn"  # the default kernel with gamma: scikit-learn's rbf
    if kernel in SVMLAB_KERNELS:
        if _given(gamma):
            raise ParameterError(
                "gamma is scikit-learn's spelling, kernel='polynomial' is svmlab's "
                "(x'z + coef0)^degree: use kernel='poly' for (gamma x'z + "
                "coef0)^degree, or 'polynomial' without gamma."
            )
        return "svmlab"
    return "svmlab" if ours else "scikit-learn"


def gamma_value(gamma: object, X: Any) -> float:
    """scikit-learn's gamma as a number: ``"scale"`` is ``1 / (d Var(X))`` (1 when
    the variance is 0), ``"auto"`` ``1 / d``, a number itself (> 0, finite).

    ``Var(X)`` is over every entry of X, as scikit-learn's ``X.var()`` (for a
    sparse X, ``E[X^2] - E[X]^2``).
    """
    if gamma is None or (isinstance(gamma, str) and gamma in ("scale", "auto")):
        d = X.shape[1] if getattr(X, "ndim", 0) == 2 and X.shape[1] else 1
        if gamma == "auto":
            return 1.0 / d
        if sp.issparse(X):
            var = float(X.multiply(X).mean() - X.mean() ** 2)
        else:
            with np.errstate(over="ignore", invalid="ignore"):
                var = float(np.asarray(X).var())
        value = 1.0 / (d * var) if var != 0.0 else 1.0
    elif is_number(gamma):
        value = float(gamma)
    else:
        raise ParameterError(
            "gamma must be a positive number, 'scale' (1 / (n_features X.var())) or "
            f"'auto' (1 / n_features); got {plain_value(gamma)}."
        )
    if not (math.isfinite(value) and value > 0.0):
        raise ParameterError(
            f"gamma must be a positive finite number; got {value:g}"
            + (
                f" from gamma={gamma!r} on these data."
                if isinstance(gamma, str) or gamma is None
                else " (gamma = 0 would be an infinitely wide kernel)."
            )
        )
    return value


def _data_gamma(gamma: object) -> bool:
    """Whether scikit-learn's ``gamma`` is read off the points (its default
    None, ``"scale"``, ``"auto"``)."""
    return gamma is None or (isinstance(gamma, str) and gamma in ("scale", "auto"))


def reads_points(owner: Any) -> bool:
    """Whether :func:`kernel_spec` of ``owner`` depends on the training points
    (scikit-learn's spelling, a kernel with a gamma, and gamma resolved from
    X); where it does not, ``kernel_spec(owner)`` is ``kernel_spec(owner, X)``
    and a fit need not build it twice (issue 48)."""
    kernel = owner.kernel
    if callable(kernel) or kernel not in KERNEL_NAMES or kernel == "precomputed":
        return False
    if _spelling(owner) != "scikit-learn":
        return False
    name = _ENGINE_NAME.get(kernel, kernel)
    return name != "linear" and _data_gamma(getattr(owner, "gamma", None))


#: KernelSpec's default of each engine parameter (what an unused one is set to).
_DEFAULTS = {
    name: KernelSpec.__dataclass_fields__[name].default for name in KERNEL_PARAMETERS
}


def kernel_spec(owner: Any, X: Any = None) -> KernelSpec:
    """The kernel of ``owner``'s parameters (``kernel``, ``sigma``, ``gamma``,
    ``degree``, ``coef0``, ``scale``), in the engine's terms.

    ``X`` (the training points) is needed only for ``gamma="scale"``/``"auto"``
    of scikit-learn's spelling; without it (None) the parameters are checked
    with a stand-in gamma of 1. Raises :class:`ParameterError` for a mix of
    spellings or a bad value and :class:`UnknownNameError` for an unknown kernel
    name; the engine's own checks (:func:`svmlab.kernels.check_kernel_params`)
    run on the result.
    """
    kernel = owner.kernel
    if not callable(kernel) and (
        not isinstance(kernel, str) or kernel not in KERNEL_NAMES
    ):
        raise UnknownNameError("kernel", kernel, KERNEL_NAMES)
    spelling = _spelling(owner)
    coef0 = getattr(owner, "coef0", None)
    coef0 = _COEF0[spelling] if coef0 is None else coef0
    degree = getattr(owner, "degree", 3)
    if callable(kernel) or kernel == "precomputed":
        return KernelSpec(kernel, spelling=spelling, coef0=coef0, degree=degree)
    name = _ENGINE_NAME.get(kernel, kernel)
    if spelling == "svmlab":
        sigma = getattr(owner, "sigma", None)
        scale = getattr(owner, "scale", None)
        fields = {
            "sigma": 1.0 if sigma is None else sigma,
            "degree": degree,
            "coef0": coef0,
            "scale": 1.0 if scale is None else scale,
        }
    elif name == "linear":
        fields = {"degree": degree, "coef0": coef0, "spelling": spelling}
    else:
        gamma = getattr(owner, "gamma", None)
        gamma = 1.0 if X is None and _data_gamma(gamma) else gamma_value(gamma, X)
        fields = {
            "sigma": sigma_from_gamma(gamma) if name == "gaussian" else 1.0,
            "degree": degree,
            "coef0": coef0,
            "scale": gamma if name == "sigmoid" else 1.0,
            "slope": gamma if name == "polynomial" else 1.0,
            "gamma": gamma,
            "spelling": spelling,
        }
    # A parameter the kernel does not read is neither checked nor used (issue
    # 44, item 5: the linear one-class SVM once divided by sigma = 0): the
    # engine gets its default. Set before the spec is built, not replaced in
    # it after (dataclasses.replace: 5 us of each of a fit's two calls, issue 48).
    uses = KERNEL_USES[name]
    for field in KERNEL_PARAMETERS:
        if field not in uses:
            fields[field] = _DEFAULTS[field]
    spec = KernelSpec(name, **fields)
    check_kernel_params(**spec.settings())
    return spec


def kernel_to_support(
    spec: KernelSpec,
    X: Any,
    *,
    support: Array,
    support_vectors: Any,
    X_fit: Any = None,
) -> Array:
    """``k(x, sv_j)`` for every row of X and support vector j, shape (m, n_SV).

    A built-in kernel evaluates the points; ``"precomputed"`` takes X's columns
    of the support vectors (X holds ``k(x, x_i)`` for every training point
    ``x_i``); a callable is evaluated against the training points ``X_fit`` and
    its columns of the support vectors kept (scikit-learn's rule).
    """
    if spec.builtin:
        if sp.issparse(support_vectors):
            support_vectors = support_vectors.toarray()
        return spec.gram(X, support_vectors)
    if spec.kernel == "precomputed":
        return np.asarray(X, dtype=np.float64)[:, support]
    K = spec.matrix(X, X_fit)
    n_fit = K.shape[1]
    if support.size and support.max(initial=-1) >= n_fit:
        raise DataError(
            f"The kernel function returned {n_fit} columns for the "
            f"{int(support.max()) + 1}+ training points; it must return k(X, "
            "X_train), one column per training point."
        )
    return K[:, support]


def support_expansion(
    spec: KernelSpec,
    X: Any,
    coef: Array,
    *,
    support: Array,
    support_vectors: Any,
    X_fit: Any = None,
) -> Array:
    """``sum_j coef_j k(x, sv_j)`` for every row of X, shape (m,).

    A built-in kernel on dense points goes through
    :func:`svmlab.kernels.expansion.kernel_expansion`, on both cores for a large
    X (issue 48) and without forming the (m, n_SV) matrix; anything else is
    :func:`kernel_to_support` times ``coef``.
    """
    if spec.builtin and not sp.issparse(X):
        if sp.issparse(support_vectors):
            support_vectors = support_vectors.toarray()
        return kernel_expansion(
            spec.points(np.asarray(X, dtype=np.float64)),
            spec.points(np.asarray(support_vectors, dtype=np.float64)),
            coef,
            **spec.settings(),
        )
    K = kernel_to_support(
        spec, X, support=support, support_vectors=support_vectors, X_fit=X_fit
    )
    return K @ coef
