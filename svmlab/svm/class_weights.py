"""Class weights: a C per class, ``C_+ = C w_+`` and ``C_- = C w_-``.

LIBSVM's ``-wi`` option multiplies C by a weight per class (``svm.cpp``:
``weighted_C``, passed to the solver as ``Cp`` and ``Cn``), so that errors on a
small class cost more and the boundary is not pushed into it. The primal
becomes ``0.5 ||f||^2 + sum_i C_{y_i} loss(m_i)``; in the duals of the hinge
and the squared hinge this is a box bound ``0 <= α_i <= C_{y_i}`` per point
and a diagonal ``1 / C_{y_i}`` per point (Chang & Lin 2011, section 2.1 and
6; Osuna, Freund & Girosi 1997).

``"balanced"`` is scikit-learn's rule: ``w_c = n / (k n_c)`` for k classes,
so that every class carries the same total weight
(:func:`sklearn.utils.class_weight.compute_class_weight`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
from numpy.typing import NDArray
from sklearn.utils.class_weight import compute_class_weight

from svmlab.errors import DataError, ParameterError, plain_value
from svmlab.parameter_checks import is_number

__all__ = ["WEIGHTED_LOSSES", "class_weights", "point_weights"]

#: The losses whose dual takes a C per point.
WEIGHTED_LOSSES = frozenset({"hinge", "squared_hinge"})


def _label(value: object) -> str:
    item = getattr(value, "item", None)
    return str(item() if callable(item) else value)


def _index(classes: NDArray, label: object) -> int | None:
    """The position of ``label`` among ``classes`` by equality (1 finds 1.0),
    or None."""
    for i, c in enumerate(classes):
        if isinstance(c, str) != isinstance(label, str):
            continue
        if bool(c == label):
            return i
    return None


def class_weights(
    class_weight: object, classes: NDArray, y: NDArray
) -> NDArray[np.float64] | None:
    """One weight per class of ``classes`` (None for ``class_weight=None``).

    ``class_weight`` is None, ``"balanced"`` or a dict ``{label: weight}``
    (labels left out weigh 1). Each weight must be a positive finite number and
    each label one of ``classes``; anything else is one plain sentence.
    """
    if class_weight is None:
        return None
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise ParameterError(
                "class_weight must be None, 'balanced' or a dict {class: weight}; "
                f"got {plain_value(class_weight)}."
            )
        return compute_class_weight("balanced", classes=classes, y=y)
    if not isinstance(class_weight, Mapping):
        raise ParameterError(
            "class_weight must be None, 'balanced' or a dict {class: weight}; got "
            f"{plain_value(class_weight)}."
        )
    weights = np.ones(classes.shape[0])
    for label, weight in class_weight.items():
        where = _index(classes, label)
        if where is None:
            names = ", ".join(_label(c) for c in classes)
            raise DataError(
                f"class_weight names the class {_label(label)}, which is not in the "
                f"labels ({names}); weigh only classes that occur."
            )
        if not is_number(weight):
            raise ParameterError(
                f"The weight of class {_label(label)} must be a positive number; "
                f"got {plain_value(weight)}."
            )
        if not (math.isfinite(weight) and weight > 0):
            raise ParameterError(
                f"The weight of class {_label(label)} must be a positive number; "
                f"got {plain_value(weight)}."
            )
        weights[where] = float(weight)
    return weights


def point_weights(
    per_class: NDArray[np.float64] | None, classes: NDArray, y: NDArray
) -> NDArray[np.float64] | None:
    """Each point's weight ``w_{y_i}`` from the per-class weights, shape (n,)."""
    if per_class is None:
        return None
    index = np.searchsorted(classes, y)
    return per_class[index].astype(np.float64)
