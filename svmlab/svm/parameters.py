"""How every svmlab estimator declares its parameters: once, as dataclass fields.

scikit-learn reads an estimator's parameters from the signature of its
``__init__``, which must store each one verbatim (STYLE rule 9). Written by
hand, that is every name three times (signature, body, docstring) and the same
list again in each estimator that shares it. Declared as keyword-only dataclass
fields, the dataclass writes that ``__init__``; a group of parameters that
several estimators share (the kernel and solver settings, a binary C-SVM's
settings that the multiclass reductions pass on) is declared once in a base
class, and an estimator adds its own fields or a new default.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields
from typing import Any

from sklearn.base import BaseEstimator

__all__ = [
    "BinarySVMParameters",
    "KernelCParameters",
    "KernelSpellings",
    "PairwiseParameters",
    "field_names",
    "parameters",
]

#: Class decorator: the fields become keyword-only ``__init__`` parameters;
#: ``repr`` and equality stay scikit-learn's (BaseEstimator's repr, identity).
parameters = dataclass(eq=False, repr=False, kw_only=True)


@functools.cache
def field_names(cls: type) -> tuple[str, ...]:
    """The parameter names a :data:`parameters` class declares (its bases' too);
    read once per class (a class's fields are fixed when it is made, and a
    one-vs-one fit asks each time: issue 48)."""
    return tuple(f.name for f in fields(cls))


@parameters
class KernelCParameters(BaseEstimator):
    """C and the kernel's settings: the first parameters of every C-SVM
    classifier (:class:`svmlab.SVC`, the reductions, Crammer-Singer)."""

    C: float = 1.0
    kernel: str = "gaussian"
    sigma: float = 1.0
    degree: int = 3
    coef0: float = 1.0


@parameters
class BinarySVMParameters(KernelCParameters):
    """A binary C-SVM's settings: :class:`svmlab.SVC`'s, and those the
    one-vs-rest and one-vs-one reductions hand to every binary machine."""

    loss: str = "hinge"
    delta: float = 0.1
    solver: str = "auto"
    bias: str = "unregularized"
    tol: float = 1e-3
    max_iter: int | None = None
    solver_options: dict[str, Any] | None = None
    random_state: int | None = None
    max_seconds: float | None = None


@parameters
class KernelSpellings(BaseEstimator):
    """The kernel's parameters in svmlab's spelling and scikit-learn's
    (:mod:`svmlab.svm.kernel_spec`), for the estimators that speak both
    (:class:`svmlab.SVC`, :class:`svmlab.NuSVC`, :class:`svmlab.OneClassSVM`,
    :class:`svmlab.SVR`, :class:`svmlab.NuSVR`). None is "not given": the
    spelling's default then (sigma 1, scale 1, coef0 1 in svmlab's; gamma
    ``"scale"``, coef0 0 in scikit-learn's)."""

    sigma: float | None = None
    gamma: float | str | None = None
    coef0: float | None = None
    scale: float | None = None


@parameters
class PairwiseParameters(BaseEstimator):
    """scikit-learn's settings of a one-vs-one classifier with Platt's
    probabilities (:mod:`svmlab.svm.libsvm_layout`): :class:`svmlab.SVC`'s and
    :class:`svmlab.NuSVC`'s."""

    probability: bool = False
    decision_function_shape: str = "ovr"
    break_ties: bool = False
