"""The numbers behind the kernel views: the Gram matrix in a readable order, one
support vector's bump over the plane, and the degree-2 kernel's explicit lift.

- :func:`gram_order`: samples sorted by class (then by α within a class) or by α
  alone, so the heatmap shows the block structure a kernel sees;
- :func:`bump`: ``αᵢ yᵢ k(xᵢ, x)`` on a grid, one support vector's share of f: the
  Gaussian's σ read as a length scale;
- :func:`poly2_features` and :func:`lift`: for ``k(x, z) = (x·z)²`` the feature map
  ``φ(x) = (x₁², √2 x₁x₂, x₂²)`` with ``φ(x)·φ(z) = k(x, z)``, the data lifted to
  3-D and the model's separating plane ``w·φ + b = 0`` there, ``w = Σ αᵢ yᵢ φ(xᵢ)``.
  (With an offset a ≠ 0 the map has six coordinates, so the 3-D view needs a = 0.)

Pure: no streamlit, no plotly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmlab import kernels
from svmlab.array_types import Array
from svmlab.errors import ParameterError
from svmlab.svm.classifier import SVC

__all__ = ["Lift", "bump", "gram_order", "is_poly2", "lift", "poly2_features"]


def _signs(model: SVC, y: ArrayLike) -> Array:
    return np.where(np.asarray(y) == model.classes_[1], 1.0, -1.0)


def gram_order(y: ArrayLike, alpha: ArrayLike, by: str = "class") -> NDArray[np.intp]:
    """The order of the samples for the heatmap: ``"class"`` (+1 first, each class
    by decreasing α) or ``"alpha"`` (decreasing α)."""
    y = np.asarray(y, dtype=np.float64)
    alpha = np.asarray(alpha, dtype=np.float64)
    if by == "alpha":
        return np.argsort(-alpha, kind="stable")
    if by == "class":
        return np.lexsort((-alpha, -y))
    raise ParameterError(f"by must be 'class' or 'alpha'; got {by!r}.")


def bump(model: SVC, X: ArrayLike, y: ArrayLike, index: int, XY: ArrayLike) -> Array:
    """``αᵢ yᵢ k(xᵢ, x)`` at the points ``XY`` (m, 2): training point ``index``'s
    term of f (without b)."""
    X = np.asarray(X, dtype=np.float64)
    k = kernels.gram(
        X[index : index + 1],
        np.asarray(XY, dtype=np.float64),
        **kernels.kernel_settings(model),
    )
    return model.alpha_[index] * _signs(model, y)[index] * k[0]


def is_poly2(model: SVC) -> bool:
    """Whether the model's kernel is ``(x·z)²``, the one the 3-D lift shows exactly."""
    return model.kernel == "polynomial" and model.degree == 2 and model.coef0 == 0


def poly2_features(X: ArrayLike) -> Array:
    """``φ(x) = (x₁², √2 x₁x₂, x₂²)`` for each row of X (n, 2) → (n, 3)."""
    X = np.asarray(X, dtype=np.float64)
    return np.column_stack(
        [X[:, 0] ** 2, math.sqrt(2.0) * X[:, 0] * X[:, 1], X[:, 1] ** 2]
    )


@dataclass(frozen=True)
class Lift:
    """The lifted data and the plane ``w·φ + b = 0``.

    ``side`` is ``sign(w·φ(xᵢ) + b)``, the side of the plane each point lies on.
    """

    Phi: Array
    w: Array
    b: float
    side: Array


def lift(model: SVC, X: ArrayLike, y: ArrayLike) -> Lift:
    """The training points lifted by :func:`poly2_features` and the model's plane.

    ``model`` must have the kernel ``(x·z)²`` (:func:`is_poly2`).
    """
    if not is_poly2(model):
        raise ParameterError(
            "The 3-D lift is exact for the kernel (x·z)² only: polynomial, degree "
            "2, offset 0."
        )
    Phi = poly2_features(X)
    w = (model.alpha_ * _signs(model, y)) @ Phi
    b = float(np.ravel(model.intercept_)[0])
    return Lift(Phi=Phi, w=w, b=b, side=np.sign(Phi @ w + b))
